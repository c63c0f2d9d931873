// Issue-side features and the implicit comparisons of an issue with a PR:
// restated titles, patch overlap, branch names. Private to graph/.
//
// Thread safety: pure functions over their arguments.
#pragma once

#include "pull_cache.h"
#include "text.h"

#include "fixgraph/engine/store.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace fixgraph::graph {

// A set of token hashes with a few flag bits each, so a comparison can walk
// a PR's tokens instead of merging sorted lists.
class TokenMarks {
 public:
  // Sets `bit` (1, 2, 4, ...) on every token of `set`. Call Reserve first
  // with the total number of tokens to add.
  void Reserve(size_t tokens) { table_.Reserve(tokens); }
  void Add(const text::TokenSet& set, std::uint8_t bit) {
    for (std::uint64_t t : set) table_.Slot(t) |= bit;
  }
  // The bits of `token`; 0 when it was never added.
  std::uint8_t Of(std::uint64_t token) const { return table_.Of(token); }

 private:
  text::TokenTable<std::uint8_t> table_;
};

// What MatchOne (features.cc) asks of an issue identifier, computed once per
// issue instead of per PR compared.
struct IdShape {
  bool path_like = false;  // text::IsPathLike
  bool has_slash = false;
  bool has_underscore = false;
  size_t base_pos = 0;       // where text::Basename starts
  bool base_dotted = false;  // the basename holds a '.'
  bool plain = false;        // CamelCase only, or neither path-like nor snake_case
  std::uint64_t hash = 0;    // text::Hash of the identifier
  bool known = false;        // set by Of (a default IdShape is not computed yet)
  static IdShape Of(std::string_view id);
};

// Everything the linker reads about one issue.
struct IssueContext {
  Issue issue;
  std::string default_branch;
  // Views of the issue's rows (PullCache::IssueRowsOf): into the RunIndex
  // when it covers the issue, else into `rows_owned`. Valid while both live.
  std::span<const Comment> comments;  // by creation time
  std::span<const OperateLogEvent> oplog;
  std::span<const PlatformLink> platform_links;
  std::span<const MentionRecord> mentioned_by;
  std::shared_ptr<const void> rows_owned;  // shared: copies of the context stay valid
  std::string normalized_title;
  text::TokenSet title_tokens;
  text::TokenSet text_tokens;  // title and body
  std::vector<std::string> title_identifiers;
  // The word tokens of each title identifier that names a subject (not an
  // error class such as AttributeError): what a PR restating the title must
  // hold (CompareText).
  std::vector<text::TokenSet> title_subject_tokens;
  std::vector<std::string> identifiers;         // from title, body and human comments
  text::TokenSet ident_keys;                    // hashes of the identifiers and their path suffixes
  std::vector<text::TokenSet> ident_key_lists;  // the same, per identifier
  // Per identifier, computed on first use (Shape): most identifiers never
  // meet a PR that shares one of their keys. Entries not `known` are not
  // computed yet.
  mutable std::vector<IdShape> id_shapes;
  const IdShape& Shape(size_t i) const;
  std::vector<bool> comment_is_bot;  // per comment: signals::IsBot(its author)
  // True when comments[i] is by a bot (comment_is_bot, or asked of
  // signals::IsBot for a context built without it).
  bool BotComment(size_t i) const;
  std::vector<std::string>
      participants;                 // logins of the author and human commenters, sorted, no repeats
  std::vector<std::string> labels;  // current labels plus labels added in the log
  // Branches the platform links to the issue (GitCode add_issue_branch_link
  // events and related_branches, less delete_issue_branch_link), in order.
  std::vector<std::string> linked_branches;
  // title_tokens (kTitleMark) and text_tokens (kTextMark), for CompareText.
  TokenMarks marks;
  static constexpr std::uint8_t kTitleMark = 1, kTextMark = 2;
};

// IssueContext::title_subject_tokens of these title identifiers: the word
// tokens of each, error and warning class names left out.
std::vector<text::TokenSet> TitleSubjectTokens(const std::vector<std::string>& title_identifiers);

// Loads an issue's context. NotFound when the issue is absent.
// The branches an issue's operate log links to it (IssueContext::linked_branches).
std::vector<std::string> LinkedBranches(std::span<const OperateLogEvent> oplog);
StatusOr<IssueContext> LoadIssueContext(PullCache* cache, const Ref& issue);
// The same into `out`, which may hold another issue's context: every field
// is replaced, and the identifier strings and lists reuse the memory `out`
// holds (a context reused from issue to issue allocates little).
Status LoadIssueContext(PullCache* cache, const Ref& issue, IssueContext* out);

// How much a PR's title and description restate the issue.
struct TextMatch {
  double title_dice = 0;         // issue title vs PR title
  double title_coverage = 0;     // issue title words found in the PR title and body
  double containment = 0;        // overlap / smaller title (titles of >= 4 tokens)
  double pr_in_issue = 0;        // PR title and body words found in the issue text
  double pr_title_in_issue = 0;  // PR title words found in the issue text
  bool described = false;        // the issue text describes much of what the PR says
  bool strong = false;           // equal, contained, or restated: title_match
  bool moderate = false;         // shares a good part of the words
  bool conflict = false;         // both titles name code identifiers, none in common
};
// Title words weigh 1/df, df being the number of candidate PR titles that use
// them: template words every title shares ("精度不一致", "fails on") count
// little, the API or file a title is about counts fully. Null: all weigh 1.
class TokenWeights {
 public:
  // Counts `tokens` (one entry per title using the token): each distinct
  // token weighs 1 / its count. Replaces earlier weights.
  void Count(const std::vector<std::uint64_t>& tokens);
  // The token's weight; 1 for tokens not counted.
  double Of(std::uint64_t token) const {
    std::uint32_t n = counts_.Of(token);
    return n == 0 ? 1.0 : 1.0 / static_cast<double>(n);
  }
  // Count in steps, giving each token's slot: Reset for `tokens` tokens in
  // all, then Add each title's tokens (appending their slots to `slots`, in
  // order). A slot's token then weighs OfSlot(slot), exactly Of(TokenAt(slot)).
  void Reset(size_t tokens) { counts_.Reserve(tokens); }
  void Add(std::span<const std::uint64_t> tokens, std::vector<std::uint32_t>* slots) {
    for (std::uint64_t t : tokens) {
      std::uint32_t s = counts_.SlotIndex(t);
      ++counts_.ValueAt(s);
      slots->push_back(s);
    }
  }
  // The same, the slots written to out[0, tokens.size()); returns how many.
  size_t Add(std::span<const std::uint64_t> tokens, std::uint32_t* out) {
    for (std::uint64_t t : tokens) {
      std::uint32_t s = counts_.SlotIndex(t);
      ++counts_.ValueAt(s);
      *out++ = s;
    }
    return tokens.size();
  }
  double OfSlot(std::uint32_t slot) const {
    return 1.0 / static_cast<double>(counts_.ValueAt(slot));
  }
  std::uint64_t TokenAt(std::uint32_t slot) const { return counts_.KeyAt(slot); }
  // The slot of a counted token; -1 for a token not counted.
  std::int64_t SlotOf(std::uint64_t token) const { return counts_.IndexOf(token); }
  // Slots run below this.
  size_t Slots() const { return counts_.Capacity(); }

 private:
  text::TokenTable<std::uint32_t> counts_;
};
// REQUIRES: issue.marks holds the issue's title and text tokens (as
// LoadIssueContext leaves it).
TextMatch CompareText(const IssueContext& issue, const PullInfo& pr, const TokenWeights* weights);
// What CompareText reads of the PR's text tokens: the weights of those in
// the issue title, summed in ascending token order, and the number of those
// in the issue text (kUnknown: CompareText counts them itself, and only when
// they decide `described`; pr_in_issue is then 0 when they do not). And,
// when not negative, the issue title's summed weights (the same for every PR
// compared with one TokenWeights, so a caller comparing many computes it once).
struct TextCounts {
  static constexpr size_t kUnknown = static_cast<size_t>(-1);
  double title_covered = 0;
  size_t in_text = 0;
  double issue_title = -1;
};
// The sum CompareText takes as the issue title's weight (TextCounts::issue_title).
double IssueTitleWeight(const IssueContext& issue, const TokenWeights* weights);
// When CompareText compares the titles' code identifiers: always, or only
// when the words alone would set strong, moderate or described (then the
// flags are the same; `conflict` stays false for a match that sets none).
enum class ConflictCheck { kAlways, kWhenFlagged };
// CompareText with the counts computed by the caller (the window, from the
// run index's postings); the same result when `counts` are right.
TextMatch CompareText(const IssueContext& issue, const PullInfo& pr, const TokenWeights* weights,
                      const TextCounts& counts, ConflictCheck check = ConflictCheck::kAlways);

// The window's cut of CompareText: whether it sets a flag, from counts the
// caller summed. `title`: over the PR's title tokens in their order, the
// weights of all (pr_title) and of those in the issue title (shared) and the
// number of those in the issue text (in_text). `covered`: TextCounts'
// title_covered; `issue_title`: IssueTitleWeight.
struct TitleCounts {
  double pr_title = 0;
  double shared = 0;
  size_t in_text = 0;
};
struct TextVerdict {
  double title_dice = 0;  // as CompareText gives them
  double containment = 0;
  bool flagged = false;  // CompareText(issue, pr, weights) sets strong, moderate or described
};
// A 4096-bit filter of a token set: MayHave is false for most tokens not in
// it and true for every token in it (a quick "not there" before a lookup).
class TokenBits {
 public:
  explicit TokenBits(const text::TokenSet& set) {
    for (std::uint64_t t : set) words_[Bit(t) >> 6] |= std::uint64_t{1} << (Bit(t) & 63);
  }
  bool MayHave(std::uint64_t t) const { return (words_[Bit(t) >> 6] >> (Bit(t) & 63)) & 1; }

 private:
  static std::uint64_t Bit(std::uint64_t t) { return (t * 0x9E3779B97F4A7C15ull) >> 52; }
  std::array<std::uint64_t, 64> words_{};
};
// `pr_title_n` and `pr_text` are the sizes of pr.title_tokens and
// pr.text_tokens itself (the caller may keep a copy). The PR's text tokens
// are walked only when `described` decides the answer, and only until it is
// decided; the titles' identifiers are compared only when a flag would be set.
// `text_bits` (may be null): TokenBits of issue.text_tokens.
TextVerdict TextVerdictOf(const IssueContext& issue, const PullInfo& pr, size_t pr_title_n,
                          std::span<const std::uint64_t> pr_text, const TitleCounts& title,
                          double covered, double issue_title, const TokenBits* text_bits = nullptr);

// The last dotted or slashed segment of an identifier:
// "torch_npu.npu_rms_norm" -> "npu_rms_norm", "a/b/c.py" -> "c.py".
std::string_view LastSegment(std::string_view id);

// Which identifiers the issue names that the PR changes.
struct PatchMatch {
  double score = 0;
  std::vector<std::string> matched;  // e.g. "grouped_linear.py (changed file)"
};
// One issue identifier a PR touches, with its raw weight.
struct IdMatch {
  size_t id = 0;  // index into IssueContext::identifiers
  double weight = 0;
  std::string why;
};
// REQUIRES: pr.files_loaded (files, patch_idents and patch_ident_hashes set).
std::vector<IdMatch> MatchIdentifiers(const IssueContext& issue, const PullInfo& pr);
// The same for a caller that knows which identifiers share a key with the
// PR's match_keys: `ids`, ascending, must be exactly those (as
// RunIndex::KeyPostings give them); the result equals MatchIdentifiers'.
std::vector<IdMatch> MatchIdentifiersAmong(const IssueContext& issue, const PullInfo& pr,
                                           std::span<const std::uint32_t> ids);
// MatchIdentifiers' weights alone (no reasons built), appended to `out`:
// of the identifiers `ids` (as MatchIdentifiersAmong takes them), or of
// every identifier whose keys meet the PR's match keys.
struct IdWeight {
  std::uint32_t id = 0;
  double weight = 0;
};
// Filters of a PR's patch identifier hashes and tail keys (HashFilterOf):
// a hash whose bit is clear is not there, so its lookup is skipped. All ones
// (the default) filter nothing.
struct PullFilter {
  std::uint64_t patch_idents = ~std::uint64_t{0};
  std::uint64_t tail_keys = ~std::uint64_t{0};
};
inline std::uint64_t HashFilterBit(std::uint64_t hash) {
  return std::uint64_t{1} << ((hash * 0xD6E8FEB86659FD93ull) >> 58);
}
inline std::uint64_t HashFilterOf(const text::TokenSet& hashes) {
  std::uint64_t f = 0;
  for (std::uint64_t h : hashes) f |= HashFilterBit(h);
  return f;
}
void IdentifierWeights(const IssueContext& issue, const PullInfo& pr,
                       std::span<const std::uint32_t> ids, std::vector<IdWeight>* out,
                       const PullFilter& filter = {});
void IdentifierWeights(const IssueContext& issue, const PullInfo& pr, std::vector<IdWeight>* out);
// ScorePatch(issue, pr, matches, df).score >= kPatchWeak for the matches
// these weights come from, without building the reasons (and without the
// title-words coverage of the patch unless it decides the answer).
bool PatchReachesWeak(const IssueContext& issue, const PullInfo& pr,
                      std::span<const IdWeight> matches, const std::vector<int>& df);
// Sums the matches; `df` counts, per identifier (by index into
// IssueContext::identifiers; missing entries count 0), the candidate PRs that
// touch it: an identifier many PRs touch tells little (weight / df).
PatchMatch ScorePatch(const IssueContext& issue, const PullInfo& pr,
                      const std::vector<IdMatch>& matches, const std::vector<int>& df);
// MatchIdentifiers then ScorePatch.
PatchMatch ComparePatch(const IssueContext& issue, const PullInfo& pr, const std::vector<int>& df);

inline constexpr double kPatchWeak = 0.6;
inline constexpr double kPatchStrong = 1.8;

// True when a head branch names the issue number as a token: "issue-31",
// "fix/31", "31-xxx", "bugfix_31", "I8XK2P".
bool BranchNamesIssue(std::string_view branch, std::string_view number);
// The same answer from keys computed once per branch: `numeric` for issue
// numbers made of digits, `words` (the lower-cased branch tokens) for others.
BranchKeys BranchKeysOf(std::string_view branch);
bool BranchNamesIssue(const BranchKeys& keys, std::string_view number);
// An issue number prepared once for many BranchNamesIssue tests.
struct IssueNumberKey {
  std::string value;  // the number, lower-cased unless numeric
  bool numeric = false;
  std::uint64_t bit = 0;  // BranchKeyBit(value)
  static IssueNumberKey Of(std::string_view number);
};
bool BranchNamesIssue(const BranchKeys& keys, const IssueNumberKey& number);

// Versions a text names: "2.5.1", "v0.9", "r2.4", "8.0.RC3" give "2.5.1",
// "0.9", "2.4", "8.0.rc3" (lower-case, the leading v or r dropped): a number
// and at least one more dotted part (a number, or "rc" and a number) that
// does not continue a word ("python3.8" names no version). In order, no
// repeats, at most 32.
std::vector<std::string> VersionsIn(std::string_view text);
// The version a release branch is cut for, the first VersionsIn of its name
// ("release/v2.5.1" -> "2.5.1", "r2.5" -> "2.5",
// "br_release_cann_8.0.RC3_20241230" -> "8.0.rc3"); "" for a branch that is
// no release line or names no version.
std::string BranchVersion(std::string_view branch);
// True when one version is the other or a release line holding it ("2.5" and
// "2.5.1"; not "2.5" and "2.51", nor "2" and "2.5").
bool VersionsMatch(std::string_view a, std::string_view b);

// What of an issue label a PR can share: the label, lower-cased, and the
// words of its value (after the last '/' or ':', as "sig/compiler",
// "area: inference", "comp-hccl"), ASCII words of three letters or more.
struct LabelKeys {
  std::string label;
  std::vector<std::string> words;
};
LabelKeys LabelKeysOf(std::string_view label);

// True for branch names that are release lines rather than the main line
// ("release/v2.17", "r2.4.1", "v0.1.0", "branch-2.1", "stable",
// "br_release_cann_8.0.RC3_20241230").
bool IsReleaseBranch(std::string_view branch);

}  // namespace fixgraph::graph
