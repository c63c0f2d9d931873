// The local KG doc corpus: import (Markdown trees, JSONL) into a Xapian
// database at <db_dir>/index-issues-docs, and search with calibrated [0,1] scores.
//
// Index layout (one Xapian document per node; the values below are part of
// the on-disk format: do not change them without a re-import note):
//   data          NodeToJson(node)
//   value 0       the page: the id up to '#' (one section per page first)
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
//   score = 0.45 + 0.50 * (0.75 * coverage + 0.25 * title coverage) * evidence.
// So a node holding every distinctive query term, some of them in its title,
// lands around 0.88-0.95; one holding most of them in its body alone around
// 0.75-0.83; one sharing a few common words below 0.70.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <xapian.h>

#include "analyzer.h"
#include "docs_node.h"
#include "fixgraph/query/docs.h"

namespace fixgraph::query {
namespace {

namespace fs = std::filesystem;
using docs::DocNode;

constexpr double kEvidenceShare = 0.6;  // matched IDF / max IDF for full evidence
constexpr size_t kCandidates = 60;
constexpr size_t kSnippetBytes = 320;
constexpr Xapian::valueno kSlotPage = 0;  // the page part of the id (before '#')
constexpr Xapian::termcount kTitleWdf = 4;
constexpr Xapian::termcount kHeadingWdf = 3;

std::string DocsDir(const std::string& db_dir) { return db_dir + "/index-docs"; }

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

Xapian::Document MakeDocument(const DocNode& n) {
  Xapian::Document doc;
  // A page with ill-formed UTF-8 (found by fuzzing, issue 21): U+FFFD instead
  // of an exception that aborted `docs import`.
  doc.set_data(docs::NodeToJson(n).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  doc.add_value(kSlotPage, n.id.substr(0, n.id.find('#')));
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
  } else {
    got = docs::ParseMarkdown(rel, text);
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
  static const char* const kUnits[] = {"ms", "s",  "us", "ns",  "b",    "kb",   "mb",
                                       "gb", "k",  "m",  "g",  "x",   "fps",  "kbps", "mbps",
                                       "w",  "mhz", "ghz", "min", "h", "d"};
  std::string unit = t.substr(i);
  for (const char* u : kUnits)
    if (unit == u) return true;
  return false;
}

bool DocHas(const Xapian::Document& doc, const std::string& term) {
  Xapian::TermIterator it = doc.termlist_begin();
  it.skip_to(term);
  return it != doc.termlist_end() && *it == term;
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
  size_t best = 0;
  double best_w = 0;
  for (size_t i = 0; i < lines.size() && i < 400; ++i) {
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

class LocalDocSource : public DocSource {
 public:
  explicit LocalDocSource(Xapian::Database db) : db_(std::move(db)) {}

  std::string Name() const override { return "local"; }

  StatusOr<std::vector<DocHit>> Search(std::string_view text, size_t limit) override {
    std::lock_guard<std::mutex> lock(mu_);
    try {
      db_.reopen();
      return SearchLocked(text, limit);
    } catch (const Xapian::Error& e) {
      return Status::IOError("doc index: " + e.get_msg());
    }
  }

 private:
  StatusOr<std::vector<DocHit>> SearchLocked(std::string_view text, size_t limit) {
    std::vector<DocHit> hits;
    if (limit == 0) return hits;
    std::vector<QueryGroup> groups = GroupQuery(text);
    if (groups.empty()) return hits;
    const double n_docs = std::max<double>(1, db_.get_doccount());
    const double max_idf = std::log((n_docs + 1) / 0.5);
    auto idf = [&](const std::string& t) {
      Xapian::doccount df = db_.get_termfreq(t);
      if (df == 0) return -1.0;
      return std::max(0.0, std::log((n_docs + 1) / (df + 0.5)));
    };
    // Group weights and the terms Xapian searches for.
    std::vector<std::vector<double>> term_idf(groups.size());
    std::vector<double> group_w(groups.size());
    std::vector<std::string> qterms;
    std::map<std::string, double> snippet_w;
    double total = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      double w = 0;
      // A lone letter or digit ("x" in "4 x 8", "a") names nothing: it is
      // neither searched for nor weighed.
      if (groups[g].kind == TermKind::kWord && groups[g].terms[0].size() == 1) {
        term_idf[g].assign(groups[g].terms.size(), -1.0);
        group_w[g] = 0;
        continue;
      }
      for (const std::string& t : groups[g].terms) {
        double f = idf(t);
        term_idf[g].push_back(f);
        if (f >= 0) {
          qterms.push_back(t);
          snippet_w[t] = std::max(snippet_w[t], f);
        }
      }
      double whole = term_idf[g][0];
      if (whole >= 0) {
        w = whole;
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
    if (qterms.empty() || total <= 0) return hits;
    Xapian::Enquire enquire(db_);
    enquire.set_query(Xapian::Query(Xapian::Query::OP_OR, qterms.begin(), qterms.end()));
    Xapian::MSet mset = enquire.get_mset(0, std::max(kCandidates, limit * 3));
    struct Cand {
      double score;
      double bm25;
      Xapian::Document doc;
    };
    std::vector<Cand> cands;
    for (auto it = mset.begin(); it != mset.end(); ++it) {
      Xapian::Document doc = it.get_document();
      double got = 0, got_title = 0, mass = 0;
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
        double m = match("");
        got += m * group_w[g];
        if (m > 0) got_title += match("T") * group_w[g];
        mass += m * group_w[g];
      }
      double coverage = got / total;
      double title_cov = got_title / total;
      double evidence = std::min(1.0, mass / max_idf / kEvidenceShare);
      double score = 0.45 + 0.50 * (0.75 * coverage + 0.25 * title_cov) * evidence;
      score = std::clamp(score, 0.0, 1.0);
      cands.push_back(Cand{score, it.get_weight(), doc});
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) {
      if (std::abs(a.score - b.score) > 1e-9) return a.score > b.score;
      return a.bm25 > b.bm25;
    });
    // One section per page first (the best), then the other sections, so the
    // first hits name different pages.
    std::vector<const Cand*> order;
    std::vector<const Cand*> later;
    std::set<std::string> pages;
    for (const Cand& c : cands) {
      std::string id = c.doc.get_value(kSlotPage);
      (pages.insert(id).second ? order : later).push_back(&c);
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
      h.snippet = MakeSnippet(n.text, snippet_w);
      h.products = n.products;
      h.url = n.url;
      hits.push_back(std::move(h));
    }
    return hits;
  }

  std::mutex mu_;
  Xapian::Database db_;
};

}  // namespace

Status ImportDocs(const std::string& db_dir, const std::vector<std::string>& paths,
                  DocImportStats* stats) {
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
        return Status::InvalidArgument("docs import: node id \"" + n.id +
                                       "\" occurs twice (in " + imp.origin.substr(imp.origin.find(':') + 1) + ")");
    }
  }
  std::error_code ec;
  fs::create_directories(db_dir, ec);
  if (ec) return Status::IOError(db_dir + ": " + ec.message());
  try {
    Xapian::WritableDatabase db(DocsDir(db_dir), Xapian::DB_CREATE_OR_OPEN);
    db.begin_transaction();
    try {
      for (const PendingImport& imp : pending) {
        Xapian::doccount before = db.get_termfreq("O" + imp.origin);
        st->removed += before;
        if (before > 0) db.delete_document("O" + imp.origin);
        for (const DocNode& n : imp.nodes) {
          db.replace_document("Q" + n.id, MakeDocument(n));
          ++st->nodes;
        }
      }
      db.commit_transaction();
    } catch (...) {
      db.cancel_transaction();
      throw;
    }
    db.close();
  } catch (const Xapian::Error& e) {
    return Status::IOError(DocsDir(db_dir) + ": " + e.get_msg());
  }
  return Status::OK();
}

StatusOr<std::unique_ptr<DocSource>> OpenLocalDocSource(const std::string& db_dir) {
  std::error_code ec;
  if (!fs::exists(DocsDir(db_dir), ec))
    return Status::NotFound(DocsDir(db_dir) + ": no doc index (run 'fixgraph docs import')");
  try {
    Xapian::Database db(DocsDir(db_dir));
    return std::unique_ptr<DocSource>(new LocalDocSource(std::move(db)));
  } catch (const Xapian::Error& e) {
    return Status::IOError(DocsDir(db_dir) + ": " + e.get_msg());
  }
}

}  // namespace fixgraph::query
