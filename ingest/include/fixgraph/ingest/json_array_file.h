// JsonArrayFile: streams the top-level JSON array of a file, one element at a
// time, through a JsonDoc (see json_reader.h for what the parser accepts and
// how it reports errors).
//
// Memory is bounded by the largest element: files under a few MB are read
// whole with one read(2), larger ones in chunks that grow only when a single
// element does not fit. Only regular files are read (a FIFO, socket, device or
// directory is refused without blocking).
//
// Thread safety: one JsonArrayFile per thread; it may be reused for many files
// (its buffers stay allocated).
#pragma once

#include "fixgraph/engine/status.h"
#include "fixgraph/ingest/json_reader.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace fixgraph::ingest {

// Reads the top-level array of a file one element at a time, in memory
// bounded by the largest element (files up to a few MB are read whole).
class JsonArrayFile {
 public:
  JsonArrayFile();
  ~JsonArrayFile();
  JsonArrayFile(const JsonArrayFile&) = delete;
  JsonArrayFile& operator=(const JsonArrayFile&) = delete;

  // Calls fn(element, index) for each element of the array in `path`. The
  // element's doc (and raw bytes) are valid during the call only. Errors
  // name the file: "<path>: byte N: ...", "<path>: item I: <fn's error>",
  // "<path>: expected a JSON array at the top level"; IOError when unreadable;
  // InvalidArgument "<path>: not a regular file (a FIFO)" for anything but a
  // regular file (a symbolic link to one is followed).
  template <typename Fn>
  Status ForEach(const std::string& path, Fn fn) {
    return ForEachAt(-1, nullptr, path, fn);
  }
  // The same for the file `name` in the open directory `dir_fd` (openat: no
  // walk of the whole path per file); `path` names it in errors.
  template <typename Fn>
  Status ForEachAt(int dir_fd, const char* name, const std::string& path, Fn fn);
  // The same for the `size` bytes at `offset` of the open file `fd` (a member
  // of an archive, read with pread: `fd` is neither moved nor closed); `path`
  // names it in errors, and byte positions count from `offset`.
  template <typename Fn>
  Status ForEachIn(int fd, std::uint64_t offset, std::uint64_t size, const std::string& path,
                   Fn fn);

 private:
  template <typename Fn>
  Status Each(Status opened, const std::string& path, Fn fn);
  Status Open(int dir_fd, const char* name, const std::string& path);
  Status OpenRegion(int fd, std::uint64_t offset, std::uint64_t size, const std::string& path);
  Status Reset(const std::string& path, std::int64_t size);  // sizes buf_, reads the first part
  // Next element into doc_; *done at the closing bracket.
  Status Next(bool* done);
  Status Fill();  // reads more input, keeping buf_[pos_..len_)
  Status SyntaxError(std::size_t error_pos, const Status& what) const;
  void Close();

  std::string path_;
  int fd_ = -1;
  bool own_fd_ = false;     // opened here (closed by Close)
  std::uint64_t base_ = 0;  // offset of the input's first byte in fd_ (a region)
  bool region_ = false;     // read with pread from base_ (OpenRegion)
  std::int64_t size_ = -1;  // of a regular file at Open; -1 when unknown
  std::string buf_;
  std::size_t pos_ = 0, len_ = 0;
  std::uint64_t consumed_ = 0;  // file offset of buf_[0]
  bool eof_ = false;
  enum class State { kStart, kFirstOrEnd, kValue, kCommaOrEnd, kEnd } state_ = State::kStart;
  JsonDoc doc_;
};

template <typename Fn>
Status JsonArrayFile::ForEachAt(int dir_fd, const char* name, const std::string& path, Fn fn) {
  return Each(Open(dir_fd, name, path), path, fn);
}

template <typename Fn>
Status JsonArrayFile::ForEachIn(int fd, std::uint64_t offset, std::uint64_t size,
                                const std::string& path, Fn fn) {
  return Each(OpenRegion(fd, offset, size, path), path, fn);
}

template <typename Fn>
Status JsonArrayFile::Each(Status opened, const std::string& path, Fn fn) {
  Status s = std::move(opened);
  for (std::size_t index = 0; s.ok(); ++index) {
    bool done = false;
    s = Next(&done);
    if (!s.ok() || done) break;
    s = fn(doc_, index);
    if (!s.ok()) s = s.WithContext(path + ": item " + std::to_string(index));
  }
  Close();
  return s;
}

}  // namespace fixgraph::ingest
