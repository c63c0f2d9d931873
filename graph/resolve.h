// Resolution, answer and timeline flags of a linked issue, from its fixes and
// what its comments say (design.md s5). Private to graph/.
//
// Thread safety: pure functions over their arguments.
#pragma once

#include "features.h"

#include "fixgraph/graph/linker.h"

#include <functional>
#include <optional>

namespace fixgraph::graph {

struct ResolveFacts {
  bool batch_close = false;         // closed in a batch with other issues
  std::optional<Ref> duplicate_of;  // from a comment
  bool duplicate_label = false;
  // True when a participant of the issue merged a change in this repository
  // while the issue was open (asked lazily: it reads the store).
  std::function<bool()> participant_change;
};

// Sets out->resolution and out->answer, and drops tier-D fixes that nothing
// corroborates. REQUIRES: out->fixes, out->evidence are final otherwise.
void Resolve(const IssueContext& ctx, const ResolveFacts& facts, IssueLinks* out);

// Sets out->flags from the fixes, false leads and resolution.
void ComputeFlags(const IssueContext& ctx, const LinkerOptions& options, IssueLinks* out);

// The verification comment that the close followed within `window_s`
// seconds, as issue-level evidence.
std::optional<Evidence> VerifyCommentClose(const IssueContext& ctx, int window_s);

}  // namespace fixgraph::graph
