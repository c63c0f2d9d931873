// GitHub REST API (api.github.com).
#include "base_mapper.h"

namespace fixgraph::ingest {

class GitHubMapper final : public BaseMapper {
 public:
  Platform platform() const override { return Platform::kGitHub; }

  // GitHub's issue list includes pull requests, marked by a "pull_request" key.
  bool IsPullInIssueList(const nlohmann::json& j) const override {
    return j.is_object() && j.contains("pull_request");
  }

 protected:
  void IssueClosedAt(Fields& f, OptTime* out) const override { f.Time("closed_at", out); }
};

std::unique_ptr<Mapper> NewGitHubMapper() { return std::make_unique<GitHubMapper>(); }

}  // namespace fixgraph::ingest
