// gen_dump_output.cc: fixgraph_gen_dump's output files (contract in gen_dump_output.h).

#include "gen_dump_output.h"

#include <stdexcept>
#include <string>

namespace gen_dump {

OutputFile::OutputFile(const fs::path& path, size_t buffer_size) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) throw std::runtime_error("cannot create " + path.string());
  // Unbuffered (0) suits a file written in one piece: no buffer, no fstat, one write.
  std::setvbuf(file_, nullptr, buffer_size > 0 ? _IOFBF : _IONBF, buffer_size);
}

OutputFile::~OutputFile() {
  if (file_ != nullptr) std::fclose(file_);
}

uint64_t OutputFile::Close() {
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) Fail();
  return bytes_;
}

void OutputFile::Fail() const { throw std::runtime_error("cannot write " + path_.string()); }

JsonArrayFile::JsonArrayFile(const fs::path& path, Stats& stats)
    : file_(path, kBufferSize), stats_(stats) {
  file_.Write("[");
}

void JsonArrayFile::Finish() {
  file_.Write("]\n");
  stats_.bytes += file_.Close();
  ++stats_.files;
}

void WriteJsonFile(const fs::path& path, const Json& value, Stats& stats) {
  std::string text = value.dump();
  text += '\n';
  OutputFile file(path, 0);
  file.Write(text);
  stats.bytes += file.Close();
  ++stats.files;
}

TruthFile::TruthFile(const fs::path& path) {
  if (path.empty()) return;
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  file_ = std::make_unique<OutputFile>(path, JsonArrayFile::kBufferSize);
}

void TruthFile::Finish() {
  if (enabled()) file_->Close();
}

}  // namespace gen_dump
