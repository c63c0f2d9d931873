// `docs import`: Markdown trees and JSONL files into the doc index at
// <db_dir>/index-docs (layout: docs_layout.h), with each node's structure
// fields (docs_fields.h) and the learned associations (docs_assoc.h).
#include "analyzer.h"
#include "docs_assoc.h"
#include "docs_fields.h"
#include "docs_layout.h"
#include "docs_node.h"
#include "docs_rank.h"

#include "fixgraph/engine/store.h"
#include "fixgraph/query/docs.h"

#include <xapian.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fixgraph::query {
namespace {

namespace fs = std::filesystem;

using docs::DocNode;
using docs::kHeadingWdf;
using docs::kSlotPage;
using docs::kSlotPageKind;
using docs::kSlotSectionKind;
using docs::kSlotTitleTerms;
using docs::kTitleWdf;
using docs::Prefixed;

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
  if (n.page_kind == docs::kPageApi || n.page_kind == docs::kPageEnv) {
    std::string words;
    for (const std::string& w : docs::NameWords(n.title)) {
      if (!words.empty()) words.push_back(' ');
      words += w;
    }
    if (!words.empty()) doc.add_value(docs::kSlotNameWords, words);
  }
  for (const std::string& d : DefinedTerms(n.defines)) doc.add_boolean_term(Prefixed('D', d));
  for (const std::string& d : CompactNames(n.defines, namespaces))
    doc.add_boolean_term(Prefixed('D', d));
  if (n.page_kind == docs::kPageApi && n.title.find("::") != std::string::npos)
    doc.add_boolean_term(docs::kCppApiTerm);
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

}  // namespace fixgraph::query
