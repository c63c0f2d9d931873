// KG documentation nodes (design.md s6, reference/ascend-kg.md): the fallback
// answer when no past issue fits or the question is about hardware/platform
// behaviour.
//
// A doc source is either the local corpus (Markdown trees and JSONL nodes
// imported with `fixgraph docs import`, indexed with Xapian under
// <db_dir>/docs) or a remote KG service speaking the `/search` API. Scores are
// on the KG service's scale in [0, 1]: > 0.83 a hit, 0.70-0.83 ambiguous,
// < 0.70 noise.
//
// Thread safety: a DocSource may be used from several threads at once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixgraph/engine/status.h"

namespace fixgraph::query {

// KG score bands (reference/ascend-kg.md).
inline constexpr double kDocHitScore = 0.83;
inline constexpr double kDocNoiseScore = 0.70;

// One documentation node. JSON (design.md s8, "docs" of ask --json):
//   {"id", "title", "source", "score", "snippet", "products", "url"}
struct DocHit {
  std::string id;                     // stable node id (path#section or the KG's id)
  std::string title;                  // page title > section heading
  std::string source;                 // "local" or the remote service's name/URL host
  double score = 0;                   // [0, 1], KG scale
  std::string snippet;                // the section text that matched, trimmed
  std::vector<std::string> products;  // normalised product tags ("Atlas A2", "910B", ...)
  std::string url;                    // where to read it, when known
};

nlohmann::json ToJson(const DocHit& hit);

class DocSource {
 public:
  virtual ~DocSource() = default;
  // Best nodes for free text (Chinese and/or English), best first, at most
  // `limit`. An empty or unsearchable query gives an empty list, not an error.
  virtual StatusOr<std::vector<DocHit>> Search(std::string_view text, size_t limit) = 0;
  // "local", or the remote service's base URL (no credentials).
  virtual std::string Name() const = 0;
};

// The configured doc sources, merged by score: the local corpus at
// <db_dir>/docs when it exists, and the remote KG service when
// $FIXGRAPH_KG_URL is set (API key from $FIXGRAPH_KG_API_KEY). Returns a
// source with nothing behind it (always empty results) when neither exists.
StatusOr<std::unique_ptr<DocSource>> OpenDocSources(const std::string& db_dir);

}  // namespace fixgraph::query
