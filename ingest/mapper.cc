#include "fixgraph/ingest/mapper.h"

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
