// The domain model: what fixgraph knows about repositories and their items,
// independent of the platform that sent them. Platform mappers (ingest/) fill
// these from API payloads; the store (store.h) persists them; the linker
// (graph/) reads them.
//
// Times are UTC seconds (time.h); std::nullopt means unset. Texts are UTF-8 as
// the platform sent them.
//
// Thread safety: plain values.
#pragma once

#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/time.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fixgraph {

using OptTime = std::optional<UnixSeconds>;

struct User {
  std::string id;     // platform user id as text (GitCode: 24-hex; Gitee/GitHub: integer)
  std::string login;  // "" when unknown
  std::string name;
};

struct Repository {
  RepoRef ref;
  std::string full_name;  // as the platform spells it ("Ascend/msmodelslim")
  std::string display_name;
  std::string description;
  std::string default_branch;
  std::string html_url;
};

enum class IssueState : std::uint8_t { kOpen = 0, kClosed = 1 };

struct Issue {
  RepoRef repo;
  std::string number;  // "40", "I8XK2P"
  std::string platform_id;
  std::string title;
  std::string body;
  IssueState state = IssueState::kOpen;
  std::string state_detail;  // the platform's own state word: "progressing", "已完成", "rejected"
  User author;
  std::vector<std::string> labels;
  std::string html_url;
  OptTime created_at;
  OptTime updated_at;
  OptTime closed_at;  // GitCode/Gitee finished_at (fallback closed_at); GitHub closed_at
  std::int64_t comment_count = 0;
  std::string branch;  // Gitee's issue-linked branch, if any

  Ref ref() const { return Ref::Issue(repo, number); }
};

enum class PullState : std::uint8_t { kOpen = 0, kClosed = 1, kMerged = 2 };

struct PullRequest {
  RepoRef repo;
  std::int64_t number = 0;
  std::string platform_id;
  std::string title;
  std::string body;
  PullState state = PullState::kOpen;
  User author;
  std::vector<std::string> labels;
  std::string html_url;
  OptTime created_at;
  OptTime updated_at;
  OptTime merged_at;
  OptTime closed_at;
  std::string head_ref;  // source branch name
  std::string head_sha;
  std::string head_repo;                    // "owner/repo" of the source branch, when known
  std::string base_ref;                     // target branch name
  std::optional<bool> close_related_issue;  // GitCode: close linked issues on merge
  std::string merged_by;                    // login

  Ref ref() const { return Ref::Pull(repo, number); }
  bool merged() const { return state == PullState::kMerged || merged_at.has_value(); }
};

enum class ParentKind : std::uint8_t { kIssue = 0, kPull = 1 };

struct Comment {
  RepoRef repo;
  ParentKind parent_kind = ParentKind::kIssue;
  std::string parent_number;  // issue number or PR number in decimal
  std::string id;
  User author;
  std::string body;
  std::string kind;  // "", "pr_comment", "diff_comment"
  std::string path;  // file of a diff comment
  OptTime created_at;
  OptTime updated_at;

  Ref parent() const;
};

struct Commit {
  RepoRef repo;
  std::int64_t pr_number = 0;
  std::string sha;
  std::string message;
  std::string author_name;
  std::string author_email;
  std::string author_login;
  std::string committer_name;
  std::string committer_email;
  OptTime authored_at;
  OptTime committed_at;
};

struct FileChange {
  RepoRef repo;
  std::int64_t pr_number = 0;
  std::string filename;
  std::string previous_filename;  // renames
  std::string status;             // "added", "modified", "removed", "renamed"
  std::int64_t additions = 0;
  std::int64_t deletions = 0;
  std::string patch;  // unified diff text, possibly truncated by the platform
};

// One entry of an issue's or PR's operate log (timeline).
struct OperateLogEvent {
  RepoRef repo;
  ParentKind parent_kind = ParentKind::kIssue;
  std::string parent_number;
  std::string id;
  std::string action_type;  // "add_issue_mr_link", "add_mr_issue_link", "closed", "label", ...
  std::string action;
  std::string content;
  User actor;
  OptTime created_at;

  Ref parent() const;
};

// A link the platform itself records between an issue and a PR
// (issues/N/pull_requests, pulls/N/issues, or a link operate-log event).
struct PlatformLink {
  Ref issue;
  Ref pull;
  std::string source;  // "issue_pull_requests", "pull_issues", "operate_log"
};

const char* IssueStateName(IssueState s);  // "open", "closed"
const char* PullStateName(PullState s);    // "open", "closed", "merged"

}  // namespace fixgraph
