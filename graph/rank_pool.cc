// BuildRankPool: the window of merged PRs around a closed issue, BM25 over
// all of them, and the full feature vector of the shortlist.
#include "rank_pool.h"

#include "fixgraph/engine/ref.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace fixgraph::graph {
namespace {

constexpr double kK1 = 1.2;
constexpr double kB = 0.75;
// Bounds for an unknown creation or close time (the store's time index
// holds 1970 .. 2200).
constexpr UnixSeconds kEarliest = 0;
constexpr UnixSeconds kLatest = 7258118400;  // 2200-01-01
// The store fit builds each example's pool with a text shortlist of 30 (the
// entries past the 30 best by BM25 seldom reach the top 24 once times are
// masked) and keeps each example's 24 entries best by the built-in model
// (and its fixes).
constexpr size_t kStoreFitShortlist = 30;
constexpr size_t kStoreFitTopK = 24;
// An issue platform-linked to more merged PRs than this is an umbrella (a
// tracking issue, a feature with many steps), not a fix example.
constexpr size_t kMaxLinkedFixes = 3;

char LowerLetter(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// An identifier's last segment worth matching against PR titles: four
// characters or more, a letter among them (not a version number).
bool DistinctiveTail(std::string_view t) {
  return t.size() >= 4 && std::any_of(t.begin(), t.end(), IsLetter);
}

// The words of a person's name, lower-cased ASCII letters ("Joshua C.
// Randall" -> joshua, c, randall).
std::vector<std::string> NameWords(std::string_view name) {
  std::vector<std::string> words(1);
  for (char c : name) {
    if (IsLetter(c)) {
      words.back() += LowerLetter(c);
    } else if (!words.back().empty()) {
      words.emplace_back();
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// Whether a login may be the account of the person `name` (a git author name
// where a dump gives no login: "jrandall", "fabiogeraci", "alexk101" for
// "Joshua C. Randall", "Fabio Geraci", "Alexander Kiefer"): the login's
// letters are all the name's words run together, start or end with a name
// word of five letters or more, or are a prefix of one word followed by a
// prefix of another, five letters in all and one of the two at least three.
bool LoginMatchesName(std::string_view login, std::string_view name) {
  std::string l;
  for (char c : login)
    if (IsLetter(c)) l += LowerLetter(c);
  if (l.size() < 4) return false;
  std::vector<std::string> words = NameWords(name);
  if (words.empty()) return false;
  std::string all;
  for (const std::string& w : words) all += w;
  if (l == all) return true;
  if (words.size() < 2) return false;
  for (const std::string& w : words)
    if (w.size() >= 5 && (l.starts_with(w) || l.ends_with(w))) return true;
  if (l.size() < 5) return false;
  for (size_t i = 0; i < words.size(); ++i) {
    for (size_t a = 1; a < l.size() && a <= words[i].size() && l[a - 1] == words[i][a - 1]; ++a) {
      std::string_view rest = std::string_view(l).substr(a);
      if (a < 3 && rest.size() < 3) continue;
      for (size_t j = 0; j < words.size(); ++j)
        if (j != i && std::string_view(words[j]).starts_with(rest)) return true;
    }
  }
  return false;
}

// 1 when the PR's author took part in the issue (filed it or commented; by
// login, or by a name that fits a participant's login where the PR gives a
// git author name), 0.5 when only the PR's merger did.
double PeopleOf(const IssueContext& ctx, const PullRequest& pr) {
  const std::vector<std::string>& who = ctx.participants;
  auto in = [&](const std::string& login) {
    return !login.empty() && std::binary_search(who.begin(), who.end(), login);
  };
  if (in(pr.author.login)) return 1;
  auto fits = [&](std::string_view name) {
    return std::any_of(who.begin(), who.end(),
                       [&](const std::string& p) { return LoginMatchesName(p, name); });
  };
  // The display name, and a "login" that is really a git author name (a
  // plain login matches exactly or not at all).
  if (fits(pr.author.name) ||
      (pr.author.login.find(' ') != std::string::npos && fits(pr.author.login)))
    return 1;
  if (in(pr.merged_by)) return 0.5;
  return 0;
}

// The issue's labels as a PR may share them (LabelKeys), with the hashes of
// their words as path keys (PullInfo::match_keys) and title tokens; at most 16.
struct IssueLabel {
  LabelKeys keys;
  std::vector<std::uint64_t> path_keys;
  text::TokenSet title_tokens;
};
std::vector<IssueLabel> IssueLabelsOf(const IssueContext& ctx) {
  constexpr size_t kMaxLabels = 16;
  std::vector<IssueLabel> out;
  for (const std::string& l : ctx.labels) {
    if (out.size() == kMaxLabels) break;
    IssueLabel il;
    il.keys = LabelKeysOf(l);
    if (il.keys.label.empty()) continue;
    if (std::any_of(out.begin(), out.end(),
                    [&](const IssueLabel& o) { return o.keys.label == il.keys.label; }))
      continue;
    for (const std::string& w : il.keys.words) {
      il.path_keys.push_back(text::Hash(w));
      text::TokenSet t = text::Tokens(w);
      il.title_tokens.insert(il.title_tokens.end(), t.begin(), t.end());
    }
    text::Normalize(&il.title_tokens);
    out.push_back(std::move(il));
  }
  return out;
}

// Whether the PR shares the label: carries it, changes a path one of its
// words names (a directory, a file's stem), or has one in its title.
// REQUIRES: pr.files_loaded.
bool SharesLabel(const IssueLabel& l, const PullInfo& pr) {
  for (const std::string& pl : pr.pr.labels)
    if (text::Lower(pl) == l.keys.label) return true;
  for (std::uint64_t h : l.path_keys)
    if (std::binary_search(pr.match_keys.begin(), pr.match_keys.end(), h)) return true;
  return text::Intersects(l.title_tokens, pr.title_tokens);
}

// The version or branch of the issue's that the PR's base branch answers:
// the release line of a version the issue names, or a branch the platform
// links to the issue; "" for none (the default branch never counts).
std::string VersionOf(const IssueContext& ctx, const std::vector<std::string>& versions,
                      const PullInfo& pr) {
  const std::string& base = pr.pr.base_ref;
  if (base.empty() || base == ctx.default_branch) return "";
  if (base == ctx.issue.branch || std::find(ctx.linked_branches.begin(), ctx.linked_branches.end(),
                                            base) != ctx.linked_branches.end())
    return base;
  if (!pr.release_base || versions.empty()) return "";
  std::string bv = BranchVersion(base);
  if (bv.empty()) return "";
  for (const std::string& v : versions)
    if (VersionsMatch(v, bv)) return v;
  return "";
}

// The example of one issue's pool, its entries among `fixes` marked.
RankExample ExampleOf(const Ref& issue, const RankPool& pool,
                      const std::vector<std::string>& fixes) {
  RankExample e;
  e.issue = issue.ToString();
  e.labelled = !fixes.empty();
  for (const PoolEntry& p : pool.entries) {
    e.prs.push_back(p.info->key);
    e.pool.push_back(p.x);
    e.fix.push_back(std::find(fixes.begin(), fixes.end(), p.info->key) != fixes.end());
  }
  return e;
}

// The text side of a pool: the issue's words by slot, their idf over the
// pool's PRs, each row's BM25 score, the best of them, and the idf mass of
// the issue's title words.
struct PoolText {
  text::TokenTable<std::uint32_t> slot_of;  // word -> its index in ctx.text_tokens + 1
  std::vector<double> idf;                  // by word index
  std::vector<double> bm25;                 // by row
  double best = 0;
  double title_mass = 0;
};

// Scores every row of the window by BM25 against the issue's words. Rows from
// the run index are scored from its postings (rows by text token): only the
// rows holding a word of the issue are touched. Rows read from the store
// (`from_store`) are walked in full. Both give the same scores. False when
// no row holds a PR (nothing to rank).
bool ScoreText(const IssueContext& ctx, PullCache* cache, bool from_store,
               std::span<const RunIndex::Timed> rows, PoolText* out) {
  const Issue& is = ctx.issue;
  // The issue's words, by slot; document frequencies over the pool.
  const text::TokenSet& q = ctx.text_tokens;
  text::TokenTable<std::uint32_t>& slot_of = out->slot_of;
  slot_of.Reserve(q.size());
  for (size_t i = 0; i < q.size(); ++i) slot_of.Slot(q[i]) = static_cast<std::uint32_t>(i + 1);
  std::vector<std::uint32_t> df(q.size(), 0);
  std::vector<double>& bm25 = out->bm25;
  bm25.assign(rows.size(), 0);
  std::vector<double>& idf = out->idf;
  idf.assign(q.size(), 0);
  double& best = out->best;
  const RunIndex::KeyPostings* postings = cache->TextPostings(is.repo);
  const RunIndex::WindowRows* wrows = cache->WindowRowsOf(is.repo);
  const bool indexed = postings && wrows && !from_store;
  size_t docs = 0;
  double total_len = 0;
  auto len_of = [&](size_t r) -> double {
    return indexed ? static_cast<double>(wrows->row(rows[r].pos).text_n)
                   : static_cast<double>(rows[r].info->text_tokens.size());
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r].info) continue;
    ++docs;
    total_len += len_of(r);
  }
  if (docs == 0) return false;
  const auto n_docs = static_cast<double>(docs);
  const double avg_len = std::max(1.0, total_len / n_docs);
  auto norm_of = [&](size_t r) {
    return (kK1 + 1) / (1 + kK1 * (1 - kB + kB * len_of(r) / avg_len));
  };
  auto idf_of = [&](double d) { return std::log(1 + (n_docs - d + 0.5) / (d + 0.5)); };
  if (indexed) {
    const std::uint32_t lo = rows.front().pos;
    const std::uint32_t hi = rows.back().pos + 1;
    std::vector<double> raw(rows.size(), 0);
    for (size_t i = 0; i < q.size(); ++i) {
      std::span<const std::uint32_t> at = postings->Rows(q[i], lo, hi);
      df[i] = static_cast<std::uint32_t>(at.size());
      idf[i] = idf_of(df[i]);
      for (std::uint32_t pos : at) raw[pos - lo] += idf[i];
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      if (raw[r] == 0 || !rows[r].info) continue;
      bm25[r] = raw[r] * norm_of(r);
      best = std::max(best, bm25[r]);
    }
  } else {
    std::vector<std::uint32_t> hit_start(rows.size() + 1, 0);
    std::vector<std::uint32_t> hits;  // per row, the slots of its shared words
    for (size_t r = 0; r < rows.size(); ++r) {
      hit_start[r] = static_cast<std::uint32_t>(hits.size());
      const PullInfo* info = rows[r].info.get();
      if (!info || q.empty()) continue;
      for (std::uint64_t t : info->text_tokens) {
        std::uint32_t s = slot_of.Of(t);
        if (s == 0) continue;
        ++df[s - 1];
        hits.push_back(s - 1);
      }
    }
    hit_start[rows.size()] = static_cast<std::uint32_t>(hits.size());
    for (size_t i = 0; i < q.size(); ++i) idf[i] = idf_of(df[i]);
    for (size_t r = 0; r < rows.size(); ++r) {
      if (!rows[r].info) continue;
      double sum = 0;
      for (std::uint32_t h = hit_start[r]; h < hit_start[r + 1]; ++h) sum += idf[hits[h]];
      bm25[r] = sum * norm_of(r);
      best = std::max(best, bm25[r]);
    }
  }
  // Title words' idf mass.
  for (std::uint64_t t : ctx.title_tokens) {
    std::uint32_t s = slot_of.Of(t);
    if (s) out->title_mass += idf[s - 1];
  }
  return true;
}

// Where the issue stands for the features: closed with a close time, and its
// number where issues and PRs share one counter (`numbered`).
struct IssueFacts {
  bool closed = false;
  bool numbered = false;
  std::int64_t number = 0;
};

// The shortlist, as row indexes in pool order: best by text, the last merged
// before the close, and where issues and PRs share one counter, the PRs
// opened next after the issue (the lowest numbers above it).
std::vector<std::uint32_t> Shortlist(const IssueContext& ctx, const IssueFacts& facts,
                                     const RankPoolOptions& options,
                                     std::span<const RunIndex::Timed> rows,
                                     const std::vector<double>& bm25) {
  const Issue& is = ctx.issue;
  std::vector<std::uint32_t> pick;
  std::vector<std::uint32_t> by_text;
  for (size_t r = 0; r < rows.size(); ++r)
    if (rows[r].info) by_text.push_back(static_cast<std::uint32_t>(r));
  size_t k = std::min(options.shortlist_text, by_text.size());
  std::partial_sort(by_text.begin(), by_text.begin() + static_cast<std::ptrdiff_t>(k),
                    by_text.end(), [&](std::uint32_t a, std::uint32_t b) {
                      return bm25[a] != bm25[b] ? bm25[a] > bm25[b] : a > b;
                    });
  pick.assign(by_text.begin(), by_text.begin() + static_cast<std::ptrdiff_t>(k));
  size_t taken = 0;
  for (size_t r = rows.size(); r-- > 0 && taken < options.shortlist_time;) {
    if (!rows[r].info) continue;
    if (facts.closed && rows[r].t > *is.closed_at) continue;
    pick.push_back(static_cast<std::uint32_t>(r));
    ++taken;
  }
  if (facts.numbered) {
    std::vector<std::pair<std::int64_t, std::uint32_t>> next;
    for (size_t r = 0; r < rows.size(); ++r)
      if (rows[r].info && rows[r].info->pr.number > facts.number)
        next.emplace_back(rows[r].info->pr.number - facts.number, static_cast<std::uint32_t>(r));
    size_t k2 = std::min(options.shortlist_number, next.size());
    std::partial_sort(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(k2), next.end());
    for (size_t i = 0; i < k2; ++i) pick.push_back(next[i].second);
  }
  std::sort(pick.begin(), pick.end());
  pick.erase(std::unique(pick.begin(), pick.end()), pick.end());
  return pick;
}

// What the shortlisted PRs share with the issue besides text, each with how
// many of the shortlist share it (a thing many share tells little). Indexed
// by shortlist position.
struct ShortlistEvidence {
  // Identifier matches, and per identifier of the issue how many PRs touch it.
  std::vector<std::vector<IdMatch>> matches;
  std::vector<int> id_df;
  // The hashes of the issue's identifier tails each PR title names, and per
  // tail (sorted by hash) how many titles name it.
  std::vector<std::vector<std::uint64_t>> title_ids;
  std::vector<std::pair<std::uint64_t, int>> title_id_df;
  // The issue's labels, the bits of those each PR shares, and per label how
  // many share it.
  std::vector<IssueLabel> labels;
  std::vector<std::uint32_t> label_bits;
  std::vector<int> label_df;
  // The versions the issue's title and description name.
  std::vector<std::string> versions;
};

// Identifier matches of the shortlist (loads each PR's files).
Status MatchShortlistIdentifiers(const IssueContext& ctx, PullCache* cache,
                                 std::span<const RunIndex::Timed> rows,
                                 const std::vector<std::uint32_t>& pick, ShortlistEvidence* ev) {
  std::vector<std::vector<IdMatch>>& matches = ev->matches;
  matches.assign(pick.size(), {});
  std::vector<int>& id_df = ev->id_df;
  id_df.assign(ctx.identifiers.size(), 0);
  for (size_t k = 0; k < pick.size(); ++k) {
    PullInfo* info = rows[pick[k]].info.get();
    FG_RETURN_IF_ERROR(cache->LoadFiles(info));
    matches[k] = MatchIdentifiers(ctx, *info);
    for (const IdMatch& m : matches[k]) ++id_df[m.id];
  }
  return Status::OK();
}

// The code identifiers the issue names (by their last segments) that the
// shortlisted PR titles name, and per identifier how many of those titles
// name it.
void MatchTitleIdentifiers(const IssueContext& ctx, std::span<const RunIndex::Timed> rows,
                           const std::vector<std::uint32_t>& pick, ShortlistEvidence* ev) {
  std::vector<std::uint64_t> issue_tails;
  issue_tails.reserve(ctx.identifiers.size());
  for (const std::string& id : ctx.identifiers) {
    std::string_view t = LastSegment(id);
    if (DistinctiveTail(t)) issue_tails.push_back(text::Hash(t));
  }
  std::sort(issue_tails.begin(), issue_tails.end());
  issue_tails.erase(std::unique(issue_tails.begin(), issue_tails.end()), issue_tails.end());
  std::vector<std::vector<std::uint64_t>>& title_ids = ev->title_ids;
  title_ids.assign(pick.size(), {});
  std::vector<std::pair<std::uint64_t, int>>& title_id_df = ev->title_id_df;
  title_id_df.clear();
  if (issue_tails.empty()) return;
  for (size_t k = 0; k < pick.size(); ++k) {
    for (const std::string& y : rows[pick[k]].info->title_identifiers) {
      std::string_view t = LastSegment(y);
      if (!DistinctiveTail(t)) continue;
      std::uint64_t h = text::Hash(t);
      if (std::binary_search(issue_tails.begin(), issue_tails.end(), h)) title_ids[k].push_back(h);
    }
    std::sort(title_ids[k].begin(), title_ids[k].end());
    title_ids[k].erase(std::unique(title_ids[k].begin(), title_ids[k].end()), title_ids[k].end());
    for (std::uint64_t h : title_ids[k]) title_id_df.emplace_back(h, 1);
  }
  std::sort(title_id_df.begin(), title_id_df.end());
  size_t w = 0;
  for (size_t i = 0; i < title_id_df.size(); ++i) {
    if (w > 0 && title_id_df[w - 1].first == title_id_df[i].first) {
      ++title_id_df[w - 1].second;
    } else {
      title_id_df[w++] = title_id_df[i];
    }
  }
  title_id_df.resize(w);
}

// The labels each shortlisted PR shares, and per label how many share it;
// the versions the issue names.
void MatchLabelsAndVersions(const IssueContext& ctx, std::span<const RunIndex::Timed> rows,
                            const std::vector<std::uint32_t>& pick, ShortlistEvidence* ev) {
  ev->labels = IssueLabelsOf(ctx);
  const std::vector<IssueLabel>& labels = ev->labels;
  std::vector<std::uint32_t>& label_bits = ev->label_bits;
  label_bits.assign(pick.size(), 0);
  std::vector<int>& label_df = ev->label_df;
  label_df.assign(labels.size(), 0);
  for (size_t k = 0; k < pick.size() && !labels.empty(); ++k) {
    for (size_t l = 0; l < labels.size(); ++l) {
      if (!SharesLabel(labels[l], *rows[pick[k]].info)) continue;
      label_bits[k] |= std::uint32_t{1} << l;
      ++label_df[l];
    }
  }
  const Issue& is = ctx.issue;
  std::vector<std::string>& versions = ev->versions;
  versions = VersionsIn(is.title);
  for (std::string& v : VersionsIn(is.body))
    if (std::find(versions.begin(), versions.end(), v) == versions.end())
      versions.push_back(std::move(v));
}

// The pool entry of the `k`-th shortlisted PR (`row`) with its feature vector.
PoolEntry EntryOf(const IssueContext& ctx, const IssueFacts& facts, const RankPoolOptions& options,
                  const PoolText& scored, const ShortlistEvidence& ev, const RunIndex::Timed& row,
                  std::uint32_t r, size_t k) {
  const Issue& is = ctx.issue;
  const bool time_known = facts.closed && !options.mask_times;
  PoolEntry e;
  e.info = row.info;
  const PullInfo& pr = *row.info;
  e.bm25 = scored.bm25[r];
  FeatureVector& x = e.x;
  auto at = [&](RankFeature f) -> double& { return x[static_cast<size_t>(f)]; };
  at(RankFeature::kText) = scored.best > 0 ? e.bm25 / scored.best : 0;
  at(RankFeature::kTextLog) = std::log1p(e.bm25);
  if (scored.title_mass > 0) {
    double shared = 0;
    for (std::uint64_t t : pr.title_tokens) {
      if (!(ctx.marks.Of(t) & IssueContext::kTitleMark)) continue;
      std::uint32_t s = scored.slot_of.Of(t);
      if (s) shared += scored.idf[s - 1];
    }
    at(RankFeature::kTitle) = std::min(1.0, shared / scored.title_mass);
  }
  at(RankFeature::kTitleDice) = text::Dice(ctx.title_tokens, pr.title_tokens);
  e.patch = ScorePatch(ctx, pr, ev.matches[k], ev.id_df);
  at(RankFeature::kPatch) = std::log1p(e.patch.score);
  if (time_known) {
    e.lag_known = true;
    e.lag_s = static_cast<double>(*is.closed_at - row.t);
    double hours = e.lag_s / 3600;
    if (hours >= 0) {
      at(RankFeature::kLagLog) = std::log1p(hours);
      at(RankFeature::kLagDay) = hours <= 24 ? 1 : 0;
      at(RankFeature::kLagWeek) = hours <= 24 * 7 ? 1 : 0;
    } else {
      at(RankFeature::kAfterClose) = 1;
    }
  } else {
    at(RankFeature::kNoClose) = 1;
  }
  if (!options.mask_times && is.created_at && row.t < *is.created_at)
    at(RankFeature::kBeforeIssue) = 1;
  if (facts.numbered) {
    std::int64_t gap = pr.pr.number - facts.number;
    if (gap > 0) {
      at(RankFeature::kNumAfter) = 1;
      at(RankFeature::kNumGap) = std::log1p(static_cast<double>(gap)) / 5;
    } else if (gap < 0) {
      at(RankFeature::kNumBefore) = std::log1p(static_cast<double>(-gap)) / 5;
    }
  }
  for (std::uint64_t h : ev.title_ids[k]) {
    auto it = std::lower_bound(ev.title_id_df.begin(), ev.title_id_df.end(), std::make_pair(h, 0));
    at(RankFeature::kIdentTitle) = std::max(at(RankFeature::kIdentTitle), 1.0 / it->second);
  }
  for (size_t l = 0; l < ev.labels.size(); ++l) {
    if (!(ev.label_bits[k] >> l & 1)) continue;
    double w = 1.0 / ev.label_df[l];
    if (w > at(RankFeature::kLabel)) {
      at(RankFeature::kLabel) = w;
      e.label = ev.labels[l].keys.label;
    }
  }
  e.version = VersionOf(ctx, ev.versions, pr);
  at(RankFeature::kVersion) = e.version.empty() ? 0 : 1;
  at(RankFeature::kPeople) = PeopleOf(ctx, pr.pr);
  return e;
}

}  // namespace

bool SharedNumbering(const RepoRef& repo) { return repo.platform == Platform::kGitHub; }

Status BuildRankPool(const IssueContext& ctx, PullCache* cache, const RankPoolOptions& options,
                     RankPool* out) {
  out->entries.clear();
  out->pool_size = 0;
  const Issue& is = ctx.issue;
  IssueFacts facts;
  facts.closed = is.state == IssueState::kClosed && is.closed_at.has_value();
  UnixSeconds from = is.created_at ? *is.created_at - options.allowance_s : kEarliest;
  UnixSeconds to = facts.closed ? *is.closed_at + options.allowance_s : kLatest;
  if (to < from) return Status::OK();
  std::vector<RunIndex::Timed> storage;
  std::span<const RunIndex::Timed> rows;
  FG_RETURN_IF_ERROR(cache->MergedRows(is.repo, from, to, &storage, &rows));
  if (rows.size() > options.max_pool) rows = rows.last(options.max_pool);
  out->pool_size = rows.size();
  if (rows.empty()) return Status::OK();

  PoolText scored;
  if (!ScoreText(ctx, cache, !storage.empty(), rows, &scored)) return Status::OK();
  facts.numbered = SharedNumbering(is.repo) && IsDecimal(is.number) && is.number.size() < 12;
  facts.number = facts.numbered ? std::stoll(is.number) : 0;
  const std::vector<std::uint32_t> pick = Shortlist(ctx, facts, options, rows, scored.bm25);
  ShortlistEvidence ev;
  FG_RETURN_IF_ERROR(MatchShortlistIdentifiers(ctx, cache, rows, pick, &ev));
  MatchTitleIdentifiers(ctx, rows, pick, &ev);
  MatchLabelsAndVersions(ctx, rows, pick, &ev);

  out->entries.reserve(pick.size());
  for (size_t k = 0; k < pick.size(); ++k)
    out->entries.push_back(EntryOf(ctx, facts, options, scored, ev, rows[pick[k]], pick[k], k));
  return Status::OK();
}

StatusOr<std::optional<RankModel>> FitRepositoryModel(const Store& store, const RunIndex& run,
                                                      const RepoRef& repo, size_t min_pairs,
                                                      size_t max) {
  std::vector<std::pair<Ref, std::vector<std::string>>> pairs;
  for (const Ref& issue : run.issues()) {
    if (issue.repo != repo) continue;
    const Issue* is = run.FindIssue(issue.ToString());
    if (!is || is->state != IssueState::kClosed) continue;
    std::vector<std::string> fixes;
    // Appends the merged PR of the repository that `pull` is to `out`, once.
    auto add = [&](const Ref& pull, std::vector<std::string>* out) {
      if (pull.kind != RefKind::kPull || pull.repo != repo) return;
      const std::shared_ptr<PullInfo>* info = run.FindPull(pull.ToString());
      if (!info || !*info || !(*info)->pr.merged()) return;
      if (std::find(out->begin(), out->end(), (*info)->key) == out->end())
        out->push_back((*info)->key);
    };
    // A closing keyword in a PR's title, description or commit.
    if (const std::vector<MentionRecord>* ms = run.FindMentions(issue.ToString())) {
      for (const MentionRecord& m : *ms) {
        if (m.keyword != MentionKeyword::kClosing) continue;
        if (m.source != MentionSource::kPullTitle && m.source != MentionSource::kPullBody &&
            m.source != MentionSource::kCommitMessage)
          continue;
        add(m.source_item, &fixes);
      }
    }
    // A platform link (GitCode and Gitee link an issue and a PR in their own
    // records, often with no reference in any text): most merged PRs so
    // linked are the fix, though not when an issue gathers many.
    if (const RunIndex::IssueData* d = run.FindIssueData(issue.ToString())) {
      std::vector<std::string> linked;
      for (const PlatformLink& l : d->links) add(l.pull, &linked);
      if (linked.size() <= kMaxLinkedFixes)
        for (const std::string& k : linked)
          if (std::find(fixes.begin(), fixes.end(), k) == fixes.end()) fixes.push_back(k);
    }
    if (!fixes.empty()) pairs.emplace_back(issue, std::move(fixes));
  }
  if (pairs.size() < min_pairs) return std::optional<RankModel>();
  if (pairs.size() > max)
    pairs.erase(pairs.begin(), pairs.end() - static_cast<std::ptrdiff_t>(max));
  PullCache cache(store, 4096, &run);
  RankPoolOptions po;
  po.mask_times = true;
  po.shortlist_text = kStoreFitShortlist;
  IssueContext ctx;
  RankPool pool;
  std::vector<RankExample> examples;
  for (const auto& [issue, fixes] : pairs) {
    FG_RETURN_IF_ERROR(LoadIssueContext(&cache, issue, &ctx));
    FG_RETURN_IF_ERROR(BuildRankPool(ctx, &cache, po, &pool));
    examples.push_back(ExampleOf(issue, pool, fixes));
  }
  RankFitOptions fo;
  fo.freeze_time = true;
  fo.top_k = kStoreFitTopK;
  RankModel m = FitRankModel(examples, fo);
  m.source = "store";
  return std::optional<RankModel>(std::move(m));
}

StatusOr<std::vector<RankExample>> LoadRankExamples(const Store& store,
                                                    std::span<const IssueFixes> issues,
                                                    bool mask_times) {
  std::set<RepoRef> repos;
  for (const IssueFixes& i : issues) repos.insert(i.issue.repo);
  std::vector<RankExample> out;
  RankPoolOptions po;
  po.mask_times = mask_times;
  for (const RepoRef& repo : repos) {
    FG_ASSIGN_OR_RETURN(std::unique_ptr<RunIndex> run, RunIndex::Build(store, &repo, 1));
    PullCache cache(store, 4096, run.get());
    IssueContext ctx;
    RankPool pool;
    for (const IssueFixes& i : issues) {
      if (i.issue.repo != repo) continue;
      Status s = LoadIssueContext(&cache, i.issue, &ctx);
      if (s.IsNotFound()) continue;
      FG_RETURN_IF_ERROR(s);
      FG_RETURN_IF_ERROR(BuildRankPool(ctx, &cache, po, &pool));
      out.push_back(ExampleOf(i.issue, pool, i.fixes));
    }
  }
  if (out.empty() && !issues.empty())
    return Status::NotFound("none of the labelled issues is in the store");
  return out;
}

}  // namespace fixgraph::graph
