// The parts of the doc ranking that need no index (docs_local.cc has the
// search itself): the question's term groups, the ranking constants
// (Tuning, docs/kg.md), snippets and the small page tests of the rank key.
// Private to query/.
#pragma once

#include "analyzer.h"
#include "docs_assoc.h"

#include <xapian.h>

#include <cstdarg>
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::query::docs {

// A question term and, for an identifier, its parts: one group per
// position of the analysed question.
struct QueryGroup {
  std::vector<std::string> terms;  // terms[0] is the whole (identifier/word/bigram)
  TermKind kind = TermKind::kWord;
};

// The question with what it says it does not want blanked out (spaces in
// place of the bytes, so the rest keeps its offsets): the cue and the words after
// "without", "instead of", "rather than", "other than" or "except" (up to 4
// words, ending at a punctuation mark, a conjunction or a preposition:
// "instead of IoU between the boxes" refuses IoU),
// and the cue and the characters after 不想, 不要, 不用, 不做, 不改, 不需要, 不希望, 而不是,
// 除了 or 无需 (up to 6, ending at a punctuation mark or a space). A question
// form (要不要, 用不用, 需不需要) is not a refusal. "fused op without the
// RMSNorm fusion" asks for the op that lacks it; "key不做稀疏化" for the dense
// variant, not the sparse one.
std::string DropNegated(std::string_view text);

// The terms of `groups` (GroupQuery(text)) found only in what `text`
// refuses (DropNegated): "without the RMSNorm fusion" gives rmsnorm and
// fusion unless they are asked for elsewhere.
std::set<std::string> RefusedTerms(std::string_view text, const std::vector<QueryGroup>& groups);

// The question's term groups, a repeated whole term counted once.
std::vector<QueryGroup> GroupQuery(std::string_view text);

// "16ms", "4k", "200mb": a number with a unit is question detail rather than
// a name (a bare number may be an error code and is not one of these).
bool IsQuantity(const std::string& t);

// The best lines of `text` for the query (by matched `weight`), up to
// about 320 bytes: the hit's snippet.
std::string MakeSnippet(const std::string& text, const std::map<std::string, double>& weight);

// Alternatives for a run of query groups: the other members of a lexicon
// synonym group, or terms learned to go with a query term (docs_assoc.h). A
// node holding every term of one member matches the groups at `credit`.
struct AltSet {
  std::vector<size_t> groups;
  std::vector<std::vector<std::string>> members;
  double credit = 0;
};

// Ranking adjustments (issue 22), added to the calibrated score; a page that
// defines an identifier the question names goes first whatever its score.
struct Tuning {
  double index_penalty = 0.08;     // menus, lists and index pages
  double tutorial_penalty = 0.03;  // a tutorial the question does not name
  double enable_definer = 0.05;    // "how do I enable": the page defining a switch
  double enable_tutorial = 0.03;
  double support_section = 0.04;   // "does X support Y": X's constraints section
  double support_products = 0.01;  // ...and a page that lists products
  double symptom_trouble = 0.05;   // an error: troubleshooting pages
  double bm25_share = 0.06;        // BM25 (relative to the best) in the rank key
  double synonym_credit = 0.8;
  double assoc_credit = docs::kAssociationCredit;
  double feedback_weight = 0.3;  // expansion terms from the top documents
  double feedback_docs = 4;
  double feedback_terms = 0;  // 0: no feedback pass (dev: no gain for 2 ms; docs/kg.md)
  double candidates = 60;
  double title_share = 0.15;       // title/heading coverage in the rank key
  double function_section = 0.01;  // a page's description section
  double length_penalty = 0.06;    // per e-fold of length above the average
  double page_share = 0.3;         // page-level coverage beyond the section's
  double page_sections = 3;        // the best sections of a page its evidence counts
  double feedback_df = 0.1;    // the feedback pass searches terms in at most this share of nodes
  double seam_ratio = 10;      // CJK seam bigrams (docs_fields.h SeamBigrams); 0 = off
  double prefix_credit = 0.5;  // an abbreviation of a question word (Alternatives)
  double title_named = 0.08;   // share of the page title's terms the question holds
  double title_query = 0.3;    // weight of the title field in the candidate match
  double scope_bonus = 0.2;    // a page of the sub-corpus the question names ("vllm-ascend")
  double scope_share = 0.6;    // ... by a word most of whose nodes lie in it (0 = any)
  double title_df =
      0.05;  // title terms in more than this share of the nodes are not searched there (0 = all)
  double title_alt =
      0.8;  // alternatives credited at least this much join the title match (0 = none)
  double word_idf_cap = 0.65;      // plain words weigh at most this share of the maximum IDF
  double setting_env = 0.1;        // "is there a switch / 开关": environment-variable pages
  double meaning_function = 0.04;  // "what does X do": X's description section
  double api_page = 0.06;          // "which op / 用哪个接口": API pages
  double name_asked = 0.06;        // the question asks for every word of an API's name (2+ words)
  double sibling_pages = 5;        // the first pages searched for asked-for siblings (< 2 = off)
  double cpp_api = 0.05;           // a C++ question ("C++ extension", "c10_npu"): C++ API pages
  double negation = 1;             // read what the question refuses (DropNegated); 0 = off
  double refused_weight = 0;       // ...its words' share of their weight (they are still searched)
  double common_df = 0.02;  // terms in more than this share of nodes only add weight (0 = off)
  double own_section = 1;   // a page is shown by its best section before page evidence (0 = off)
};

// matched IDF / max IDF for full evidence
constexpr double kEvidenceShare = 0.6;
// A page defining a name the question holds goes first; its score gains
// this much (not a floor: a question holding names the corpus does not know
// stays below a hit).
constexpr double kNamedBonus = 0.08;

// The alternatives of the question's terms (AltSet): the doc lexicon's
// synonyms (Lexicon::ForDocs) at tune.synonym_credit, the learned
// associations of single terms at tune.assoc_credit, and abbreviations (an
// English word of 6+ letters whose stem begins with a term of 4+ letters
// `in_index` knows) at tune.prefix_credit; a credit of 0 turns a kind off.
std::vector<AltSet> Alternatives(std::string_view text, const std::vector<QueryGroup>& groups,
                                 const std::vector<std::vector<double>>& term_idf,
                                 const Tuning& tune, const AssociationTable& assoc,
                                 const std::function<bool(const std::string&)>& in_index);

// The ranking constants; `spec` ("name=value,...", the field names above;
// LocalDocOptions::tune, which the cli takes from $FIXGRAPH_KG_TUNE)
// overrides them for tuning experiments (docs/kg.md).
Tuning ReadTuning(std::string_view spec);

// The sub-corpus of a page id `<tree>/<dir>/.../<file>`: `<dir>`, when
// the page lies below it (a file directly in the tree has none).
std::string PageScope(const std::string& page);

// The share of a page title's terms (`words`, space-separated) the
// question holds, a synonym or association counting at its credit.
double TitleNamed(const std::string& words, const std::set<std::string>& have,
                  const std::map<std::string, double>& alt_credit);

// The words of an API or variable page's name (its title): the words and
// identifier parts of its analysis (`torch_npu.reset_stream_limit` ->
// torch, npu, reset, stream, limit; `getCurrentNPUStream` -> get, current,
// npu, stream); a method's with its class's (`ExternalEvent().reset()` -> extern,
// event, reset; `NPUStreamGuard::current_stream`). An in-place variant's name (a trailing
// underscore, PyTorch's convention: `scatter_update_`) also holds the word `inplace`, so the
// sibling choice tells it from `scatter_update` by whether the question asks
// for in-place work ("in-place", "inplace", 原地).
std::set<std::string> NameWords(std::string_view title);
// The name word of an in-place variant (the analysis of "inplace").
const std::string& InPlaceWord();

// The words of a space-separated list (value kSlotNameWords).
std::set<std::string> SplitWords(std::string_view list);

// Sibling pages: names that share at least kSiblingShared words (the in-place word
// not counted) and differ by at most
// kSiblingWords words each way (set_stream_limit / reset_stream_limit,
// getCurrentNPUStream / setCurrentNPUStream). True when `a` and `b` are
// siblings and the question asks (`asked`) for more of the words only `a`'s
// name holds than of those only `b`'s holds: the question picks `a` by the
// words that tell them apart ("恢复默认" -> reset, "make ... current" -> set;
// "a base class for my own fused SGD optimizer" asks for optimizer and base,
// NpuFusedOptimizerBase, over sgd, NpuFusedSGD).
constexpr size_t kSiblingWords = 2;
constexpr size_t kSiblingShared = 2;
bool SiblingAsked(const std::set<std::string>& a, const std::set<std::string>& b,
                  const std::function<bool(const std::string&)>& asked);

// True when some distinctive question term is in the node's title or
// heading (the question names the page).
bool TitleMatches(const std::set<std::string>& holds, const std::vector<QueryGroup>& groups,
                  const std::vector<std::vector<double>>& term_idf);

// Keeps plain analyser terms (no prefixed boolean/title terms) not already in
// the question for relevance feedback.
class FeedbackDecider : public Xapian::ExpandDecider {
 public:
  explicit FeedbackDecider(const std::set<std::string>* have) : have_(have) {}
  bool operator()(const std::string& term) const override;

 private:
  const std::set<std::string>* have_;
};

// One line of the search's debug output (LocalDocOptions::debug): `format`
// with `args` (vprintf), written to `out` whole under `mu`.
void WriteDebugLine(std::ostream* out, std::mutex* mu, const char* format, std::va_list args);

}  // namespace fixgraph::query::docs
