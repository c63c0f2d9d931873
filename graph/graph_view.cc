#include "fixgraph/graph/graph_view.h"

#include "fixgraph/graph/linker.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <map>
#include <tuple>
#include <unordered_map>

namespace fixgraph::graph {
namespace {

using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

NodeKind KindOf(const std::string& id) {
  auto ref = ParseRef(id);
  if (!ref.ok()) return NodeKind::kExternal;
  return ref->kind == RefKind::kIssue ? NodeKind::kIssue : NodeKind::kPull;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// "Ascend/X#43": the reference without the platform prefix, for labels.
std::string Label(const std::string& id) {
  size_t colon = id.find(':');
  if (colon == std::string::npos || id.compare(0, 4, "http") == 0) return id;
  return id.substr(colon + 1);
}

const char* ResolutionColour(const std::string& r) {
  if (r == "fixed") return "palegreen";
  if (r == "fixed_elsewhere") return "lightblue";
  if (r == "answered") return "lightyellow";
  if (r == "duplicate") return "lightgrey";
  if (r == "wontfix" || r == "stale") return "mistyrose";
  if (r == "open") return "white";
  return "whitesmoke";
}

}  // namespace

struct GraphView::Impl {
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  std::vector<int> component;  // per node; -1 for a node alone
  std::unordered_map<std::string, size_t> index;
};

const char* EdgeKindName(EdgeKind k) {
  switch (k) {
    case EdgeKind::kFix:
      return "fix";
    case EdgeKind::kDuplicate:
      return "duplicate";
    case EdgeKind::kBackport:
      return "backport";
    case EdgeKind::kMention:
      return "mention";
    case EdgeKind::kFalseLead:
      return "false_lead";
  }
  return "unknown";
}

GraphView GraphView::FromLinks(const std::vector<IssueLinks>& links,
                               const std::vector<std::pair<Ref, Ref>>& mentions) {
  // Hashed while collecting, sorted once at the end: nodes by id, edges by
  // (from, to, kind), as an ordered map would give.
  std::unordered_map<std::string, GraphNode> nodes;
  nodes.reserve(links.size() * 2 + mentions.size());
  auto node = [&](const std::string& id, const std::string& state) {
    auto it = nodes.find(id);
    if (it == nodes.end()) it = nodes.emplace(id, GraphNode{id, KindOf(id), state}).first;
    if (!state.empty()) it->second.state = state;
  };
  struct RawEdge {
    std::string a, b;
    EdgeKind kind;
    std::string tier;
  };
  std::vector<RawEdge> raw;
  auto edge = [&](std::string a, std::string b, EdgeKind k, std::string tier) {
    if (a == b) return;
    if (b < a) std::swap(a, b);
    raw.push_back({std::move(a), std::move(b), k, std::move(tier)});
  };
  for (const IssueLinks& l : links) {
    std::string issue = l.issue.ToString();
    node(issue, ResolutionName(l.resolution));
    for (const FixLink& f : l.fixes) {
      node(f.pr, f.in_store ? f.state : "");
      edge(issue, f.pr, EdgeKind::kFix, TierName(f.tier));
      if (!f.backport_of.empty()) {
        node(f.backport_of, "");
        edge(f.pr, f.backport_of, EdgeKind::kBackport, "");
      }
    }
    if (l.duplicate_of) {
      node(l.duplicate_of->ToString(), "");
      edge(issue, l.duplicate_of->ToString(), EdgeKind::kDuplicate, "");
    }
    for (const std::string& p : l.false_leads) {
      node(p, "");
      edge(issue, p, EdgeKind::kFalseLead, "");
    }
  }
  for (const auto& [a, b] : mentions) {
    node(a.ToString(), "");
    node(b.ToString(), "");
    edge(a.ToString(), b.ToString(), EdgeKind::kMention, "");
  }

  auto impl = std::make_shared<Impl>();
  std::vector<GraphNode*> sorted;
  sorted.reserve(nodes.size());
  for (auto& [id, n] : nodes) sorted.push_back(&n);
  std::sort(sorted.begin(), sorted.end(),
            [](const GraphNode* x, const GraphNode* y) { return x->id < y->id; });
  impl->nodes.reserve(sorted.size());
  impl->index.reserve(sorted.size());
  for (GraphNode* n : sorted) {
    impl->index.emplace(n->id, impl->nodes.size());
    impl->nodes.push_back(std::move(*n));
  }
  // One edge per pair and kind; the strongest tier any of them has wins
  // (the order they were seen in does not matter).
  std::sort(raw.begin(), raw.end(), [](const RawEdge& x, const RawEdge& y) {
    return std::tie(x.a, x.b, x.kind) < std::tie(y.a, y.b, y.kind);
  });
  for (size_t i = 0; i < raw.size();) {
    size_t j = i;
    std::string tier = raw[i].tier;
    for (++j; j < raw.size() && raw[j].a == raw[i].a && raw[j].b == raw[i].b &&
              raw[j].kind == raw[i].kind;
         ++j)
      if (!raw[j].tier.empty() && (tier.empty() || raw[j].tier < tier)) tier = raw[j].tier;
    impl->edges.push_back({impl->index.at(raw[i].a), impl->index.at(raw[i].b), raw[i].kind, tier});
    i = j;
  }

  BoostGraph g(impl->nodes.size());
  for (const GraphEdge& e : impl->edges)
    if (e.kind != EdgeKind::kFalseLead) boost::add_edge(e.from, e.to, g);
  std::vector<int> comp(impl->nodes.size());
  if (!comp.empty()) boost::connected_components(g, comp.data());
  std::vector<int> size(impl->nodes.size(), 0);
  for (int c : comp) ++size[static_cast<size_t>(c)];
  impl->component.resize(comp.size());
  for (size_t i = 0; i < comp.size(); ++i)
    impl->component[i] = size[static_cast<size_t>(comp[i])] > 1 ? comp[i] : -1;

  GraphView v;
  v.impl_ = std::move(impl);
  return v;
}

StatusOr<GraphView> GraphView::Build(const Store& store, const RepoRef* repo) {
  std::vector<IssueLinks> links;
  FG_RETURN_IF_ERROR(ForEachLinks(store, repo, [&](const IssueLinks& l) {
    links.push_back(l);
    return true;
  }));
  std::vector<std::pair<Ref, Ref>> mentions;
  for (const IssueLinks& l : links) {
    std::vector<MentionRecord> by;
    FG_RETURN_IF_ERROR(store.MentionsOf(l.issue, &by));
    for (const MentionRecord& m : by)
      if (m.source_item.kind == RefKind::kIssue && m.source_item != l.issue)
        mentions.emplace_back(m.source_item, l.issue);
  }
  return FromLinks(links, mentions);
}

const std::vector<GraphNode>& GraphView::nodes() const { return impl_->nodes; }
const std::vector<GraphEdge>& GraphView::edges() const { return impl_->edges; }

std::vector<std::vector<std::string>> GraphView::Clusters() const {
  std::map<int, std::vector<std::string>> by;
  for (size_t i = 0; i < impl_->nodes.size(); ++i)
    if (impl_->component[i] >= 0) by[impl_->component[i]].push_back(impl_->nodes[i].id);
  std::vector<std::vector<std::string>> out;
  for (auto& [c, ids] : by) {
    std::sort(ids.begin(), ids.end());
    out.push_back(std::move(ids));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> GraphView::RelatedIssues(const Ref& issue) const {
  std::vector<std::string> out;
  auto it = impl_->index.find(issue.ToString());
  if (it == impl_->index.end() || impl_->component[it->second] < 0) return out;
  int c = impl_->component[it->second];
  for (size_t i = 0; i < impl_->nodes.size(); ++i)
    if (i != it->second && impl_->component[i] == c && impl_->nodes[i].kind == NodeKind::kIssue)
      out.push_back(impl_->nodes[i].id);
  return out;  // nodes are sorted by id
}

void GraphView::WriteDot(std::ostream& out) const {
  out << "graph fixgraph {\n"
      << "  graph [rankdir=LR, fontname=\"Helvetica\"];\n"
      << "  node [fontname=\"Helvetica\", fontsize=10];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  for (const GraphNode& n : impl_->nodes) {
    out << "  \"" << Escape(n.id) << "\" [label=\"" << Escape(Label(n.id));
    if (!n.state.empty()) out << "\\n" << Escape(n.state);
    out << "\"";
    switch (n.kind) {
      case NodeKind::kIssue:
        out << ", shape=ellipse, style=filled, fillcolor=" << ResolutionColour(n.state);
        break;
      case NodeKind::kPull:
        out << ", shape=box";
        if (n.state == "merged") out << ", style=filled, fillcolor=lightsteelblue";
        break;
      case NodeKind::kExternal:
        out << ", shape=box, style=dashed";
        break;
    }
    out << "];\n";
  }
  for (const GraphEdge& e : impl_->edges) {
    out << "  \"" << Escape(impl_->nodes[e.from].id) << "\" -- \"" << Escape(impl_->nodes[e.to].id)
        << "\" [";
    switch (e.kind) {
      case EdgeKind::kFix:
        out << "label=\"" << e.tier << "\"" << (e.tier == "D" ? ", style=dotted" : "");
        break;
      case EdgeKind::kDuplicate:
        out << "label=\"duplicate\", style=bold";
        break;
      case EdgeKind::kBackport:
        out << "label=\"backport\", style=dashed";
        break;
      case EdgeKind::kMention:
        out << "style=dotted, color=grey";
        break;
      case EdgeKind::kFalseLead:
        out << "label=\"false lead\", color=red, style=dashed";
        break;
    }
    out << "];\n";
  }
  out << "}\n";
}

Status WriteDot(const Store& store, const RepoRef* repo, std::ostream& out) {
  FG_ASSIGN_OR_RETURN(GraphView view, GraphView::Build(store, repo));
  view.WriteDot(out);
  return Status::OK();
}

}  // namespace fixgraph::graph
