// Bulk scans of the store (ForEachComment, ForEachOperateLog, ForEachFile,
// ForEachPlatformLink, ForEachMention): they give exactly the records the
// per-item reads give, grouped by parent, for one repository or all.
#include "testutil/testutil.h"

#include "fixgraph/engine/model_json.h"
#include "fixgraph/engine/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace fixgraph {
namespace {

using testing::TempDir;

constexpr UnixSeconds kT = 1789443356;

RepoRef Repo(const std::string& name) {
  RepoRef r;
  r.platform = Platform::kGitCode;
  r.owner = "Ascend";
  r.name = name;
  return r;
}

class StoreScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(dir_.path(), StoreOptions());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    auto b = store_->NewBatch();
    for (const RepoRef& repo : {a_, b_}) {
      // Numbers 2, 10 and 100 check that groups follow the padded number order.
      for (const std::string n : {"2", "10", "100"}) {
        Issue is;
        is.repo = repo;
        is.number = n;
        is.title = "issue " + n;
        is.body = n == "10" ? "see !7 and " + Repo("other").ToString() : "";
        is.state = IssueState::kClosed;
        is.created_at = kT;
        is.closed_at = kT + 10;
        ASSERT_TRUE(b->PutIssue(is, "").ok());
        for (int k = 0; k < 3; ++k) {
          Comment c;
          c.repo = repo;
          c.parent_kind = ParentKind::kIssue;
          c.parent_number = n;
          c.id = std::to_string(900 - k * 100 + std::stoi(n));
          c.body = k == 1 ? "fixed by !" + n : "comment " + std::to_string(k);
          c.created_at = kT + k;
          ASSERT_TRUE(b->PutComment(c, "").ok());
          OperateLogEvent e;
          e.repo = repo;
          e.parent_kind = ParentKind::kIssue;
          e.parent_number = n;
          e.id = std::to_string(50 + k);
          e.content = "add label bug" + std::to_string(k);
          ASSERT_TRUE(b->PutOperateLog(e, "").ok());
        }
        PullRequest pr;
        pr.repo = repo;
        pr.number = std::stoll(n);
        pr.title = "fix #" + n;
        pr.body = "closes #" + n + " and #2";
        pr.state = PullState::kMerged;
        pr.merged_at = kT + 5;
        ASSERT_TRUE(b->PutPull(pr, "").ok());
        Comment pc;
        pc.repo = repo;
        pc.parent_kind = ParentKind::kPull;
        pc.parent_number = n;
        pc.id = "77" + n;
        pc.body = "for #10";
        ASSERT_TRUE(b->PutComment(pc, "").ok());
        for (const std::string f : {"src/b.py", "src/a.py"}) {
          FileChange fc;
          fc.repo = repo;
          fc.pr_number = pr.number;
          fc.filename = f;
          fc.patch = "+x";
          ASSERT_TRUE(b->PutFile(fc, "").ok());
        }
        PlatformLink l;
        l.issue = is.ref();
        l.pull = pr.ref();
        l.source = "issue_pull_requests";
        ASSERT_TRUE(b->PutPlatformLink(l).ok());
      }
    }
    ASSERT_TRUE(store_->Write(b.get()).ok());
  }

  std::vector<Ref> Items(const RepoRef& repo, bool pulls) {
    std::vector<Ref> out;
    for (const std::string n : {"2", "10", "100"})
      out.push_back(pulls ? Ref::Pull(repo, std::stoll(n)) : Ref::Issue(repo, n));
    return out;
  }

  // Writes one issue of `repo` titled "x".
  void PutIssue(const RepoRef& repo, const std::string& number, const std::string& body) {
    auto b = store_->NewBatch();
    Issue is;
    is.repo = repo;
    is.number = number;
    is.title = "x";
    is.body = body;
    ASSERT_TRUE(b->PutIssue(is, "").ok());
    ASSERT_TRUE(store_->Write(b.get()).ok());
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  RepoRef a_ = Repo("alpha"), b_ = Repo("beta");
};

// JSON of a record list, to compare whole records.
template <typename T>
std::string Dump(const std::vector<T>& v) {
  nlohmann::json j = nlohmann::json::array();
  for (const T& x : v) j.push_back(ToJson(x));
  return j.dump();
}

TEST_F(StoreScanTest, CommentsMatchListCommentsParentByParent) {
  for (const RepoRef* repo : std::vector<const RepoRef*>{&a_, nullptr}) {
    std::vector<Comment> all;
    ASSERT_TRUE(store_
                    ->ForEachComment(repo,
                                     [&](const Comment& c) {
                                       all.push_back(c);
                                       return true;
                                     })
                    .ok());
    std::vector<Comment> expected;
    for (const RepoRef& r : repo ? std::vector<RepoRef>{*repo} : std::vector<RepoRef>{a_, b_})
      for (bool pulls : {false, true})
        for (const Ref& item : Items(r, pulls)) {
          std::vector<Comment> one;
          ASSERT_TRUE(store_->ListComments(item, &one).ok());
          expected.insert(expected.end(), one.begin(), one.end());
        }
    // Same records; grouped by parent (each parent's run in ListComments order).
    std::map<std::string, std::vector<Comment>> by_parent, expected_by_parent;
    std::string last;
    std::set<std::string> seen;
    for (const Comment& c : all) {
      std::string p = c.parent().ToString();
      if (p != last) {
        EXPECT_TRUE(seen.insert(p).second) << p << " comes in two runs";
        last = p;
      }
      by_parent[p].push_back(c);
    }
    for (const Comment& c : expected) expected_by_parent[c.parent().ToString()].push_back(c);
    ASSERT_EQ(all.size(), repo ? 12u : 24u);
    ASSERT_EQ(by_parent.size(), expected_by_parent.size());
    for (const auto& [p, v] : expected_by_parent) EXPECT_EQ(Dump(by_parent[p]), Dump(v)) << p;
  }
}

TEST_F(StoreScanTest, ParentKindFilterKeepsOnlyThatKind) {
  std::vector<Comment> issues, pulls, all;
  ASSERT_TRUE(store_
                  ->ForEachComment(
                      nullptr,
                      [&](const Comment& c) {
                        issues.push_back(c);
                        return true;
                      },
                      ParentKind::kIssue)
                  .ok());
  ASSERT_TRUE(store_
                  ->ForEachComment(
                      &b_,
                      [&](const Comment& c) {
                        pulls.push_back(c);
                        return true;
                      },
                      ParentKind::kPull)
                  .ok());
  ASSERT_TRUE(store_
                  ->ForEachComment(nullptr,
                                   [&](const Comment& c) {
                                     if (c.parent_kind == ParentKind::kIssue) all.push_back(c);
                                     return true;
                                   })
                  .ok());
  EXPECT_EQ(issues.size(), 18u);
  EXPECT_EQ(Dump(issues), Dump(all));
  ASSERT_EQ(pulls.size(), 3u);
  for (const Comment& c : pulls) {
    EXPECT_EQ(c.parent_kind, ParentKind::kPull);
    EXPECT_EQ(c.repo, b_);
  }
  std::vector<OperateLogEvent> events;
  ASSERT_TRUE(store_
                  ->ForEachOperateLog(
                      nullptr,
                      [&](const OperateLogEvent& e) {
                        events.push_back(e);
                        return true;
                      },
                      ParentKind::kPull)
                  .ok());
  EXPECT_TRUE(events.empty());
}

TEST_F(StoreScanTest, OperateLogFilesAndLinksMatchPerItemReads) {
  std::map<std::string, std::vector<OperateLogEvent>> oplog;
  ASSERT_TRUE(store_
                  ->ForEachOperateLog(&b_,
                                      [&](const OperateLogEvent& e) {
                                        oplog[e.parent().ToString()].push_back(e);
                                        return true;
                                      })
                  .ok());
  std::map<std::string, std::vector<FileChange>> files;
  ASSERT_TRUE(store_
                  ->ForEachFile(nullptr,
                                [&](const FileChange& f) {
                                  files[Ref::Pull(f.repo, f.pr_number).ToString()].push_back(f);
                                  return true;
                                })
                  .ok());
  std::map<std::string, std::vector<PlatformLink>> links;
  ASSERT_TRUE(store_
                  ->ForEachPlatformLink(&a_,
                                        [&](const PlatformLink& l) {
                                          links[l.issue.ToString()].push_back(l);
                                          return true;
                                        })
                  .ok());
  EXPECT_EQ(oplog.size(), 3u);
  EXPECT_EQ(files.size(), 6u);
  EXPECT_EQ(links.size(), 3u);
  for (const Ref& item : Items(b_, false)) {
    std::vector<OperateLogEvent> one;
    ASSERT_TRUE(store_->ListOperateLog(item, &one).ok());
    EXPECT_EQ(one.size(), 3u);
    EXPECT_EQ(Dump(oplog[item.ToString()]), Dump(one));
  }
  for (const RepoRef& r : {a_, b_})
    for (const Ref& pull : Items(r, true)) {
      std::vector<FileChange> one;
      ASSERT_TRUE(store_->ListFiles(pull, &one).ok());
      ASSERT_EQ(one.size(), 2u);
      EXPECT_EQ(one[0].filename, "src/a.py");
      EXPECT_EQ(Dump(files[pull.ToString()]), Dump(one));
    }
  for (const Ref& issue : Items(a_, false)) {
    std::vector<PlatformLink> one;
    ASSERT_TRUE(store_->ListPlatformLinks(issue, &one).ok());
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(Dump(links[issue.ToString()]), Dump(one));
  }
}

TEST_F(StoreScanTest, MentionsMatchMentionsOfForEveryTarget) {
  std::map<std::string, std::vector<MentionRecord>> rows;
  std::string last;
  std::set<std::string> seen;
  ASSERT_TRUE(store_
                  ->ForEachMention([&](const MentionRecord& m) {
                    std::string t = m.target.ToString();
                    if (t != last) {
                      EXPECT_TRUE(seen.insert(t).second) << t << " comes in two runs";
                      last = t;
                    }
                    rows[t].push_back(m);
                    return true;
                  })
                  .ok());
  // Issues and PRs of both repositories are named (texts, comments).
  EXPECT_GE(rows.size(), 10u);
  size_t total = 0;
  for (const auto& [t, got] : rows) {
    auto target = ParseRef(t);
    ASSERT_TRUE(target.ok()) << t;
    std::vector<MentionRecord> want;
    ASSERT_TRUE(store_->MentionsOf(*target, &want).ok());
    ASSERT_EQ(got.size(), want.size()) << t;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].target, want[i].target);
      EXPECT_EQ(got[i].source_item, want[i].source_item);
      EXPECT_EQ(got[i].source, want[i].source);
      EXPECT_EQ(got[i].source_id, want[i].source_id);
      EXPECT_EQ(got[i].form, want[i].form);
      EXPECT_EQ(got[i].keyword, want[i].keyword);
      EXPECT_EQ(got[i].mirror_host, want[i].mirror_host);
      EXPECT_EQ(got[i].text, want[i].text);
      EXPECT_EQ(got[i].at, want[i].at);
    }
    total += got.size();
  }
  // "fixed by !N" in issue comments names each PR: those rows are there.
  std::vector<MentionRecord> of_pull;
  ASSERT_TRUE(store_->MentionsOf(Ref::Pull(a_, 10), &of_pull).ok());
  EXPECT_FALSE(of_pull.empty());
  EXPECT_EQ(rows[Ref::Pull(a_, 10).ToString()].size(), of_pull.size());
  EXPECT_GT(total, 0u);
}

TEST_F(StoreScanTest, IssueMentionsOfOneRepositoryMatchMentionsOf) {
  // A repository whose name extends alpha's, naming alpha's issue #2 and its own #2.
  RepoRef longer = Repo("alpha-2");
  PutIssue(longer, "2", "like Ascend/alpha#2 and #2");

  std::map<std::string, std::vector<MentionRecord>> rows;
  ASSERT_TRUE(store_
                  ->ForEachIssueMention(a_,
                                        [&](const MentionRecord& m) {
                                          rows[m.target.ToString()].push_back(m);
                                          return true;
                                        })
                  .ok());
  for (const auto& [t, got] : rows) {
    auto target = ParseRef(t);
    ASSERT_TRUE(target.ok()) << t;
    EXPECT_EQ(target->kind, RefKind::kIssue) << t;
    EXPECT_EQ(target->repo, a_) << t;
  }
  for (const std::string n : {"2", "10", "100"}) {
    std::vector<MentionRecord> want;
    ASSERT_TRUE(store_->MentionsOf(Ref::Issue(a_, n), &want).ok());
    const auto& got = rows[Ref::Issue(a_, n).ToString()];
    ASSERT_EQ(got.size(), want.size()) << n;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].source_item, want[i].source_item);
      EXPECT_EQ(got[i].source_id, want[i].source_id);
      EXPECT_EQ(got[i].text, want[i].text);
    }
  }
  // alpha-2's own issue is not alpha's; alpha's #2 counts the new mention.
  std::vector<MentionRecord> of_two;
  ASSERT_TRUE(store_->MentionsOf(Ref::Issue(a_, "2"), &of_two).ok());
  EXPECT_TRUE(std::any_of(of_two.begin(), of_two.end(),
                          [&](const MentionRecord& m) { return m.source_item.repo == longer; }));
  EXPECT_EQ(rows.count(Ref::Issue(longer, "2").ToString()), 0u);
}

TEST_F(StoreScanTest, MentionsInOneRepositoryNameItsIssuesAndPulls) {
  // alpha-2's issue names alpha's issue #2, alpha's PR !10 and its own #2.
  PutIssue(Repo("alpha-2"), "2", "like Ascend/alpha#2, Ascend/alpha!10 and #2");

  // Every row of ForEachMention whose target is in alpha, and no other.
  std::map<std::string, std::vector<MentionRecord>> want, got;
  ASSERT_TRUE(store_
                  ->ForEachMention([&](const MentionRecord& m) {
                    if (m.target.repo == a_) want[m.target.ToString()].push_back(m);
                    return true;
                  })
                  .ok());
  ASSERT_TRUE(store_
                  ->ForEachMentionIn(a_,
                                     [&](const MentionRecord& m) {
                                       got[m.target.ToString()].push_back(m);
                                       return true;
                                     })
                  .ok());
  EXPECT_TRUE(want.count(Ref::Pull(a_, 10).ToString()));
  EXPECT_TRUE(want.count(Ref::Issue(a_, "2").ToString()));
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [target, rows] : want) {
    ASSERT_EQ(got[target].size(), rows.size()) << target;
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(got[target][i].source_item, rows[i].source_item) << target;
      EXPECT_EQ(got[target][i].text, rows[i].text) << target;
    }
  }
  // The callback stops the scan.
  int seen = 0;
  ASSERT_TRUE(store_->ForEachMentionIn(a_, [&](const MentionRecord&) { return ++seen < 2; }).ok());
  EXPECT_EQ(seen, 2);
}

TEST_F(StoreScanTest, IssueRepositoriesAreListedOnceEach) {
  // A repository whose name extends alpha's, and one with PRs only.
  PutIssue(Repo("alpha-2"), "5", "");
  auto b = store_->NewBatch();
  PullRequest pr;
  pr.repo = Repo("gamma");
  pr.number = 1;
  pr.title = "y";
  ASSERT_TRUE(b->PutPull(pr, "").ok());
  ASSERT_TRUE(store_->Write(b.get()).ok());
  std::vector<RepoRef> repos;
  ASSERT_TRUE(store_->ListIssueRepositories(&repos).ok());
  EXPECT_EQ(repos, (std::vector<RepoRef>{a_, Repo("alpha-2"), b_}));
  // Derived records of one kind, likewise (another kind's are not listed).
  b = store_->NewBatch();
  ASSERT_TRUE(b->PutDerived("links", Ref::Issue(Repo("gamma"), "1"), "x").ok());
  ASSERT_TRUE(b->PutDerived("links", Ref::Issue(Repo("gamma"), "2"), "x").ok());
  ASSERT_TRUE(b->PutDerived("links", Ref::Issue(a_, "2"), "x").ok());
  ASSERT_TRUE(b->PutDerived("other", Ref::Issue(b_, "2"), "x").ok());
  ASSERT_TRUE(store_->Write(b.get()).ok());
  repos.clear();
  ASSERT_TRUE(store_->ListDerivedRepositories("links", &repos).ok());
  EXPECT_EQ(repos, (std::vector<RepoRef>{a_, Repo("gamma")}));

  TempDir empty_dir;
  auto empty = Store::Open(empty_dir.path(), StoreOptions());
  ASSERT_TRUE(empty.ok());
  repos.clear();
  ASSERT_TRUE((*empty)->ListIssueRepositories(&repos).ok());
  EXPECT_TRUE(repos.empty());
}

// The scans lend each record to the callback: moving from it keeps the
// record whole, and the next record is decoded afresh (nothing of a
// moved-from record leaks into the next).
TEST_F(StoreScanTest, CallbacksMayMoveTheRecordsOut) {
  std::vector<Comment> moved, copied;
  ASSERT_TRUE(store_
                  ->ForEachComment(nullptr,
                                   [&](Comment& c) {
                                     copied.push_back(c);
                                     moved.push_back(std::move(c));
                                     return true;
                                   })
                  .ok());
  ASSERT_EQ(moved.size(), 24u);
  EXPECT_EQ(Dump(moved), Dump(copied));
  std::vector<Issue> issues;
  ASSERT_TRUE(store_
                  ->ForEachIssue(nullptr,
                                 [&](Issue& is) {
                                   issues.push_back(std::move(is));
                                   return true;
                                 })
                  .ok());
  ASSERT_EQ(issues.size(), 6u);
  for (const Issue& is : issues) {
    auto stored = store_->GetIssue(is.ref());
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    EXPECT_EQ(is.title, stored->title);
    EXPECT_EQ(is.body, stored->body);
  }
  std::vector<MentionRecord> rows;
  ASSERT_TRUE(store_
                  ->ForEachMention([&](MentionRecord& m) {
                    rows.push_back(std::move(m));
                    return true;
                  })
                  .ok());
  for (const MentionRecord& m : rows) EXPECT_FALSE(m.target.repo.name.empty());
}

TEST_F(StoreScanTest, StopsWhenTheCallbackSaysSo) {
  int n = 0;
  ASSERT_TRUE(store_->ForEachComment(nullptr, [&](const Comment&) { return ++n < 2; }).ok());
  EXPECT_EQ(n, 2);
  n = 0;
  ASSERT_TRUE(store_->ForEachMention([&](const MentionRecord&) { return ++n < 3; }).ok());
  EXPECT_EQ(n, 3);
}

}  // namespace
}  // namespace fixgraph
