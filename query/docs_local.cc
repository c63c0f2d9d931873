// The local KG doc corpus: import (Markdown trees, JSONL) into a Xapian
// database at <db_dir>/index-docs, and search with calibrated [0,1] scores.
//
// Index layout (one Xapian document per node; the values below are part of
// the on-disk format: do not change them without a re-import note):
//   data          NodeToJson(node)
//   value 0       the page: the id up to '#' (one section per page first)
//   value 1       the page kind, value 2 the section kind (docs_fields.h)
//   value 3       the page title's whole terms, space-separated (an index
//                 imported before it existed lacks it: no title-naming signal)
//   "D" + term    a name the page defines (docs_fields.h, DefinedTerms), and
//                 an API name run together without its namespace (CompactNames)
//   metadata      "fixgraph:assoc": learned term associations (docs_assoc.h)
//   "Q" + id      unique id term (replace_document key)
//   "O" + origin  the tree/file the node came from (replacement on re-import)
//   "P" + tag     product tag, lower-case
//   term          analyzer terms of title (wdf 4), section heading (wdf 3),
//                 text (wdf 1 per occurrence)
//   "T" + term    the same terms of title and section heading (title evidence)
//
// Score calibration (KG scale: > 0.83 hit, 0.70-0.83 ambiguous, < 0.70
// noise). BM25 ranks the candidates; the score says how much of the question
// a node answers:
//   - query terms are grouped by position (an identifier and its parts form
//     one group); a group weighs the IDF of its whole term in the doc index.
//     A term the index never saw weighs: 0 for a CJK bigram (bigrams across
//     word boundaries are noise), 0.3 x max IDF for a plain word (question
//     wording), 0.1 x max IDF for a quantity ("16ms"), 0.6 x max IDF for an
//     identifier or code (a name the corpus does not know counts against
//     every node); a one-character word weighs 0 and is not searched;
//   - a group is matched fully when its whole term is in the node, partly
//     (0.6 x the matched share of its parts' IDF) when only parts are;
//   - coverage = matched weight / total weight, over the whole node and over
//     its title and heading alone (title coverage);
//   - evidence = min(1, sum over matched groups of IDF / max IDF, / 0.6): a
//     match on common words only is weak whatever its coverage;
//   score = 0.45 + 0.50 * (0.75 * coverage + 0.25 * title coverage) * evidence,
//   then adjusted by page/section kind against the question's intent, and
//   ranked by a key adding BM25, title and page coverage and a length
//   penalty (Tuning below; docs/kg.md). Synonyms (0.8), learned
//   associations (0.5) and abbreviations (0.5) of a question term count as
//   partial matches; plain English words weigh at most 0.65 x max IDF and
//   CJK bigrams across a word boundary of the question weigh 0.
// So a node holding every distinctive query term, some of them in its title,
// lands around 0.88-0.95; one holding most of them in its body alone around
// 0.75-0.83; one sharing a few common words below 0.70.
#include "analyzer.h"
#include "docs_assoc.h"
#include "docs_fields.h"
#include "docs_node.h"
#include "index_shards.h"
#include "lexicon.h"

#include "fixgraph/engine/store.h"
#include "fixgraph/query/docs.h"

#include <sys/stat.h>
#include <xapian.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace fixgraph::query {
namespace {

namespace fs = std::filesystem;

using docs::DocNode;

constexpr double kEvidenceShare = 0.6;  // matched IDF / max IDF for full evidence
constexpr size_t kCandidates = 60;
constexpr size_t kSnippetBytes = 320;
constexpr Xapian::valueno kSlotPage = 0;         // the page part of the id (before '#')
constexpr Xapian::valueno kSlotPageKind = 1;     // docs_fields.h page kind
constexpr Xapian::valueno kSlotSectionKind = 2;  // docs_fields.h section kind
constexpr Xapian::valueno kSlotTitleTerms = 3;   // the page title's whole terms, space-separated
constexpr Xapian::termcount kTitleWdf = 4;
constexpr size_t kPrefixMinWord = 6;    // words shorter than this are not abbreviated
constexpr size_t kPrefixMinAbbrev = 4;  // nor to fewer letters than this
constexpr Xapian::termcount kHeadingWdf = 3;

std::string LowerAscii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// prefix + term, built by appending (GCC 12 warns falsely on "P" + rvalue).
std::string Prefixed(char prefix, std::string_view term) {
  std::string out;
  out.reserve(term.size() + 1);
  out.push_back(prefix);
  out.append(term);
  return out;
}

// The whole-identifier terms a page's defined names are found under: the
// name itself ("torch_npu.npu_grouped_matmul") and, when it is qualified, its
// last component if that is an identifier too ("npu_grouped_matmul"; not
// "step" of "...dynamic_profile.step").
std::vector<std::string> DefinedTerms(const std::vector<std::string>& defines) {
  std::vector<std::string> out;
  auto whole = [&](std::string_view name) {
    for (const Term& t : Analyze(name)) {
      if (t.kind == TermKind::kIdentifier) {
        out.push_back(t.text);
        return;
      }
    }
  };
  for (const std::string& d : defines) {
    whole(d);
    size_t cut = d.find_last_of(".:");
    if (cut != std::string::npos && cut + 1 < d.size()) {
      std::string last = d.substr(cut + 1);
      if (!docs::TitleIdentifier(last).empty()) whole(last);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The components of a defined name's last part, lower-case
// ("torch_npu.npu_rms_norm" -> npu, rms, norm).
std::vector<std::string> NameComponents(const std::string& name) {
  size_t cut = name.find_last_of(".:");
  std::string last = LowerAscii(cut == std::string::npos ? name : name.substr(cut + 1));
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= last.size()) {
    size_t us = last.find('_', pos);
    if (us == std::string::npos) us = last.size();
    if (us > pos) out.push_back(last.substr(pos, us - pos));
    pos = us + 1;
  }
  return out;
}

// Namespace components: the first component of many of the defined names
// of one import ("npu" of npu_rms_norm, npu_grouped_matmul, ...), at least
// kNamespaceMinNames names and kNamespaceShare of them.
constexpr size_t kNamespaceMinNames = 5;
constexpr double kNamespaceShare = 0.2;
std::set<std::string> NameNamespaces(const std::vector<DocNode>& nodes) {
  std::set<std::string> names;
  for (const DocNode& n : nodes)
    for (const std::string& d : n.defines) names.insert(d);
  std::map<std::string, size_t> first;
  for (const std::string& d : names) {
    std::vector<std::string> c = NameComponents(d);
    if (c.size() >= 2) ++first[c[0]];
  }
  std::set<std::string> out;
  for (const auto& [c, k] : first)
    if (k >= kNamespaceMinNames &&
        static_cast<double>(k) >= kNamespaceShare * static_cast<double>(names.size()))
      out.insert(c);
  return out;
}

// The run-together form of a defined name without its namespace
// ("npu_rms_norm" -> "rmsnorm", "npu_grouped_matmul" -> "groupedmatmul"):
// what a question writes as RMSNorm or GroupedMatmul.
std::vector<std::string> CompactNames(const std::vector<std::string>& defines,
                                      const std::set<std::string>& namespaces) {
  std::vector<std::string> out;
  for (const std::string& d : defines) {
    std::vector<std::string> c = NameComponents(d);
    if (c.size() < 3 || namespaces.count(c[0]) == 0) continue;
    std::string joined;
    for (size_t i = 1; i < c.size(); ++i) joined += c[i];
    bool ok = !joined.empty() && joined.size() <= kMaxTermBytes;
    for (char ch : joined)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ok = false;
    if (ok) out.push_back(joined);
  }
  return out;
}

Xapian::Document MakeDocument(const DocNode& n, const std::set<std::string>& namespaces) {
  Xapian::Document doc;
  // A page with ill-formed UTF-8 (found by fuzzing, issue 21): U+FFFD instead
  // of an exception that aborted `docs import`.
  doc.set_data(docs::NodeToJson(n).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  doc.add_value(kSlotPage, n.id.substr(0, n.id.find('#')));
  doc.add_value(kSlotPageKind, n.page_kind);
  doc.add_value(kSlotSectionKind, n.section_kind);
  {
    std::string words;
    for (const Term& t : Analyze(n.title)) {
      if (t.kind == TermKind::kPart) continue;
      if (!words.empty()) words.push_back(' ');
      words += t.text;
    }
    if (!words.empty()) doc.add_value(kSlotTitleTerms, words);
  }
  for (const std::string& d : DefinedTerms(n.defines)) doc.add_boolean_term(Prefixed('D', d));
  for (const std::string& d : CompactNames(n.defines, namespaces))
    doc.add_boolean_term(Prefixed('D', d));
  doc.add_boolean_term(Prefixed('Q', n.id));
  if (!n.origin.empty()) doc.add_boolean_term(Prefixed('O', n.origin));
  for (const std::string& p : n.products) doc.add_boolean_term(Prefixed('P', LowerAscii(p)));
  auto add = [&](const std::string& text, Xapian::termcount wdf, bool title) {
    for (const Term& t : Analyze(text)) {
      doc.add_term(t.text, wdf);
      if (title) doc.add_term(Prefixed('T', t.text), 1);
    }
  };
  add(n.title, kTitleWdf, true);
  add(n.section, kHeadingWdf, true);
  add(n.text, 1, false);
  return doc;
}

struct PendingImport {
  std::string origin;
  std::vector<DocNode> nodes;
};

bool HasExt(const fs::path& p, std::initializer_list<const char*> exts) {
  std::string e = LowerAscii(p.extension().string());
  for (const char* x : exts)
    if (e == x) return true;
  return false;
}

Status ReadWhole(const fs::path& p, std::string* out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return Status::IOError(p.string() + ": cannot read");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IOError(p.string() + ": read failed");
  *out = ss.str();
  return Status::OK();
}

// Parses one file into `nodes`. `rel` is the id prefix for Markdown pages.
Status ParseFile(const fs::path& file, const std::string& rel, const std::string& origin,
                 std::vector<DocNode>* nodes, size_t* files) {
  std::string text;
  if (Status s = ReadWhole(file, &text); !s.ok()) return s;
  ++*files;
  std::vector<DocNode> got;
  if (HasExt(file, {".jsonl"})) {
    auto parsed = docs::ParseJsonl(file.string(), text);
    if (!parsed.ok()) return parsed.status();
    got = std::move(*parsed);
    for (DocNode& n : got) {
      std::vector<DocNode> one{std::move(n)};
      docs::ClassifyPage(one[0].id, &one);
      n = std::move(one[0]);
    }
  } else {
    got = docs::ParseMarkdown(rel, text);
    docs::ClassifyPage(rel, &got);
  }
  for (DocNode& n : got) {
    n.origin = origin;
    nodes->push_back(std::move(n));
  }
  return Status::OK();
}

Status CollectPath(const std::string& arg, PendingImport* out, size_t* files) {
  std::error_code ec;
  fs::path p(arg);
  fs::file_status st = fs::status(p, ec);
  if (ec || !fs::exists(st)) return Status::NotFound(arg + ": no such file or directory");
  if (fs::is_regular_file(st)) {
    if (!HasExt(p, {".md", ".markdown", ".jsonl"}))
      return Status::InvalidArgument(arg + ": not a Markdown (.md) or JSONL (.jsonl) file");
    std::string name = p.filename().string();
    out->origin = "file:" + name;
    return ParseFile(p, name, out->origin, &out->nodes, files);
  }
  if (!fs::is_directory(st)) return Status::InvalidArgument(arg + ": not a file or directory");
  fs::path canon = fs::weakly_canonical(p, ec);
  std::string root = (ec ? p : canon).filename().string();
  if (root.empty() || root == "." || root == "..") root = "docs";
  out->origin = "tree:" + root;
  std::vector<fs::path> found;
  fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec);
  if (ec) return Status::IOError(arg + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IOError(arg + ": " + ec.message());
    const fs::path& f = it->path();
    std::string fname = f.filename().string();
    if (!fname.empty() && fname[0] == '.') {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && HasExt(f, {".md", ".markdown", ".jsonl"})) found.push_back(f);
  }
  std::sort(found.begin(), found.end());
  for (const fs::path& f : found) {
    std::string rel = root + "/" + fs::relative(f, p, ec).generic_string();
    if (Status s = ParseFile(f, rel, out->origin, &out->nodes, files); !s.ok()) return s;
  }
  return Status::OK();
}

// --- search -------------------------------------------------------------------

struct QueryGroup {
  std::vector<std::string> terms;  // terms[0] is the whole (identifier/word/bigram)
  TermKind kind = TermKind::kWord;
};

std::vector<QueryGroup> GroupQuery(std::string_view text) {
  std::vector<QueryGroup> groups;
  std::map<std::uint32_t, size_t> by_pos;
  std::set<std::string> seen_whole;
  for (const Term& t : Analyze(text)) {
    auto it = by_pos.find(t.pos);
    if (it == by_pos.end()) {
      if (!seen_whole.insert(t.text).second) {
        by_pos[t.pos] = SIZE_MAX;  // a repeated term: counted once
        continue;
      }
      by_pos[t.pos] = groups.size();
      groups.push_back(QueryGroup{{t.text}, t.kind});
    } else if (it->second != SIZE_MAX) {
      auto& g = groups[it->second].terms;
      if (std::find(g.begin(), g.end(), t.text) == g.end()) g.push_back(t.text);
    }
  }
  return groups;
}

// "16ms", "4k", "200mb": a number with a unit is question detail rather than
// a name (a bare number may be an error code and is not one of these).
bool IsQuantity(const std::string& t) {
  size_t i = 0;
  while (i < t.size() && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.')) ++i;
  if (i == 0) return false;
  static const char* const kUnits[] = {"ms",   "s", "us",  "ns",  "b",   "kb",  "mb",
                                       "gb",   "k", "m",   "g",   "x",   "fps", "kbps",
                                       "mbps", "w", "mhz", "ghz", "min", "h",   "d"};
  std::string unit = t.substr(i);
  for (const char* u : kUnits)
    if (unit == u) return true;
  return false;
}

// Index of the best line of `text` for the query, by matched weight.
std::string MakeSnippet(const std::string& text, const std::map<std::string, double>& weight) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    if (nl > pos) lines.emplace_back(text.data() + pos, nl - pos);
    pos = nl + 1;
  }
  // A line holding none of the terms' first bytes (ASCII lower-cased; stems
  // keep the first letters of their word) cannot match: it is not analysed.
  std::vector<std::string> probes;
  for (const auto& [term, w] : weight)
    probes.push_back(term.substr(0, std::min<size_t>(3, term.size())));
  std::string lower;
  size_t best = 0;
  double best_w = 0;
  for (size_t i = 0; i < lines.size() && i < 400; ++i) {
    lower.assign(lines[i]);
    for (char& c : lower)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    bool maybe = false;
    for (const std::string& pr : probes)
      if (lower.find(pr) != std::string::npos) {
        maybe = true;
        break;
      }
    if (!maybe) continue;
    std::set<std::string> got;
    double w = 0;
    for (const Term& t : Analyze(lines[i])) {
      auto it = weight.find(t.text);
      if (it != weight.end() && got.insert(t.text).second) w += it->second;
    }
    if (w > best_w + 1e-9) {
      best_w = w;
      best = i;
    }
  }
  std::string out;
  for (size_t i = best; i < lines.size() && out.size() < kSnippetBytes; ++i) {
    std::string_view l = lines[i];
    size_t b = l.find_first_not_of(" \t");
    if (b == std::string_view::npos) continue;
    l.remove_prefix(b);
    if (l.substr(0, 3) == "```" || l.find_first_not_of("|-: ") == std::string_view::npos) continue;
    if (!out.empty()) out.push_back(' ');
    out.append(l);
  }
  return docs::Utf8Truncate(out, kSnippetBytes);
}

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
  double feedback_df = 0.1;    // the feedback pass searches terms in at most this share of nodes
  double seam_ratio = 10;      // CJK seam bigrams (docs_fields.h SeamBigrams); 0 = off
  double prefix_credit = 0.5;  // an abbreviation of a question word (Alternatives)
  double title_named = 0.08;   // share of the page title's terms the question holds
  double title_query = 0.3;    // weight of the title field in the candidate match
  double scope_bonus = 0.2;    // a page of the sub-corpus the question names ("vllm-ascend")
  double title_df =
      0.05;  // title terms in more than this share of the nodes are not searched there (0 = all)
  double title_alt =
      0.8;  // alternatives credited at least this much join the title match (0 = none)
  double word_idf_cap = 0.65;      // plain words weigh at most this share of the maximum IDF
  double setting_env = 0.1;        // "is there a switch / 开关": environment-variable pages
  double meaning_function = 0.04;  // "what does X do": X's description section
};

// The ranking constants; `spec` ("name=value,...", the field names above;
// LocalDocOptions::tune, which the cli takes from $FIXGRAPH_KG_TUNE)
// overrides them for tuning experiments (docs/kg.md).
Tuning ReadTuning(std::string_view spec) {
  Tuning t;
  std::string_view v(spec);
  std::map<std::string, double*> fields = {{"index_penalty", &t.index_penalty},
                                           {"tutorial_penalty", &t.tutorial_penalty},
                                           {"enable_definer", &t.enable_definer},
                                           {"enable_tutorial", &t.enable_tutorial},
                                           {"support_section", &t.support_section},
                                           {"support_products", &t.support_products},
                                           {"symptom_trouble", &t.symptom_trouble},
                                           {"bm25_share", &t.bm25_share},
                                           {"synonym_credit", &t.synonym_credit},
                                           {"assoc_credit", &t.assoc_credit},
                                           {"feedback_weight", &t.feedback_weight},
                                           {"feedback_docs", &t.feedback_docs},
                                           {"feedback_terms", &t.feedback_terms},
                                           {"candidates", &t.candidates},
                                           {"title_share", &t.title_share},
                                           {"function_section", &t.function_section},
                                           {"length_penalty", &t.length_penalty},
                                           {"page_share", &t.page_share},
                                           {"feedback_df", &t.feedback_df},
                                           {"seam_ratio", &t.seam_ratio},
                                           {"title_named", &t.title_named},
                                           {"prefix_credit", &t.prefix_credit},
                                           {"title_query", &t.title_query},
                                           {"title_alt", &t.title_alt},
                                           {"title_df", &t.title_df},
                                           {"scope_bonus", &t.scope_bonus},
                                           {"word_idf_cap", &t.word_idf_cap},
                                           {"setting_env", &t.setting_env},
                                           {"meaning_function", &t.meaning_function}};
  while (!v.empty()) {
    size_t comma = v.find(',');
    std::string_view item = v.substr(0, comma);
    size_t eq = item.find('=');
    if (eq != std::string_view::npos) {
      auto it = fields.find(std::string(item.substr(0, eq)));
      if (it != fields.end()) *it->second = std::atof(std::string(item.substr(eq + 1)).c_str());
    }
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return t;
}
// A page defining a name the question holds goes first; its score gains
// this much (not a floor: a question holding names the corpus does not know
// stays below a hit).
constexpr double kNamedBonus = 0.08;

// Keeps plain analyser terms (no prefixed boolean/title terms) not already in
// the query for relevance feedback.
class FeedbackDecider : public Xapian::ExpandDecider {
 public:
  explicit FeedbackDecider(const std::set<std::string>* have) : have_(have) {}
  bool operator()(const std::string& term) const override {
    if (term.empty() || (term[0] >= 'A' && term[0] <= 'Z')) return false;
    if (term.size() < 2 || have_->count(term) > 0) return false;
    // Numbers and one-byte words say little about a topic.
    return term.find_first_not_of("0123456789.") != std::string::npos;
  }

 private:
  const std::set<std::string>* have_;
};

class LocalDocSource : public DocSource {
 public:
  // `stub`: the stub file the shards of `db` were opened from ("" for an
  // index directory).
  LocalDocSource(Xapian::Database db, const LocalDocOptions& options, std::string stub = "")
      : db_(std::move(db)),
        tune_(ReadTuning(options.tune)),
        debug_(options.debug),
        stub_(std::move(stub)) {
    LoadAssociations();
  }

  std::string Name() const override { return "local"; }

  StatusOr<std::vector<DocHit>> Search(std::string_view text, size_t limit) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (int attempt = 0;; ++attempt) {
      try {
        if (db_.reopen()) LoadAssociations();
        return SearchLocked(text, limit);
      } catch (const Xapian::NetworkError& e) {
        // A shard server went away or timed out: connect again (once), every
        // shard or none (a doc answer over part of the shards is not given).
        if (stub_.empty() || attempt > 0)
          return Status::Unavailable("doc index: " + e.get_description());
        FG_RETURN_IF_ERROR(ReopenShards());
      } catch (const Xapian::Error& e) {
        return Status::IOError("doc index: " + e.get_msg());
      }
    }
  }

  // Opens the shards of stub_ again; Unavailable naming those that are down.
  Status ReopenShards() {
    auto opened = OpenIndex(stub_, "doc index");
    if (!opened.ok()) return opened.status();
    if (!opened->missing.empty()) return MissingShards(stub_, opened->missing);
    db_ = std::move(opened->db);
    LoadAssociations();
    return Status::OK();
  }

 public:
  static Status MissingShards(const std::string& stub, const std::vector<std::string>& missing) {
    std::string all;
    for (const std::string& m : missing) all += (all.empty() ? "" : "; ") + m;
    return Status::Unavailable("doc index " + stub + ": shards cannot be reached: " + all);
  }

 private:
  void LoadAssociations() { assoc_ = docs::ReadAssociations(db_); }

  StatusOr<std::vector<DocHit>> SearchLocked(std::string_view text, size_t limit) {
    std::vector<DocHit> hits;
    if (limit == 0) return hits;
    std::vector<QueryGroup> groups = GroupQuery(text);
    if (groups.empty()) return hits;
    const docs::Intent intent = docs::ReadIntent(text);
    const double n_docs = std::max<double>(1, db_.get_doccount());
    const double max_idf = std::log((n_docs + 1) / 0.5);
    auto idf = [&](const std::string& t) {
      Xapian::doccount df = db_.get_termfreq(t);
      if (df == 0) return -1.0;
      return std::max(0.0, std::log((n_docs + 1) / (df + 0.5)));
    };
    // Bigrams across a word boundary of the question (信超 of 通信超时) are
    // rare in the corpus, so they would weigh much and match by chance: they
    // are neither weighed nor searched.
    std::set<std::string> seams;
    {
      std::vector<std::string> v = docs::SeamBigrams(
          Analyze(text),
          [&](const std::string& t) { return static_cast<double>(db_.get_termfreq(t)); },
          tune_.seam_ratio);
      seams.insert(v.begin(), v.end());
    }
    // Group weights and the terms Xapian searches for.
    std::vector<std::vector<double>> term_idf(groups.size());
    std::vector<double> group_w(groups.size());
    std::vector<std::string> qterms;
    std::set<std::string> have;
    std::map<std::string, double> snippet_w;
    double total = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      double w = 0;
      // A lone letter or digit ("x" in "4 x 8", "a") names nothing: it is
      // neither searched for nor weighed.
      if ((groups[g].kind == TermKind::kWord && groups[g].terms[0].size() == 1) ||
          (groups[g].kind == TermKind::kCjk && seams.count(groups[g].terms[0]) > 0)) {
        term_idf[g].assign(groups[g].terms.size(), -1.0);
        group_w[g] = 0;
        continue;
      }
      for (const std::string& t : groups[g].terms) {
        double f = idf(t);
        term_idf[g].push_back(f);
        if (f >= 0) {
          qterms.push_back(t);
          have.insert(t);
          snippet_w[t] = std::max(snippet_w[t], f);
        }
      }
      double whole = term_idf[g][0];
      if (whole >= 0) {
        w = whole;
        // A plain English word is rare in a small doc corpus by chance
        // ("badly", "fly") as often as by meaning: its weight is capped.
        if (groups[g].kind == TermKind::kWord) w = std::min(w, tune_.word_idf_cap * max_idf);
      } else if (groups[g].kind == TermKind::kCjk) {
        w = 0;
      } else if (IsQuantity(groups[g].terms[0])) {
        w = 0.1 * max_idf;
      } else if (groups[g].kind == TermKind::kWord) {
        w = 0.3 * max_idf;
      } else {
        w = 0.6 * max_idf;
      }
      group_w[g] = w;
      total += w;
    }
    if (total <= 0) return hits;
    // Pages the question names: an identifier of the question that a page
    // defines (its title's name).
    std::set<std::string> named_terms;
    for (const QueryGroup& g : groups) {
      // Identifiers, and words that may be a name run together ("rmsnorm").
      if (g.kind != TermKind::kIdentifier && !(g.kind == TermKind::kWord && g.terms[0].size() >= 6))
        continue;
      std::string d = Prefixed('D', g.terms[0]);
      if (db_.get_termfreq(d) > 0) named_terms.insert(d);
    }
    // Alternatives: the lexicon's synonyms and the learned associations.
    std::vector<AltSet> alts = Alternatives(text, groups, term_idf);
    // What each alternative term is worth as a stand-in for a question term.
    std::map<std::string, double> alt_credit;
    for (const AltSet& a : alts)
      for (const auto& m : a.members)
        for (const std::string& t : m) alt_credit[t] = std::max(alt_credit[t], a.credit);
    std::vector<std::string> alt_terms;
    for (const AltSet& a : alts)
      for (const auto& m : a.members)
        for (const std::string& t : m)
          if (!have.count(t) && db_.get_termfreq(t) > 0) alt_terms.push_back(t);
    // LocalDocOptions::debug ($FIXGRAPH_KG_DEBUG in the cli): the question's
    // terms, alternatives, named pages and sub-corpora, and every candidate's
    // parts, to the caller's stream (docs/kg.md).
    const bool debug = debug_ != nullptr;
    if (debug) {
      for (size_t g = 0; g < groups.size(); ++g)
        DebugLine("group %s w=%.2f\n", groups[g].terms[0].c_str(), group_w[g]);
      for (const AltSet& a : alts) {
        std::string m;
        for (const auto& mem : a.members) {
          m += " [";
          for (const auto& t : mem) m += t + " ";
          m += "]";
        }
        DebugLine("alt %.1f groups=%zu:%s\n", a.credit, a.groups.size(), m.c_str());
      }
      for (const std::string& d : named_terms) DebugLine("named %s\n", d.c_str());
    }
    if (qterms.empty() && alt_terms.empty() && named_terms.empty()) return hits;

    // The query over `keep` terms (all of them, or the rarer ones only).
    auto make_query = [&](const std::function<bool(const std::string&)>& keep) {
      std::vector<std::string> q, a;
      for (const std::string& t : qterms)
        if (keep(t)) q.push_back(t);
      for (const std::string& t : alt_terms)
        if (keep(t)) a.push_back(t);
      Xapian::Query out(Xapian::Query::OP_OR, q.begin(), q.end());
      if (!a.empty())
        out = Xapian::Query(
            Xapian::Query::OP_OR, out,
            Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT,
                          Xapian::Query(Xapian::Query::OP_OR, a.begin(), a.end()), 0.5));
      for (const std::string& d : named_terms)
        out = Xapian::Query(Xapian::Query::OP_OR, out,
                            Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, Xapian::Query(d), 0));
      return out;
    };
    Xapian::Query base = make_query([](const std::string&) { return true; });
    // The title field as a field of its own: a node whose title or heading
    // holds question terms joins the candidates even when the question's
    // words are common in bodies ("which models can I run" and the page
    // "Supported Models").
    // A title term held by many titles (`npu`, `torch_npu`) brings no page
    // of its own into the candidates; its long posting list is most of the
    // title match's cost.
    auto TitleTermUseful = [&](const std::string& t) {
      Xapian::doccount df = db_.get_termfreq(Prefixed('T', t));
      return df > 0 && (tune_.title_df <= 0 || df <= tune_.title_df * n_docs);
    };
    if (tune_.title_query > 0) {
      std::vector<std::string> tq;
      for (const std::string& t : qterms)
        if (TitleTermUseful(t)) tq.push_back(Prefixed('T', t));
      // A synonym of a question term in a title (a Chinese question and
      // the English page "Environment Variables") counts there too.
      if (tune_.title_alt > 0)
        for (const std::string& t : alt_terms)
          if (alt_credit[t] >= tune_.title_alt && TitleTermUseful(t))
            tq.push_back(Prefixed('T', t));
      if (!tq.empty())
        base =
            Xapian::Query(Xapian::Query::OP_OR, base,
                          Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT,
                                        Xapian::Query(Xapian::Query::OP_OR, tq.begin(), tq.end()),
                                        tune_.title_query));
    }
    Xapian::Enquire enquire(db_);
    enquire.set_query(base);
    const Xapian::doccount want =
        static_cast<Xapian::doccount>(std::max(static_cast<size_t>(tune_.candidates), limit * 3));
    // Relevance feedback: terms that mark the best documents widen the
    // candidate set (they do not count as covering the question). The first
    // pass asks only for those documents (a short match prunes most of the
    // posting lists); the candidates come from the second.
    const bool feedback =
        tune_.feedback_terms > 0 && tune_.feedback_weight > 0 && tune_.feedback_docs >= 1;
    // That pass leaves out the terms in more than feedback_df of the nodes:
    // their long posting lists are most of a match's cost and barely move
    // the best few documents.
    const double common_df = tune_.feedback_df * n_docs;
    Xapian::Query probe =
        make_query([&](const std::string& t) { return db_.get_termfreq(t) <= common_df; });
    if (!feedback || probe.empty()) probe = base;
    enquire.set_query(probe);
    Xapian::MSet mset =
        enquire.get_mset(0, feedback ? static_cast<Xapian::doccount>(tune_.feedback_docs) : want);
    bool expanded = false;
    if (feedback && mset.size() > 1) {
      Xapian::RSet rset;
      for (auto it = mset.begin(); it != mset.end(); ++it) rset.add_document(*it);
      FeedbackDecider decider(&have);
      Xapian::ESet eset =
          enquire.get_eset(static_cast<Xapian::termcount>(tune_.feedback_terms), rset, &decider);
      if (!eset.empty()) {
        std::vector<std::string> fb(eset.begin(), eset.end());
        enquire.set_query(
            Xapian::Query(Xapian::Query::OP_OR, base,
                          Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT,
                                        Xapian::Query(Xapian::Query::OP_OR, fb.begin(), fb.end()),
                                        tune_.feedback_weight)));
        mset = enquire.get_mset(0, want);
        expanded = true;
      }
    }
    if (feedback && !expanded) {
      enquire.set_query(base);
      mset = enquire.get_mset(0, want);
    }
    struct Cand {
      double score;  // calibrated, adjusted: what the hit reports
      double rank;   // the sort key
      double bm25;
      bool named;
      Xapian::Document doc;
      std::vector<double> matched;  // per group: the share matched
      double coverage = 0;
      std::string page;                              // value kSlotPage
      std::string page_kind;                         // value kSlotPageKind
      const std::set<std::string>* holds = nullptr;  // the needed terms it holds
    };
    const double avg_len = std::max(1.0, db_.get_avlength());
    const double top_bm25 = mset.empty() ? 1.0 : std::max(1e-9, mset.begin().get_weight());
    // Every term a candidate is tested for, sorted: one walk over a
    // candidate's term list answers them all.
    std::vector<std::string> needed;
    for (size_t g = 0; g < groups.size(); ++g) {
      for (size_t k = 0; k < groups[g].terms.size(); ++k) {
        if (term_idf[g][k] < 0) continue;
        needed.push_back(groups[g].terms[k]);
        needed.push_back(Prefixed('T', groups[g].terms[k]));
      }
    }
    for (const AltSet& a : alts)
      for (const auto& member : a.members)
        for (const std::string& t : member) {
          needed.push_back(t);
          needed.push_back(Prefixed('T', t));
        }
    for (const std::string& d : named_terms) needed.push_back(d);
    std::sort(needed.begin(), needed.end());
    needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
    std::vector<Cand> cands;
    // Which needed terms each candidate holds, read from the posting lists
    // (one skip_to per term and candidate, in docid order) rather than by
    // walking every candidate's whole term list.
    std::vector<std::pair<Xapian::docid, size_t>> by_did;
    for (auto it = mset.begin(); it != mset.end(); ++it) by_did.emplace_back(*it, by_did.size());
    std::sort(by_did.begin(), by_did.end());
    std::vector<std::set<std::string>> holds(by_did.size());
    std::vector<bool> products_of(by_did.size(), false);
    auto mark = [&](const std::string& term, bool products) {
      Xapian::PostingIterator p = db_.postlist_begin(term);
      const Xapian::PostingIterator end = db_.postlist_end(term);
      for (const auto& [did, rank] : by_did) {
        p.skip_to(did);
        if (p == end) break;
        if (*p == did) {
          if (products)
            products_of[rank] = true;
          else
            holds[rank].insert(term);
        }
      }
    };
    for (const std::string& t : needed)
      if (db_.get_termfreq(t) > 0) mark(t, false);
    if (intent.support)
      for (Xapian::TermIterator pt = db_.allterms_begin("P"); pt != db_.allterms_end("P"); ++pt)
        mark(*pt, true);
    // The page, the kinds and the length of every candidate, read the same
    // way: one stream per value slot and the all-documents posting list, in
    // docid order (Document::get_value seeks the value table on every call).
    std::vector<std::array<std::string, 4>> values(by_did.size());
    std::vector<double> doc_len(by_did.size(), avg_len);
    for (Xapian::valueno slot : {kSlotPage, kSlotPageKind, kSlotSectionKind, kSlotTitleTerms}) {
      Xapian::ValueIterator v = db_.valuestream_begin(slot);
      const Xapian::ValueIterator vend = db_.valuestream_end(slot);
      for (const auto& [did, rank] : by_did) {
        if (v == vend) break;
        v.skip_to(did);
        if (v == vend) break;
        if (v.get_docid() == did) values[rank][slot] = *v;
      }
    }
    {
      Xapian::PostingIterator p = db_.postlist_begin("");
      const Xapian::PostingIterator end = db_.postlist_end("");
      for (const auto& [did, rank] : by_did) {
        p.skip_to(did);
        if (p == end) break;
        if (*p == did) doc_len[rank] = static_cast<double>(p.get_doclength());
      }
    }
    // Scopes the question names: the imported tree holds sub-corpora (its
    // top directories: `vllm-ascend/`, `op-plugin/`); a question naming one
    // ("vllm-ascend 有哪些环境变量", "with vllm") asks about that product.
    std::vector<std::string> scope_of(by_did.size());
    std::set<std::string> named_scopes;
    if (tune_.scope_bonus > 0) {
      std::map<std::string, std::set<std::string>>
          scope_terms;                         // scope -> its whole name and parts
      std::map<std::string, int> part_scopes;  // part -> how many scopes hold it
      for (size_t r = 0; r < by_did.size(); ++r) {
        scope_of[r] = PageScope(values[r][kSlotPage]);
        if (scope_of[r].empty() || scope_terms.count(scope_of[r]) > 0) continue;
        auto& st = scope_terms[scope_of[r]];
        for (const Term& t : Analyze(scope_of[r])) st.insert(t.text);
        for (const std::string& t : st) ++part_scopes[t];
      }
      if (scope_terms.size() > 1) {
        for (const QueryGroup& g : groups) {
          if (g.kind == TermKind::kCjk || g.terms[0].size() < 3) continue;
          for (const auto& [scope, st] : scope_terms)
            if (st.count(g.terms[0]) > 0 && part_scopes[g.terms[0]] == 1)
              named_scopes.insert(scope);
        }
      }
      if (debug)
        for (const std::string& sc : named_scopes) DebugLine("scope %s\n", sc.c_str());
    }
    size_t cand_rank = 0;
    for (auto it = mset.begin(); it != mset.end(); ++it, ++cand_rank) {
      Xapian::Document doc = it.get_document();
      const std::set<std::string>& present = holds[cand_rank];
      const bool has_products = products_of[cand_rank];
      auto DocHas = [&present](const Xapian::Document&, const std::string& t) {
        return present.count(t) > 0;
      };
      std::vector<double> m(groups.size(), 0.0), mt(groups.size(), 0.0);
      for (size_t g = 0; g < groups.size(); ++g) {
        if (group_w[g] <= 0) continue;
        const auto& terms = groups[g].terms;
        auto match = [&](const std::string& prefix) {
          if (term_idf[g][0] >= 0 && DocHas(doc, prefix + terms[0])) return 1.0;
          double parts = 0, parts_got = 0;
          for (size_t k = 1; k < terms.size(); ++k) {
            double f = std::max(0.0, term_idf[g][k] >= 0 ? term_idf[g][k] : max_idf);
            parts += f;
            if (term_idf[g][k] >= 0 && DocHas(doc, prefix + terms[k])) parts_got += f;
          }
          return parts > 0 ? 0.6 * parts_got / parts : 0.0;
        };
        m[g] = match("");
        if (m[g] > 0) mt[g] = match("T");
      }
      for (const AltSet& a : alts) {
        double best = 0, best_t = 0;
        for (const auto& member : a.members) {
          bool all = !member.empty(), all_t = !member.empty();
          for (const std::string& t : member) {
            if (!DocHas(doc, t)) {
              all = all_t = false;
              break;
            }
            if (all_t && !DocHas(doc, Prefixed('T', t))) all_t = false;
          }
          if (all) best = a.credit;
          if (all_t) best_t = a.credit;
          if (all_t) break;
        }
        for (size_t g : a.groups) {
          m[g] = std::max(m[g], best);
          mt[g] = std::max(mt[g], best_t);
        }
      }
      double got = 0, got_title = 0, mass = 0;
      for (size_t g = 0; g < groups.size(); ++g) {
        got += m[g] * group_w[g];
        got_title += mt[g] * group_w[g];
        mass += m[g] * group_w[g];
      }
      double coverage = got / total;
      double title_cov = got_title / total;
      double evidence = std::min(1.0, mass / max_idf / kEvidenceShare);
      double score = 0.45 + 0.50 * (0.75 * coverage + 0.25 * title_cov) * evidence;
      // Structure: the page's kind and the section's kind against the intent.
      const std::string& page_kind = values[cand_rank][kSlotPageKind];
      const std::string& sec_kind = values[cand_rank][kSlotSectionKind];
      const bool definer = page_kind == docs::kPageEnv || page_kind == docs::kPageApi;
      double adj = 0;
      if (page_kind == docs::kPageIndex) adj -= tune_.index_penalty;
      if (page_kind == docs::kPageTutorial && title_cov <= 0) adj -= tune_.tutorial_penalty;
      if (intent.enable && !intent.support) {
        if (definer) adj += tune_.enable_definer;
        if (page_kind == docs::kPageTutorial) adj -= tune_.enable_tutorial;
      }
      if (intent.support) {
        if (sec_kind == docs::kSecConstraints) adj += tune_.support_section;
        if (has_products) adj += tune_.support_products;
      }
      if (intent.symptom && (page_kind == docs::kPageTrouble || sec_kind == docs::kSecTrouble))
        adj += tune_.symptom_trouble;
      if (intent.setting && page_kind == docs::kPageEnv) adj += tune_.setting_env;
      bool named = false;
      for (const std::string& d : named_terms)
        if (DocHas(doc, d)) named = true;
      score = std::clamp(score + adj, 0.0, 1.0);
      double rank =
          score + tune_.bm25_share * it.get_weight() / top_bm25 + tune_.title_share * title_cov;
      // The sub-corpus the question names orders the pages; it says nothing
      // about how well the node answers (the score).
      if (!named_scopes.empty() && named_scopes.count(scope_of[cand_rank]) > 0)
        rank += tune_.scope_bonus;
      if (sec_kind == docs::kSecFunction && !intent.support) rank += tune_.function_section;
      if (sec_kind == docs::kSecFunction && intent.meaning) rank += tune_.meaning_function;
      // The question names the page: the share of the page title's terms
      // that the question holds (or a synonym of), for short titles such as
      // "Supported Models" or "Environment Variables" whose words are common.
      if (tune_.title_named > 0)
        rank +=
            tune_.title_named * TitleNamed(values[cand_rank][kSlotTitleTerms], have, alt_credit);
      // Long sections (deployment scripts, change logs) hold many words by
      // sheer length.
      double len = doc_len[cand_rank];
      if (len > avg_len) rank -= tune_.length_penalty * std::log(len / avg_len);
      if (named) {
        score = std::min(1.0, score + kNamedBonus);
        rank += 1.0;
      }
      if (debug)
        DebugLine("cand %.3f rank %.3f bm25 %.2f cov %.2f tcov %.2f adj %.2f %s %s/%s %s\n", score,
                  rank, it.get_weight(), coverage, title_cov, adj,
                  values[cand_rank][kSlotPage].c_str(), page_kind.c_str(), sec_kind.c_str(),
                  values[cand_rank][kSlotTitleTerms].c_str());
      cands.push_back(Cand{std::min(score, 1.0), rank, it.get_weight(), named, doc, m, coverage,
                           values[cand_rank][kSlotPage], page_kind, &holds[cand_rank]});
    }
    // Page evidence: the question terms matched by any candidate section of
    // the page (a page answering in its description and its parameters).
    if (tune_.page_share > 0) {
      std::map<std::string, std::vector<double>> page_m;
      for (const Cand& c : cands) {
        auto& pm = page_m[c.page];
        if (pm.empty()) pm.assign(groups.size(), 0.0);
        for (size_t g = 0; g < groups.size(); ++g) pm[g] = std::max(pm[g], c.matched[g]);
      }
      for (Cand& c : cands) {
        const auto& pm = page_m[c.page];
        double got = 0;
        for (size_t g = 0; g < groups.size(); ++g) got += pm[g] * group_w[g];
        c.rank += tune_.page_share * (got / total - c.coverage);
      }
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) {
      if (std::abs(a.rank - b.rank) > 1e-9) return a.rank > b.rank;
      return a.bm25 > b.bm25;
    });
    // One section per page first (the best), then the other sections, so the
    // first hits name different pages. Tutorials the question does not name
    // share one slot: the best of them comes in the first round, the others
    // (near-identical sections of other tutorials) after every other page.
    std::vector<const Cand*> order;
    std::vector<const Cand*> later;
    std::set<std::string> pages;
    bool tutorial_shown = false;
    for (const Cand& c : cands) {
      const std::string& id = c.page;
      if (!pages.insert(id).second) {
        later.push_back(&c);
        continue;
      }
      bool collapsible = c.page_kind == docs::kPageTutorial && !c.named && c.rank < 1.0 &&
                         !TitleMatches(*c.holds, groups, term_idf);
      if (collapsible && tutorial_shown) {
        later.push_back(&c);
        continue;
      }
      if (collapsible) tutorial_shown = true;
      order.push_back(&c);
    }
    order.insert(order.end(), later.begin(), later.end());
    for (const Cand* cp : order) {
      const Cand& c = *cp;
      if (hits.size() >= limit) break;
      nlohmann::json j = nlohmann::json::parse(c.doc.get_data(), nullptr, false);
      if (j.is_discarded()) continue;
      DocNode n = docs::NodeFromJson(j);
      DocHit h;
      h.id = n.id;
      h.title = n.section.empty() ? n.title : n.title + " > " + n.section;
      h.source = "local";
      h.score = std::round(c.score * 1000) / 1000;
      h.band = DocBand(h.score);
      h.snippet = MakeSnippet(n.text, snippet_w);
      h.products = n.products;
      h.url = n.url;
      h.page_kind = n.page_kind;
      h.section_kind = n.section_kind;
      hits.push_back(std::move(h));
    }
    return hits;
  }

  // The sub-corpus of a page id `<tree>/<dir>/.../<file>`: `<dir>`, when
  // the page lies below it (a file directly in the tree has none).
  static std::string PageScope(const std::string& page) {
    size_t a = page.find('/');
    if (a == std::string::npos) return {};
    size_t b = page.find('/', a + 1);
    if (b == std::string::npos) return {};
    return page.substr(a + 1, b - a - 1);
  }

  // The share of a page title's terms (`words`, space-separated) the
  // question holds, a synonym or association counting at its credit.
  static double TitleNamed(const std::string& words, const std::set<std::string>& have,
                           const std::map<std::string, double>& alt_credit) {
    double n = 0, got = 0;
    for (size_t pos = 0; pos < words.size();) {
      size_t sp = words.find(' ', pos);
      if (sp == std::string::npos) sp = words.size();
      std::string w = words.substr(pos, sp - pos);
      pos = sp + 1;
      if (w.empty()) continue;
      n += 1;
      if (have.count(w) > 0) {
        got += 1;
      } else if (auto it = alt_credit.find(w); it != alt_credit.end()) {
        got += it->second;
      }
    }
    return n > 0 ? got / n : 0.0;
  }

  // True when some distinctive question term is in the node's title or
  // heading (the question names the page).
  static bool TitleMatches(const std::set<std::string>& holds,
                           const std::vector<QueryGroup>& groups,
                           const std::vector<std::vector<double>>& term_idf) {
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].kind == TermKind::kCjk || term_idf[g].empty() || term_idf[g][0] < 0) continue;
      if (groups[g].kind == TermKind::kWord) continue;  // plain words: "model", "deploy"
      if (holds.count(Prefixed('T', groups[g].terms[0])) > 0) return true;
    }
    return false;
  }

  static bool DocHasPrefix(const Xapian::Document& doc, char prefix) {
    Xapian::TermIterator it = doc.termlist_begin();
    it.skip_to(std::string(1, prefix));
    return it != doc.termlist_end() && !(*it).empty() && (*it)[0] == prefix;
  }

  std::vector<AltSet> Alternatives(std::string_view text, const std::vector<QueryGroup>& groups,
                                   const std::vector<std::vector<double>>& term_idf) {
    std::vector<AltSet> out;
    // Sequence of whole terms, each with its group.
    std::vector<Term> terms = Analyze(text);
    Lexicon::Seq seq;
    std::vector<size_t> seq_group;
    std::map<std::string, size_t> group_of;
    for (size_t g = 0; g < groups.size(); ++g) group_of.emplace(groups[g].terms[0], g);
    for (const Term& t : terms) {
      if (t.kind == TermKind::kPart) continue;
      seq.push_back(t.text);
      auto it = group_of.find(t.text);
      seq_group.push_back(it == group_of.end() ? SIZE_MAX : it->second);
    }
    const Lexicon& lex = Lexicon::ForDocs();
    for (const Lexicon::Match& m :
         tune_.synonym_credit > 0 ? lex.FindSynonyms(seq) : std::vector<Lexicon::Match>{}) {
      AltSet a;
      a.credit = tune_.synonym_credit;
      for (size_t i = m.start; i < m.start + m.length; ++i)
        if (seq_group[i] != SIZE_MAX) a.groups.push_back(seq_group[i]);
      if (a.groups.empty()) continue;
      const auto& members = lex.Group(m.group);
      for (const Lexicon::Seq& member : members) {
        if (std::equal(member.begin(), member.end(),
                       seq.begin() + static_cast<std::ptrdiff_t>(m.start),
                       seq.begin() + static_cast<std::ptrdiff_t>(m.start + m.length)))
          continue;
        a.members.push_back(member);
      }
      if (!a.members.empty()) out.push_back(std::move(a));
    }
    // Learned associations of single terms the corpus knows.
    for (size_t g = 0; g < groups.size() && tune_.assoc_credit > 0; ++g) {
      if (term_idf[g].empty()) continue;
      auto it = assoc_.find(groups[g].terms[0]);
      if (it == assoc_.end()) continue;
      AltSet a;
      a.credit = tune_.assoc_credit;
      a.groups.push_back(g);
      for (const std::string& t : it->second) a.members.push_back({t});
      out.push_back(std::move(a));
    }
    // Abbreviations: an English word of the question whose stem begins with
    // a shorter term of the index ("increment" -> "incr" of
    // npu_incre_flash_attention, "configur" -> "config", "paramet" ->
    // "param"): identifiers shorten the words prose spells out.
    for (size_t g = 0; g < groups.size() && tune_.prefix_credit > 0; ++g) {
      if (groups[g].kind != TermKind::kWord) continue;
      const std::string& w = groups[g].terms[0];
      if (w.size() < kPrefixMinWord) continue;
      bool ascii = true;
      for (char c : w)
        if (!(c >= 'a' && c <= 'z')) ascii = false;
      if (!ascii) continue;
      AltSet a;
      a.credit = tune_.prefix_credit;
      a.groups.push_back(g);
      for (size_t k = w.size() - 1; k >= kPrefixMinAbbrev; --k) {
        std::string pre = w.substr(0, k);
        if (db_.get_termfreq(pre) > 0) a.members.push_back({pre});
      }
      if (!a.members.empty()) out.push_back(std::move(a));
    }
    return out;
  }

  // One line of debug output to debug_ (printf format, newline included).
  __attribute__((format(printf, 2, 3))) void DebugLine(const char* format, ...) const {
    std::va_list args;
    va_start(args, format);
    std::va_list again;
    va_copy(again, args);
    int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    if (n > 0) {
      std::string line(static_cast<size_t>(n) + 1, '\0');
      std::vsnprintf(line.data(), line.size(), format, again);
      line.resize(static_cast<size_t>(n));
      *debug_ << line << std::flush;
    }
    va_end(again);
  }

  std::mutex mu_;
  Xapian::Database db_;
  docs::Associations assoc_;
  Tuning tune_;
  std::ostream* debug_;  // LocalDocOptions::debug; not owned
  std::string stub_;
};

}  // namespace

std::string DocIndexDir(const std::string& db_dir) { return db_dir + "/index-docs"; }

Status ImportDocs(const std::string& db_dir, const std::vector<std::string>& paths,
                  DocImportStats* stats,
                  const std::function<void(size_t done, size_t total)>& on_progress) {
  DocImportStats local;
  DocImportStats* st = stats ? stats : &local;
  *st = DocImportStats();
  if (paths.empty()) return Status::InvalidArgument("docs import: no path given");
  std::vector<PendingImport> pending;
  for (const std::string& p : paths) {
    PendingImport imp;
    if (Status s = CollectPath(p, &imp, &st->files); !s.ok()) return s;
    pending.push_back(std::move(imp));
  }
  // Ids must be unique across everything written now.
  std::set<std::string> ids;
  for (const PendingImport& imp : pending) {
    for (const DocNode& n : imp.nodes) {
      if (!ids.insert(n.id).second)
        return Status::InvalidArgument("docs import: node id \"" + n.id + "\" occurs twice (in " +
                                       imp.origin.substr(imp.origin.find(':') + 1) + ")");
    }
  }
  std::error_code ec;
  fs::create_directories(db_dir, ec);
  if (ec) return Status::IOError(db_dir + ": " + ec.message());
  try {
    Xapian::WritableDatabase db(DocIndexDir(db_dir), Xapian::DB_CREATE_OR_OPEN);
    db.begin_transaction();
    try {
      std::vector<DocNode> all_nodes;
      for (const PendingImport& imp : pending)
        all_nodes.insert(all_nodes.end(), imp.nodes.begin(), imp.nodes.end());
      const std::set<std::string> namespaces = NameNamespaces(all_nodes);
      all_nodes.clear();
      const size_t total = ids.size();
      for (const PendingImport& imp : pending) {
        Xapian::doccount before = db.get_termfreq("O" + imp.origin);
        st->removed += before;
        if (before > 0) db.delete_document("O" + imp.origin);
        for (const DocNode& n : imp.nodes) {
          db.replace_document("Q" + n.id, MakeDocument(n, namespaces));
          ++st->nodes;
          if (on_progress) on_progress(st->nodes, total);
          CrashPoint();  // crash tests: a death mid-transaction leaves the last commit
        }
      }
      // Learned term associations over the whole index as it now stands.
      db.set_metadata(docs::kAssocKey, docs::EncodeAssociations(docs::LearnAssociations(db)));
      CrashPoint();
      db.commit_transaction();
      CrashPoint();
      if (on_progress) on_progress(total, total);
    } catch (...) {
      db.cancel_transaction();
      throw;
    }
    db.close();
  } catch (const Xapian::Error& e) {
    return Status::IOError(DocIndexDir(db_dir) + ": " + e.get_msg());
  }
  return Status::OK();
}

StatusOr<std::unique_ptr<DocSource>> OpenLocalDocSource(const std::string& db_dir,
                                                        const LocalDocOptions& options) {
  std::error_code ec;
  if (!fs::exists(DocIndexDir(db_dir), ec))
    return Status::NotFound(DocIndexDir(db_dir) + ": no doc index (run 'fixgraph docs import')");
  if (IsStubFile(DocIndexDir(db_dir))) {  // shards (index_shards.h)
    auto opened = OpenIndex(DocIndexDir(db_dir), "doc index");
    if (!opened.ok()) return opened.status();
    if (!opened->missing.empty())
      return LocalDocSource::MissingShards(DocIndexDir(db_dir), opened->missing);
    return std::unique_ptr<DocSource>(
        new LocalDocSource(std::move(opened->db), options, DocIndexDir(db_dir)));
  }
  try {
    Xapian::Database db(DocIndexDir(db_dir));
    return std::unique_ptr<DocSource>(new LocalDocSource(std::move(db), options));
  } catch (const Xapian::Error& e) {
    return Status::IOError(DocIndexDir(db_dir) + ": " + e.get_msg());
  }
}

}  // namespace fixgraph::query
