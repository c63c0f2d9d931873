#include "fixgraph/ingest/json_array_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace fixgraph::ingest {

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr std::size_t kWholeFileBytes = 4 << 20;  // read whole up to this size
constexpr std::size_t kChunkBytes = 1 << 20;      // then in chunks of this size

// The first byte at or after `p` that is not JSON whitespace (RFC 8259: space,
// tab, line feed, carriage return), or text.size().
std::size_t SkipWhitespace(std::string_view text, std::size_t p) {
  while (p < text.size()) {
    char c = text[p];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
    ++p;
  }
  return p;
}

}  // namespace

JsonArrayFile::JsonArrayFile() = default;
JsonArrayFile::~JsonArrayFile() { Close(); }

void JsonArrayFile::Close() {
  if (fd_ >= 0 && own_fd_) ::close(fd_);
  fd_ = -1;
  own_fd_ = false;
  region_ = false;
  base_ = 0;
}

// Plain open/read (no stdio buffer in between: a whole file goes straight
// into buf_ with one read, and the size from fstat ends it without another).
Status JsonArrayFile::Open(int dir_fd, const char* name, const std::string& path) {
  Close();
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
  do {
    fd_ = dir_fd >= 0 ? ::openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
                      : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) return Status::IOError(path + ": cannot open: " + std::strerror(errno));
  own_fd_ = true;
  struct stat st {};
  if (fstat(fd_, &st) != 0) return Status::IOError(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return Status::InvalidArgument(path + ": not a regular file (" +
                                   (S_ISDIR(st.st_mode)    ? "a directory"
                                    : S_ISFIFO(st.st_mode) ? "a FIFO"
                                    : S_ISSOCK(st.st_mode) ? "a socket"
                                                           : "a device") +
                                   ")");
  return Reset(path, st.st_size >= 0 ? static_cast<std::int64_t>(st.st_size) : -1);
}

Status JsonArrayFile::OpenRegion(int fd, std::uint64_t offset, std::uint64_t size,
                                 const std::string& path) {
  Close();
  fd_ = fd;
  region_ = true;
  base_ = offset;
  return Reset(path, static_cast<std::int64_t>(size));
}

Status JsonArrayFile::Reset(const std::string& path, std::int64_t size) {
  path_ = path;
  pos_ = len_ = 0;
  consumed_ = 0;
  eof_ = false;
  size_ = size;
  state_ = State::kStart;
  std::size_t want = kChunkBytes;
  if (size >= 0 && static_cast<std::uint64_t>(size) < kWholeFileBytes)
    want = static_cast<std::size_t>(size) + 1;
  if (buf_.size() < want || buf_.size() > 4 * kWholeFileBytes) buf_.resize(want);
  return Fill();
}

Status JsonArrayFile::Fill() {
  if (eof_) return Status::OK();
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
    consumed_ += pos_;
    len_ -= pos_;
    pos_ = 0;
  }
  if (len_ == buf_.size()) buf_.resize(buf_.size() * 2);  // one element larger than the buffer
  // Fills the buffer, or reads to the end of the file (the size fstat gave
  // for a regular file; a read of 0 bytes otherwise).
  while (len_ < buf_.size()) {
    if (size_ >= 0 && consumed_ + len_ >= static_cast<std::uint64_t>(size_)) {
      eof_ = true;
      break;
    }
    std::size_t room = buf_.size() - len_;
    if (region_)
      room = std::min<std::uint64_t>(room, static_cast<std::uint64_t>(size_) - consumed_ - len_);
    ssize_t got = region_ ? ::pread(fd_, buf_.data() + len_, room,
                                    static_cast<off_t>(base_ + consumed_ + len_))
                          : ::read(fd_, buf_.data() + len_, room);
    if (got < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(path_ + ": read error: " + std::strerror(errno));
    }
    if (got == 0) {
      eof_ = true;
      break;
    }
    len_ += static_cast<std::size_t>(got);
  }
  return Status::OK();
}

Status JsonArrayFile::SyntaxError(std::size_t error_pos, const Status& what) const {
  return Status::Corruption(path_ + ": byte " + std::to_string(consumed_ + error_pos + 1) + ": " +
                            what.message());
}

Status JsonArrayFile::Next(bool* done) {
  *done = false;
  for (;;) {
    std::string_view text(buf_.data(), len_);
    std::size_t p = SkipWhitespace(text, pos_);
    if (p >= len_) {
      if (!eof_) {
        FG_RETURN_IF_ERROR(Fill());
        continue;
      }
      if (state_ == State::kEnd) {
        *done = true;
        return Status::OK();
      }
      return SyntaxError(
          len_, Status::Corruption(
                    state_ == State::kStart ? "syntax error: unexpected end of input; expected '['"
                    : state_ == State::kCommaOrEnd
                        ? "syntax error: unexpected end of input; expected ',' or ']'"
                        : "syntax error: unexpected end of input; expected a value"));
    }
    char c = buf_[p];
    switch (state_) {
      case State::kStart:
        if (consumed_ + p == 0 && len_ >= 3 && std::string_view(buf_.data(), 3) == kUtf8Bom) {
          pos_ = 3;  // a UTF-8 byte order mark: skipped (as nlohmann does)
          continue;
        }
        if (c != '[') return Status::Corruption(path_ + ": expected a JSON array at the top level");
        pos_ = p + 1;
        state_ = State::kFirstOrEnd;
        continue;
      case State::kFirstOrEnd:
        if (c == ']') {
          pos_ = p + 1;
          state_ = State::kEnd;
          continue;
        }
        break;
      case State::kValue:
        break;
      case State::kCommaOrEnd:
        if (c == ']') {
          pos_ = p + 1;
          state_ = State::kEnd;
        } else if (c == ',') {
          pos_ = p + 1;
          state_ = State::kValue;
        } else {
          return SyntaxError(p, Status::Corruption("syntax error: unexpected '" +
                                                   std::string(1, c) + "'; expected ',' or ']'"));
        }
        continue;
      case State::kEnd:
        return SyntaxError(p, Status::Corruption("syntax error: unexpected text after the array"));
    }
    std::size_t end = 0, err = 0;
    Status s = doc_.ParseValue(text, p, &end, &err);
    if (!s.ok()) {
      if (err >= len_ && !eof_) {
        FG_RETURN_IF_ERROR(Fill());
        continue;
      }
      return SyntaxError(err, s);
    }
    // A value that ends at the buffer's end may go on (a number): read more first.
    if (end >= len_ && !eof_) {
      FG_RETURN_IF_ERROR(Fill());
      continue;
    }
    pos_ = end;
    state_ = State::kCommaOrEnd;
    return Status::OK();
  }
}

}  // namespace fixgraph::ingest
