// libFuzzer harness: the mention and reference parsers (engine/mentions.cc,
// engine/ref.cc): FindMentions in each platform's context, MaskCode, ParseRef,
// ParseWebUrl, and the round trip of a parsed reference through its string.
#include "fixgraph/engine/mentions.h"
#include "fixgraph/engine/ref.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace fixgraph;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (Platform p : {Platform::kGitCode, Platform::kGitee, Platform::kGitHub}) {
    RepoRef context{p, "Ascend", "MindSpeed"};
    for (const Mention& m : FindMentions(text, context)) {
      if (m.offset > text.size()) std::abort();
      (void)MentionFormName(m.form);
      (void)MentionKeywordName(m.keyword);
      (void)WebUrl(m.target);
    }
  }
  (void)MaskCode(text);
  auto ref = ParseRef(text);
  if (ref.ok()) {
    std::string again = ref->ToString();
    auto back = ParseRef(again);
    if (!back.ok() || back->ToString() != again) {
      std::fprintf(stderr, "ParseRef round trip: %s\n", again.c_str());
      std::abort();
    }
    (void)WebUrl(*ref);
  }
  (void)ParseWebUrl(text);
  (void)IsValidIssueNumber(text);
  (void)IsValidRepoSegment(text);
  (void)ParsePlatform(text);
  return 0;
}
