#include "fixgraph/ingest/mapper.h"

#include <nlohmann/json.hpp>

namespace fixgraph::ingest {

std::unique_ptr<Mapper> NewGitCodeMapper();
std::unique_ptr<Mapper> NewGiteeMapper();
std::unique_ptr<Mapper> NewGitHubMapper();

std::unique_ptr<Mapper> NewMapper(Platform platform) {
  switch (platform) {
    case Platform::kGitCode: return NewGitCodeMapper();
    case Platform::kGitee: return NewGiteeMapper();
    case Platform::kGitHub: return NewGitHubMapper();
  }
  return nullptr;
}

}  // namespace fixgraph::ingest

namespace fixgraph::ingest {
namespace {

// Maps an nlohmann value through the JsonValue path: one mapping code path.
template <typename Fn>
Status ViaReader(const nlohmann::json& j, Fn fn) {
  JsonDoc doc;
  FG_RETURN_IF_ERROR(doc.ParseJson(j));
  return fn(doc.root());
}

}  // namespace

Status Mapper::MapRepository(const nlohmann::json& j, const RepoRef& repo, Repository* out) const {
  return ViaReader(j, [&](const JsonValue& v) { return Map(v, repo, out); });
}
Status Mapper::MapIssue(const nlohmann::json& j, const RepoRef& repo, Issue* out) const {
  return ViaReader(j, [&](const JsonValue& v) { return Map(v, repo, out); });
}
Status Mapper::MapPull(const nlohmann::json& j, const RepoRef& repo, PullRequest* out) const {
  return ViaReader(j, [&](const JsonValue& v) { return Map(v, repo, out); });
}
Status Mapper::MapComment(const nlohmann::json& j, const Ref& parent, Comment* out) const {
  return ViaReader(j, [&](const JsonValue& v) { return Map(v, parent, out); });
}
Status Mapper::MapCommit(const nlohmann::json& j, const Ref& pull, Commit* out) const {
  return ViaReader(j, [&](const JsonValue& v) { return Map(v, pull, out); });
}
Status Mapper::MapFile(const nlohmann::json& j, const Ref& pull, FileChange* out) const {
  return ViaReader(j, [&](const JsonValue& v) { return Map(v, pull, out); });
}
Status Mapper::MapOperateLog(const nlohmann::json& j, const Ref& parent,
                             OperateLogEvent* out) const {
  return ViaReader(j, [&](const JsonValue& v) { return Map(v, parent, out); });
}
bool Mapper::IsPullInIssueList(const nlohmann::json& j) const {
  bool pull = false;
  Status s = ViaReader(j, [&](const JsonValue& v) {
    pull = IsPullInList(v);
    return Status::OK();
  });
  return s.ok() && pull;
}
Status Mapper::LinkedPullNumber(const nlohmann::json& j, std::int64_t* number) const {
  *number = 0;
  return ViaReader(j, [&](const JsonValue& v) { return LinkedPullNumber(v, number); });
}
Status Mapper::LinkedIssueNumber(const nlohmann::json& j, std::string* number) const {
  number->clear();
  return ViaReader(j, [&](const JsonValue& v) { return LinkedIssueNumber(v, number); });
}

}  // namespace fixgraph::ingest
