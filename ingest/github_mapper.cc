// GitHub REST API (api.github.com).
#include "base_mapper.h"

namespace fixgraph::ingest {

class GitHubMapper final : public BaseMapper {
 public:
  Platform platform() const override { return Platform::kGitHub; }

  // GitHub's issue list includes pull requests, marked by a "pull_request" key.
  bool IsPullInList(const JsonValue& j) const override { return j.Find("pull_request").valid(); }

 protected:
  void IssueClosedAt(Fields& f, OptTime* out) const override { f.Time("closed_at", out); }
};

std::unique_ptr<Mapper> NewGitHubMapper() { return std::make_unique<GitHubMapper>(); }

}  // namespace fixgraph::ingest
