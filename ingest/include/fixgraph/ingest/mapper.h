// Platform mappers: turn one platform's API payloads (as recorded in a dump,
// design.md s3, or fetched by sync) into the domain model (engine/model.h).
//
// One mapper per platform. They accept the shapes the real APIs send:
//   GitCode: issue "number" as "309" or 309; "" for unset times; finished_at as
//            the close time; 24-hex user ids; /merge_requests/N URLs;
//            close_related_issue as 0/1 or a bool; additions as "3".
//   Gitee:   alphanumeric issue numbers ("I4CD5P"); null for unset times;
//            states open/progressing/closed/rejected; PR file status null for
//            "modified"; patch as an object.
//   GitHub:  integer numbers; issues.json also lists PRs (skipped: IsPullInIssueList).
// Both platforms in China send some times without an offset
// ("2024-04-24 22:27:49"); those are read as China time (+08:00) for GitCode
// and Gitee, UTC for GitHub, unless MapperOptions says otherwise.
// Unknown fields are ignored. A field we use that has the wrong type is
// Corruption naming the field ("field \"created_at\": bad timestamp ...").
//
// Thread safety: mappers are stateless; const methods may be called
// concurrently.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/ingest/json_reader.h"

#include <memory>
#include <nlohmann/json.hpp>

namespace fixgraph::ingest {

struct MapperOptions {
  // Minutes east of UTC assumed for a timestamp without an offset. Default
  // (unset): DefaultNaiveOffsetMinutes(platform).
  std::optional<int> naive_utc_offset_minutes;
};

// +480 (China time) for GitCode and Gitee, 0 for GitHub.
int DefaultNaiveOffsetMinutes(Platform platform);

class Mapper {
 public:
  virtual ~Mapper() = default;
  virtual Platform platform() const = 0;
  int naive_offset_minutes() const { return naive_offset_; }
  void set_naive_offset_minutes(int minutes) { naive_offset_ = minutes; }

  // Mapping from a parsed payload (json_reader.h): the import's path.
  virtual Status Map(const JsonValue& j, const RepoRef& repo, Repository* out) const = 0;
  virtual Status Map(const JsonValue& j, const RepoRef& repo, Issue* out) const = 0;
  virtual Status Map(const JsonValue& j, const RepoRef& repo, PullRequest* out) const = 0;
  // `parent` is the issue or PR the comment belongs to.
  virtual Status Map(const JsonValue& j, const Ref& parent, Comment* out) const = 0;
  virtual Status Map(const JsonValue& j, const Ref& pull, Commit* out) const = 0;
  virtual Status Map(const JsonValue& j, const Ref& pull, FileChange* out) const = 0;
  virtual Status Map(const JsonValue& j, const Ref& parent, OperateLogEvent* out) const = 0;
  // True when an element of issues.json is really a pull request (GitHub).
  virtual bool IsPullInList(const JsonValue& j) const = 0;

  // The number of an item in a platform link list: an element of
  // issues/N/pull_requests.json (a PR) or of pulls/N/issues.json (an issue).
  Status LinkedPullNumber(const JsonValue& j, std::int64_t* number) const;
  Status LinkedIssueNumber(const JsonValue& j, std::string* number) const;
  // The same item as a Ref in its own repository: the one its url or
  // html_url names (".../repos/sytest/paopao/issues/1",
  // "https://gitcode.com/sytest/paopao/merge_requests/3"), else `self`.
  Status LinkedPull(const JsonValue& j, const RepoRef& self, Ref* out) const;
  Status LinkedIssue(const JsonValue& j, const RepoRef& self, Ref* out) const;
  // The replies nested in a comment payload (GitCode PR comments' "reply"
  // array), each mapped as a comment of `parent`; a reply without an id gets
  // "<comment id>.<index>", and inherits the comment's kind and path.
  Status MapReplies(const JsonValue& j, const Comment& comment, const Ref& parent,
                    std::vector<Comment>* out) const;

  // The same from nlohmann values (sync's payloads): identical results.
  Status MapRepository(const nlohmann::json& j, const RepoRef& repo, Repository* out) const;
  Status MapIssue(const nlohmann::json& j, const RepoRef& repo, Issue* out) const;
  Status MapPull(const nlohmann::json& j, const RepoRef& repo, PullRequest* out) const;
  Status MapComment(const nlohmann::json& j, const Ref& parent, Comment* out) const;
  Status MapCommit(const nlohmann::json& j, const Ref& pull, Commit* out) const;
  Status MapFile(const nlohmann::json& j, const Ref& pull, FileChange* out) const;
  Status MapOperateLog(const nlohmann::json& j, const Ref& parent, OperateLogEvent* out) const;
  bool IsPullInIssueList(const nlohmann::json& j) const;
  Status LinkedPullNumber(const nlohmann::json& j, std::int64_t* number) const;
  Status LinkedIssueNumber(const nlohmann::json& j, std::string* number) const;
  Status LinkedPull(const nlohmann::json& j, const RepoRef& self, Ref* out) const;
  Status LinkedIssue(const nlohmann::json& j, const RepoRef& self, Ref* out) const;
  Status MapReplies(const nlohmann::json& j, const Comment& comment, const Ref& parent,
                    std::vector<Comment>* out) const;

 protected:
  int naive_offset_ = 0;
};

// The mapper for a platform.
std::unique_ptr<Mapper> NewMapper(Platform platform, const MapperOptions& options = {});

// An operate-log event's type: action_type (current shape), else action (the
// 2024 shape carries it only there).
const std::string& OperateLogType(const OperateLogEvent& event);

// A platform link recorded by an operate-log event ("add_issue_mr_link" on an
// issue: "... #<PR number>"; "add_mr_issue_link" on a PR: "... #<issue number>";
// "owner/repo#N" names another repository's item). Returns nullopt for other
// events. `removed` (optional) is set for the unlink events
// (delete_issue_mr_link, delete_mr_issue_link), which also return the link.
std::optional<PlatformLink> LinkFromOperateLog(const OperateLogEvent& event,
                                               bool* removed = nullptr);

// The links one item's operate log leaves in place: link and unlink events
// applied in time order (created_at, then id), whatever order the log lists
// them in.
std::vector<PlatformLink> LinksFromOperateLog(std::vector<OperateLogEvent> events);

// The links that `events` (any items' logs, both sides of a link together)
// leave removed: those whose last link or unlink event, in time order, is an
// unlink. A PR's log may add a link that the issue's log removes later.
std::vector<PlatformLink> UnlinkedByOperateLog(std::vector<OperateLogEvent> events);

// The close time an operate log records: the last "closed" event not followed
// by a reopen ("opened"/"reopened"). Unset when there is none.
OptTime CloseTimeFromOperateLog(const std::vector<OperateLogEvent>& events);

// The operate-log events an issue's related_branches payload (GitCode
// issues/N/related_branches: an array of branch names) stands for: one
// event per branch, action_type "related_branch", content the branch name,
// id "related_branch:<name>", so the linker reads them beside the
// add_issue_branch_link events of the same log.
Status RelatedBranchEvents(const JsonValue& j, const Ref& issue, std::vector<OperateLogEvent>* out);
Status RelatedBranchEvents(const nlohmann::json& j, const Ref& issue,
                           std::vector<OperateLogEvent>* out);

}  // namespace fixgraph::ingest
