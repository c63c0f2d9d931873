#include "fixgraph/query/docs.h"

namespace fixgraph::query {

nlohmann::json ToJson(const DocHit& hit) {
  return {{"id", hit.id},           {"title", hit.title}, {"source", hit.source},
          {"score", hit.score},     {"snippet", hit.snippet},
          {"products", hit.products}, {"url", hit.url}};
}

}  // namespace fixgraph::query
