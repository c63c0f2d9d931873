// GraphView: a graph over issues, pull requests and out-of-store targets,
// built from the stored links (linker.h) and the mention index, for
// traversals and Graphviz export (design.md s5).
//
// Nodes are identified by their canonical reference (or URL for targets that
// name no parsable PR). Edges:
//   fix        issue -- PR that resolved it (with the tier)
//   duplicate  issue -- the issue it duplicates
//   backport   backport PR -- the main-line fix it re-applies
//   mention    issue -- issue named in its text or comments
//   false_lead issue -- referenced PR that never merged (drawn, but not used
//              for clusters)
// A cluster is a connected component of two or more nodes: duplicates,
// backports and companion PRs, one PR fixing several issues, cross-references.
//
// Output is deterministic: nodes sorted by id, edges by (from, to, kind),
// clusters by their first node.
//
// Thread safety: a built GraphView is immutable; const methods are safe to
// call concurrently.
#pragma once

#include "fixgraph/engine/store.h"
#include "fixgraph/graph/links.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace fixgraph::graph {

enum class NodeKind { kIssue, kPull, kExternal };
enum class EdgeKind { kFix, kDuplicate, kBackport, kMention, kFalseLead };
const char* EdgeKindName(EdgeKind k);  // "fix", "duplicate", ...

struct GraphNode {
  std::string id;  // canonical reference or URL
  NodeKind kind = NodeKind::kIssue;
  std::string state;  // issue resolution, PR state, or "" for external targets
};

struct GraphEdge {
  size_t from = 0;  // node indexes, from < to
  size_t to = 0;
  EdgeKind kind = EdgeKind::kFix;
  std::string tier;  // fix edges: "A".."D"
};

class GraphView {
 public:
  // From the stored links of every issue (of one repository when `repo` is
  // set; fixes may live in other repositories) and the issues that mention
  // them.
  static StatusOr<GraphView> Build(const Store& store, const RepoRef* repo);
  // From links in memory; `mentions` are (issue, issue) cross-references.
  static GraphView FromLinks(const std::vector<IssueLinks>& links,
                             const std::vector<std::pair<Ref, Ref>>& mentions);

  const std::vector<GraphNode>& nodes() const;
  const std::vector<GraphEdge>& edges() const;

  // Connected components of two or more nodes (false-lead edges ignored),
  // each sorted, the list sorted by first id.
  std::vector<std::vector<std::string>> Clusters() const;
  // The other issues in the component of `issue`, sorted; empty when unknown.
  std::vector<std::string> RelatedIssues(const Ref& issue) const;

  // Graphviz: issues as ellipses coloured by resolution, PRs as boxes,
  // external targets as dashed boxes; fix edges labelled with the tier.
  void WriteDot(std::ostream& out) const;

 private:
  GraphView() = default;  // made by Build or FromLinks only
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

// Builds the view and writes it as DOT.
Status WriteDot(const Store& store, const RepoRef* repo, std::ostream& out);

}  // namespace fixgraph::graph
