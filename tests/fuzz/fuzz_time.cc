// libFuzzer harness: the timestamp and UTC offset parsers (engine/time.cc),
// with the round trip of a parsed time through FormatUtc.
#include "fixgraph/engine/time.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace fixgraph;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto t = ParseTimestamp(text);
  if (t.ok() && t->has_value()) {
    UnixSeconds v = **t;
    std::string utc = FormatUtc(v);
    auto back = ParseTimestamp(utc);
    if (!back.ok() || !back->has_value() || **back != v) {
      std::fprintf(stderr, "round trip: %s\n", utc.c_str());
      std::abort();
    }
    (void)FormatWithOffset(v, 480);
    (void)FormatDate(v, -300);
  }
  auto off = ParseUtcOffset(text);
  if (off.ok()) (void)FormatWithOffset(0, *off);
  return 0;
}
