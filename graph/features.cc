#include "features.h"

#include "signals.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace fixgraph::graph {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string_view> Split(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || seps.find(s[i]) != std::string_view::npos) {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::string_view Stem(std::string_view basename) {
  size_t dot = basename.rfind('.');
  return dot == std::string_view::npos || dot == 0 ? basename : basename.substr(0, dot);
}

// True when `s` ends with `sep` followed by `suffix` ("a/b.py" ends with '/' "b.py").
bool EndsWithAfter(std::string_view s, char sep, std::string_view suffix) {
  return s.size() > suffix.size() && s[s.size() - suffix.size() - 1] == sep && EndsWith(s, suffix);
}

// True when `f` starts with "id/" or holds "/id/".
bool HasDirectory(std::string_view f, std::string_view id) {
  if (f.size() > id.size() && f[id.size()] == '/' && StartsWith(f, id)) return true;
  for (size_t p = f.find(id, 1); p != std::string_view::npos; p = f.find(id, p + 1)) {
    size_t end = p + id.size();
    if (f[p - 1] == '/' && end < f.size() && f[end] == '/') return true;
  }
  return false;
}

// The last `kMax` non-empty '/'-separated parts of `f`, last first, and how
// many non-empty parts `f` has at most that many (what Split(f, "/") gives
// at its end).
struct TailParts {
  static constexpr size_t kMax = 3;
  std::string_view part[kMax];
  size_t n = 0;  // min(number of non-empty parts, kMax)
};
TailParts TailOf(std::string_view f) {
  TailParts t;
  size_t end = f.size();
  while (end > 0 && t.n < TailParts::kMax) {
    size_t slash = f.rfind('/', end - 1);
    size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
    if (end > begin) t.part[t.n++] = f.substr(begin, end - begin);
    if (slash == std::string_view::npos) break;
    end = slash;
  }
  return t;
}

// Weight of one issue identifier against a PR, and why (`why` may be null:
// the weight only, no reason built).
double MatchOne(const std::string& id, const IdShape& shape, const PullInfo& pr, std::string* why,
                const PullFilter& filter = {}) {
  size_t file_index = 0;
  double best = 0;
  auto take = [&](double w, auto&& reason) {
    if (w > best) {
      best = w;
      if (why) *why = reason();
    }
  };
  const bool path_like = shape.path_like, has_slash = shape.has_slash,
             has_underscore = shape.has_underscore;
  std::string_view id_base = std::string_view(id).substr(shape.base_pos);
  const bool id_base_dotted = shape.base_dotted;
  const std::uint64_t bit = HashFilterBit(shape.hash);
  auto in_patch = [&] {
    // The hash first: absent there, absent from the set.
    return (filter.patch_idents & bit) &&
           std::binary_search(pr.patch_ident_hashes.begin(), pr.patch_ident_hashes.end(),
                              shape.hash) &&
           pr.patch_idents.count(id);
  };
  // Only a path-like or snake_case identifier can name a file; a snake_case
  // one names it only by its stem or parent directory, equal strings having
  // equal hashes (tail_keys).
  bool files_may_match =
      path_like || (has_underscore &&
                    (!pr.tail_keys_set ||
                     ((filter.tail_keys & bit) &&
                      std::binary_search(pr.tail_keys.begin(), pr.tail_keys.end(), shape.hash))));
  std::span<const std::string> files;
  if (files_may_match) files = pr.files;
  for (const std::string& f : files) {
    bool generic = pr.file_generic[file_index++];
    if (path_like) {
      if (f == id || EndsWithAfter(f, '/', id) || EndsWithAfter(id, '/', f)) {
        take(generic ? 0.4 : 1.0, [&] { return f + " (changed file named in the issue)"; });
      } else if (has_slash && HasDirectory(f, id)) {
        take(0.6, [&] { return f + " (under " + id + ")"; });
      } else if (id_base_dotted && (f == id_base || EndsWithAfter(f, '/', id_base))) {
        // text::Basename(f) == id_base: id_base holds no '/'.
        take(generic ? 0.3 : 0.8, [&] { return f + " (same file name)"; });
      }
    } else if (has_underscore) {
      // The file's stem or its directory ("fully_shard/hook.py"), not a
      // top-level package every file lives under.
      TailParts parts = TailOf(f);
      bool hit = parts.n >= 1 && Stem(parts.part[0]) == id;
      if (parts.n >= 3 && parts.part[1] == id) hit = true;
      if (hit) take(0.8, [&] { return f + " (path names " + id + ")"; });
    }
  }
  // take() changes nothing for a weight not above the best.
  const double patch_weight = path_like ? 0.8 : shape.plain ? 0.5 : 1.0;
  if (patch_weight > best && in_patch()) take(patch_weight, [&] { return id + " (in the patch)"; });
  return best;
}

}  // namespace

text::TokenSet TailKeysOf(const std::vector<std::string>& files) {
  text::TokenSet keys;
  for (const std::string& f : files) {
    TailParts parts = TailOf(f);
    if (parts.n >= 1) keys.push_back(text::Hash(Stem(parts.part[0])));
    if (parts.n >= 3) keys.push_back(text::Hash(parts.part[1]));
  }
  text::Normalize(&keys);
  return keys;
}

namespace {

const std::array<std::string_view, 11> kBranchWords = {
    "issue", "issues", "fix", "bug", "bugfix", "hotfix", "i", "gh", "feat", "feature", "task"};

}  // namespace

IdShape IdShape::Of(std::string_view id) {
  IdShape s;
  s.path_like = text::IsPathLike(id);
  s.has_slash = id.find('/') != std::string_view::npos;
  s.has_underscore = id.find('_') != std::string_view::npos;
  std::string_view base = text::Basename(id);
  s.base_pos = id.size() - base.size();
  s.base_dotted = base.find('.') != std::string_view::npos;
  s.plain = text::IsCamelOnly(id) || (!s.path_like && !s.has_underscore);
  s.hash = text::Hash(id);
  s.known = true;
  return s;
}

const IdShape& IssueContext::Shape(size_t i) const {
  if (id_shapes.size() < identifiers.size()) id_shapes.resize(identifiers.size());
  IdShape& s = id_shapes[i];
  if (!s.known) s = IdShape::Of(identifiers[i]);
  return s;
}

bool IssueContext::BotComment(size_t i) const {
  return i < comment_is_bot.size() ? comment_is_bot[i] : signals::IsBot(comments[i].author);
}

namespace {

// `to` made equal to `from`, reusing the strings `to` holds (their memory).
void AssignStrings(std::span<const std::string_view> from, std::vector<std::string>* to) {
  to->resize(from.size());
  for (size_t i = 0; i < from.size(); ++i) (*to)[i].assign(from[i]);
}

}  // namespace

std::vector<std::string> LinkedBranches(std::span<const OperateLogEvent> oplog) {
  std::vector<const OperateLogEvent*> events;
  for (const OperateLogEvent& e : oplog) events.push_back(&e);
  std::stable_sort(events.begin(), events.end(),
                   [](const OperateLogEvent* a, const OperateLogEvent* b) {
                     return a->created_at < b->created_at;
                   });
  std::vector<std::string> out;
  for (const OperateLogEvent* e : events) {
    const std::string& type = e->action_type.empty() ? e->action : e->action_type;
    bool add = type == "related_branch" || type == "add_issue_branch_link";
    bool del = type == "delete_issue_branch_link";
    if (!add && !del) continue;
    // related_branch: the name itself; the link events: "... **name**" or "...: name".
    std::string name = e->content;
    if (type != "related_branch") {
      size_t a = name.find("**");
      size_t b = a == std::string::npos ? std::string::npos : name.find("**", a + 2);
      if (b != std::string::npos) {
        name = name.substr(a + 2, b - a - 2);
      } else if (size_t colon = name.rfind(':'); colon != std::string::npos) {
        name = name.substr(colon + 1);
      }
      while (!name.empty() && name.front() == ' ') name.erase(name.begin());
      while (!name.empty() && name.back() == ' ') name.pop_back();
    }
    if (name.empty()) continue;
    out.erase(std::remove(out.begin(), out.end(), name), out.end());
    if (add) out.push_back(name);
  }
  return out;
}

namespace {

// An identifier naming an error or warning class ("AttributeError",
// "RuntimeError", "OutOfMemoryError", "UserWarning"): a symptom's category,
// which unrelated fixes share.
bool NamesAnErrorClass(std::string_view id) {
  std::string_view tail = LastSegment(id);
  for (std::string_view suffix : {std::string_view("error"), std::string_view("exception"),
                                  std::string_view("warning"), std::string_view("errors")})
    if (tail.size() >= suffix.size() && tail.substr(tail.size() - suffix.size()) == suffix)
      return true;
  return false;
}

}  // namespace

std::vector<text::TokenSet> TitleSubjectTokens(const std::vector<std::string>& title_identifiers) {
  std::vector<text::TokenSet> out;
  for (const std::string& id : title_identifiers) {
    if (NamesAnErrorClass(id)) continue;
    text::TokenSet t = text::Tokens(id);
    if (!t.empty()) out.push_back(std::move(t));
  }
  return out;
}

Status LoadIssueContext(PullCache* cache, const Ref& ref, IssueContext* out) {
  IssueContext& c = *out;
  FG_RETURN_IF_ERROR(cache->ReadIssue(ref, &c.issue));  // reuses c.issue's strings
  c.default_branch = cache->DefaultBranch(ref.repo);
  PullCache::IssueRowsView rows;
  FG_RETURN_IF_ERROR(cache->IssueRowsOf(ref, &rows));
  c.comments = rows.comments;
  c.oplog = rows.oplog;
  c.platform_links = rows.platform_links;
  c.mentioned_by = rows.mentioned_by;
  c.rows_owned = std::move(rows.owned);

  // One identifier buffer and text per thread, reused from issue to issue;
  // the identifiers are copied into the context's own strings, which keep
  // their memory when the context is reused.
  thread_local text::IdentifierBuffer ident_buf;
  thread_local std::string ident_text;
  c.normalized_title = text::StripTitleTags(c.issue.title);
  c.title_tokens = text::Tokens(c.normalized_title);
  ident_buf.Clear();
  ident_buf.Add(c.normalized_title, false);  // text::Identifiers(normalized_title, false)
  AssignStrings(ident_buf.Sorted(), &c.title_identifiers);
  c.title_subject_tokens = TitleSubjectTokens(c.title_identifiers);
  c.text_tokens = text::TokensOfLines({c.normalized_title, c.issue.body});
  c.comment_is_bot.resize(c.comments.size());
  size_t ident_size = c.issue.title.size() + 1 + c.issue.body.size();
  for (size_t i = 0; i < c.comments.size(); ++i) {
    c.comment_is_bot[i] = signals::IsBot(c.comments[i].author);
    if (!c.comment_is_bot[i]) ident_size += 1 + c.comments[i].body.size();
  }
  ident_text.clear();
  ident_text.reserve(ident_size);
  ident_text.append(c.issue.title).append(1, '\n').append(c.issue.body);
  size_t logins = 0;
  auto add_login = [&](const std::string& login) {
    if (login.empty()) return;
    if (logins == c.participants.size()) c.participants.emplace_back();
    c.participants[logins++].assign(login);
  };
  add_login(c.issue.author.login);
  for (size_t i = 0; i < c.comments.size(); ++i) {
    if (c.comment_is_bot[i]) continue;
    const Comment& cm = c.comments[i];
    add_login(cm.author.login);
    ident_text += '\n';
    ident_text += cm.body;
  }
  // Sorted, without repeats (what a std::set of them held).
  std::sort(c.participants.begin(), c.participants.begin() + static_cast<std::ptrdiff_t>(logins));
  logins = static_cast<size_t>(
      std::unique(c.participants.begin(),
                  c.participants.begin() + static_cast<std::ptrdiff_t>(logins)) -
      c.participants.begin());
  c.participants.resize(logins);
  ident_buf.Clear();
  ident_buf.Add(ident_text);  // text::Identifiers(ident_text)
  AssignStrings(ident_buf.Sorted(), &c.identifiers);
  // Per identifier: its keys (its hash, then the hashes of its path
  // suffixes), each list reusing the memory of the last issue's list at its
  // index; its shape is computed when first asked (Shape).
  const size_t n = c.identifiers.size();
  c.id_shapes.assign(n, IdShape{});
  c.ident_key_lists.resize(n);
  size_t all_keys = 0;
  for (size_t i = 0; i < n; ++i) {
    std::string_view v(c.identifiers[i]);
    text::TokenSet& keys = c.ident_key_lists[i];
    keys.clear();
    keys.push_back(text::Hash(v));
    for (size_t p = v.find('/'); p != std::string_view::npos; p = v.find('/', p + 1))
      keys.push_back(text::Hash(v.substr(p + 1)));
    if (keys.size() > 1) text::Normalize(&keys);
    all_keys += keys.size();
  }
  c.ident_keys.clear();
  c.ident_keys.reserve(all_keys);
  for (const text::TokenSet& keys : c.ident_key_lists)
    c.ident_keys.insert(c.ident_keys.end(), keys.begin(), keys.end());
  text::Normalize(&c.ident_keys);
  c.marks.Reserve(c.title_tokens.size() + c.text_tokens.size());
  c.marks.Add(c.title_tokens, IssueContext::kTitleMark);
  c.marks.Add(c.text_tokens, IssueContext::kTextMark);
  c.labels.assign(c.issue.labels.begin(), c.issue.labels.end());
  c.linked_branches = LinkedBranches(c.oplog);
  for (const OperateLogEvent& e : c.oplog) {
    std::string_view content = e.content;
    for (std::string_view p : {std::string_view("add label "), std::string_view("添加标签 ")}) {
      if (StartsWith(content, p)) c.labels.emplace_back(content.substr(p.size()));
    }
  }
  return Status::OK();
}

StatusOr<IssueContext> LoadIssueContext(PullCache* cache, const Ref& ref) {
  IssueContext c;
  FG_RETURN_IF_ERROR(LoadIssueContext(cache, ref, &c));
  return c;
}

void TokenWeights::Count(const std::vector<std::uint64_t>& tokens) {
  counts_.Reserve(tokens.size());
  for (std::uint64_t t : tokens) ++counts_.Slot(t);
}

namespace {

double Sum(const text::TokenSet& a, const TokenWeights* w) {
  if (!w) return static_cast<double>(a.size());
  double s = 0;
  for (std::uint64_t t : a) {
    s += w->Of(t);
  }
  return s;
}

}  // namespace

std::string_view LastSegment(std::string_view id) {
  size_t slash = id.rfind('/');
  if (slash != std::string_view::npos) id = id.substr(slash + 1);
  if (text::IsPathLike(id)) return id;
  size_t dot = id.rfind('.');
  return dot == std::string_view::npos ? id : id.substr(dot + 1);
}

namespace {

bool SharesIdentifier(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const std::string& x : a)
    for (const std::string& y : b)
      if (x == y || LastSegment(x) == LastSegment(y)) return true;
  return false;
}

bool TitlesConflict(const IssueContext& issue, const PullInfo& pr) {
  return !issue.title_identifiers.empty() && !pr.title_identifiers.empty() &&
         !SharesIdentifier(issue.title_identifiers, pr.title_identifiers);
}

// The title measures of CompareText and the flags they set alone (one
// definition for CompareText and TextVerdictOf, so both compute the same
// doubles the same way).
struct TitleRatios {
  double dice = 0, coverage = 0, containment = 0, pr_title_in_issue = 0;
  bool strong = false, moderate = false;
};
TitleRatios RatiosOf(size_t issue_title_n, size_t pr_title_n, double it, double pt, double shared,
                     double covered, size_t title_in_text) {
  TitleRatios r;
  r.dice = it + pt > 0 ? 2 * shared / (it + pt) : 0;
  r.coverage = it > 0 ? covered / it : 0;
  if (std::min(issue_title_n, pr_title_n) >= 4) r.containment = shared / std::min(it, pt);
  r.pr_title_in_issue =
      pr_title_n == 0 ? 0 : static_cast<double>(title_in_text) / static_cast<double>(pr_title_n);
  r.strong = r.dice >= 0.6 || r.containment >= 0.8 || (issue_title_n >= 5 && r.coverage >= 0.6);
  r.moderate = r.strong || r.dice >= 0.3 || r.coverage >= 0.4 ||
               (pr_title_n >= 3 && r.pr_title_in_issue >= 0.6);
  return r;
}

// `described` needs at least this share of the PR's text tokens in the issue text.
constexpr double kDescribed = 0.3;

}  // namespace

TextMatch CompareText(const IssueContext& issue, const PullInfo& pr, const TokenWeights* w) {
  constexpr std::uint8_t kTitle = IssueContext::kTitleMark, kText = IssueContext::kTextMark;
  // One walk over the PR's text tokens, each looked up once; the sum adds in
  // token order.
  TextCounts counts;
  for (std::uint64_t t : pr.text_tokens) {
    std::uint8_t bits = issue.marks.Of(t);
    if (bits & kTitle) counts.title_covered += w ? w->Of(t) : 1.0;
    if (bits & kText) ++counts.in_text;
  }
  return CompareText(issue, pr, w, counts);
}

double IssueTitleWeight(const IssueContext& issue, const TokenWeights* w) {
  return Sum(issue.title_tokens, w);
}

TextMatch CompareText(const IssueContext& issue, const PullInfo& pr, const TokenWeights* w,
                      const TextCounts& counts, ConflictCheck check) {
  TextMatch m;
  constexpr std::uint8_t kTitle = IssueContext::kTitleMark, kText = IssueContext::kTextMark;
  double it = counts.issue_title >= 0 ? counts.issue_title : Sum(issue.title_tokens, w);
  double pt = 0, shared = 0, covered = counts.title_covered;
  size_t title_in_text = 0;
  const bool lazy_in_text = counts.in_text == TextCounts::kUnknown;
  // The PR's text tokens found in the issue text / all of them.
  auto pr_in_issue = [&] {
    size_t in_text = counts.in_text;
    if (lazy_in_text) {
      in_text = 0;
      for (std::uint64_t t : pr.text_tokens) in_text += (issue.marks.Of(t) & kText) != 0;
    }
    return pr.text_tokens.empty()
               ? 0
               : static_cast<double>(in_text) / static_cast<double>(pr.text_tokens.size());
  };
  for (std::uint64_t t : pr.title_tokens) {
    std::uint8_t bits = issue.marks.Of(t);
    double wt = w ? w->Of(t) : 1.0;
    pt += wt;
    if (bits & kTitle) shared += wt;
    if (bits & kText) ++title_in_text;
  }
  TitleRatios r = RatiosOf(issue.title_tokens.size(), pr.title_tokens.size(), it, pt, shared,
                           covered, title_in_text);
  // A restatement by coverage alone (the PR's text holds most of the issue
  // title's words, the titles themselves differ) must also hold a subject
  // the issue title names in code, when it names one: an error template
  // ("AttributeError: 'X' object has no attribute 'y'") recurs in unrelated
  // PRs' tracebacks; the names in it do not.
  if (r.strong && r.dice < 0.6 && r.containment < 0.8 && !issue.title_subject_tokens.empty()) {
    bool holds = false;
    for (const text::TokenSet& id : issue.title_subject_tokens) {
      holds = std::all_of(id.begin(), id.end(), [&](std::uint64_t t) {
        return std::binary_search(pr.text_tokens.begin(), pr.text_tokens.end(), t);
      });
      if (holds) break;
    }
    if (!holds) r.strong = false;
  }
  m.title_dice = r.dice;
  m.title_coverage = r.coverage;
  m.containment = r.containment;
  if (check == ConflictCheck::kAlways) m.conflict = TitlesConflict(issue, pr);
  // Coverage: shared count / the PR side's size.
  if (!lazy_in_text) m.pr_in_issue = pr_in_issue();
  m.pr_title_in_issue = r.pr_title_in_issue;
  if (m.conflict) return m;
  m.strong = r.strong;
  m.described = pr.text_tokens.size() >= 6 && m.pr_title_in_issue >= 0.25 &&
                (lazy_in_text ? (m.pr_in_issue = pr_in_issue()) : m.pr_in_issue) >= kDescribed;
  m.moderate = r.moderate;
  // kWhenFlagged: the conflict only matters to a match that sets a flag,
  // which it then clears (as the early return above does).
  if (check == ConflictCheck::kWhenFlagged && (m.strong || m.described || m.moderate) &&
      TitlesConflict(issue, pr)) {
    m.conflict = true;
    m.strong = m.described = m.moderate = false;
  }
  return m;
}

TextVerdict TextVerdictOf(const IssueContext& issue, const PullInfo& pr, size_t pr_title_n,
                          std::span<const std::uint64_t> pr_text, const TitleCounts& title,
                          double covered, double issue_title, const TokenBits* text_bits) {
  TitleRatios r = RatiosOf(issue.title_tokens.size(), pr_title_n, issue_title, title.pr_title,
                           title.shared, covered, title.in_text);
  TextVerdict v;
  v.title_dice = r.dice;
  v.containment = r.containment;
  bool flag = r.strong || r.moderate;
  if (!flag && pr_text.size() >= 6 && r.pr_title_in_issue >= 0.25) {
    // described: in / n >= kDescribed for the number `in` of the PR's text
    // tokens in the issue text. in / n grows with `in` (n fixed), so the walk
    // stops once `in` reaches the least count that passes, or once the
    // tokens left cannot bring it there.
    const auto n = static_cast<double>(pr_text.size());
    auto need = static_cast<size_t>(kDescribed * n);
    while (need > 0 && static_cast<double>(need - 1) / n >= kDescribed) --need;
    while (static_cast<double>(need) / n < kDescribed) ++need;
    size_t in = 0, left = pr_text.size();
    for (std::uint64_t t : pr_text) {
      if (in >= need || in + left < need) break;
      in += (!text_bits || text_bits->MayHave(t)) &&
            (issue.marks.Of(t) & IssueContext::kTextMark) != 0;
      --left;
    }
    flag = in >= need;
  }
  v.flagged = flag && !TitlesConflict(issue, pr);
  return v;
}

std::vector<IdMatch> MatchIdentifiers(const IssueContext& issue, const PullInfo& pr) {
  std::vector<IdMatch> out;
  if (!text::Intersects(issue.ident_keys, pr.match_keys)) return out;
  for (size_t i = 0; i < issue.identifiers.size(); ++i) {
    if (!text::Intersects(issue.ident_key_lists[i], pr.match_keys)) continue;
    IdMatch m;
    m.id = i;
    m.weight = MatchOne(issue.identifiers[i], issue.Shape(i), pr, &m.why);
    if (m.weight > 0) out.push_back(std::move(m));
  }
  return out;
}

std::vector<IdMatch> MatchIdentifiersAmong(const IssueContext& issue, const PullInfo& pr,
                                           std::span<const std::uint32_t> ids) {
  std::vector<IdMatch> out;
  for (std::uint32_t i : ids) {
    IdMatch m;
    m.id = i;
    m.weight = MatchOne(issue.identifiers[i], issue.Shape(i), pr, &m.why);
    if (m.weight > 0) out.push_back(std::move(m));
  }
  return out;
}

void IdentifierWeights(const IssueContext& issue, const PullInfo& pr,
                       std::span<const std::uint32_t> ids, std::vector<IdWeight>* out,
                       const PullFilter& filter) {
  for (std::uint32_t i : ids) {
    double w = MatchOne(issue.identifiers[i], issue.Shape(i), pr, nullptr, filter);
    if (w > 0) out->push_back({i, w});
  }
}

void IdentifierWeights(const IssueContext& issue, const PullInfo& pr, std::vector<IdWeight>* out) {
  if (!text::Intersects(issue.ident_keys, pr.match_keys)) return;
  for (size_t i = 0; i < issue.identifiers.size(); ++i) {
    if (!text::Intersects(issue.ident_key_lists[i], pr.match_keys)) continue;
    double w = MatchOne(issue.identifiers[i], issue.Shape(i), pr, nullptr);
    if (w > 0) out->push_back({static_cast<std::uint32_t>(i), w});
  }
}

bool PatchReachesWeak(const IssueContext& issue, const PullInfo& pr,
                      std::span<const IdWeight> matches, const std::vector<int>& df) {
  double score = 0;  // summed as ScorePatch sums it
  for (const IdWeight& im : matches) {
    double w = im.weight;
    if (im.id < df.size() && df[im.id] > 1) w /= df[im.id];
    score += w;
  }
  if (score >= kPatchWeak) return true;
  if (score + 0.5 < kPatchWeak) return false;
  return issue.title_tokens.size() >= 3 &&
         text::Coverage(issue.title_tokens, pr.patch_tokens) >= 0.5;
}

PatchMatch ScorePatch(const IssueContext& issue, const PullInfo& pr,
                      const std::vector<IdMatch>& matches, const std::vector<int>& df) {
  PatchMatch m;
  for (const IdMatch& im : matches) {
    double w = im.weight;
    if (im.id < df.size() && df[im.id] > 1) w /= df[im.id];
    m.score += w;
    m.matched.push_back(im.why);
  }
  if (issue.title_tokens.size() >= 3 &&
      text::Coverage(issue.title_tokens, pr.patch_tokens) >= 0.5) {
    m.score += 0.5;
    m.matched.emplace_back("the patch uses the issue title's words");
  }
  return m;
}

PatchMatch ComparePatch(const IssueContext& issue, const PullInfo& pr, const std::vector<int>& df) {
  return ScorePatch(issue, pr, MatchIdentifiers(issue, pr), df);
}

bool BranchNamesIssue(std::string_view branch, std::string_view number) {
  if (branch.empty() || number.empty()) return false;
  bool numeric =
      std::all_of(number.begin(), number.end(), [](unsigned char c) { return std::isdigit(c); });
  std::vector<std::string_view> tokens = Split(branch, "/_-.");
  std::string num = text::Lower(number);
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string tok = text::Lower(tokens[i]);
    if (!numeric) {
      if (tok == num) return true;
      continue;
    }
    if (tok == num) {
      if (i == 0 && tokens.size() > 1) return true;
      if (i > 0) {
        std::string prev = text::Lower(tokens[i - 1]);
        if (std::find(kBranchWords.begin(), kBranchWords.end(), prev) != kBranchWords.end())
          return true;
      }
      continue;
    }
    for (std::string_view w : kBranchWords) {
      if (w.size() + num.size() == tok.size() && StartsWith(tok, w) && EndsWith(tok, num))
        return true;
    }
  }
  return false;
}

BranchKeys BranchKeysOf(std::string_view branch) {
  BranchKeys k;
  std::vector<std::string_view> tokens = Split(branch, "/_-.");
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string tok = text::Lower(tokens[i]);
    // Matches as itself: first of several tokens, or after a branch word.
    bool placed = (i == 0 && tokens.size() > 1) ||
                  (i > 0 && std::find(kBranchWords.begin(), kBranchWords.end(),
                                      text::Lower(tokens[i - 1])) != kBranchWords.end());
    if (placed) k.numeric.push_back(tok);
    // "issue31", "fix31": a branch word glued to the number.
    for (std::string_view w : kBranchWords)
      if (tok.size() > w.size() && StartsWith(tok, w)) k.numeric.push_back(tok.substr(w.size()));
    k.words.push_back(std::move(tok));
  }
  for (const std::string& n : k.numeric) k.numeric_bits |= BranchKeyBit(n);
  for (const std::string& w : k.words) k.words_bits |= BranchKeyBit(w);
  return k;
}

IssueNumberKey IssueNumberKey::Of(std::string_view number) {
  IssueNumberKey k;
  k.numeric =
      std::all_of(number.begin(), number.end(), [](unsigned char c) { return std::isdigit(c); });
  k.value = k.numeric ? std::string(number) : text::Lower(number);
  k.bit = BranchKeyBit(k.value);
  return k;
}

bool BranchNamesIssue(const BranchKeys& keys, const IssueNumberKey& number) {
  if (number.value.empty()) return false;
  if (((number.numeric ? keys.numeric_bits : keys.words_bits) & number.bit) == 0) return false;
  const std::vector<std::string>& in = number.numeric ? keys.numeric : keys.words;
  return std::find(in.begin(), in.end(), number.value) != in.end();
}

bool BranchNamesIssue(const BranchKeys& keys, std::string_view number) {
  return BranchNamesIssue(keys, IssueNumberKey::Of(number));
}

namespace {

bool Digit(char c) { return c >= '0' && c <= '9'; }
bool Alnum(char c) { return Digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Low(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The end of the digits from `i`.
size_t Digits(std::string_view s, size_t i) {
  while (i < s.size() && Digit(s[i])) ++i;
  return i;
}

}  // namespace

std::vector<std::string> VersionsIn(std::string_view s) {
  constexpr size_t kMax = 32;
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size() && out.size() < kMax) {
    if (!Digit(s[i])) {
      ++i;
      continue;
    }
    // A version starts a word, or follows a lone v or r that does.
    bool starts = i == 0 || (!Alnum(s[i - 1]) && s[i - 1] != '.');
    if (!starts && (s[i - 1] == 'v' || s[i - 1] == 'V' || s[i - 1] == 'r' || s[i - 1] == 'R'))
      starts = i == 1 || (!Alnum(s[i - 2]) && s[i - 2] != '.');
    if (!starts) {
      while (i < s.size() && (Alnum(s[i]) || s[i] == '.')) ++i;
      continue;
    }
    std::string v(s.substr(i, Digits(s, i) - i));
    size_t j = Digits(s, i);
    int parts = 1;
    while (j + 1 < s.size() && s[j] == '.') {
      if (Digit(s[j + 1])) {
        size_t e = Digits(s, j + 1);
        v.append(s.substr(j, e - j));
        j = e;
      } else if (j + 3 < s.size() && Low(s[j + 1]) == 'r' && Low(s[j + 2]) == 'c' &&
                 Digit(s[j + 3])) {
        size_t e = Digits(s, j + 3);
        v += ".rc";
        v.append(s.substr(j + 3, e - j - 3));
        j = e;
      } else {
        break;
      }
      ++parts;
    }
    if (parts >= 2 && std::find(out.begin(), out.end(), v) == out.end())
      out.push_back(std::move(v));
    i = j;
    while (i < s.size() && (Alnum(s[i]) || s[i] == '.')) ++i;
  }
  return out;
}

std::string BranchVersion(std::string_view branch) {
  if (!IsReleaseBranch(branch)) return "";
  std::vector<std::string> v = VersionsIn(branch);
  return v.empty() ? "" : v.front();
}

bool VersionsMatch(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  if (a.find('.') == std::string_view::npos) return false;
  return b.starts_with(a) && (b.size() == a.size() || b[a.size()] == '.');
}

LabelKeys LabelKeysOf(std::string_view label) {
  LabelKeys k;
  k.label = text::Lower(label);
  std::string_view value(k.label);
  size_t cut = value.find_last_of("/:");
  if (cut != std::string_view::npos) value.remove_prefix(cut + 1);
  std::string word;
  auto flush = [&] {
    if (word.size() >= 3 && std::find(k.words.begin(), k.words.end(), word) == k.words.end())
      k.words.push_back(word);
    word.clear();
  };
  for (char c : value) {
    if (Alnum(c) && !Digit(c)) {
      word += c;
    } else {
      flush();
    }
  }
  flush();
  return k;
}

bool IsReleaseBranch(std::string_view branch) {
  std::string b = text::Lower(branch);
  if (b.empty()) return false;
  for (std::string_view p : {"release", "rel-", "rel/", "branch-", "stable", "lts", "maint"})
    if (StartsWith(b, p)) return true;
  auto versioned = [](std::string_view s) {
    if (!s.empty() && (s[0] == 'v' || s[0] == 'r')) s.remove_prefix(1);
    return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0]));
  };
  if (versioned(b)) return true;
  if (b.find("release") == std::string::npos) return false;
  // "release/v2.17", "release/20240501"; "br_release_cann_8.0.RC3_20241230".
  size_t slash = b.rfind('/');
  return (slash != std::string::npos && versioned(std::string_view(b).substr(slash + 1))) ||
         !VersionsIn(b).empty();
}

}  // namespace fixgraph::graph
