#include "fixgraph/ingest/json_stream.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

namespace fixgraph::ingest {
namespace {

using nlohmann::json;

constexpr size_t kReadBufferBytes = 1 << 20;

// Thrown from the parser callback to stop parsing; never escapes this file.
struct StopParsing {};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Input iterator over a FILE* with a large buffer; nlohmann's parser reads
// through it one byte at a time without a virtual call per byte.
class FileBytes {
 public:
  // The buffer fits small files exactly (most dump files are a few KB).
  explicit FileBytes(std::FILE* f) : f_(f) {
    struct stat st {};
    size_t size = kReadBufferBytes;
    if (fstat(fileno(f), &st) == 0 && st.st_size >= 0 &&
        static_cast<size_t>(st.st_size) < kReadBufferBytes)
      size = static_cast<size_t>(st.st_size) + 1;
    cap_ = size;
    buf_.reset(new char[cap_]);
  }
  int Next() {
    if (pos_ == len_) {
      if (error_ || eof_) return EOF;
      len_ = std::fread(buf_.get(), 1, cap_, f_);
      pos_ = 0;
      if (len_ == 0) {
        if (std::ferror(f_)) error_ = true;
        eof_ = true;
        return EOF;
      }
    }
    return static_cast<unsigned char>(buf_[pos_++]);
  }
  bool error() const { return error_; }

 private:
  std::FILE* f_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0, pos_ = 0, len_ = 0;
  bool eof_ = false, error_ = false;
};

class ByteIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  ByteIterator() = default;
  explicit ByteIterator(FileBytes* src) : src_(src) { Advance(); }
  char operator*() const { return static_cast<char>(cur_); }
  ByteIterator& operator++() {
    Advance();
    return *this;
  }
  ByteIterator operator++(int) {
    ByteIterator tmp = *this;
    Advance();
    return tmp;
  }
  bool operator==(const ByteIterator& o) const { return AtEnd() == o.AtEnd(); }
  bool operator!=(const ByteIterator& o) const { return !(*this == o); }

 private:
  bool AtEnd() const { return src_ == nullptr || cur_ == EOF; }
  void Advance() {
    if (src_ != nullptr) cur_ = src_->Next();
  }
  FileBytes* src_ = nullptr;
  int cur_ = EOF;
};

StatusOr<std::unique_ptr<std::FILE, FileCloser>> OpenFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::IOError(path + ": cannot open: " + std::strerror(errno));
  return std::unique_ptr<std::FILE, FileCloser>(f);
}

// Files up to this size are read whole and parsed without a per-token callback
// (most files of a dump are one item's comments or commits).
constexpr long kWholeFileBytes = 256 * 1024;

std::string ParseErrorText(const json::parse_error& e) {
  std::string what = e.what();
  // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, column 5: ".
  size_t colon = what.find(": ");
  if (colon != std::string::npos) what = what.substr(colon + 2);
  return what;
}

Status ForEachInWholeFile(const std::string& path, std::FILE* f, long size,
                          const std::function<Status(json& element, size_t index)>& fn) {
  std::string text(static_cast<size_t>(size), '\0');
  if (size > 0 && std::fread(text.data(), 1, text.size(), f) != text.size())
    return Status::IOError(path + ": read error");
  json top;
  try {
    top = json::parse(text);
  } catch (const json::parse_error& e) {
    return Status::Corruption(path + ": byte " + std::to_string(e.byte) + ": " + ParseErrorText(e));
  }
  if (!top.is_array()) return Status::Corruption(path + ": expected a JSON array at the top level");
  for (size_t i = 0; i < top.size(); ++i) {
    Status s = fn(top[i], i);
    if (!s.ok()) return s.WithContext(path + ": item " + std::to_string(i));
  }
  return Status::OK();
}

}  // namespace

Status ForEachArrayElement(const std::string& path,
                           const std::function<Status(json& element, size_t index)>& fn) {
  FG_ASSIGN_OR_RETURN(auto file, OpenFile(path));
  struct stat st {};
  if (fstat(fileno(file.get()), &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kWholeFileBytes)
    return ForEachInWholeFile(path, file.get(), static_cast<long>(st.st_size), fn);
  FileBytes bytes(file.get());
  Status status;
  size_t index = 0;
  bool top_checked = false;
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) -> bool {
    if (!top_checked) {
      top_checked = true;
      if (!(depth == 0 && event == json::parse_event_t::array_start)) {
        status = Status::Corruption(path + ": expected a JSON array at the top level");
        throw StopParsing{};
      }
      return true;
    }
    bool element_done = depth == 1 && (event == json::parse_event_t::object_end ||
                                       event == json::parse_event_t::array_end ||
                                       event == json::parse_event_t::value);
    if (!element_done) return true;
    status = fn(parsed, index);
    if (!status.ok()) {
      status = status.WithContext(path + ": item " + std::to_string(index));
      throw StopParsing{};
    }
    ++index;
    return false;  // discard the element: memory stays flat
  };
  try {
    json top = json::parse(ByteIterator(&bytes), ByteIterator(), callback, /*allow_exceptions=*/true,
                           /*ignore_comments=*/false);
    (void)top;  // an empty array: every element was handed to fn and discarded
  } catch (const StopParsing&) {
    return status;
  } catch (const json::parse_error& e) {
    if (bytes.error()) return Status::IOError(path + ": read error");
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, column 5: ".
    size_t colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return Status::Corruption(path + ": byte " + std::to_string(e.byte) + ": " + what);
  } catch (const json::exception& e) {
    return Status::Corruption(path + ": " + e.what());
  }
  if (bytes.error()) return Status::IOError(path + ": read error");
  return Status::OK();
}

StatusOr<json> ReadJsonFile(const std::string& path) {
  FG_ASSIGN_OR_RETURN(auto file, OpenFile(path));
  FileBytes bytes(file.get());
  try {
    return json::parse(ByteIterator(&bytes), ByteIterator());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    size_t colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return Status::Corruption(path + ": byte " + std::to_string(e.byte) + ": " + what);
  }
}

}  // namespace fixgraph::ingest
