// The evidence chain of a linked issue in plain words, for `show`:
//
//   fixed: closed 2026-09-15 11:35:56 +08:00
//   !192 (tier A, 0.97): merged 2026-09-15 11:35:56 +08:00 into main; the issue
//     closed in the same second; !192's description says it closes #43; the
//     platform links !192 to the issue (pull_issues)
//   !193 (tier B, 0.75): backport of !192 to release/v2.17, merged ...
//   flags: backport (!193 re-applies the fix to release/v2.17)
//
// Times are shown at the display offset (DisplayOffsetMinutes, +08:00 unless
// the caller set another; the cli sets it from FIXGRAPH_TZ). References of the
// issue's own repository are shortened to "!192" / "#43".
//
// Thread safety: pure functions.
#pragma once

#include "fixgraph/graph/links.h"

#include <string>
#include <vector>

namespace fixgraph::graph {

// One sentence for one fix: when it merged, then each piece of evidence.
std::string ExplainFix(const IssueLinks& links, const FixLink& fix);

// The whole chain, one line per item: resolution, each fix, issue-level
// evidence, flags (with what triggered them), false leads, duplicate, answer,
// notes.
std::vector<std::string> ExplainLines(const IssueLinks& links);

// ExplainLines joined with newlines (and a final newline).
std::string Explain(const IssueLinks& links);

}  // namespace fixgraph::graph
