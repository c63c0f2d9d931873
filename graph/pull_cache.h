// PullCache: pull requests with the features the linker compares against
// issues (title and text tokens, changed files, patch identifiers, the
// references in their own texts), loaded on demand and kept for reuse across
// the issues of one LinkAll run. Private to graph/.
//
// RunIndex: the same features computed once per link run for every PR of the
// linked repositories, plus the issues with their comments, operate logs and
// platform links, the mention index rows of their targets, and the merge/close
// time indexes, in memory, each read with one sequential store scan; and, per
// repository, postings of the merge-time rows by their PRs' match keys and
// text tokens (the implicit window looks keys up instead of walking each PR).
// A PullCache given a RunIndex answers from it for the repositories it covers
// (no store reads, no per-issue iterators) and from the store for the others;
// both give the same answers on an unchanged store.
//
// Thread safety: a PullCache is not thread-safe (one per linking thread). A
// RunIndex is immutable after Build and may be shared by every thread.
#pragma once

#include "text.h"

#include "fixgraph/engine/mentions.h"
#include "fixgraph/engine/store.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fixgraph::graph {

// A head branch name's tokens, for BranchNamesIssue (features.h): `numeric`
// are what a numeric issue number must equal, `words` the lower-cased tokens.
struct BranchKeys {
  std::vector<std::string> numeric;
  std::vector<std::string> words;
  // One bit per key (BranchKeyBit of its hash), set by BranchKeysOf: a key
  // whose bit is clear is in neither list (a quick "not there").
  std::uint64_t numeric_bits = 0;
  std::uint64_t words_bits = 0;
};
inline std::uint64_t BranchKeyBit(std::string_view key) {
  return std::uint64_t{1} << (text::Hash(key) >> 58);
}

// A sorted set of strings in one character buffer (the strings end to end)
// plus one end offset per string: what std::set<std::string> answers for
// count(), in a fraction of its memory (no tree node or string object per
// element). Immutable once built.
class SortedStrings {
 public:
  SortedStrings() = default;
  // From strings sorted ascending without repeats.
  explicit SortedStrings(std::span<const std::string_view> sorted);
  // From a std::set (tests build PRs this way).
  SortedStrings(const std::set<std::string>& set);  // NOLINT: implicit on purpose

  // 1 when `s` is in the set, else 0.
  size_t count(std::string_view s) const;
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  // The i-th string in ascending order.
  std::string_view operator[](size_t i) const {
    std::uint32_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(chars_).substr(begin, ends_[i] - begin);
  }
  // Iteration in ascending order (the strings as views).
  class Iterator {
   public:
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    Iterator(const SortedStrings* s, size_t i) : s_(s), i_(i) {}
    std::string_view operator*() const { return (*s_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++i_;
      return old;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.i_ == b.i_; }

   private:
    const SortedStrings* s_ = nullptr;
    size_t i_ = 0;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, ends_.size()}; }
  // Heap bytes held (the capacity of both buffers).
  size_t HeapBytes() const { return chars_.capacity() + ends_.capacity() * sizeof(std::uint32_t); }

 private:
  std::string chars_;
  std::vector<std::uint32_t> ends_;  // end offset of each string in chars_
};

struct PullInfo {
  PullRequest pr;               // in a RunIndex the body is dropped once the features are computed
  std::string key;              // pr.ref().ToString()
  text::TokenSet title_tokens;  // title without leading tags
  text::TokenSet text_tokens;   // title and body
  std::string normalized_title;
  std::vector<std::string> title_identifiers;
  BranchKeys branch_keys;     // of head_ref
  bool release_base = false;  // IsReleaseBranch(base_ref)

  // References in the title and body (computed on first use; a RunIndex
  // computes them when it is built).
  const std::vector<Mention>& OwnMentions() const;

  // Filled by PullCache::LoadFiles.
  bool files_loaded = false;
  std::vector<std::string> files;     // changed paths, lower-cased
  std::vector<bool> file_generic;     // per file: a name every repository has
  SortedStrings patch_idents;         // identifiers of the patches
  text::TokenSet patch_ident_hashes;  // text::Hash of each patch identifier (a quick "not there")
  text::TokenSet patch_tokens;
  // Hashes of every path suffix, directory prefix, component and stem of the
  // changed files, and of the patch identifiers: a PR whose keys miss all of
  // an issue's identifier keys cannot overlap it.
  text::TokenSet match_keys;
  // Hashes of each changed file's stem and, for paths of three or more
  // parts, of its parent directory (TailKeysOf): what a snake_case identifier
  // must equal to name a file. Used only when tail_keys_set.
  text::TokenSet tail_keys;
  bool tail_keys_set = false;

 private:
  mutable bool mentions_done_ = false;
  mutable std::vector<Mention> mentions_;
};

// (time, item) rows as Store::PullsMergedBetween / IssuesClosedBetween give them.
using TimedRefs = std::vector<std::pair<UnixSeconds, Ref>>;
// The same rows for merged PRs, with the PR (null when it is not in the store).
using TimedPulls = std::vector<std::pair<UnixSeconds, std::shared_ptr<PullInfo>>>;

// PullInfo::tail_keys of `files` (sorted, unique).
text::TokenSet TailKeysOf(const std::vector<std::string>& files);

class RunIndex {
 public:
  // Reads every issue and PR of `repo` (of every repository when null) and
  // computes the PR features and files, using up to `threads` threads. PRs
  // and their changed files stream through batches of `batch` PRs (fewer when
  // their patches pass 16 MB), each batch's features computed before the next
  // is read: the PR bodies and patches of a whole run are never held at once.
  static constexpr size_t kDefaultBatch = 1024;
  static StatusOr<std::unique_ptr<RunIndex>> Build(const Store& store, const RepoRef* repo,
                                                   unsigned threads, size_t batch = kDefaultBatch);

  bool Covers(const RepoRef& repo) const { return all_repos_ || repo == repo_; }
  // REQUIRES: Covers(ref.repo). Null when absent.
  const std::shared_ptr<PullInfo>* FindPull(const std::string& key) const;
  const Issue* FindIssue(const std::string& key) const;
  // What the store's per-item reads give for a covered issue: its comments
  // (ListComments order), operate log, platform links (ListPlatformLinks).
  // Null when the issue is absent.
  struct IssueData {
    Issue issue;
    std::vector<Comment> comments;
    std::vector<OperateLogEvent> oplog;
    std::vector<PlatformLink> links;
  };
  const IssueData* FindIssueData(const std::string& key) const;
  // Store::MentionsOf of a covered target (issue or PR); null when none.
  const std::vector<MentionRecord>* FindMentions(const std::string& key) const;
  // Same rows, in the same order, as the store's time indexes.
  void PullsMergedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                          TimedRefs* out) const;
  void IssuesClosedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                           TimedRefs* out) const;
  void MergedPullsBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                          TimedPulls* out) const;
  // One row of the merge-time (or close-time) index.
  struct Timed {
    UnixSeconds t;
    std::string padded;  // the number as the store's index key holds it
    Ref ref;
    std::shared_ptr<PullInfo> info;  // merged PRs only
    std::uint32_t pos = 0;           // index in its repository's rows (run index rows only)
  };
  // The merge-time rows of one repository by the keys of their PRs (the
  // match keys, or the text tokens): which rows hold a key, without walking
  // every row's keys.
  class KeyPostings {
   public:
    // Postings of `rows` (Timed::pos set) by the sets `keys` of their PRs.
    static KeyPostings Of(const std::vector<Timed>& rows, text::TokenSet PullInfo::*keys);
    // Positions (Timed::pos) in [lo, hi), ascending, of the rows whose PR has `key`.
    std::span<const std::uint32_t> Rows(std::uint64_t key, std::uint32_t lo,
                                        std::uint32_t hi) const;

   private:
    text::TokenTable<std::uint32_t> index_;  // key -> its index in starts_, plus 1
    std::vector<std::uint32_t> starts_;      // one per distinct key, plus 1: offsets into rows_
    std::vector<std::uint32_t> rows_;        // per key, ascending
  };
  // What the implicit window reads of each merge-time row, in one flat array
  // in row order, so that walking a window reads contiguous memory instead
  // of several heap blocks per PullInfo: creation time, branch-key bits, base
  // branch (interned), the title tokens (copied) and a view of the text tokens.
  class WindowRows {
   public:
    struct Row {
      const PullInfo* info = nullptr;       // null: the PR is not in the store
      const std::uint64_t* text = nullptr;  // info->text_tokens
      UnixSeconds created_at = 0;           // when has_created
      std::uint64_t numeric_bits = 0;       // info->branch_keys
      std::uint64_t words_bits = 0;
      std::uint32_t text_n = 0;
      std::uint32_t title_begin = 0;  // info->title_tokens: titles()[title_begin, + title_n)
      std::uint32_t title_n = 0;
      std::uint32_t base = 0;  // info->pr.base_ref: index in the interned names, 0 for ""
      // HashFilterOf (features.h) info->patch_ident_hashes and, when
      // tail_keys_set, info->tail_keys (else all ones).
      std::uint64_t patch_filter = ~std::uint64_t{0};
      std::uint64_t tail_filter = ~std::uint64_t{0};
      bool has_created = false;
      bool release_base = false;
      bool files_loaded = false;
    };
    static constexpr std::uint32_t kNoBase = static_cast<std::uint32_t>(-1);
    // One row per element of `rows`, at its index there. The PullInfos must
    // stay unchanged while the result is used (views of their token lists).
    static WindowRows Of(std::span<const Timed> rows);
    const Row& row(size_t i) const { return rows_[i]; }
    std::span<const std::uint64_t> Title(const Row& r) const {
      return {titles_.data() + r.title_begin, r.title_n};
    }
    std::span<const std::uint64_t> Text(const Row& r) const { return {r.text, r.text_n}; }
    // The rows' merge times (Timed::t), kept apart in one dense array so
    // that the window's nearest-rows selection reads 8 bytes per row.
    std::span<const UnixSeconds> Times() const { return times_; }
    // The Row::base of a branch name; kNoBase when no row has it.
    std::uint32_t BaseOf(std::string_view branch) const;

   private:
    std::vector<Row> rows_;
    std::vector<UnixSeconds> times_;  // per row
    std::vector<std::uint64_t> titles_;
    std::vector<std::string> bases_;  // [0] = ""
  };
  // Null when the repository has no merged PR (or is not covered).
  const WindowRows* WindowRowsOf(const RepoRef& repo) const;
  const KeyPostings* MatchKeyPostings(const RepoRef& repo) const;  // PullInfo::match_keys
  const KeyPostings* TextPostings(const RepoRef& repo) const;      // PullInfo::text_tokens
  // The merge-time rows of [from, to], in order, without copying them.
  std::span<const Timed> MergedRows(const RepoRef& repo, UnixSeconds from, UnixSeconds to) const;
  // Every covered issue, in Store::ForEachIssue order.
  const std::vector<Ref>& issues() const { return issue_refs_; }

 private:
  // Build's steps (pull_cache.cc): the issues with their comments, operate logs, platform links
  // and the mentions of covered targets; then, from the PRs (read and featured by the
  // caller), the PR map, the merge- and close-time rows in order and their postings.
  Status LoadIssues(const Store& store, const RepoRef* repo);
  void IndexPulls(std::vector<std::shared_ptr<PullInfo>> infos);

  static void Between(const std::map<std::string, std::vector<Timed>>& index, const RepoRef& repo,
                      UnixSeconds from, UnixSeconds to, TimedRefs* out);

  bool all_repos_ = true;
  RepoRef repo_;
  std::unordered_map<std::string, std::shared_ptr<PullInfo>> pulls_;
  std::unordered_map<std::string, IssueData> issue_map_;
  std::unordered_map<std::string, std::vector<MentionRecord>> mentions_;  // by target
  std::vector<Ref> issue_refs_;
  std::map<std::string, std::vector<Timed>> merged_;  // by repository
  std::map<std::string, std::vector<Timed>> closed_;
  std::map<std::string, KeyPostings> match_postings_;  // by repository
  std::map<std::string, KeyPostings> text_postings_;
  std::map<std::string, WindowRows> window_rows_;  // by repository
};

class PullCache {
 public:
  // Keeps at most `capacity` PRs; older entries are dropped wholesale.
  // `run` (may be null, must outlive the cache) answers for the repositories
  // it covers.
  PullCache(const Store& store, size_t capacity, const RunIndex* run = nullptr);

  // The PR, or nullptr when it is not in the store.
  StatusOr<std::shared_ptr<PullInfo>> Get(const Ref& pull);
  // Loads the PR's changed files and patch features (once).
  Status LoadFiles(PullInfo* info);
  // The repository's default branch ("" when unknown).
  std::string DefaultBranch(const RepoRef& repo);
  // The issue into *out (NotFound when absent). From the run index it is
  // copied into out's own strings, so an Issue reused from call to call
  // keeps their memory; else it is read from the store.
  Status ReadIssue(const Ref& issue, Issue* out);
  // OK when the issue exists, NotFound when not.
  Status IssueExists(const Ref& issue);
  // As Store::MentionsOf.
  Status MentionsOf(const Ref& target, std::vector<MentionRecord>* out);
  // What the linker reads of an issue's rows, without copying them when the
  // run index covers the issue: its comments stably sorted by creation time,
  // operate log, platform links whose issue is this one, and the mention rows
  // naming it (as Store::ListComments, ListOperateLog,
  // ListPlatformLinks and MentionsOf give them). The views point into the
  // run index, or into `owned` (set only when some view needs its own rows).
  struct IssueRowsView {
    std::span<const Comment> comments;
    std::span<const OperateLogEvent> oplog;
    std::span<const PlatformLink> platform_links;
    std::span<const MentionRecord> mentioned_by;
    std::shared_ptr<const void> owned;
  };
  Status IssueRowsOf(const Ref& issue, IssueRowsView* out);
  // As Store::PullsMergedBetween and Store::IssuesClosedBetween.
  Status PullsMergedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to, TimedRefs* out);
  Status IssuesClosedBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to, TimedRefs* out);
  // PullsMergedBetween with each row's PR (Get).
  Status MergedPullsBetween(const RepoRef& repo, UnixSeconds from, UnixSeconds to, TimedPulls* out);
  // The same rows as RunIndex rows (`padded` unset when read from the store):
  // *rows points into the run index, or into `storage`.
  Status MergedRows(const RepoRef& repo, UnixSeconds from, UnixSeconds to,
                    std::vector<RunIndex::Timed>* storage, std::span<const RunIndex::Timed>* rows);

  // The run index's match-key postings for the rows MergedRows gives for
  // `repo`; null when those rows come from the store.
  const RunIndex::KeyPostings* MatchKeyPostings(const RepoRef& repo) const {
    return run_ && run_->Covers(repo) ? run_->MatchKeyPostings(repo) : nullptr;
  }
  const RunIndex::KeyPostings* TextPostings(const RepoRef& repo) const {
    return run_ && run_->Covers(repo) ? run_->TextPostings(repo) : nullptr;
  }
  // The run index's WindowRows of those rows (row i: the row whose pos is i).
  const RunIndex::WindowRows* WindowRowsOf(const RepoRef& repo) const {
    return run_ && run_->Covers(repo) ? run_->WindowRowsOf(repo) : nullptr;
  }

  const Store& store() const { return store_; }

 private:
  // True when the run index holds the issue's repository (and so answers for
  // the issue, present or not).
  bool Covers(const Ref& issue) const {
    return run_ && issue.kind == RefKind::kIssue && run_->Covers(issue.repo);
  }

  const Store& store_;
  size_t capacity_;
  const RunIndex* run_;
  std::unordered_map<std::string, std::shared_ptr<PullInfo>> pulls_;  // null: known absent
  std::map<RepoRef, std::string> branches_;
};

}  // namespace fixgraph::graph
