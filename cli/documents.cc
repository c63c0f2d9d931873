#include "documents.h"

#include "fixgraph/engine/item_view.h"
#include "fixgraph/engine/time.h"
#include "fixgraph/graph/explain.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/ingest/dump.h"
#include "fixgraph/query/digest.h"

#include <algorithm>

namespace fixgraph::cli {

StatusOr<nlohmann::json> ShowDocument(const Store& store, const std::string& ref_text) {
  auto ref = ParseRef(ref_text);
  if (!ref.ok()) return ref.status();
  auto view = BuildItemView(store, *ref);
  if (!view.ok()) return view.status();
  if (ref->kind == RefKind::kIssue) {
    auto links = graph::ReadLinks(store, *ref);
    if (links.ok()) {
      (*view)["links"] = graph::ToJson(*links);
      (*view)["explanation"] = graph::ExplainLines(*links);
    } else if (!links.status().IsNotFound()) {
      return links.status();
    } else {
      (*view)["links"] = nullptr;
    }
  }
  return view;
}

Status ParseRepoFilter(const std::string& text, const std::string& what, RepoRef* out, bool* set) {
  *set = false;
  if (text.empty()) return Status::OK();
  auto ref = ParseRef(text);
  if (!ref.ok() || ref->kind != RefKind::kRepo)
    return Status::InvalidArgument(
        what + " \"" + text + "\": expected a repository such as gitcode:Ascend/MindSpeed-Ops");
  *out = ref->repo;
  *set = true;
  return Status::OK();
}

// "owner" or "platform:owner" (a GitLab-style owner may have subgroups,
// "owner/sub"), each segment as a repository path allows: anything else
// names no owner and is refused rather than matching nothing.
Status CheckOrgFilter(const std::string& text, const std::string& what) {
  if (text.empty()) return Status::OK();
  auto bad = [&] {
    return Status::InvalidArgument(what + " \"" + text.substr(0, 200) +
                                   "\": expected an owner such as Ascend or gitcode:Ascend");
  };
  std::string_view owner = text;
  if (size_t colon = owner.find(':'); colon != std::string_view::npos) {
    if (!ParsePlatform(owner.substr(0, colon)).ok()) return bad();
    owner.remove_prefix(colon + 1);
  }
  return IsValidOwner(owner) ? Status::OK() : bad();
}

nlohmann::json LinksPageResult::ToJson() const {
  nlohmann::json out{{"issues", issues}, {"next_cursor", nullptr}};
  if (next_cursor) out["next_cursor"] = *next_cursor;
  return out;
}

StatusOr<LinksPageResult> LinksPage(const Store& store, const RepoRef* repo,
                                    const std::string& cursor, size_t limit) {
  auto bad_cursor = [&cursor](const std::string& why) {
    return Status::InvalidArgument(
        "cursor \"" + cursor.substr(0, 200) + "\": " + why +
        " (give the next_cursor of the page before, or none for the first page)");
  };
  if (!cursor.empty()) {
    auto ref = ParseRef(cursor);
    if (!ref.ok() || ref->kind != RefKind::kIssue)
      return bad_cursor("not a cursor this server gave");
    if (repo != nullptr && !(ref->repo == *repo))
      return bad_cursor("it belongs to another repository");
  }
  LinksPageResult page;
  bool started = cursor.empty();
  Status s = graph::ForEachLinks(store, repo, [&](const graph::IssueLinks& l) {
    if (!started) {
      started = l.issue.ToString() == cursor;
      return true;
    }
    if (page.issues.size() == limit) {  // there is more: this page ends here
      page.next_cursor = page.issues.back()["issue"].get<std::string>();
      return false;
    }
    page.issues.push_back(graph::ToJson(l));
    return true;
  });
  if (!s.ok()) return s;
  if (!started) return bad_cursor("no such issue in this listing");
  return page;
}

Status ForEachLinksDocument(const Store& store, const RepoRef* repo,
                            const std::function<bool(const nlohmann::json&)>& fn) {
  return graph::ForEachLinks(store, repo,
                             [&](const graph::IssueLinks& l) { return fn(graph::ToJson(l)); });
}

StatusOr<StatsData> CollectStats(const Store& store) {
  StatsData d;
  std::vector<Repository> repos;
  if (Status s = store.ListRepositories(&repos); !s.ok()) return s;
  for (const Repository& r : repos) {
    auto st = store.Stats(r.ref);
    if (!st.ok()) return st.status();
    d.rows.push_back(*st);
    RepoStats& t = d.total;
    t.issues_open += st->issues_open;
    t.issues_closed += st->issues_closed;
    t.pulls_merged += st->pulls_merged;
    t.pulls_open += st->pulls_open;
    t.pulls_closed += st->pulls_closed;
    t.comments += st->comments;
    t.commits += st->commits;
    t.files += st->files;
    t.operate_logs += st->operate_logs;
    t.platform_links += st->platform_links;
  }
  if (Status s = ingest::InterruptedImports(store, &d.interrupted); !s.ok()) return s;
  return d;
}

nlohmann::json StatsDocument(const StatsData& data) {
  nlohmann::json doc{{"repositories", nlohmann::json::array()}};
  for (const RepoStats& st : data.rows) doc["repositories"].push_back(ToJson(st));
  nlohmann::json t = ToJson(data.total);
  t.erase("repo");
  t["repositories"] = data.rows.size();
  doc["totals"] = t;
  doc["interrupted_imports"] = data.interrupted;
  doc["pending"] = {{"relink", data.pending.relink.size()},
                    {"reindex", data.pending.reindex.size()},
                    {"link_runs", data.pending.link_runs}};
  return doc;
}

StatusOr<nlohmann::json> StatsDocument(const Store& store) {
  auto data = CollectStats(store);
  if (!data.ok()) return data.status();
  FG_RETURN_IF_ERROR(store.ListPending(&data->pending));
  return StatsDocument(*data);
}

std::string DocProductsText(const query::DocHit& hit) {
  std::string out;
  for (size_t i = 0; i < hit.products.size(); ++i)
    out += (i ? ", " : "  [") + hit.products[i] + (i + 1 == hit.products.size() ? "]" : "");
  const char* sep = "  asked: ";
  for (const auto& [family, listed] : hit.asked_products) {
    out += sep + family + (listed ? " listed" : " not listed");
    sep = ", ";
  }
  return out;
}

namespace {

// A bare date for "until" covers the whole day.
Status ParseBound(const std::string& name, const std::string& text, bool end_of_day, OptTime* out) {
  if (text.empty()) return Status::OK();
  auto t = ParseTimestamp(text);
  if (!t.ok() || !t->has_value())
    return Status::InvalidArgument(name + " \"" + text +
                                   "\": expected a date such as 2026-09-15 or a time such as "
                                   "2026-09-15T12:00:00+08:00");
  *out = **t;
  if (end_of_day && text.size() == 10) *out = **t + 86399;
  return Status::OK();
}

}  // namespace

// "min_tier" as an HTTP parameter, "--min-tier" as a flag.
std::string FieldName(const std::string& what, std::string name) {
  if (what == "--") std::replace(name.begin(), name.end(), '_', '-');
  return what + name;
}

namespace {

struct DigestPlan {
  query::DigestOptions options;
  query::Lang lang{};
  std::string format;
};

// Everything a digest request says that can be checked without the store.
StatusOr<DigestPlan> PlanDigest(const DigestRequest& r, const std::string& what) {
  DigestPlan plan;
  query::DigestOptions& options = plan.options;
  if (r.rules) options.rules = *r.rules;
  if (!r.min_tier.empty()) {
    if (!graph::ParseTier(r.min_tier).ok())
      return Status::InvalidArgument(FieldName(what, "min_tier") + " \"" + r.min_tier +
                                     "\": expected A, B, C or D");
    options.rules.min_tier = r.min_tier;
  }
  for (const std::string& text : r.repos) {
    RepoRef repo;
    bool set = false;
    if (Status s = ParseRepoFilter(text, what + "repo", &repo, &set); !s.ok()) return s;
    if (set) options.repos.push_back(repo);
  }
  if (Status s = CheckOrgFilter(r.org, what + "org"); !s.ok()) return s;
  options.org = r.org;
  if (Status s = ParseBound(what + "since", r.since, false, &options.since); !s.ok()) return s;
  if (Status s = ParseBound(what + "until", r.until, true, &options.until); !s.ok()) return s;
  auto lang = query::ParseLang(r.lang.empty() ? "zh" : r.lang);
  if (!lang.ok()) return Status::InvalidArgument(what + "lang: " + lang.status().message());
  plan.lang = *lang;
  plan.format = r.format.empty() ? "md" : r.format;
  if (plan.format != "md" && plan.format != "json" && plan.format != "html")
    return Status::InvalidArgument(what + "format \"" + plan.format +
                                   "\": expected md, json or html");
  return plan;
}

}  // namespace

Status CheckDigestRequest(const DigestRequest& request, const std::string& what) {
  auto plan = PlanDigest(request, what);
  return plan.ok() ? Status::OK() : plan.status();
}

Status RequireRepository(const Store& store, const RepoRef& repo) {
  std::vector<Repository> all;
  FG_RETURN_IF_ERROR(store.ListRepositories(&all));
  std::vector<std::string> names;
  for (const Repository& r : all) {
    if (r.ref == repo) return Status::OK();
    names.push_back(r.ref.ToString());
  }
  std::sort(names.begin(), names.end());
  std::string msg = "repository " + repo.ToString() + " is not in the store; ";
  if (names.empty())
    return Status::NotFound(msg + "the store holds no repositories yet (import or sync one)");
  msg += "it holds " + std::to_string(names.size()) +
         (names.size() == 1 ? " repository: " : " repositories: ");
  // Those of the same owner or name first: the likely misspelling.
  std::stable_partition(names.begin(), names.end(), [&](const std::string& n) {
    return n.find("/" + repo.name) != std::string::npos ||
           n.find(":" + repo.owner + "/") != std::string::npos;
  });
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) msg += (i ? ", " : "") + names[i];
  if (names.size() > kShown) msg += ", ... (`fixgraph stats` lists them all)";
  return Status::NotFound(msg);
}

Status WriteDigest(const Store& store, const DigestRequest& r, const std::string& what,
                   DigestCounts* counts, const std::function<void(size_t, size_t)>& on_progress,
                   const query::TextSink& sink) {
  auto plan = PlanDigest(r, what);
  if (!plan.ok()) return plan.status();
  plan->options.on_progress = on_progress;
  for (const RepoRef& repo : plan->options.repos)
    FG_RETURN_IF_ERROR(RequireRepository(store, repo));
  auto digest = query::BuildDigest(store, plan->options);
  if (!digest.ok()) return digest.status();
  if (counts != nullptr)
    *counts = {digest->Cases().size(), digest->repos.size(), digest->excluded.size()};
  if (plan->format == "json") return query::WriteJson(*digest, sink);
  return sink(plan->format == "md" ? query::RenderMarkdown(*digest, plan->lang)
                                   : query::RenderHtml(*digest, plan->lang));
}

StatusOr<std::string> DigestText(const Store& store, const DigestRequest& r,
                                 const std::string& what, DigestCounts* counts,
                                 const std::function<void(size_t, size_t)>& on_progress) {
  std::string out;
  FG_RETURN_IF_ERROR(WriteDigest(store, r, what, counts, on_progress, query::AppendTo(&out)));
  return out;
}

}  // namespace fixgraph::cli
