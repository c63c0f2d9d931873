// GitCode API v5 (api.gitcode.com/api/v5). See reference/api.md s2.
#include "base_mapper.h"

namespace fixgraph::ingest {

class GitCodeMapper final : public BaseMapper {
 public:
  Platform platform() const override { return Platform::kGitCode; }

 protected:
  void PullExtras(Fields& f, PullRequest* out) const override {
    // The list endpoint carries flat branch fields beside (or instead of) head/base.
    if (out->head_ref.empty()) f.String("source_branch", &out->head_ref);
    if (out->base_ref.empty()) f.String("target_branch", &out->base_ref);
    f.Bool("close_related_issue", &out->close_related_issue);
  }
};

std::unique_ptr<Mapper> NewGitCodeMapper() { return std::make_unique<GitCodeMapper>(); }

}  // namespace fixgraph::ingest
