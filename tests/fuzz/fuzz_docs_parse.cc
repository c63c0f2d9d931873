// libFuzzer harness: the knowledge-base document parsers (query/docs_parse.cc):
// ParseMarkdown and ParseJsonl on any bytes, and the nodes serialised as
// `docs import` stores them (ill-formed UTF-8 replaced, never an exception).
#include "docs_node.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace {
std::string Stored(const fixgraph::query::docs::DocNode& node) {
  return fixgraph::query::docs::NodeToJson(node).dump(-1, ' ', false,
                                                      nlohmann::json::error_handler_t::replace);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& node : fixgraph::query::docs::ParseMarkdown("docs/page.md", text))
    (void)Stored(node);
  auto nodes = fixgraph::query::docs::ParseJsonl("kb.jsonl", text);
  if (nodes.ok())
    for (const auto& node : *nodes) (void)Stored(node);
  return 0;
}
