// Pieces shared by the Markdown, JSON and HTML digest renderers. Private to query/.
#pragma once

#include "fixgraph/query/digest.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fixgraph::query {

// The disclosure section's counts over the included cases.
struct DisclosureCounts {
  std::map<std::string, std::int64_t> links_by_tier;
  std::map<std::string, std::int64_t> links_by_evidence;
  std::map<std::string, std::int64_t> issues_by_tier;
  std::map<std::string, std::int64_t> resolutions;
  std::map<std::string, std::vector<std::string>> traps;      // flag -> issues
  std::map<std::string, std::vector<std::string>> traceless;  // kind -> issues
  std::map<std::string, std::int64_t> excluded_by_reason;
};

DisclosureCounts CountDisclosure(const Digest& d);

// "铁证" / "machine-verified" for "A", ...
const char* TierWord(const std::string& tier, Lang lang);
// Words for an exclusion reason, a flag or a traceless kind.
const char* ReasonWord(const std::string& reason, Lang lang);
const char* TrapWord(const std::string& flag, Lang lang);
// A short label for an evidence kind ("close_at_merge" -> "合入即关闭" /
// "closed at merge") or a flag ("false_lead" -> "假线索"), for chips; the
// name itself when unknown.
const char* EvidenceWord(const std::string& kind, Lang lang);
const char* FlagWord(const std::string& flag, Lang lang);

// The exclusion's detail in words for the reader ("" when the reason says it all).
std::string ExcludedDetail(const Digest& d, const DigestExcluded& e, Lang lang);
std::string ThemeHeading(const Digest& d, const DigestTheme& t, Lang lang);
std::string ThemeBullet(const Digest& d, const std::string& issue, Lang lang);

// The "likely fixes, not verified" section: its heading, its one-line
// introduction, and per excluded issue with suggestions its first three as
// "!78469 (0.27) title" (empty when it has none).
bool AnyLikely(const Digest& d);  // some excluded issue has suggestions
const char* LikelyHeading(Lang lang);
const char* LikelyIntro(Lang lang);
std::vector<std::string> LikelyFixes(const DigestExcluded& e);

// The concatenation of fn(0, ..) .. fn(n-1, ..) in index order, where fn(i,
// out) appends item i's text to *out. Items are rendered in contiguous chunks
// on up to one thread per core (ParallelFor, fixgraph/engine/parallel.h), each
// chunk into a string of its own, joined in order: the output does not depend
// on the timing.
std::string RenderInOrder(size_t n, const std::function<void(size_t, std::string*)>& fn);

}  // namespace fixgraph::query
