#include "fixgraph/query/docs.h"

namespace fixgraph::query {

const char* DocBand(double score) {
  if (score > kDocHitScore) return "hit";
  if (score >= kDocNoiseScore) return "ambiguous";
  return "noise";
}

nlohmann::json ToJson(const DocHit& hit) {
  nlohmann::json j = {{"id", hit.id},
                      {"title", hit.title},
                      {"source", hit.source},
                      {"score", hit.score},
                      {"snippet", hit.snippet},
                      {"products", hit.products},
                      {"url", hit.url},
                      {"band", hit.band.empty() ? std::string(DocBand(hit.score)) : hit.band}};
  if (!hit.page_kind.empty()) j["page_kind"] = hit.page_kind;
  if (!hit.section_kind.empty()) j["section_kind"] = hit.section_kind;
  if (!hit.asked_products.empty()) j["asked_products"] = hit.asked_products;
  return j;
}

}  // namespace fixgraph::query
