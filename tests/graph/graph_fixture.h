// A small store built by hand for linker tests: one GitCode repository
// "gitcode:o/r" (default branch "main") plus whatever a test adds.
#pragma once

#include "testutil/testutil.h"

#include "fixgraph/engine/store.h"
#include "fixgraph/graph/linker.h"

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>

namespace fixgraph {
// Readable references in gtest messages.
inline void PrintTo(const Ref& r, std::ostream* os) { *os << r.ToString(); }
}  // namespace fixgraph

namespace fixgraph::graph::testing {

// UTC seconds of "2026-03-01T10:00:00Z"-style text.
inline UnixSeconds T(const std::string& iso) {
  auto t = ParseTimestamp(iso);
  EXPECT_TRUE(t.ok() && t->has_value()) << iso;
  return t.ok() && *t ? **t : 0;
}

class GraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(dir_.path(), StoreOptions{});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    batch_ = store_->NewBatch();
    repo_ = RepoRef{Platform::kGitCode, "o", "r"};
    AddRepository(repo_, "main");
  }

  void AddRepository(const RepoRef& ref, const std::string& default_branch) {
    Repository r;
    r.ref = ref;
    r.full_name = ref.FullName();
    r.default_branch = default_branch;
    ASSERT_TRUE(batch_->PutRepository(r, "").ok());
  }

  // An issue of repo_ (or `repo`), closed when `closed` is not empty.
  Issue AddIssue(const std::string& number, const std::string& title, const std::string& body,
                 const std::string& created, const std::string& closed = "",
                 const std::string& author = "reporter", const RepoRef* repo = nullptr) {
    Issue i;
    i.repo = repo ? *repo : repo_;
    i.number = number;
    i.title = title;
    i.body = body;
    i.author.login = author;
    i.created_at = T(created);
    if (!closed.empty()) {
      i.state = IssueState::kClosed;
      i.closed_at = T(closed);
    }
    i.html_url = WebUrl(i.ref());
    EXPECT_TRUE(batch_->PutIssue(i, "").ok());
    return i;
  }

  // A PR; merged when `merged` is set, closed-unmerged when `closed` is set,
  // open otherwise.
  PullRequest AddPull(std::int64_t number, const std::string& title, const std::string& body,
                      const std::string& created, const std::string& merged,
                      const std::string& closed = "", const std::string& base = "main",
                      const std::string& head = "", const RepoRef* repo = nullptr,
                      const std::string& author = "dev") {
    PullRequest p;
    p.repo = repo ? *repo : repo_;
    p.number = number;
    p.title = title;
    p.body = body;
    p.author.login = author;
    p.created_at = T(created);
    p.base_ref = base;
    p.head_ref = head.empty() ? "topic_" + std::to_string(number) : head;
    if (!merged.empty()) {
      p.state = PullState::kMerged;
      p.merged_at = T(merged);
      p.closed_at = p.merged_at;
    } else if (!closed.empty()) {
      p.state = PullState::kClosed;
      p.closed_at = T(closed);
    }
    EXPECT_TRUE(batch_->PutPull(p, "").ok());
    return p;
  }

  void AddComment(const Ref& parent, const std::string& id, const std::string& author,
                  const std::string& body, const std::string& created) {
    Comment c;
    c.repo = parent.repo;
    c.parent_kind = parent.kind == RefKind::kIssue ? ParentKind::kIssue : ParentKind::kPull;
    c.parent_number = parent.number;
    c.id = id;
    c.author.login = author;
    c.body = body;
    c.created_at = T(created);
    EXPECT_TRUE(batch_->PutComment(c, "").ok());
  }

  void AddFile(const Ref& pull, const std::string& filename, const std::string& patch) {
    FileChange f;
    f.repo = pull.repo;
    f.pr_number = pull.pull_number();
    f.filename = filename;
    f.status = "modified";
    f.patch = patch;
    EXPECT_TRUE(batch_->PutFile(f, "").ok());
  }

  void AddLabelEvent(const Ref& issue, const std::string& id, const std::string& label,
                     const std::string& actor, const std::string& at) {
    OperateLogEvent e;
    e.repo = issue.repo;
    e.parent_kind = ParentKind::kIssue;
    e.parent_number = issue.number;
    e.id = id;
    e.action_type = "label";
    e.content = "add label " + label;
    e.actor.login = actor;
    e.created_at = T(at);
    EXPECT_TRUE(batch_->PutOperateLog(e, "").ok());
  }

  void AddPlatformLink(const Ref& issue, const Ref& pull) {
    EXPECT_TRUE(batch_->PutPlatformLink(PlatformLink{issue, pull, "pull_issues"}).ok());
  }

  void Commit() { ASSERT_TRUE(store_->Write(batch_.get()).ok()); }

  Ref IssueRef(const std::string& n) const { return Ref::Issue(repo_, n); }
  Ref PullRef(std::int64_t n) const { return Ref::Pull(repo_, n); }
  std::string P(std::int64_t n) const { return PullRef(n).ToString(); }

  IssueLinks Link(const std::string& number) {
    auto l = LinkIssue(*store_, IssueRef(number), options_);
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    return l.ok() ? std::move(l).value() : IssueLinks{};
  }

  fixgraph::testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Store::Batch> batch_;
  RepoRef repo_;
  LinkerOptions options_;
};

}  // namespace fixgraph::graph::testing
