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
// Unknown fields are ignored. A field we use that has the wrong type is
// Corruption naming the field ("field \"created_at\": bad timestamp ...").
//
// Thread safety: mappers are stateless; const methods may be called
// concurrently.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/ingest/json_reader.h"

namespace fixgraph::ingest {

class Mapper {
 public:
  virtual ~Mapper() = default;
  virtual Platform platform() const = 0;

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
};

// The mapper for a platform.
std::unique_ptr<Mapper> NewMapper(Platform platform);

// A platform link recorded by an operate-log event ("add_issue_mr_link" on an
// issue: "... #<PR number>"; "add_mr_issue_link" on a PR: "... #<issue number>").
// Returns nullopt for other events.
std::optional<PlatformLink> LinkFromOperateLog(const OperateLogEvent& event);

}  // namespace fixgraph::ingest
