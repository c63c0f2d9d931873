#include "issue_index.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <set>
#include <unordered_set>
#include <xapian.h>

#include "analyzer.h"
#include "fixgraph/engine/ref.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/query/ask.h"

namespace fixgraph::query {
namespace {

using nlohmann::json;

constexpr size_t kMaxBodyBytes = 16 * 1024;
constexpr size_t kMaxCommentBytes = 4 * 1024;
constexpr size_t kMaxCommentsBytes = 32 * 1024;
constexpr size_t kMaxPrBodyBytes = 8 * 1024;
constexpr size_t kMaxFixesShown = 5;
constexpr size_t kMaxAnswerBytes = 600;
constexpr unsigned kMaxIndexThreads = 8;
constexpr size_t kRebuildBatch = 512;  // issues whose documents are built at once
// Documents between commits of a rebuild: Xapian keeps pending postings in
// per-term trees that grow with every document, so committing in steps keeps
// insertion cheap (10,000 issues: 27.6 s CPU with one commit, 15.5 s with 500).
constexpr size_t kRebuildCommitDocs = 500;

// Cuts at a UTF-8 boundary at or before n bytes.
std::string_view Head(std::string_view s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

void AddText(Xapian::Document* doc, std::string_view text, unsigned weight) {
  for (const Term& t : Analyze(text)) doc->add_term(t.text, weight);
}

// The title: its terms at kTitleWeight in the shared term space, and once more
// under kTitlePrefix (wdf 1 per occurrence) for the title field of a query.
void AddTitle(Xapian::Document* doc, std::string_view title) {
  std::string prefixed(kTitlePrefix);
  for (const Term& t : Analyze(title)) {
    doc->add_term(t.text, kTitleWeight);
    prefixed.resize(std::char_traits<char>::length(kTitlePrefix));
    prefixed += t.text;
    doc->add_term(prefixed, 1);
  }
}

std::string Trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

bool Contains(const std::string& hay, const char* needle) { return hay.find(needle) != std::string::npos; }

// Template and boilerplate lines of PR descriptions.
bool IsBoilerplate(const std::string& line) {
  if (line.empty() || line[0] == '#' || line[0] == '|' || line[0] == '>') return true;
  if (line.rfind("<!--", 0) == 0 || line.rfind("-->", 0) == 0 || line.rfind("```", 0) == 0) return true;
  if (line.rfind("/kind", 0) == 0 || line.rfind("- [", 0) == 0 || line.rfind("[ ]", 0) == 0) return true;
  std::string lower = Normalize(line);
  for (const char* t : {"what type of pr", "what this pr does", "which issue", "special notes",
                        "self-check", "自检", "checklist", "reviewer", "signed-off-by"})
    if (Contains(lower, t)) return true;
  // A line with no letters at all ("---", "**", "N/A").
  bool letter = false;
  for (unsigned char c : line)
    if (std::isalpha(c) || c >= 0x80) letter = true;
  return !letter || lower == "n/a" || lower == "无" || lower == "none";
}

bool SaysWhatToDo(const std::string& lower) {
  for (const char* k : {"fix", "修复", "解决", "原因", "修改", "改为", "改成", "增加", "新增", "添加",
                        "删除", "移除", "替换", "设置", "使用", "升级", "回退", "规避", "支持", "add",
                        "remove", "replace", "use ", "set ", "change", "update", "support", "avoid",
                        "cause", "instead", "workaround", "upgrade"})
    if (Contains(lower, k)) return true;
  return false;
}

}  // namespace

std::string IssueIndexDir(const std::string& db_dir) { return db_dir + "/index-issues"; }

int PriorTier(double prior) {
  for (int t = kPriorTiers - 1; t > 0; --t)
    if (prior >= kPriorTierFloor[t]) return t;
  return 0;
}

std::string PriorTierTerm(int tier) {
  std::string t = "P";
  t += static_cast<char>('0' + tier);
  return t;
}

std::string PriorTierTerm(double prior) { return PriorTierTerm(PriorTier(prior)); }

double ResolutionPrior(const graph::IssueLinks& links) {
  using graph::Resolution;
  double tier = 0;
  if (!links.fixes.empty()) {
    switch (links.fixes.front().tier) {
      case graph::Tier::kA: tier = 1.0; break;
      case graph::Tier::kB: tier = 0.85; break;
      case graph::Tier::kC: tier = 0.6; break;
      case graph::Tier::kD: tier = 0.35; break;
    }
  }
  switch (links.resolution) {
    case Resolution::kFixed:
    case Resolution::kFixedElsewhere:
      return std::max(tier, links.answer ? 0.7 : 0.55);
    case Resolution::kAnswered:
      return links.answer ? 0.7 : 0.5;
    case Resolution::kDuplicate: return 0.4;
    case Resolution::kWontfix: return 0.3;
    case Resolution::kStale: return 0.2;
    case Resolution::kOpen: return std::max(0.1, tier * 0.5);
    case Resolution::kUnknown: return std::max(0.2, tier * 0.5);
  }
  return 0.2;
}

std::string ExtractPrAnswer(const std::string& title, const std::string& body) {
  std::vector<std::string> lines, doing;
  bool in_code = false;
  std::string_view rest = Head(body, kMaxPrBodyBytes);
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string line = Trimmed(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (line.rfind("```", 0) == 0) {
      in_code = !in_code;
      continue;
    }
    if (in_code || IsBoilerplate(line)) continue;
    while (!line.empty() && (line[0] == '-' || line[0] == '*' || line[0] == ' ')) line.erase(0, 1);
    if (line.empty()) continue;
    if (SaysWhatToDo(Normalize(line))) doing.push_back(line);
    lines.push_back(line);
  }
  const std::vector<std::string>& pick = doing.empty() ? lines : doing;
  std::string out;
  for (const std::string& l : pick) {
    if (out.size() + l.size() > kMaxAnswerBytes) break;
    if (!out.empty()) out += "\n";
    out += l;
    if (&pick == &lines && out.size() > 0) break;  // no action line: one line only
  }
  if (out.empty()) return title;
  return out;
}

namespace {

// The unique id term of an issue's document (built by appending: GCC 12 warns
// falsely on "Q" + an rvalue string).
std::string IdTerm(const Ref& ref) {
  std::string t = "Q";
  t += ref.ToString();
  return t;
}

// Builds the document of one issue read from the store.
StatusOr<Xapian::Document> BuildDocument(const Store& store, const Issue& issue) {
  const Ref ref = issue.ref();
  graph::IssueLinks links;
  auto stored = graph::ReadLinks(store, ref);
  if (stored.ok()) {
    links = std::move(*stored);
  } else if (stored.status().IsNotFound()) {
    links.issue = ref;
    links.state = issue.state;
    links.resolution = issue.state == IssueState::kOpen ? graph::Resolution::kOpen
                                                        : graph::Resolution::kUnknown;
  } else {
    return stored.status();
  }
  Xapian::Document doc;
  AddTitle(&doc, issue.title);
  AddText(&doc, Head(issue.body, kMaxBodyBytes), kBodyWeight);
  for (const std::string& label : issue.labels) AddText(&doc, label, kCommentWeight);

  std::string answer, answer_source;
  if (links.answer && !links.answer->text.empty()) {
    answer = links.answer->text;
    answer_source = "comment";
  }
  AddText(&doc, answer, kAnswerWeight);

  std::vector<Comment> comments;
  FG_RETURN_IF_ERROR(store.ListComments(ref, &comments));
  size_t comment_bytes = 0;
  for (const Comment& c : comments) {
    if (comment_bytes >= kMaxCommentsBytes) break;
    if (links.answer && c.id == links.answer->comment_id) continue;  // indexed as the answer
    std::string_view text = Head(c.body, kMaxCommentBytes);
    comment_bytes += text.size();
    AddText(&doc, text, kCommentWeight);
  }

  json fixes = json::array();
  for (const graph::FixLink& f : links.fixes) {
    if (fixes.size() < kMaxFixesShown) fixes.push_back(graph::ToJson(f));
    auto pr_ref = ParseRef(f.pr);
    if (!f.in_store || !pr_ref.ok() || pr_ref->kind != RefKind::kPull) continue;
    auto pr = store.GetPull(*pr_ref);
    if (!pr.ok()) continue;
    AddText(&doc, pr->title, kAnswerWeight);
    AddText(&doc, Head(pr->body, kMaxPrBodyBytes), kCommentWeight);
    if (answer.empty() && f.tier <= graph::Tier::kC) {
      answer = ExtractPrAnswer(pr->title, pr->body);
      answer_source = "pr";
    }
  }

  double prior = ResolutionPrior(links);
  std::string url = issue.html_url.empty() ? WebUrl(ref) : issue.html_url;
  json data = {{"issue", ref.ToString()},
               {"title", issue.title},
               {"state", issue.state == IssueState::kOpen ? "open" : "closed"},
               {"resolution", graph::ResolutionName(links.resolution)},
               {"answer", answer},
               {"answer_source", answer_source},
               {"fixes", std::move(fixes)},
               {"url", url},
               {"prior", prior}};
  doc.set_data(data.dump(-1, ' ', false, json::error_handler_t::replace));
  doc.add_value(kPriorSlot, Xapian::sortable_serialise(prior));
  std::string id = IdTerm(ref);
  std::string repo = "R" + ref.repo.ToString();
  doc.add_boolean_term(PriorTierTerm(prior));
  if (id.size() <= 240) doc.add_boolean_term(id);
  if (repo.size() <= 240) doc.add_boolean_term(repo);
  return doc;
}

// Writes the document of `ref` (`doc`), or removes the issue's document when
// it is no longer in the store. `fresh`: the database had no documents when
// this write began, so each issue is new and add_document saves the lookup of
// its id term.
Status Put(Xapian::WritableDatabase& db, const Ref& ref, StatusOr<Xapian::Document>& doc,
           bool fresh) {
  if (!doc.ok()) {
    if (!doc.status().IsNotFound()) return doc.status().WithContext("indexing " + ref.ToString());
    if (!fresh) db.delete_document(IdTerm(ref));
    return Status::OK();
  }
  if (fresh) {
    db.add_document(*doc);
  } else {
    db.replace_document(IdTerm(ref), *doc);
  }
  return Status::OK();
}

Status Put(Xapian::WritableDatabase& db, const Store& store, const Ref& ref) {
  StatusOr<Xapian::Document> doc = Status::NotFound("");
  auto issue = store.GetIssue(ref);
  if (issue.ok()) {
    doc = BuildDocument(store, *issue);
  } else if (!issue.status().IsNotFound()) {
    return issue.status().WithContext("indexing " + ref.ToString());
  }
  return Put(db, ref, doc, false);
}

// Threads that build documents during a rebuild: $FIXGRAPH_INDEX_THREADS, else
// the hardware's, at most kMaxIndexThreads.
unsigned IndexThreads() {
  if (const char* t = std::getenv("FIXGRAPH_INDEX_THREADS"); t != nullptr && *t != '\0') {
    unsigned long n = std::strtoul(t, nullptr, 10);
    if (n >= 1) return static_cast<unsigned>(std::min<unsigned long>(n, kMaxIndexThreads));
  }
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxIndexThreads);
}

// Builds the documents of `issues` on `threads` threads (analysis and the
// store reads dominate; Xapian documents are independent until added).
void BuildDocuments(const Store& store, const std::vector<Issue>& issues, unsigned threads,
                    std::vector<StatusOr<Xapian::Document>>* docs) {
  docs->assign(issues.size(), Status::NotFound(""));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < issues.size();) {
      try {
        (*docs)[i] = BuildDocument(store, issues[i]);
      } catch (const Xapian::Error& e) {
        (*docs)[i] = Status::IOError("indexing " + issues[i].ref().ToString() + ": " + e.get_description());
      } catch (const std::exception& e) {
        (*docs)[i] = Status::Internal("indexing " + issues[i].ref().ToString() + ": " + e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < issues.size(); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

StatusOr<Xapian::WritableDatabase> OpenWriter(const std::string& db_dir) {
  std::string dir = IssueIndexDir(db_dir);
  std::error_code ec;
  std::filesystem::create_directories(db_dir, ec);
  return Xapian::WritableDatabase(dir, Xapian::DB_CREATE_OR_OPEN);
}

Status Rebuild(Xapian::WritableDatabase& db, const Store& store) {
  std::unordered_set<std::string> seen;
  const bool fresh = db.get_doccount() == 0;
  const unsigned threads = IndexThreads();
  std::vector<Issue> batch;
  std::vector<StatusOr<Xapian::Document>> docs;
  size_t since_commit = 0;
  auto flush = [&]() -> Status {
    BuildDocuments(store, batch, threads, &docs);
    for (size_t i = 0; i < batch.size(); ++i) {
      Ref ref = batch[i].ref();
      seen.insert(IdTerm(ref));
      FG_RETURN_IF_ERROR(Put(db, ref, docs[i], fresh));
    }
    since_commit += batch.size();
    batch.clear();
    if (since_commit >= kRebuildCommitDocs) {
      db.commit();
      since_commit = 0;
    }
    return Status::OK();
  };
  Status inner = Status::OK();
  FG_RETURN_IF_ERROR(store.ForEachIssue(nullptr, [&](const Issue& issue) {
    batch.push_back(issue);
    if (batch.size() >= kRebuildBatch) inner = flush();
    return inner.ok();
  }));
  FG_RETURN_IF_ERROR(inner);
  FG_RETURN_IF_ERROR(flush());
  // Remove documents of issues no longer in the store.
  std::vector<std::string> stale;
  for (auto it = db.allterms_begin("Q"); it != db.allterms_end("Q"); ++it)
    if (seen.count(*it) == 0) stale.push_back(*it);
  for (const std::string& t : stale) db.delete_document(t);
  db.set_metadata("fixgraph:schema", kIssueIndexSchema);
  db.commit();
  return Status::OK();
}

}  // namespace

Status UpdateIssueIndex(const Store& store, const std::string& db_dir, const std::vector<Ref>& issues) {
  try {
    FG_ASSIGN_OR_RETURN(Xapian::WritableDatabase db, OpenWriter(db_dir));
    if (db.get_metadata("fixgraph:schema") != kIssueIndexSchema) return Rebuild(db, store);
    for (const Ref& ref : issues) {
      if (ref.kind != RefKind::kIssue) continue;
      FG_RETURN_IF_ERROR(Put(db, store, ref));
    }
    db.commit();
    return Status::OK();
  } catch (const Xapian::DatabaseLockError& e) {
    return Status::Unavailable("issue index " + IssueIndexDir(db_dir) +
                               " is locked by another writer: " + e.get_msg());
  } catch (const Xapian::Error& e) {
    return Status::IOError("issue index " + IssueIndexDir(db_dir) + ": " + e.get_description());
  }
}

Status RebuildIssueIndex(const Store& store, const std::string& db_dir) {
  try {
    FG_ASSIGN_OR_RETURN(Xapian::WritableDatabase db, OpenWriter(db_dir));
    return Rebuild(db, store);
  } catch (const Xapian::DatabaseLockError& e) {
    return Status::Unavailable("issue index " + IssueIndexDir(db_dir) +
                               " is locked by another writer: " + e.get_msg());
  } catch (const Xapian::Error& e) {
    return Status::IOError("issue index " + IssueIndexDir(db_dir) + ": " + e.get_description());
  }
}

}  // namespace fixgraph::query
