// The per-run index (graph/pull_cache.h, private: white-box): LinkAll links
// from in-memory PR features and time indexes, LinkIssue from the store; both
// must give the same links, and the index must return the store's rows in the
// store's order.
#include "../../graph/features.h"
#include "../../graph/pull_cache.h"
#include "testutil/testutil.h"

#include "fixgraph/graph/linker.h"
#include "fixgraph/ingest/dump.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace fixgraph::graph {
namespace {

class RunIndexDemo : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dump = testing::SourceDir() + "/data/demo";
    if (!std::filesystem::exists(dump)) GTEST_SKIP() << "demo dump missing";
    auto s = Store::Open(dir_.path(), StoreOptions{});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    ASSERT_TRUE(ingest::ImportDump(store_.get(), dump, {}, nullptr).ok());
  }

  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(RunIndexDemo, TimeIndexesMatchTheStore) {
  auto run = RunIndex::Build(*store_, nullptr, 2);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  std::vector<Repository> repos;
  ASSERT_TRUE(store_->ListRepositories(&repos).ok());
  ASSERT_FALSE(repos.empty());
  size_t rows = 0;
  for (const Repository& r : repos) {
    for (auto [from, to] : {std::pair<UnixSeconds, UnixSeconds>{0, 4'000'000'000},
                            {1'700'000'000, 1'760'000'000},
                            {1'750'000'000, 1'750'100'000}}) {
      TimedRefs a, b;
      ASSERT_TRUE(store_->PullsMergedBetween(r.ref, from, to, &a).ok());
      (*run)->PullsMergedBetween(r.ref, from, to, &b);
      EXPECT_EQ(a, b) << r.ref.ToString();
      rows += a.size();
      a.clear(), b.clear();
      ASSERT_TRUE(store_->IssuesClosedBetween(r.ref, from, to, &a).ok());
      (*run)->IssuesClosedBetween(r.ref, from, to, &b);
      EXPECT_EQ(a, b) << r.ref.ToString();
      rows += a.size();
    }
  }
  EXPECT_GT(rows, 0u);
}

TEST_F(RunIndexDemo, LinkAllEqualsLinkIssueFromTheStore) {
  for (unsigned threads : {1u, 2u}) {
    LinkerOptions options;
    options.threads = threads;
    ASSERT_TRUE(LinkAll(store_.get(), options, nullptr).ok());
    size_t n = 0;
    Status s = ForEachLinks(*store_, nullptr, [&](const IssueLinks& stored) {
      auto fresh = LinkIssue(*store_, stored.issue, options);  // no RunIndex
      EXPECT_TRUE(fresh.ok()) << fresh.status().ToString();
      if (fresh.ok()) {
        EXPECT_EQ(ToJson(*fresh).dump(), ToJson(stored).dump()) << stored.issue.ToString();
      }
      ++n;
      return true;
    });
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_GT(n, 20u);
  }
}

TEST_F(RunIndexDemo, PullsComeWithFeaturesAndFiles) {
  auto run = RunIndex::Build(*store_, nullptr, 1);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  PullCache cache(*store_, 16, run->get());
  size_t merged = 0;
  ASSERT_TRUE(
      store_
          ->ForEachPull(
              nullptr,
              [&](const PullRequest& pr) {
                auto info = cache.Get(pr.ref());
                EXPECT_TRUE(info.ok() && *info) << pr.ref().ToString();
                if (!info.ok() || !*info) return true;
                EXPECT_EQ((*info)->pr.title, pr.title);
                EXPECT_EQ((*info)->title_tokens, text::Tokens(text::StripTitleTags(pr.title)));
                if (pr.merged()) {
                  ++merged;
                  EXPECT_TRUE((*info)->files_loaded);
                  EXPECT_TRUE(cache.LoadFiles(info->get()).ok());  // already loaded: no write
                }
                return true;
              })
          .ok());
  EXPECT_GT(merged, 0u);
  // Absent PRs and issues are absent, as in the store.
  std::vector<Repository> repos;
  ASSERT_TRUE(store_->ListRepositories(&repos).ok());
  auto none = cache.Get(Ref::Pull(repos.front().ref, 987654321));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
  EXPECT_TRUE(cache.IssueExists(Ref::Issue(repos.front().ref, "987654321")).IsNotFound());
}

// PRs and files stream through batches: any batch size and thread count
// gives each PR the features a plain PullCache computes from the store.
TEST_F(RunIndexDemo, BatchedBuildsGiveTheStoreFeatures) {
  PullCache direct(*store_, 1 << 20);
  size_t checked = 0;
  for (size_t batch : {size_t{1}, size_t{3}, RunIndex::kDefaultBatch}) {
    for (unsigned threads : {1u, 2u}) {
      auto run = RunIndex::Build(*store_, nullptr, threads, batch);
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      PullCache cache(*store_, 16, run->get());
      ASSERT_TRUE(store_
                      ->ForEachPull(nullptr,
                                    [&](const PullRequest& pr) {
                                      auto a = cache.Get(pr.ref());
                                      auto b = direct.Get(pr.ref());
                                      EXPECT_TRUE(a.ok() && *a && b.ok() && *b)
                                          << pr.ref().ToString();
                                      if (!a.ok() || !*a || !b.ok() || !*b) return true;
                                      const PullInfo& x = **a;
                                      PullInfo& y = **b;
                                      EXPECT_EQ(x.key, y.key);
                                      EXPECT_EQ(x.text_tokens, y.text_tokens);
                                      EXPECT_EQ(x.title_identifiers, y.title_identifiers);
                                      EXPECT_EQ(x.OwnMentions().size(), y.OwnMentions().size());
                                      EXPECT_EQ(x.files_loaded, pr.merged()) << pr.ref().ToString();
                                      if (!x.files_loaded) return true;
                                      EXPECT_TRUE(direct.LoadFiles(&y).ok());
                                      EXPECT_EQ(x.files, y.files) << pr.ref().ToString();
                                      EXPECT_EQ(x.file_generic, y.file_generic);
                                      EXPECT_EQ(std::vector<std::string_view>(
                                                    x.patch_idents.begin(), x.patch_idents.end()),
                                                std::vector<std::string_view>(
                                                    y.patch_idents.begin(), y.patch_idents.end()));
                                      EXPECT_EQ(x.patch_ident_hashes, y.patch_ident_hashes);
                                      EXPECT_EQ(x.patch_tokens, y.patch_tokens);
                                      EXPECT_EQ(x.match_keys, y.match_keys);
                                      EXPECT_EQ(x.tail_keys, y.tail_keys);
                                      checked += !x.files.empty();
                                      return true;
                                    })
                      .ok());
    }
  }
  EXPECT_GT(checked, 6u);
}

// The run index keeps what the linker reads of each record and drops the API
// identifiers and URLs (no reader): the rest equals the store's record.
TEST_F(RunIndexDemo, RecordsKeepWhatTheLinkerReads) {
  auto run = RunIndex::Build(*store_, nullptr, 1);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  size_t urls = 0;
  for (const Ref& ref : (*run)->issues()) {
    auto stored = store_->GetIssue(ref);
    ASSERT_TRUE(stored.ok());
    const Issue* kept = (*run)->FindIssue(ref.ToString());
    ASSERT_NE(kept, nullptr);
    urls += !stored->html_url.empty();
    EXPECT_TRUE(kept->html_url.empty() && kept->platform_id.empty() && kept->author.id.empty());
    Issue want = *stored;
    want.html_url.clear(), want.platform_id.clear(), want.author.id.clear();
    EXPECT_EQ(kept->title, want.title);
    EXPECT_EQ(kept->body, want.body);
    EXPECT_EQ(kept->number, want.number);
    EXPECT_EQ(kept->state, want.state);
    EXPECT_EQ(kept->state_detail, want.state_detail);
    EXPECT_EQ(kept->author.login, want.author.login);
    EXPECT_EQ(kept->author.name, want.author.name);
    EXPECT_EQ(kept->labels, want.labels);
    EXPECT_EQ(kept->created_at, want.created_at);
    EXPECT_EQ(kept->closed_at, want.closed_at);
    EXPECT_EQ(kept->branch, want.branch);
    const RunIndex::IssueData* d = (*run)->FindIssueData(ref.ToString());
    ASSERT_NE(d, nullptr);
    for (const Comment& c : d->comments) {
      EXPECT_TRUE(c.author.id.empty());
      EXPECT_FALSE(c.id.empty());
    }
  }
  EXPECT_GT(urls, 0u);
  PullCache cache(*store_, 16, run->get());
  ASSERT_TRUE(store_
                  ->ForEachPull(nullptr,
                                [&](const PullRequest& pr) {
                                  auto info = cache.Get(pr.ref());
                                  EXPECT_TRUE(info.ok() && *info);
                                  if (!info.ok() || !*info) return true;
                                  const PullRequest& kept = (*info)->pr;
                                  EXPECT_TRUE(kept.html_url.empty() && kept.head_sha.empty());
                                  EXPECT_EQ(kept.labels,
                                            pr.labels);  // the ranking's label feature reads them
                                  EXPECT_EQ(kept.head_ref, pr.head_ref);
                                  EXPECT_EQ(kept.base_ref, pr.base_ref);
                                  EXPECT_EQ(kept.author.login, pr.author.login);
                                  EXPECT_EQ(kept.merged_at, pr.merged_at);
                                  EXPECT_EQ(kept.created_at, pr.created_at);
                                  EXPECT_EQ(kept.state, pr.state);
                                  return true;
                                })
                  .ok());
}

// ReadIssue answers from the run index for a covered repository (its record,
// which lacks the URL the run index drops; NotFound for an absent issue) and
// reads the store otherwise; LoadIssueContext gives the same context either way.
TEST_F(RunIndexDemo, CoveredIssuesComeFromTheRunIndex) {
  auto run = RunIndex::Build(*store_, nullptr, 1);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_FALSE((*run)->issues().empty());
  const Ref ref = (*run)->issues().front();
  auto stored = store_->GetIssue(ref);
  ASSERT_TRUE(stored.ok());
  ASSERT_FALSE(stored->html_url.empty());
  PullCache cache(*store_, 16, run->get());
  Issue read;
  read.body = "left over from another issue";
  ASSERT_TRUE(cache.ReadIssue(ref, &read).ok());
  EXPECT_EQ(read.title, stored->title);
  EXPECT_EQ(read.body, stored->body);
  EXPECT_TRUE(read.html_url.empty());  // the run index's record
  EXPECT_TRUE(cache.ReadIssue(Ref::Issue(ref.repo, "99999999"), &read).IsNotFound());
  EXPECT_TRUE(LoadIssueContext(&cache, Ref::Issue(ref.repo, "99999999")).status().IsNotFound());
  // A run index of one repository answers only for that one: an issue of
  // another repository comes from the store, URL and all.
  const Ref* other = nullptr;
  for (const Ref& r : (*run)->issues())
    if (r.repo != ref.repo) other = &r;
  ASSERT_NE(other, nullptr);
  auto one = RunIndex::Build(*store_, &ref.repo, 1);
  ASSERT_TRUE(one.ok());
  PullCache one_cache(*store_, 16, one->get());
  ASSERT_TRUE(one_cache.ReadIssue(*other, &read).ok());
  EXPECT_FALSE(read.html_url.empty());
  EXPECT_EQ(read.html_url, store_->GetIssue(*other)->html_url);
  EXPECT_TRUE(one_cache.ReadIssue(Ref::Issue(RepoRef{Platform::kGitee, "no", "where"}, "1"), &read)
                  .IsNotFound());
  PullCache plain(*store_, 16, nullptr);
  ASSERT_TRUE(plain.ReadIssue(ref, &read).ok());
  EXPECT_EQ(read.html_url, stored->html_url);
  auto from_run = LoadIssueContext(&cache, ref);
  auto from_store = LoadIssueContext(&plain, ref);
  ASSERT_TRUE(from_run.ok() && from_store.ok());
  EXPECT_EQ(from_run->issue.title, from_store->issue.title);
  EXPECT_EQ(from_run->issue.body, from_store->issue.body);
  EXPECT_EQ(from_run->text_tokens, from_store->text_tokens);
  EXPECT_EQ(from_run->identifiers, from_store->identifiers);
}

// IssueRowsOf gives the same rows from the run index as from the store, and
// views the run index's own rows (no per-issue copy) when they need no re-ordering.
TEST_F(RunIndexDemo, IssueRowsViewTheRunIndexAndMatchTheStore) {
  auto run = RunIndex::Build(*store_, nullptr, 1);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  PullCache indexed(*store_, 16, run->get());
  PullCache direct(*store_, 16);
  auto by_time = [](const Comment& a, const Comment& b) {
    return a.created_at.value_or(0) < b.created_at.value_or(0);
  };
  size_t comments = 0, mentions = 0, shared = 0;
  for (const Ref& ref : (*run)->issues()) {
    PullCache::IssueRowsView a, b;
    ASSERT_TRUE(indexed.IssueRowsOf(ref, &a).ok());
    ASSERT_TRUE(direct.IssueRowsOf(ref, &b).ok());
    EXPECT_NE(b.owned, nullptr);  // read from the store: owned rows
    ASSERT_EQ(a.comments.size(), b.comments.size()) << ref.ToString();
    for (size_t i = 0; i < a.comments.size(); ++i) {
      EXPECT_EQ(a.comments[i].id, b.comments[i].id) << ref.ToString();
      EXPECT_EQ(a.comments[i].body, b.comments[i].body);
    }
    EXPECT_TRUE(std::is_sorted(a.comments.begin(), a.comments.end(), by_time));
    ASSERT_EQ(a.oplog.size(), b.oplog.size());
    for (size_t i = 0; i < a.oplog.size(); ++i) EXPECT_EQ(a.oplog[i].content, b.oplog[i].content);
    ASSERT_EQ(a.platform_links.size(), b.platform_links.size());
    for (size_t i = 0; i < a.platform_links.size(); ++i) {
      EXPECT_EQ(a.platform_links[i].issue, ref);
      EXPECT_EQ(a.platform_links[i].pull, b.platform_links[i].pull);
    }
    ASSERT_EQ(a.mentioned_by.size(), b.mentioned_by.size());
    for (size_t i = 0; i < a.mentioned_by.size(); ++i) {
      EXPECT_EQ(a.mentioned_by[i].source_item, b.mentioned_by[i].source_item);
      EXPECT_EQ(a.mentioned_by[i].text, b.mentioned_by[i].text);
    }
    comments += a.comments.size();
    mentions += a.mentioned_by.size();
    const RunIndex::IssueData* d = (*run)->FindIssueData(ref.ToString());
    ASSERT_NE(d, nullptr);
    if (std::is_sorted(d->comments.begin(), d->comments.end(), by_time) && !d->comments.empty()) {
      EXPECT_EQ(a.comments.data(), d->comments.data()) << ref.ToString();  // a view, not a copy
      if (!a.owned) ++shared;
    }
    if (!d->oplog.empty()) {
      EXPECT_EQ(a.oplog.data(), d->oplog.data());
    }
  }
  EXPECT_GT(comments, 0u);
  EXPECT_GT(mentions, 0u);
  EXPECT_GT(shared, 0u);
}

TEST_F(RunIndexDemo, KeyPostingsListExactlyTheRowsHoldingAKey) {
  auto run = RunIndex::Build(*store_, nullptr, 1);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  std::vector<Repository> repos;
  ASSERT_TRUE(store_->ListRepositories(&repos).ok());
  size_t checked = 0;
  for (const Repository& r : repos) {
    std::span<const RunIndex::Timed> rows = (*run)->MergedRows(r.ref, 0, 4'000'000'000);
    if (rows.empty()) continue;
    PullCache cache(*store_, 16, run->get());
    for (auto [postings, keys] : {std::pair{cache.MatchKeyPostings(r.ref), &PullInfo::match_keys},
                                  std::pair{cache.TextPostings(r.ref), &PullInfo::text_tokens}}) {
      ASSERT_NE(postings, nullptr) << r.ref.ToString();
      // Every key of every row, over the whole span and over a middle part.
      auto n = static_cast<std::uint32_t>(rows.size());
      for (auto [lo, hi] : {std::pair<std::uint32_t, std::uint32_t>{0, n}, {n / 3, n - n / 3}}) {
        for (size_t i = 0; i < rows.size(); ++i) {
          EXPECT_EQ(rows[i].pos, i);
          if (!rows[i].info) continue;
          for (std::uint64_t key : (*rows[i].info).*keys) {
            std::vector<std::uint32_t> want;
            for (std::uint32_t j = lo; j < hi; ++j) {
              if (!rows[j].info) continue;
              const auto& set = (*rows[j].info).*keys;
              if (std::binary_search(set.begin(), set.end(), key)) want.push_back(j);
            }
            std::span<const std::uint32_t> got = postings->Rows(key, lo, hi);
            EXPECT_EQ(std::vector<std::uint32_t>(got.begin(), got.end()), want);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 100u);
  // Not covered by a run index: no postings (the window walks every row).
  PullCache plain(*store_, 16);
  EXPECT_EQ(plain.MatchKeyPostings(repos.front().ref), nullptr);
  EXPECT_EQ(plain.TextPostings(repos.front().ref), nullptr);
}

// The window's flat rows hold what each row's PullInfo holds.
TEST_F(RunIndexDemo, WindowRowsMirrorTheirPulls) {
  auto run = RunIndex::Build(*store_, nullptr, 1);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  std::vector<Repository> repos;
  ASSERT_TRUE(store_->ListRepositories(&repos).ok());
  size_t checked = 0;
  for (const Repository& r : repos) {
    std::span<const RunIndex::Timed> rows = (*run)->MergedRows(r.ref, 0, 4'000'000'000);
    PullCache cache(*store_, 16, run->get());
    const RunIndex::WindowRows* w = cache.WindowRowsOf(r.ref);
    if (rows.empty()) {
      EXPECT_EQ(w, nullptr);
      continue;
    }
    ASSERT_NE(w, nullptr);
    // The same from rows copied out of the index (as the store path builds them).
    std::vector<RunIndex::Timed> copy(rows.begin(), rows.end());
    const RunIndex::WindowRows local = RunIndex::WindowRows::Of(copy);
    for (const RunIndex::WindowRows* rowset : {w, &local}) {
      for (size_t i = 0; i < rows.size(); ++i) {
        const RunIndex::WindowRows::Row& row = rowset->row(i);
        const PullInfo* info = rows[i].info.get();
        ASSERT_EQ(row.info, info);
        EXPECT_EQ(rowset->Times()[i], rows[i].t);
        if (!info) continue;
        std::span<const std::uint64_t> title = rowset->Title(row), text = rowset->Text(row);
        EXPECT_EQ(std::vector<std::uint64_t>(title.begin(), title.end()), info->title_tokens);
        EXPECT_EQ(std::vector<std::uint64_t>(text.begin(), text.end()), info->text_tokens);
        EXPECT_EQ(row.has_created, info->pr.created_at.has_value());
        if (row.has_created) {
          EXPECT_EQ(row.created_at, *info->pr.created_at);
        }
        EXPECT_EQ(row.numeric_bits, info->branch_keys.numeric_bits);
        EXPECT_EQ(row.words_bits, info->branch_keys.words_bits);
        EXPECT_EQ(row.release_base, info->release_base);
        EXPECT_EQ(row.files_loaded, info->files_loaded);
        EXPECT_EQ(row.base, rowset->BaseOf(info->pr.base_ref));
        EXPECT_EQ(row.base == 0, info->pr.base_ref.empty());
        ++checked;
      }
    }
    EXPECT_EQ(w->BaseOf("no-such-branch/xyz"), RunIndex::WindowRows::kNoBase);
  }
  EXPECT_GT(checked, 0u);
}

// SortedStrings answers count() as the std::set it replaces, and keeps its order.
TEST(SortedStrings, CountsAsASetDoes) {
  std::set<std::string> set = {"",       "a",   "ab", "abc", "b", "torch_npu.npu_rms_norm",
                               "z/y.py", "中文"};
  SortedStrings s(set);
  ASSERT_EQ(s.size(), set.size());
  size_t i = 0;
  for (const std::string& v : set) EXPECT_EQ(s[i++], v);
  EXPECT_EQ(std::vector<std::string_view>(s.begin(), s.end()),
            std::vector<std::string_view>(set.begin(), set.end()));
  for (std::string_view probe :
       {"", "a", "aa", "ab", "abcd", "abc", "b", "c", "z/y.py", "z/y", "中文", "中"})
    EXPECT_EQ(s.count(probe), set.count(std::string(probe))) << probe;
  SortedStrings empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.count(""), 0u);
  EXPECT_EQ(empty.count("a"), 0u);
  std::vector<std::string_view> views = {"id_a", "id_b"};
  SortedStrings two(views);
  EXPECT_EQ(two.count("id_b"), 1u);
  EXPECT_EQ(two.count("id_c"), 0u);
  EXPECT_EQ(two.HeapBytes() >= 8 + 2 * sizeof(std::uint32_t), true);
}

// Rows(key, lo, hi) over long posting lists (the window's case: a narrow
// range of a long list), keys spread evenly, clustered at either end, or in
// runs, against a plain scan of the rows, for ranges of every width.
TEST(KeyPostings, RowsOfLongListsEqualAScan) {
  std::uint64_t seed = 99;
  auto next = [&](std::uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  constexpr std::uint32_t kRows = 6000;
  std::vector<RunIndex::Timed> rows(kRows);
  for (std::uint32_t i = 0; i < kRows; ++i) {
    rows[i].t = i;
    rows[i].pos = i;
    auto info = std::make_shared<PullInfo>();
    // Key 1: every row; 2: one row in 7; 3: the first 100 and the last 100
    // rows; 4: runs of 50 rows every 1000; 5: a random half; 6: one row.
    info->text_tokens.push_back(1);
    if (i % 7 == 3) info->text_tokens.push_back(2);
    if (i < 100 || i >= kRows - 100) info->text_tokens.push_back(3);
    if (i % 1000 < 50) info->text_tokens.push_back(4);
    if (next(2) == 0) info->text_tokens.push_back(5);
    if (i == 4321) info->text_tokens.push_back(6);
    if (i % 11 != 0) rows[i].info = std::move(info);  // some rows' PRs are absent
  }
  const RunIndex::KeyPostings postings = RunIndex::KeyPostings::Of(rows, &PullInfo::text_tokens);
  size_t checked = 0, nonempty = 0;
  for (int round = 0; round < 3000; ++round) {
    auto lo = static_cast<std::uint32_t>(next(kRows + 1));
    std::uint32_t width = round % 3 == 0 ? static_cast<std::uint32_t>(next(kRows + 1))
                                         : static_cast<std::uint32_t>(next(400));
    std::uint32_t hi = std::min<std::uint32_t>(kRows + 5, lo + width);
    for (std::uint64_t key = 1; key <= 7; ++key) {
      std::vector<std::uint32_t> want;
      for (std::uint32_t j = lo; j < std::min(hi, kRows); ++j) {
        if (!rows[j].info) continue;
        const auto& set = rows[j].info->text_tokens;
        if (std::find(set.begin(), set.end(), key) != set.end()) want.push_back(j);
      }
      std::span<const std::uint32_t> got = postings.Rows(key, lo, hi);
      ASSERT_EQ(std::vector<std::uint32_t>(got.begin(), got.end()), want)
          << key << " [" << lo << ", " << hi << ")";
      ++checked;
      nonempty += !want.empty();
    }
  }
  EXPECT_GT(nonempty, checked / 3);
}

}  // namespace
}  // namespace fixgraph::graph
