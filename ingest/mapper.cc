#include "fixgraph/ingest/mapper.h"

#include <nlohmann/json.hpp>

namespace fixgraph::ingest {

std::unique_ptr<Mapper> NewGitCodeMapper();
std::unique_ptr<Mapper> NewGiteeMapper();
std::unique_ptr<Mapper> NewGitHubMapper();

int DefaultNaiveOffsetMinutes(Platform platform) {
  return platform == Platform::kGitHub ? 0 : 8 * 60;
}

std::unique_ptr<Mapper> NewMapper(Platform platform, const MapperOptions& options) {
  std::unique_ptr<Mapper> m;
  switch (platform) {
    case Platform::kGitCode:
      m = NewGitCodeMapper();
      break;
    case Platform::kGitee:
      m = NewGiteeMapper();
      break;
    case Platform::kGitHub:
      m = NewGitHubMapper();
      break;
  }
  if (m)
    m->set_naive_offset_minutes(
        options.naive_utc_offset_minutes.value_or(DefaultNaiveOffsetMinutes(platform)));
  return m;
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

Status Mapper::LinkedPull(const nlohmann::json& j, const RepoRef& self, Ref* out) const {
  return ViaReader(j, [&](const JsonValue& v) { return LinkedPull(v, self, out); });
}
Status Mapper::LinkedIssue(const nlohmann::json& j, const RepoRef& self, Ref* out) const {
  return ViaReader(j, [&](const JsonValue& v) { return LinkedIssue(v, self, out); });
}
Status Mapper::MapReplies(const nlohmann::json& j, const Comment& comment, const Ref& parent,
                          std::vector<Comment>* out) const {
  out->clear();
  if (!j.is_object() || !j.contains("reply")) return Status::OK();
  return ViaReader(j, [&](const JsonValue& v) { return MapReplies(v, comment, parent, out); });
}

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
