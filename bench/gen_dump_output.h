// gen_dump_output.h: the files fixgraph_gen_dump writes, and what it counts. OutputFile writes
// through stdio; JsonArrayFile streams one JSON array element by element (so issues.json never
// sits in memory); WriteJsonFile writes a small document in one piece; TruthFile streams the
// answer key as JSON lines, or nothing without a path. Errors throw std::runtime_error naming
// the path.
#pragma once

#include "gen_dump_shape.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string_view>

namespace gen_dump {

struct Stats {
  uint64_t repos = 0, issues = 0, prs = 0, comments = 0, files = 0, bytes = 0;
};

// A file written through stdio and closed by its owner; errors name the path.
class OutputFile {
 public:
  // buffer_size 0: unbuffered, for a file written in one piece.
  OutputFile(const fs::path& path, size_t buffer_size);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  void Write(std::string_view text) {
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) Fail();
    bytes_ += text.size();
  }
  // Returns the bytes written.
  uint64_t Close();

 private:
  [[noreturn]] void Fail() const;

  fs::path path_;
  std::FILE* file_ = nullptr;
  uint64_t bytes_ = 0;
};

// Streams one JSON array to a file, element by element; Finish counts the file in stats.
class JsonArrayFile {
 public:
  static constexpr size_t kBufferSize = 1 << 20;

  JsonArrayFile(const fs::path& path, Stats& stats);

  void Add(const Json& element) {
    if (count_++ > 0) file_.Write(",");
    file_.Write(element.dump());
  }
  void Finish();

 private:
  OutputFile file_;
  Stats& stats_;
  uint64_t count_ = 0;
};

// value and a line break, counted in stats.
void WriteJsonFile(const fs::path& path, const Json& value, Stats& stats);

// The answer key: JSON lines, streamed; does nothing without a path.
class TruthFile {
 public:
  explicit TruthFile(const fs::path& path);
  bool enabled() const { return file_ != nullptr; }
  void Add(const Json& line) {
    file_->Write(line.dump());
    file_->Write("\n");
  }
  void Finish();

 private:
  std::unique_ptr<OutputFile> file_;
};

}  // namespace gen_dump
