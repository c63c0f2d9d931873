// Structure fields of KG doc nodes and the intent of a question (issue 22).
// Private to query/.
//
// At import every node gets its page's kind, its section's kind and the
// identifiers its page defines; at search time the question's intent decides
// which kinds of page and section answer it best. The rules read generic
// markers of the page (title shape, file name, path segments, section
// headings), never a particular page.
//
// Thread safety: the functions are pure; call them from any thread.
#pragma once

#include "docs_node.h"

#include "fixgraph/query/docs.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::query::docs {

// Page kinds.
inline constexpr const char* kPageApi = "api";      // a function/class reference
inline constexpr const char* kPageEnv = "env";      // an environment variable / switch
inline constexpr const char* kPageGuide = "guide";  // feature guide, how-to, design note
inline constexpr const char* kPageTrouble = "troubleshooting";  // symptom/cause/fix, FAQ
inline constexpr const char* kPageTutorial = "tutorial";        // a (model) deployment tutorial
inline constexpr const char* kPageIndex = "index";              // menu, list or index page

// Section kinds.
inline constexpr const char* kSecFunction = "function";
inline constexpr const char* kSecParameters = "parameters";
inline constexpr const char* kSecConstraints = "constraints";
inline constexpr const char* kSecExamples = "examples";
inline constexpr const char* kSecTrouble = "troubleshooting";
inline constexpr const char* kSecOther = "other";

// The kind of a section from its heading ("" = the page's lead text, which
// is a function description).
std::string SectionKind(std::string_view heading);

// The identifier a page title names, or "" when the title is prose:
// "TORCH_NPU_LOGS", "torch_npu.npu_grouped_matmul",
// "at_npu::native::empty_with_swapped_memory", "(beta) TORCH_HCCL_ZERO_COPY"
// -> "TORCH_HCCL_ZERO_COPY". An identifier is one token holding '_', '.',
// "::" or a lower-to-upper case change; a "(beta)" mark and a trailing "()"
// are dropped.
std::string TitleIdentifier(std::string_view title);

// Sets page_kind, section_kind and defines on every node of one page (all
// `nodes` share `rel_path`, the page's path or a JSONL node's id).
void ClassifyPage(std::string_view rel_path, std::vector<DocNode>* nodes);

// What a question asks for.
struct Intent {
  bool support = false;  // "does X support / work on Y", "which products"
  bool enable = false;   // "how do I enable / make / set / turn off ..."
  bool symptom = false;  // an error, a failure, a hang
  bool setting = false;  // asks for a switch: "开关", "环境变量", "flag", "env var"
  bool meaning = false;  // "what does X do / 有什么作用 / 是什么": X's description
  bool api = false;      // asks for an operator, API or call: "用哪个接口", "is there an op"
  bool cpp = false;      // writes C++: "C++ extension", "libtorch", "c10_npu", "at::"
  std::vector<std::string> products;  // product tags named (ProductTags)
};

// Reads the intent of a question from its wording (Chinese and English).
Intent ReadIntent(std::string_view question);

// Sets DocHit::asked_products of `hits` for a support question naming
// product families (`intent`: ReadIntent of the question); leaves them empty
// otherwise. Every doc source calls it on what it returns.
void MarkAskedProducts(const Intent& intent, std::vector<DocHit>* hits);

}  // namespace fixgraph::query::docs

namespace fixgraph::query {
struct Term;
}

namespace fixgraph::query::docs {

// CJK bigrams of a question that straddle a word boundary, found from the
// corpus alone (no dictionary): in a run of overlapping bigrams ("通信超时"
// -> 通信 信超 超时), a bigram whose two neighbours in the run are both at
// least `ratio` times as frequent (`df`, nodes holding the term) is taken
// for the seam between two words (信超) and returned. A bigram at either end
// of a run, or next to a bigram the corpus never saw, is kept (a rare word
// such as 卡住 between unseen seams is a word).
std::vector<std::string> SeamBigrams(const std::vector<Term>& terms,
                                     const std::function<double(const std::string&)>& df,
                                     double ratio);

}  // namespace fixgraph::query::docs
