// BuildDigest: selection, per-case facts, themes, troubleshooting rows and
// disclosure counts (digest.h).
#include "fixgraph/query/digest.h"

#include "digest_render.h"
#include "digest_text.h"
#include "digest_themes.h"

#include "fixgraph/engine/parallel.h"
#include "fixgraph/engine/time.h"
#include "fixgraph/engine/utf8.h"
#include "fixgraph/graph/graph_view.h"
#include "fixgraph/graph/linker.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fixgraph::query {
namespace {

namespace dt = digest_text;
using nlohmann::json;

// At most this many code points of a fix description's cause or change.
constexpr int kNoteMaxChars = 150;

bool AllDigits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Issue numbers: numerically when both are decimal, else as text.
bool NumberLess(const std::string& a, const std::string& b) {
  if (AllDigits(a) && AllDigits(b)) {
    if (a.size() != b.size()) return a.size() < b.size();
  }
  return a < b;
}

int TierRank(const std::string& t) {
  if (t == "A") return 0;
  if (t == "B") return 1;
  if (t == "C") return 2;
  if (t == "D") return 3;
  return 4;
}

// Words that look like identifiers but say nothing about the topic.
const std::vector<std::string>& BuiltinStopTerms() {
  // Generic platform and framework words: every Ascend repository mentions them.
  static const std::vector<std::string> kStop = {
      "readme",  "readme.md", "todo",      "fixme",  "json",    "yaml",      "html",
      "utf-8",   "pytorch",   "mindspore", "ascend", "cann",    "torch_npu", "python3",
      "fp16",    "bf16",      "fp32",      "int8",   "aarch64", "x86_64",    "ubuntu",
      "euleros", "openeuler", "gitcode",   "gitee",  "github"};
  return kStop;
}

std::string BestTier(const graph::IssueLinks& l) {
  std::string best;
  for (const graph::FixLink& f : l.fixes) {
    std::string t = graph::TierName(f.tier);
    if (best.empty() || TierRank(t) < TierRank(best)) best = t;
  }
  return best;
}

bool HasMergedFix(const graph::IssueLinks& l) {
  for (const graph::FixLink& f : l.fixes)
    if (f.state == "merged" || f.merged_at) return true;
  return false;
}

// The one-line problem: the cleaned title, or the body's first sentence when
// the title is too short to say anything.
std::string Problem(const Issue& issue, int max_chars) {
  std::string t = dt::CleanTitle(issue.title);
  if (dt::CodePoints(t) < 6) {
    std::string b = dt::FirstSentence(issue.body);
    if (!b.empty()) t = t.empty() ? b : t + "：" + b;
  }
  if (t.empty()) t = "#" + issue.number;
  return dt::Truncate(t, max_chars);
}

// The repository's role: its description's first sentence.
std::string Role(const Repository& r) {
  std::string d = dt::Squash(r.description);
  return dt::Truncate(d, 90);
}

// A PR's web page and description; the URL alone when it is not stored.
struct PrFacts {
  std::string url;
  std::string body;
  bool found = false;
};

// PRs of the repository being collected, read in one scan (ForEachPull):
// canonical ref -> facts.
using PrTable = std::unordered_map<std::string, PrFacts>;

StatusOr<PrFacts> LookUpPr(const Store& store, const PrTable& table, const std::string& pr) {
  if (auto it = table.find(pr); it != table.end()) return it->second;
  PrFacts facts;
  if (pr.rfind("http://", 0) == 0 || pr.rfind("https://", 0) == 0) {
    facts.url = pr;
    return facts;
  }
  auto ref = ParseRef(pr);
  if (!ref.ok() || ref->kind != RefKind::kPull) return facts;
  auto p = store.GetPull(*ref);
  if (p.ok()) {
    facts.url = p->html_url;
    facts.body = std::move(p->body);
    facts.found = true;
  } else if (!p.status().IsNotFound()) {
    return p.status();
  }
  if (facts.url.empty()) facts.url = WebUrl(*ref);
  return facts;
}

// The case's PR pages (of its fixes, likely fixes, false leads and
// backported fixes), and the cause and change its fix's description states
// (the strongest merged, non-backport fix whose description says something;
// at most three are read).
Status AddPrFacts(const Store& store, const PrTable& table, DigestCase* c) {
  const graph::IssueLinks& l = c->links;
  int read = 0;
  for (const graph::FixLink& f : l.fixes) {
    FG_ASSIGN_OR_RETURN(PrFacts facts, LookUpPr(store, table, f.pr));
    if (!facts.url.empty()) c->pr_urls[f.pr] = facts.url;
    bool merged = f.state == "merged" || f.merged_at.has_value();
    if (c->note_pr.empty() && facts.found && merged && f.backport_of.empty() && read < 3) {
      ++read;
      // The sections that matter open a description; long logs further down do not.
      dt::PrNote note = dt::ExtractPrNote(Utf8Prefix(facts.body, 6000), f.title, kNoteMaxChars);
      if (!note.cause.empty() || !note.change.empty()) {
        c->note_pr = f.pr;
        c->cause = std::move(note.cause);
        c->change = std::move(note.change);
      }
    }
  }
  std::vector<std::string> others = l.false_leads;
  for (const graph::FixLink& f : l.fixes)
    if (!f.backport_of.empty()) others.push_back(f.backport_of);
  for (const graph::FixLink& f : l.suggested) others.push_back(f.pr);
  for (const std::string& pr : others) {
    if (c->pr_urls.count(pr)) continue;
    FG_ASSIGN_OR_RETURN(PrFacts facts, LookUpPr(store, table, pr));
    if (!facts.url.empty()) c->pr_urls[pr] = facts.url;
  }
  return Status::OK();
}

// The most frequent items used at least twice, at most three, ties by name.
std::vector<std::string> Top(const std::map<std::string, int>& counts) {
  std::vector<std::pair<int, std::string>> v;
  for (const auto& [name, n] : counts)
    if (n >= 2) v.emplace_back(-n, name);
  std::sort(v.begin(), v.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size() && i < 3; ++i) out.push_back(v[i].second);
  return out;
}

// Labels that say what kind of report it is, not which part it concerns.
bool GenericLabel(const std::string& label) {
  static const std::set<std::string> kGeneric = {"bug",
                                                 "bugfix",
                                                 "enhancement",
                                                 "feature",
                                                 "feature request",
                                                 "question",
                                                 "help wanted",
                                                 "good first issue",
                                                 "duplicate",
                                                 "invalid",
                                                 "wontfix",
                                                 "stale",
                                                 "resolved",
                                                 "triage",
                                                 "needs triage",
                                                 "kind/bug",
                                                 "kind/feature",
                                                 "kind/question",
                                                 "kind/enhancement",
                                                 "high",
                                                 "low",
                                                 "medium",
                                                 "p0",
                                                 "p1",
                                                 "p2",
                                                 "p3",
                                                 "需求",
                                                 "缺陷",
                                                 "问题",
                                                 "咨询"};
  std::string low = label;
  for (char& ch : low)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return kGeneric.count(low) > 0;
}

// For a repository without a description: the directories its cases' fix PRs
// change most (two levels, files at the top skipped) and its issues' most
// frequent specific labels.
Status AddRoleHints(const Store& store, DigestRepo* r) {
  std::map<std::string, int> dirs, labels;
  for (const DigestCase& c : r->cases) {
    std::set<std::string> case_dirs;
    for (const graph::FixLink& f : c.links.fixes) {
      auto ref = ParseRef(f.pr);
      if (!f.in_store || !ref.ok() || ref->kind != RefKind::kPull || ref->repo != r->repo) continue;
      std::vector<FileChange> files;
      Status s = store.ListFiles(*ref, &files);
      if (!s.ok() && !s.IsNotFound()) return s;
      for (const FileChange& fc : files) {
        size_t a = fc.filename.find('/');
        if (a == std::string::npos) continue;
        size_t b = fc.filename.find('/', a + 1);
        case_dirs.insert(b == std::string::npos ? fc.filename.substr(0, a)
                                                : fc.filename.substr(0, b));
      }
    }
    for (const std::string& d : case_dirs) ++dirs[d];
    auto issue = store.GetIssue(c.links.issue);
    if (!issue.ok()) {
      if (!issue.status().IsNotFound()) return issue.status();
      continue;
    }
    for (const std::string& label :
         std::set<std::string>(issue->labels.begin(), issue->labels.end()))
      if (!GenericLabel(label)) ++labels[label];
  }
  r->top_paths = Top(dirs);
  r->top_labels = Top(labels);
  return Status::OK();
}

struct Candidate {
  Issue issue;
  graph::IssueLinks* links = nullptr;  // into the repository's links; null: not linked
};

// Why a candidate is excluded, or "" when included.
std::string ExclusionReason(const Candidate& c, const DigestRules& rules, std::string* detail) {
  if (!c.links) {
    *detail = "not linked yet (run `fixgraph link`)";
    return "no_evidence";
  }
  const graph::IssueLinks& l = *c.links;
  std::string res = graph::ResolutionName(l.resolution);
  auto answer_line = [&]() {
    return l.answer ? dt::Truncate(dt::FirstSentence(l.answer->text), 80) : std::string();
  };
  if (l.resolution == graph::Resolution::kDuplicate) {
    if (rules.include_duplicates_with_fixes && HasMergedFix(l) &&
        TierRank(BestTier(l)) <= TierRank(rules.min_tier))
      return "";
    *detail = l.duplicate_of ? "duplicate of " + l.duplicate_of->ToString() : "duplicate";
    return "duplicate";
  }
  bool listed = std::find(rules.include_resolutions.begin(), rules.include_resolutions.end(),
                          res) != rules.include_resolutions.end();
  if (!listed) {
    if (l.resolution == graph::Resolution::kStale) {
      *detail = !l.notes.empty() ? l.notes.front() : answer_line();
      if (detail->empty()) *detail = "closed without a fix or an answer";
      return "stale";
    }
    if (l.resolution == graph::Resolution::kWontfix) {
      *detail = answer_line();
      return "wontfix";
    }
    if (l.resolution == graph::Resolution::kOpen) {
      *detail = "still open";
      return "open";
    }
    *detail = "no fix, answer or verification found";
    return "no_evidence";
  }
  if (l.resolution == graph::Resolution::kFixed) {
    if (l.fixes.empty()) {
      *detail = "closed as fixed, but no change was found";
      return "no_evidence";
    }
    if (TierRank(BestTier(l)) > TierRank(rules.min_tier)) {
      *detail = "best link is tier " + BestTier(l) + ", below --min-tier " + rules.min_tier;
      return "below_min_tier";
    }
    return "";
  }
  // answered / fixed_elsewhere: something must say so.
  if (!l.answer && l.fixes.empty() && l.evidence.empty()) {
    *detail = "no answer comment, fix or verification found";
    return "no_evidence";
  }
  if (!l.fixes.empty() && !l.answer && TierRank(BestTier(l)) > TierRank(rules.min_tier)) {
    *detail = "best link is tier " + BestTier(l) + ", below --min-tier " + rules.min_tier;
    return "below_min_tier";
  }
  return "";
}

bool RepoSelected(const RepoRef& r, const DigestOptions& o) {
  if (!o.org.empty()) {
    std::string org = o.org;
    size_t colon = org.find(':');
    if (colon != std::string::npos) {
      if (org.substr(0, colon) != PlatformName(r.platform)) return false;
      org = org.substr(colon + 1);
    }
    if (r.owner != org) return false;
  }
  if (o.repos.empty()) return true;
  return std::find(o.repos.begin(), o.repos.end(), r) != o.repos.end();
}

// The time an issue is placed at for --since/--until.
OptTime WindowTime(const Issue& i) { return i.closed_at ? i.closed_at : i.created_at; }

// What one repository contributes, computed independently of the others (in
// parallel): its included cases, exclusions, the link-graph clusters of all
// its issues, and the salient terms of each included case.
struct RepoPart {
  Status status;
  std::optional<DigestRepo> repo;  // set when the repository has included cases
  std::vector<DigestExcluded> excluded;
  std::int64_t considered = 0;
  OptTime latest;
  std::vector<std::vector<std::string>> clusters;    // GraphView clusters
  std::vector<std::vector<std::string>> case_terms;  // aligned with repo->cases
};

void BuildTroubleshooting(const DigestRules& rules, Digest* d) {
  if (rules.troubleshooting_max <= 0) return;
  struct Row {
    int priority;
    size_t order;
    DigestTroubleRow row;
  };
  // A case's priority needs no text work: rank every case by (priority,
  // digest order) first, then build rows in that order until enough are
  // usable (the same rows a sort of all built rows would keep).
  std::vector<const DigestCase*> cases = d->Cases();
  auto priority_of = [&](const DigestCase& c) {
    const graph::IssueLinks& l = c.links;
    if (l.answer && !l.answer->text.empty()) return 0;
    if (!l.fixes.empty() && TierRank(c.tier) <= 2 && !l.fixes.front().title.empty())
      return 1 + TierRank(c.tier);
    return -1;  // no action to offer
  };
  std::vector<std::pair<int, size_t>> ranked;  // (priority, index)
  for (size_t i = 0; i < cases.size(); ++i)
    if (int p = priority_of(*cases[i]); p >= 0) ranked.emplace_back(p, i);
  std::sort(ranked.begin(), ranked.end());
  std::vector<Row> rows;
  const auto max_rows = static_cast<size_t>(rules.troubleshooting_max);
  for (const auto& [priority, i] : ranked) {
    if (rows.size() >= max_rows) break;
    const DigestCase* c = cases[i];
    const graph::IssueLinks& l = c->links;
    DigestTroubleRow r;
    if (priority == 0) {
      r.action = dt::Truncate(dt::LeadSentences(l.answer->text, 12), rules.action_max_chars);
      r.source = "answer";
    } else {
      r.action = dt::Truncate(dt::CleanTitle(l.fixes.front().title), rules.action_max_chars);
      r.source = "fix_title";
    }
    if (r.action.empty()) continue;
    // A fix title that only restates the problem tells the reader nothing new.
    if (r.source == "fix_title" &&
        dt::CleanTitle(l.fixes.front().title) == dt::CleanTitle(c->title))
      continue;
    r.symptom = c->problem;
    r.cases = {l.issue.ToString()};
    rows.push_back(Row{priority, i + 1, std::move(r)});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.order < b.order; });
  // One row per action: issues with the same first action share it.
  std::vector<DigestTroubleRow> out;
  std::map<std::string, size_t> by_action;
  for (Row& r : rows) {
    auto it = by_action.find(r.row.action);
    if (it != by_action.end()) {
      out[it->second].cases.push_back(r.row.cases.front());
      continue;
    }
    by_action[r.row.action] = out.size();
    out.push_back(std::move(r.row));
  }
  d->troubleshooting = std::move(out);
}

// Fills *table with the repository's PRs that the cases name, in one
// sequential scan rather than a point read each (other repositories' PRs are
// read one by one, by AddPrFacts).
Status ReadLocalPrs(const Store& store, const RepoRef& repo, const std::vector<DigestCase>& cases,
                    PrTable* table) {
  std::unordered_set<std::string> wanted;
  const std::string prefix = repo.ToString() + "!";
  for (const DigestCase& c : cases) {
    for (const graph::FixLink& f : c.links.fixes) {
      wanted.insert(f.pr);
      if (!f.backport_of.empty()) wanted.insert(f.backport_of);
    }
    wanted.insert(c.links.false_leads.begin(), c.links.false_leads.end());
  }
  size_t local = 0;
  for (const std::string& w : wanted) local += w.rfind(prefix, 0) == 0;
  if (local > 0) {
    Status s = store.ForEachPull(&repo, [&](PullRequest& p) {
      std::string ref = p.ref().ToString();
      if (!wanted.count(ref)) return true;
      PrFacts& f = (*table)[ref];
      f.url = p.html_url.empty() ? WebUrl(p.ref()) : std::move(p.html_url);
      f.body = std::move(p.body);
      f.found = true;
      return --local > 0;  // stop once every wanted PR was seen
    });
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// Keeps in each cluster of `repo` only the members that are its cases or
// issues of other repositories (which may be cases there), in their order,
// and only the clusters left with two or more.
void TrimClusters(const RepoRef& repo, const std::vector<DigestCase>& cases,
                  std::vector<std::vector<std::string>>* clusters) {
  std::unordered_set<std::string> ids;
  ids.reserve(cases.size());
  for (const DigestCase& c : cases) ids.insert(c.links.issue.ToString());
  const std::string own = repo.ToString() + "#";
  size_t kept = 0;
  for (std::vector<std::string>& cluster : *clusters) {
    std::vector<std::string> members;
    for (std::string& id : cluster)
      if (ids.count(id) || id.rfind(own, 0) != 0) members.push_back(std::move(id));
    if (members.size() >= 2) (*clusters)[kept++] = std::move(members);
  }
  clusters->resize(kept);
  clusters->shrink_to_fit();
}

// One repository's part of the digest: candidates in the window, their links,
// the selection, the link-graph clusters over all of its issues' links, and
// the salient terms of each included case.
void CollectRepo(const Store& store, const Repository& repo, const DigestOptions& options,
                 const std::set<std::string>& stop, RepoPart* part) {
  std::map<std::string, Candidate> candidates;  // by number
  Status s = store.ForEachIssue(&repo.ref, [&](const Issue& issue) {
    OptTime t = WindowTime(issue);
    if (options.since && (!t || *t < *options.since)) return true;
    if (options.until && (!t || *t > *options.until)) return true;
    for (const OptTime& x : {issue.created_at, issue.closed_at})
      if (x && (!part->latest || *x > *part->latest)) part->latest = x;
    candidates[issue.number].issue = issue;
    return true;
  });
  if (!s.ok() || candidates.empty()) {
    part->status = s;
    return;
  }
  // Every issue's links (not only the candidates'): the graph clusters of the
  // repository are drawn over all of them.
  std::vector<graph::IssueLinks> all_links;
  s = graph::ForEachLinks(store, &repo.ref, [&](const graph::IssueLinks& l) {
    all_links.push_back(l);  // (ForEachLinks lends l only for the call)
    return true;
  });
  if (!s.ok()) {
    part->status = s;
    return;
  }
  // The link graph of the repository, as GraphView::Build draws it: mentions
  // of its linked issues by other issues (one scan of the repository's rows).
  std::unordered_set<std::string> linked;
  for (const graph::IssueLinks& l : all_links) linked.insert(l.issue.number);
  std::vector<std::pair<Ref, Ref>> mentions;
  s = store.ForEachIssueMention(repo.ref, [&](const MentionRecord& m) {
    if (m.source_item.kind == RefKind::kIssue && m.source_item != m.target &&
        linked.count(m.target.number))
      mentions.emplace_back(m.source_item, m.target);
    return true;
  });
  if (!s.ok()) {
    part->status = s;
    return;
  }
  part->clusters = graph::GraphView::FromLinks(all_links, mentions).Clusters();
  // The included cases take their links over from here on.
  for (graph::IssueLinks& l : all_links) {
    auto it = candidates.find(l.issue.number);
    if (it != candidates.end()) it->second.links = &l;
  }
  std::vector<Candidate*> ordered;
  ordered.reserve(candidates.size());
  for (auto& [num, c] : candidates) ordered.push_back(&c);
  std::sort(ordered.begin(), ordered.end(), [](const Candidate* a, const Candidate* b) {
    return NumberLess(a->issue.number, b->issue.number);
  });
  DigestRepo dr;
  dr.repo = repo.ref;
  dr.name = repo.ref.name;
  dr.role = Role(repo);
  dr.url = repo.html_url.empty() ? WebUrl(Ref::Repo(repo.ref)) : repo.html_url;
  for (Candidate* c : ordered) {
    ++part->considered;
    std::string detail;
    std::string reason = ExclusionReason(*c, options.rules, &detail);
    if (!reason.empty()) {
      part->excluded.push_back({c->issue.ref().ToString(),
                                dt::CleanTitle(c->issue.title),
                                reason,
                                dt::Squash(detail),
                                {}});
      if (c->links && c->issue.state == IssueState::kClosed)
        part->excluded.back().suggested = c->links->suggested;
      continue;
    }
    DigestCase dc;
    dc.links = std::move(*c->links);
    dc.number = c->issue.number;
    dc.title = dt::Squash(c->issue.title);
    dc.url = c->issue.html_url.empty() ? WebUrl(c->issue.ref()) : c->issue.html_url;
    dc.problem = Problem(c->issue, options.rules.problem_max_chars);
    dc.tier = BestTier(dc.links);
    // The salient terms of the title, the body without code blocks (its first
    // 4000 bytes) and the fix titles, for themes; the text itself is not kept.
    std::string text = dc.title + "\n";
    text += Utf8Prefix(dt::WithoutCodeBlocks(c->issue.body), 4000);
    for (const graph::FixLink& f : dc.links.fixes) text += "\n" + f.title;
    std::vector<std::string> terms;
    for (std::string& t : dt::SalientTerms(text))
      if (!stop.count(t)) terms.push_back(std::move(t));
    part->case_terms.push_back(std::move(terms));
    dr.cases.push_back(std::move(dc));
  }
  if (dr.cases.empty()) return;
  // Of the clusters, themes read the included cases only (two or more of
  // them make a theme): drop the repository's other issues now (its clusters
  // reach every issue it has, and every repository's part is kept until the
  // digest is assembled).
  TrimClusters(repo.ref, dr.cases, &part->clusters);
  PrTable table;
  s = ReadLocalPrs(store, repo.ref, dr.cases, &table);
  if (!s.ok()) {
    part->status = s;
    return;
  }
  for (DigestCase& c : dr.cases) {
    Status st = AddPrFacts(store, table, &c);
    if (!st.ok()) {
      part->status = st;
      return;
    }
  }
  if (dr.role.empty()) {
    Status st = AddRoleHints(store, &dr);
    if (!st.ok()) {
      part->status = st;
      return;
    }
  }
  part->repo = std::move(dr);
}

std::vector<std::string> StringList(const json& j, const std::string& field,
                                    const std::string& where, Status* st) {
  std::vector<std::string> out;
  if (!j.is_array()) {
    *st = Status::InvalidArgument(where + ": \"" + field + "\" must be an array of strings");
    return out;
  }
  for (const json& v : j) {
    if (!v.is_string()) {
      *st = Status::InvalidArgument(where + ": \"" + field + "\" must be an array of strings");
      return {};
    }
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

StatusOr<Lang> ParseLang(std::string_view text) {
  if (text == "zh") return Lang::kZh;
  if (text == "en") return Lang::kEn;
  return Status::InvalidArgument("language \"" + std::string(text) + "\": expected zh or en");
}

DigestRules DefaultDigestRules() { return DigestRules(); }

StatusOr<DigestRules> ParseDigestRules(const std::string& json_text, const std::string& where) {
  json j = json::parse(json_text, nullptr, false);
  if (j.is_discarded()) {
    // Parsed again for nlohmann's message: where and what (1e400: number overflow).
    std::string why = "invalid JSON";
    try {
      [[maybe_unused]] json again = json::parse(json_text);
    } catch (const json::exception& e) {
      why = e.what();
    }
    return Status::InvalidArgument(where + ": not valid JSON: " + why);
  }
  if (!j.is_object()) return Status::InvalidArgument(where + ": not a JSON object");
  DigestRules r;
  Status st;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    auto need_int = [&](int* out) {
      if (!v.is_number_integer()) {
        st = Status::InvalidArgument(where + ": \"" + k + "\" must be an integer");
      } else {
        *out = v.get<int>();
      }
    };
    if (k == "include_resolutions") {
      r.include_resolutions = StringList(v, k, where, &st);
      for (const std::string& name : r.include_resolutions)
        if (st.ok() && !graph::ParseResolution(name).ok())
          st = Status::InvalidArgument(where + R"(: "include_resolutions": unknown resolution ")" +
                                       name + "\"");
    } else if (k == "include_duplicates_with_fixes") {
      if (!v.is_boolean()) {
        st = Status::InvalidArgument(where + ": \"" + k + "\" must be true or false");
      } else {
        r.include_duplicates_with_fixes = v.get<bool>();
      }
    } else if (k == "min_tier") {
      if (!v.is_string() || !graph::ParseTier(v.get<std::string>()).ok()) {
        st = Status::InvalidArgument(where + ": \"min_tier\" must be one of A, B, C, D");
      } else {
        r.min_tier = v.get<std::string>();
      }
    } else if (k == "troubleshooting_max") {
      need_int(&r.troubleshooting_max);
    } else if (k == "term_min_issues") {
      need_int(&r.term_min_issues);
      if (st.ok() && r.term_min_issues < 2)
        st = Status::InvalidArgument(where + ": \"term_min_issues\" must be at least 2");
    } else if (k == "term_max_share") {
      if (!v.is_number() || v.get<double>() <= 0 || v.get<double>() > 1) {
        st = Status::InvalidArgument(where + ": \"term_max_share\" must be a number in (0, 1]");
      } else {
        r.term_max_share = v.get<double>();
      }
    } else if (k == "problem_max_chars") {
      need_int(&r.problem_max_chars);
    } else if (k == "action_max_chars") {
      need_int(&r.action_max_chars);
    } else if (k == "stop_terms") {
      r.stop_terms = StringList(v, k, where, &st);
    } else if (k == "comment" || k == "_comment") {
      // free text
    } else {
      st = Status::InvalidArgument(where + ": unknown field \"" + k + "\"");
    }
    if (!st.ok()) return st;
  }
  return r;
}

std::string RepoLabel(const Digest& d, const std::string& repo) {
  size_t colon = repo.find(':');
  std::string full = colon == std::string::npos ? repo : repo.substr(colon + 1);
  std::string name = full.substr(full.rfind('/') + 1);
  return std::binary_search(d.ambiguous_names.begin(), d.ambiguous_names.end(), name) ? full : name;
}

std::string IssueLabel(const Digest& d, const std::string& issue) {
  size_t hash = issue.rfind('#');
  if (hash == std::string::npos) return issue;
  return RepoLabel(d, issue.substr(0, hash)) + issue.substr(hash);
}

std::vector<const DigestCase*> Digest::Cases() const {
  std::vector<const DigestCase*> out;
  for (const DigestRepo& r : repos)
    for (const DigestCase& c : r.cases) out.push_back(&c);
  return out;
}

const DigestCase* Digest::Find(const std::string& issue) const {
  if (!case_index.empty()) {
    auto it = case_index.find(issue);
    if (it == case_index.end() || it->second.first >= repos.size() ||
        it->second.second >= repos[it->second.first].cases.size())
      return nullptr;
    const DigestCase& c = repos[it->second.first].cases[it->second.second];
    return c.links.issue.ToString() == issue ? &c : nullptr;
  }
  for (const DigestRepo& r : repos)
    for (const DigestCase& c : r.cases)
      if (c.links.issue.ToString() == issue) return &c;
  return nullptr;
}

StatusOr<Digest> BuildDigest(const Store& store, const DigestOptions& options) {
  Digest d;
  d.options = options;
  if (!graph::ParseTier(options.rules.min_tier).ok())
    return Status::InvalidArgument("min tier \"" + options.rules.min_tier +
                                   "\": expected A, B, C or D");
  std::vector<Repository> all;
  Status s = store.ListRepositories(&all);
  if (!s.ok()) return s;
  for (const RepoRef& want : options.repos) {
    bool found =
        std::any_of(all.begin(), all.end(), [&](const Repository& r) { return r.ref == want; });
    if (!found) return Status::NotFound("repository " + want.ToString() + " is not in the store");
  }
  std::sort(all.begin(), all.end(),
            [](const Repository& a, const Repository& b) { return a.ref < b.ref; });
  {
    std::map<std::string, int> names;
    for (const Repository& r : all) names[r.ref.name]++;
    for (const auto& [name, n] : names)
      if (n > 1) d.ambiguous_names.push_back(name);
  }
  // Repositories are independent until themes: collect them in parallel
  // (the store allows concurrent readers), then merge in repository order.
  std::vector<const Repository*> selected;
  for (const Repository& repo : all)
    if (RepoSelected(repo.ref, options)) selected.push_back(&repo);
  std::set<std::string> stop(BuiltinStopTerms().begin(), BuiltinStopTerms().end());
  stop.insert(options.rules.stop_terms.begin(), options.rules.stop_terms.end());
  std::vector<RepoPart> parts(selected.size());
  std::mutex progress_mu;
  size_t collected = 0;
  ParallelFor(selected.size(), HardwareThreads(), [&](size_t i, size_t) {
    CollectRepo(store, *selected[i], options, stop, &parts[i]);
    if (!options.on_progress) return;
    std::lock_guard<std::mutex> lock(progress_mu);
    options.on_progress(++collected, selected.size());
  });
  OptTime latest;
  std::vector<RepoThemeInput> with_cases;
  for (RepoPart& part : parts) {
    if (!part.status.ok()) return part.status;
    d.considered += part.considered;
    if (part.latest && (!latest || *part.latest > *latest)) latest = part.latest;
    for (DigestExcluded& e : part.excluded) d.excluded.push_back(std::move(e));
    if (!part.repo) continue;
    d.repos.push_back(std::move(*part.repo));
    with_cases.push_back({&part.clusters, &part.case_terms});
  }
  d.case_index.reserve(d.Cases().size());
  for (size_t ri = 0; ri < d.repos.size(); ++ri)
    for (size_t ci = 0; ci < d.repos[ri].cases.size(); ++ci)
      d.case_index[d.repos[ri].cases[ci].links.issue.ToString()] = {ri, ci};
  OptTime as_of = options.until ? options.until : latest;
  d.as_of = dt::Date(as_of);
  BuildThemes(options.rules, with_cases, &d);
  BuildTroubleshooting(options.rules, &d);
  return d;
}

}  // namespace fixgraph::query
