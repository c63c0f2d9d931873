// libFuzzer harness: the query analyzer (query/analyzer.cc): Normalize,
// NormalizeKeepCase, Analyze and StemWord on any bytes (invalid UTF-8 too).
#include "analyzer.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)fixgraph::query::Normalize(text);
  (void)fixgraph::query::NormalizeKeepCase(text);
  std::uint32_t last = 0;
  for (const auto& term : fixgraph::query::Analyze(text)) {
    if (term.pos < last) std::abort();  // positions never go back
    last = term.pos;
  }
  (void)fixgraph::query::StemWord(text.substr(0, 64));
  return 0;
}
