// libFuzzer harness: the dump's JSON reader (ingest/json_reader.cc), checked
// against nlohmann::json: both accept or reject the same texts, and an
// accepted text reads and re-serialises the same. Also ParseJsonLimited (the
// bound parser for API bodies) and JsonArrayFile on a file of the input.
#include "fixgraph/ingest/json_array_file.h"
#include "fixgraph/ingest/json_reader.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

using fixgraph::Status;
using fixgraph::ingest::JsonArrayFile;
using fixgraph::ingest::JsonDoc;
using fixgraph::ingest::JsonValue;

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_json_reader: %s\n", what);
    std::abort();
  }
}

// Walks every value (the accessors must not read out of bounds).
void Walk(const JsonValue& v, int depth) {
  (void)v.type_name();
  (void)v.raw();
  if (v.is_string()) (void)v.str();
  if (v.is_integer()) (void)v.integer();
  if (v.is_boolean()) (void)v.boolean();
  if (v.is_object()) (void)v.Find("id");
  v.ForEachElement([&](const JsonValue& c) { Walk(c, depth + 1); });
}

std::string TempPath() {
  static std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/fuzz_json_reader." + std::to_string(::getpid());
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  JsonDoc doc;
  Status s = doc.Parse(text);
  // nlohmann: the reference (its depth limit is none, ours JsonDoc::kMaxDepth).
  // nlohmann stops at a NUL byte ("7\0x" is 7 to it); JsonDoc refuses the
  // trailing bytes, rightly. Compared only without NUL bytes.
  bool comparable = text.find('\0') == std::string_view::npos;
  bool accepted = comparable && nlohmann::json::accept(text);
  if (s.ok()) {
    Check(accepted, "JsonDoc accepted what nlohmann rejects");
    Walk(doc.root(), 0);
    nlohmann::json j = nlohmann::json::parse(text);
    std::string dumped;
    if (doc.WriteDump(&dumped)) Check(dumped == j.dump(), "WriteDump differs from dump()");
    nlohmann::json limited;
    Check(fixgraph::ingest::ParseJsonLimited(text, &limited).ok(), "ParseJsonLimited refused");
    Check(limited == j, "ParseJsonLimited read another value");
  } else {
    Check(s.IsCorruption() && s.message().rfind("byte ", 0) == 0, "error without a byte offset");
    if (comparable && s.message().find("nest too deep") == std::string::npos)
      Check(!accepted, "JsonDoc rejected what nlohmann accepts");
  }
  // The streaming reader over the same bytes as a file.
  std::string path = TempPath();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    JsonArrayFile file;
    Status fs = file.ForEach(path, [](const JsonDoc& d, std::size_t) {
      Walk(d.root(), 0);
      return Status::OK();
    });
    if (s.ok() && doc.root().is_array()) Check(fs.ok(), "JsonArrayFile refused a valid array");
    std::remove(path.c_str());
  }
  return 0;
}
