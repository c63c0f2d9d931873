// The store overview behind the search page's home (digest.h,
// BuildStoreOverview): counts, and example questions taken from resolved
// issues with trusted fixes or answers.
#include "digest_text.h"

#include "fixgraph/graph/linker.h"
#include "fixgraph/query/digest.h"
#include "fixgraph/query/docs.h"

#include <xapian.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace fixgraph::query {
namespace {

namespace dt = digest_text;

// A resolved issue whose resolution the reader can trust: a fix at tier A or
// B that merged, or an answer comment.
bool Trusted(const graph::IssueLinks& l, std::string* tier) {
  if (l.state != IssueState::kClosed) return false;
  if (l.resolution == graph::Resolution::kFixed ||
      l.resolution == graph::Resolution::kFixedElsewhere) {
    for (const graph::FixLink& f : l.fixes) {
      if ((f.tier == graph::Tier::kA || f.tier == graph::Tier::kB) &&
          (f.state == "merged" || f.merged_at)) {
        *tier = graph::TierName(f.tier);
        return true;
      }
    }
  }
  if (l.resolution == graph::Resolution::kAnswered && l.answer && !l.answer->text.empty()) {
    return true;
  }
  return false;
}

struct Pick {
  Ref issue;
  std::int64_t closed = 0;
  std::string tier;
  std::string resolution;
};

}  // namespace

StatusOr<std::int64_t> LocalDocCount(const std::string& db_dir) {
  // The local corpus `docs import` writes.
  const std::string dir = DocIndexDir(db_dir);
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return 0;
  try {
    Xapian::Database db(dir);
    return static_cast<std::int64_t>(db.get_doccount());
  } catch (const Xapian::Error& e) {
    return Status::IOError(dir + ": " + e.get_msg());
  }
}

StatusOr<StoreOverview> BuildStoreOverview(const Store& store, const std::string& db_dir,
                                           size_t max_examples) {
  StoreOverview o;
  std::vector<Repository> repos;
  FG_RETURN_IF_ERROR(store.ListRepositories(&repos));
  o.repositories = static_cast<std::int64_t>(repos.size());
  for (const Repository& r : repos) {
    FG_ASSIGN_OR_RETURN(RepoStats st, store.Stats(r.ref));
    o.issues += st.issues_open + st.issues_closed;
    o.pulls += st.pulls_open + st.pulls_merged + st.pulls_closed;
  }
  // One pass over the stored links: counts, and per repository its two most
  // recently closed trusted issues.
  std::map<std::string, std::vector<Pick>> by_repo;
  FG_RETURN_IF_ERROR(graph::ForEachLinks(store, nullptr, [&](const graph::IssueLinks& l) {
    ++o.linked_issues;
    o.fix_links += static_cast<std::int64_t>(l.fixes.size());
    std::string tier;
    if (!Trusted(l, &tier)) return true;
    ++o.trusted_issues;
    std::vector<Pick>& v = by_repo[l.issue.repo.ToString()];
    v.push_back({l.issue, l.closed_at.value_or(0), tier, graph::ResolutionName(l.resolution)});
    std::sort(v.begin(), v.end(), [](const Pick& a, const Pick& b) {
      return a.closed != b.closed ? a.closed > b.closed : a.issue.ToString() < b.issue.ToString();
    });
    if (v.size() > 2) v.resize(2);
    return true;
  }));
  // Round robin over the repositories (most recent first in each round), so
  // that the examples show the store's breadth.
  for (size_t round = 0; round < 2 && o.examples.size() < max_examples; ++round) {
    std::vector<const Pick*> picks;
    for (const auto& [repo, v] : by_repo)
      if (round < v.size()) picks.push_back(&v[round]);
    std::sort(picks.begin(), picks.end(), [](const Pick* a, const Pick* b) {
      return a->closed != b->closed ? a->closed > b->closed
                                    : a->issue.ToString() < b->issue.ToString();
    });
    for (const Pick* p : picks) {
      if (o.examples.size() >= max_examples) break;
      auto issue = store.GetIssue(p->issue);
      if (!issue.ok()) {
        if (issue.status().IsNotFound()) continue;
        return issue.status();
      }
      // The title as a reporter would type it: without its tag, not too short.
      std::string q = dt::Truncate(dt::CleanTitle(issue->title), 80);
      if (dt::CodePoints(q) < 8) continue;
      o.examples.push_back({q, p->issue.ToString(),
                            issue->html_url.empty() ? WebUrl(p->issue) : issue->html_url,
                            p->resolution, p->tier});
    }
  }
  FG_ASSIGN_OR_RETURN(o.docs, LocalDocCount(db_dir));
  return o;
}

nlohmann::json ToJson(const StoreOverview& o) {
  nlohmann::json ex = nlohmann::json::array();
  for (const StoreOverview::Example& e : o.examples)
    ex.push_back({{"question", e.question},
                  {"issue", e.issue},
                  {"url", e.url},
                  {"resolution", e.resolution},
                  {"tier", e.tier}});
  return {{"stats",
           {{"repositories", o.repositories},
            {"issues", o.issues},
            {"pulls", o.pulls},
            {"linked_issues", o.linked_issues},
            {"fix_links", o.fix_links},
            {"trusted_issues", o.trusted_issues},
            {"docs", o.docs}}},
          {"examples", std::move(ex)}};
}

}  // namespace fixgraph::query
