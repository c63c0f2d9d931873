// An issue's document in the issue index (issue_index.h gives the layout),
// private to query/: what the incremental update (issue_index.cc) and the
// rebuild (issue_index_rebuild.cc) both build. Thread-safe: each thread keeps
// its own term table.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/graph/links.h"

#include <xapian.h>

#include <optional>
#include <vector>

namespace fixgraph::query {

// An issue with what its document needs from the store besides fix PRs: its
// stored links (none when it was never linked) and its comments.
struct IssueInput {
  Issue issue;
  std::optional<graph::IssueLinks> links;
  std::vector<Comment> comments;
};

// Builds the document of one issue: its terms with their field weights, the
// prior and the hit fields (issue_index.h). Fix PRs are read from the store;
// a fix PR the store cannot give is left out.
StatusOr<Xapian::Document> BuildDocument(const Store& store, const IssueInput& in);

}  // namespace fixgraph::query
