// The per-issue linker: evidence collection (collect.cc) and scoring,
// backports, resolution and flags (linker.cc). Private to graph/.
//
// Thread safety: a Linker links one issue at a time on one thread; several
// Linkers may read one Store concurrently, each with its own PullCache.
// A Linker may link many issues in turn (a LinkWorker keeps one per worker):
// each Link starts from empty per-issue state, and the scratch vectors keep
// their capacity from one issue to the next.
#pragma once

#include "features.h"
#include "pull_cache.h"
#include "rank_pool.h"

#include "fixgraph/graph/linker.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace fixgraph::graph {

inline constexpr std::int64_t kDay = 86400;

// A PR (or an out-of-store target) that may have resolved the issue.
struct Candidate {
  std::string key;  // canonical reference
  Ref ref;
  std::shared_ptr<PullInfo> info;  // null: not in the store
  std::vector<Evidence> evidence;
  bool referenced = false;  // named explicitly: a false lead when it never merged
  bool mirror = false;      // named by a comment through a mirror-host URL
  bool in_window = false;   // merged in the implicit window
  std::optional<std::int64_t> close_delta;
  TextMatch text;
  PatchMatch patch;
  bool compared = false;  // text and patch computed
  std::string backport_of;
  Tier tier = Tier::kD;
  double confidence = 0;
  bool keep = false;
  bool implicit_only = false;

  bool Has(EvidenceKind k) const {
    return std::any_of(evidence.begin(), evidence.end(),
                       [k](const Evidence& e) { return e.kind == k; });
  }
  void Add(EvidenceKind k, std::string detail, std::optional<std::int64_t> delta = {}) {
    if (Has(k)) return;
    evidence.push_back({k, std::move(detail), delta});
  }
  bool merged() const { return info && info->pr.merged() && info->pr.merged_at; }
  bool Explicit() const {
    for (EvidenceKind k :
         {EvidenceKind::kClosingKeyword, EvidenceKind::kExplicitUrl, EvidenceKind::kExplicitRef,
          EvidenceKind::kPlatformLink, EvidenceKind::kBranchName, EvidenceKind::kCommentRef})
      if (Has(k)) return true;
    return false;
  }
};

// "2026-09-15 11:35:56 +08:00" at the display offset, or "(unknown time)".
std::string When(const OptTime& t);
// "description", "a commit message", ... for evidence details.
const char* SourcePhrase(MentionSource s);
// `s` on one line, cut to about `max_bytes` at a character boundary.
std::string Excerpt(std::string_view s, size_t max_bytes);
// The rows of a window the linker examines (collect.cc), as indexes into the
// rows (merge times `times`, ascending): all of them in order when there are
// at most `max`; else the `max` merged nearest `close`, nearest first. A run
// of rows merged in one second is taken whole, from its first row (so rows
// equally near keep their order), the nearer side first and the earlier side
// on a tie; the list is cut to `max` at the end.
void NearestRows(std::span<const UnixSeconds> times, UnixSeconds close, size_t max,
                 std::vector<std::uint32_t>* merged);
// The weight of one piece of evidence in the candidate's confidence.
double Weight(const Candidate& c, const Evidence& e, size_t close_competitors, int strong_s);
// `v` moved into the confidence band of tier `t`.
double Clamp(double v, Tier t);

// Links one issue: collect candidates and evidence, score them, add
// backports, prune, then resolve and flag (see linker.h for the contract).
class Linker {
 public:
  Linker(const Store& store, const LinkerOptions& options, PullCache* cache)
      : store_(&store), options_(&options), cache_(cache) {}

  // Links the next issues with these instead (a reused Linker).
  void Rebind(const Store& store, const LinkerOptions& options, PullCache* cache) {
    store_ = &store;
    options_ = &options;
    cache_ = cache;
  }

  // Links one issue. Per-issue state is reset first and released after (no
  // PR or row of the cache stays held between issues).
  StatusOr<IssueLinks> Link(const Ref& ref);

 private:
  // The candidate for `ref`, created (and its PR loaded) on first use.
  StatusOr<Candidate*> Cand(const Ref& ref) {
    std::string key = ref.ToString();
    auto it = cands_.find(key);
    if (it != cands_.end()) return &it->second;
    Candidate c;
    c.key = key;
    c.ref = ref;
    FG_ASSIGN_OR_RETURN(c.info, cache_->Get(ref));
    return &cands_.emplace(key, std::move(c)).first->second;
  }

  // "!192" for a PR of the issue's repository, the full reference otherwise.
  std::string Short(const Ref& ref) const {
    if (ref.repo == ctx_.issue.repo) return (ref.kind == RefKind::kPull ? "!" : "#") + ref.number;
    return ref.ToString();
  }

  // ---- Collection (collect.cc).
  // PRs whose titles, bodies, commits or comments name the issue.
  Status CollectMentions();
  // PRs the platform links to the issue.
  Status CollectPlatformLinks();
  // Resolves "#N" written for a PR (GitCode users do this): an issue
  // reference of this repository with no such issue but such a PR.
  StatusOr<std::optional<Ref>> AsPull(const Ref& target);
  // PRs the issue's comments name (fix, false lead, reference only,
  // introducing change) and the issue a comment calls this a duplicate of.
  Status CollectComments();
  // PRs merged within seconds of the close, unless the close was a batch.
  Status CollectCloseAtMerge();
  // PRs merged around the issue: branch names, title and patch comparisons.
  Status CollectWindow();
  // CollectWindow's steps, over one WindowPass (defined in collect.cc).
  struct WindowPass;
  // The window's merged rows from the cache, and how each is read.
  Status ReadWindowRows(UnixSeconds from, UnixSeconds to, WindowPass* w);
  // Where each examined row (win_.merged) sits among the postings' positions.
  void SlotExaminedRows(WindowPass* w);
  // Title word weights over the examined rows' titles, and the issue's marks per weight slot.
  void WeighWindowTitles(const WindowPass& w);
  // Per examined row, the weight of the issue title's words its text holds (from postings).
  void CoverIssueTitle(const WindowPass& w);
  // The branch-name evidence of one examined row's PR.
  Status BranchEvidence(const WindowPass& w, const PullInfo& info,
                        const RunIndex::WindowRows::Row& row);
  // One examined row: branch evidence, then (implicit linking) its cheap text and identifier
  // comparison, kept in win_.compared.
  Status CompareWindowRow(const WindowPass& w, size_t slot_i);
  // The compared rows that are promising or already candidates, compared in full.
  Status PromoteCompared(const WindowPass& w);
  // The PR's own title and body, scanned again for the issue (covers what the
  // mention index missed).
  void OwnMentions(Candidate* c);
  // Title and patch comparisons for every merged in-store candidate.
  Status Enrich();

  // ---- Scoring (linker.cc).
  static bool IsRevert(std::string_view title) {
    // The folded, lower-cased title below can start with "revert" or 回退
    // only when the title holds "revert" in any ASCII case, 回退, or a
    // full-width form (bytes 0xEF...) that folds to ASCII: most titles hold
    // none, and are answered without building the folded copies.
    if (!MayNameRevert(title)) return false;
    auto starts = [](std::string_view t) {
      return t.rfind("revert", 0) == 0 || t.rfind("\xE5\x9B\x9E\xE9\x80\x80" /* 回退 */, 0) == 0;
    };
    if (starts(text::Lower(text::StripTitleTags(title)))) return true;
    // "[Revert] x", "【回退】x": the leading tag itself says so.
    std::string raw = text::Lower(text::FoldWidth(title));
    std::string_view v(raw);
    while (!v.empty() && (v.front() == ' ' || v.front() == '[' || v.front() == '('))
      v.remove_prefix(1);
    if (v.rfind("\xE3\x80\x90" /* 【 */, 0) == 0) v.remove_prefix(3);
    return starts(v);
  }
  static bool MayNameRevert(std::string_view t) {
    static const text::CueSet kRevert{"revert",
                                      "\xE5\x9B\x9E\xE9\x80\x80" /* 回退 */};  // ASCII case folded
    return t.find('\xEF') != std::string_view::npos || kRevert.In(t);
  }
  // The PR title is the issue title, give or take a word (archive-style
  // issues filed after the change merged).
  static bool Restates(const TextMatch& t) { return t.title_dice >= 0.8 || t.containment >= 0.9; }
  // True when the PR's own title/body is about another issue of the repository.
  bool AboutOtherIssue(const PullInfo& info) const;
  // Tier and confidence of every candidate; unmerged ones are never fixes.
  void Score();
  bool IsBackportOf(const PullInfo& p, const PullInfo& f) const;
  Status AddBackport(const Ref& ref, const Candidate& fix);
  // PRs re-applying a found fix to a release branch (by reference or title).
  Status CollectBackports();
  // A duplicate keeps inferred links only to what fixed the original.
  Status KeepOriginalsFixes();
  // Drops inferred links when explicit ones exist; keeps at most four.
  void Prune();
  // A backport of a dropped link goes with it (unless it names the issue itself).
  void DropOrphanBackports();
  // ---- Suggestions (suggest.cc, rank_pool.cc; here in linker.cc).
  // Ranks the pool of a closed issue once (pool_, order_, probs_).
  Status Rank();
  // Implicit-only tier C links are dropped (and come back as suggestions)
  // when the ranking gives another PR at least even odds and none of them
  // 10%.
  Status ConfirmImplicit();
  // The ranked suggestions of an issue left without a trusted fix.
  std::vector<FixLink> Suggestions();
  // Builds the result: fixes, false leads, evidence, resolution, flags.
  StatusOr<IssueLinks> Finish();
  // A participant of the issue merged a change here while it was open.
  bool ParticipantChange();

  // Forgets the previous issue (keeping the memory of the scratch vectors).
  void Reset();
  // Drops what the previous issue held of the cache and the run index.
  void Release();

  const Store* store_;
  const LinkerOptions* options_;
  PullCache* cache_;
  IssueContext ctx_;
  std::map<std::string, Candidate> cands_;  // by key; pointers stay valid
  std::vector<int> df_;                     // per ctx_.identifiers entry: window PRs touching it
  TokenWeights weights_;                    // title word -> 1 / window PR titles using it
  std::vector<std::string> notes_;
  std::optional<Ref> duplicate_of_;
  bool batch_close_ = false;
  size_t close_competitors_ = 0;
  bool nested_ = false;  // linking a duplicate's original: no further hops
  RankPool pool_;
  std::vector<size_t> order_;  // pool_ entries by score, best first
  std::vector<double> probs_;  // per pool_ entry, then "none"
  bool ranked_ = false;

  // CollectWindow's working lists, kept across issues for their capacity
  // (each is cleared or assigned before use). See CollectWindow for what
  // each holds.
  struct WindowScratch {
    std::vector<RunIndex::Timed> storage;
    std::vector<std::uint32_t> merged;
    std::vector<std::int32_t> slot;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> hits;
    std::vector<std::uint32_t> fill, placed, next;
    std::vector<std::uint32_t> hit_start, hit_ids;
    std::vector<std::uint32_t> title_slots, slots_start;
    std::vector<std::uint8_t> slot_marks;
    std::vector<double> covered;
    struct Compared {
      std::uint32_t slot;
      std::uint32_t ids_begin, ids_end;  // into id_weights
      bool text_flagged;
    };
    std::vector<Compared> compared;
    std::vector<IdWeight> id_weights;
    std::vector<const PullInfo*> cand_infos;
    std::vector<IdMatch> ids;
  };
  WindowScratch win_;
  // CollectWindow's identifier hits per examined row (collect.cc).
  static void IdentifierHitsBySlot(const std::vector<text::TokenSet>& ident_key_lists,
                                   const RunIndex::KeyPostings& postings,
                                   const std::vector<std::int32_t>& slot, std::uint32_t lo,
                                   std::uint32_t hi, size_t n_slots, WindowScratch* ws);
};

}  // namespace fixgraph::graph
