// Gitee API v5 (gitee.com/api/v5). See reference/api.md s2 and the recorded
// responses in shared/data/gitee-recorded.
#include "base_mapper.h"

namespace fixgraph::ingest {

class GiteeMapper final : public BaseMapper {
 public:
  Platform platform() const override { return Platform::kGitee; }

 protected:
  void IssueExtras(Fields& f, Issue* out) const override {
    // The branch an issue is linked to; null in most payloads.
    f.String("branch", &out->branch);
  }
};

std::unique_ptr<Mapper> NewGiteeMapper() { return std::make_unique<GiteeMapper>(); }

}  // namespace fixgraph::ingest
