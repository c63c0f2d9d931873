// TarArchive: the member index of an uncompressed tar file, so that a dump
// packed into one archive (`tar -cf dump.tar -C DUMP .`) is imported without
// unpacking it. Private to ingest/ (dump.cc reads a repository's files through
// it; see dump.h).
//
// Why: a dump holds one to three small files per issue and PR, four million
// files at a million issues; read cold, each costs the kernel a directory
// lookup, an inode and a block read (docs/benchmarks.md, "Import of a dump
// larger than the page cache"). The same bytes in one archive are read front
// to back.
//
// Formats: POSIX ustar, GNU tar (long names, base-256 sizes) and pax
// (`path` and `size` records of an extended header), as GNU tar and bsdtar
// write them. Compressed archives (gzip, bzip2, xz, zstd) are refused with a
// message saying to decompress them first: reading members at their offsets
// needs the plain bytes.
//
// Open() reads the archive's headers front to back, skipping member data it
// need not read (a large member's bytes are passed with a seek). Memory: one
// Member and its path per member (about 90 bytes each with a dump's paths).
//
// Thread safety: immutable after Open(); members are read with pread on an
// fd of the reader's own (OpenReader), so threads read in parallel.
#pragma once

#include "fixgraph/engine/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::ingest {

class TarArchive {
 public:
  enum class Kind : std::uint8_t { kFile, kDirectory, kLink, kOther };
  struct Member {
    std::string_view path;  // without a leading "./" or a trailing '/'
    std::uint64_t offset;   // of the member's first data byte in the archive
    std::uint64_t size;
    Kind kind;
  };

  // Reads the member index of the tar file at `path`.
  // Errors: IOError when unreadable; InvalidArgument "<path>: compressed
  // (gzip); ..." or "<path>: not a tar archive"; Corruption "<path>: byte N:
  // ..." for a bad header checksum, a bad size field or a member that runs
  // past the end of the file.
  static StatusOr<std::unique_ptr<const TarArchive>> Open(const std::string& path);

  const std::string& path() const { return path_; }
  const std::vector<Member>& members() const { return members_; }  // in archive order

  // The member whose path is exactly `path` (the last one when the archive
  // holds it twice, as tar's own extraction keeps), or nullptr.
  const Member* Find(std::string_view path) const;

  // Calls fn(member) for each member whose path starts with `prefix`, in
  // path order.
  template <typename Fn>
  void ForEachUnder(std::string_view prefix, Fn fn) const {
    for (auto it = LowerBound(prefix); it != by_path_.end(); ++it) {
      const Member& m = members_[*it];
      if (m.path.substr(0, prefix.size()) != prefix) break;
      fn(m);
    }
  }

  // An fd of the archive for one reader (its own readahead state); the
  // caller closes it. Errors: IOError naming the archive.
  StatusOr<int> OpenReader() const;

  // Reads member `m`'s whole data through `fd` (from OpenReader) into `out`.
  // Errors (naming `name`, the member as the caller calls it, and the byte
  // offset): IOError on a read error, Corruption when the archive ends first.
  static Status ReadMember(int fd, const Member& m, const std::string& name, std::string* out);

 private:
  TarArchive() = default;
  void IndexByPath();  // fills by_path_ from members_
  std::vector<std::uint32_t>::const_iterator LowerBound(std::string_view path) const;

  // Copies `path` into the arena; the view stays valid as long as the archive.
  std::string_view Keep(std::string_view path);

  std::string path_;
  std::vector<std::unique_ptr<char[]>> arena_;  // member paths, in blocks
  std::size_t arena_used_ = 0, arena_cap_ = 0;  // of the last block
  std::vector<Member> members_;                 // archive order
  std::vector<std::uint32_t> by_path_;  // indices of members_, by path (ties: archive order)
};

}  // namespace fixgraph::ingest
