// A KG documentation node as the local corpus stores it, and the parsers that
// turn Markdown pages and JSONL files into nodes. Private to query/.
//
// Thread safety: the functions are pure; call them from any thread.
#pragma once

#include "fixgraph/engine/status.h"

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::query::docs {

// One section of a page (or one JSONL record).
struct DocNode {
  std::string id;       // "<path>#<section-slug>", "<path>" for a page's lead text, or the JSONL id
  std::string title;    // page title (first H1, unescaped)
  std::string section;  // section heading ("" for a page's lead text)
  std::string text;     // section body, Markdown markup lightly removed
  std::vector<std::string> products;       // normalised tags ("A2", "A3", "training", ...)
  std::vector<std::string> product_names;  // the names as the page wrote them
  std::string url;                         // where to read it, when known
  std::string origin;  // what the node was imported from (tree root or file), for replacement
  // Structure fields (docs_fields.h), set by ClassifyPage at import:
  std::string page_kind;     // "api", "env", "guide", "troubleshooting", "tutorial", "index"
  std::string section_kind;  // "function", "parameters", "constraints", "examples",
                             // "troubleshooting", "other"
  std::vector<std::string> defines;  // identifiers the page defines (its title's name)
};

nlohmann::json NodeToJson(const DocNode& n);
// REQUIRES: `j` came from NodeToJson (missing fields read as empty).
DocNode NodeFromJson(const nlohmann::json& j);

// --- products ---------------------------------------------------------------

// Stable tags for a product name or a sentence naming products:
//   "Atlas A2 训练系列产品", "Atlas A2 training series", "910B"  -> A2
//   "Atlas A3 推理系列产品", "910_93", "910C"                    -> A3
//   "Atlas 训练系列产品", "Atlas training series", "910A"       -> training
//   "Atlas 推理系列产品", "Atlas 300I DUO", "310P"              -> inference
//   "Ascend 950PR/Ascend 950DT"                                -> 950
// plus a model tag when a concrete model is named ("800I A2", "300I DUO",
// "200I/500 A2"). Combined names ("X/Atlas Y") are split. Unknown text gives
// no tags. Sorted, no duplicates.
std::vector<std::string> ProductTags(std::string_view text);

// The family tags above (a model tag such as "300I DUO" always comes with its
// family's), sorted.
inline constexpr std::array<std::string_view, 5> kProductFamilies = {"950", "A2", "A3", "inference",
                                                                     "training"};
bool IsProductFamily(std::string_view tag);

// --- Markdown ---------------------------------------------------------------

// Splits one Markdown page into section nodes. `rel_path` names the page in
// ids ("kg-corpus/ascend-pytorch/.../TASK_QUEUE_ENABLE.md"). Handles a BOM,
// CRLF, YAML front matter, code fences (a '#' line inside a fence is not a
// heading), escaped H1s (`TORCH\_NPU`) and heading anchors. Product support
// sections (支持的型号, 产品支持情况, Supported Products/Devices/Hardware,
// Hardware Requirements) become the page's product tags, not nodes.
std::vector<DocNode> ParseMarkdown(std::string_view rel_path, std::string_view text);

// Section slug used in ids: lower-case ASCII, spaces to '-', punctuation
// dropped, CJK kept.
std::string Slug(std::string_view heading);

// --- JSONL ------------------------------------------------------------------

// One node per non-blank line:
//   {"id": str, "title": str, "text": str,            (required)
//    "section": str, "products": [str], "url": str}   (optional)
// "products" may hold names or tags; both are normalised. An error names
// `file_label:line` and what was wrong; nothing is returned then.
StatusOr<std::vector<DocNode>> ParseJsonl(std::string_view file_label, std::string_view text);

// --- text helpers -------------------------------------------------------------

// Cuts `s` to at most `max_bytes` without splitting a UTF-8 sequence; adds
// "..." when it cut.
std::string Utf8Truncate(std::string_view s, size_t max_bytes);

}  // namespace fixgraph::query::docs
