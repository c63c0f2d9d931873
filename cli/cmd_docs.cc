// fixgraph docs import PATH... | fixgraph docs search TEXT [--json] [--limit N]
// | fixgraph docs eval QUESTIONS.json [--ask] [--misses] [--split NAME]
#include "commands.h"
#include "documents.h"

#include "fixgraph/query/ask.h"
#include "fixgraph/query/docs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace fixgraph::cli {
namespace {

void RunDocsImport(Context& ctx, const std::vector<std::string>& paths, bool json_out) {
  query::DocImportStats st;
  auto t0 = std::chrono::steady_clock::now();
  // Parsing first (a note), then the nodes written to the index, then the
  // association table and the commit.
  auto progress = ctx.NewProgress("docs import");
  progress->Phase("docs import", ProgressState::Note("parsing " + std::to_string(paths.size()) +
                                                     (paths.size() == 1 ? " path" : " paths")));
  Status imported = query::ImportDocs(ctx.db_dir, paths, &st, [&](size_t done, size_t total) {
    progress->Update(ProgressState::Count(
        "nodes", static_cast<std::int64_t>(done), static_cast<std::int64_t>(total),
        done == total ? "term associations and commit" : "indexing"));
  });
  progress->Finish();
  if (!imported.ok()) return ctx.Fail(imported);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (json_out) {
    *ctx.out << nlohmann::json{{"files", st.files},
                               {"nodes", st.nodes},
                               {"replaced", st.removed},
                               {"index", query::DocIndexDir(ctx.db_dir)},
                               {"seconds", secs}}
                    .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
             << "\n";
    return;
  }
  *ctx.out << "imported " << st.nodes << " doc nodes from " << st.files << " files";
  if (st.removed > 0) *ctx.out << " (replaced " << st.removed << " from earlier imports)";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", secs);
  *ctx.out << " into " << query::DocIndexDir(ctx.db_dir) << " in " << buf << " s\n";
}

// Scores a question set: the doc search alone, or (--ask) the single ranking
// of `ask` (issue hits count as wrong answers ahead of the page).
// `split` ("" for all): only that split's questions, so a developer can list
// the dev misses without seeing the test split's (docs/evaluation.md).
void RunDocsEval(Context& ctx, const std::string& file, const std::string& split, bool via_ask,
                 bool misses, bool json_out) {
  auto questions = query::ReadDocQuestions(file);
  if (!questions.ok()) return ctx.Fail(questions.status());
  if (!split.empty()) {
    std::erase_if(*questions, [&](const query::DocQuestion& q) { return q.split != split; });
    if (questions->empty())
      return ctx.Fail(Status::InvalidArgument(file + ": no question of split " + split));
  }
  std::function<StatusOr<std::vector<std::string>>(const std::string&)> rank;
  std::vector<double> cpu_ms;  // thread CPU time per question (the machine may be shared)
  std::unique_ptr<query::DocSource> src;
  std::unique_ptr<query::Searcher> searcher;
  if (via_ask) {
    auto opened = query::Searcher::Open(ctx.db_dir, ctx.env.docs);
    if (!opened.ok()) return ctx.Fail(opened.status());
    searcher = std::move(*opened);
    rank = [&](const std::string& q) -> StatusOr<std::vector<std::string>> {
      query::AskOptions opt;
      opt.limit = 5;
      opt.decode_fixes = false;
      auto r = searcher->Ask(q, opt);
      if (!r.ok()) return r.status();
      std::vector<std::string> ids;
      for (const query::RankedRef& e : r->ranked)
        ids.push_back(e.doc ? r->docs[e.index].id : "issue:" + r->hits[e.index].issue.ToString());
      return ids;
    };
  } else {
    auto opened = query::OpenDocSources(ctx.db_dir, ctx.env.docs);
    if (!opened.ok()) return ctx.Fail(opened.status());
    src = std::move(*opened);
    rank = [&](const std::string& q) -> StatusOr<std::vector<std::string>> {
      auto hits = src->Search(q, 10);
      if (!hits.ok()) return hits.status();
      std::vector<std::string> ids;
      for (const query::DocHit& h : *hits) ids.push_back(h.id);
      return ids;
    };
  }
  auto timed = [&](const std::string& q) -> StatusOr<std::vector<std::string>> {
    timespec a{}, b{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    auto r = rank(q);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    cpu_ms.push_back(static_cast<double>(b.tv_sec - a.tv_sec) * 1e3 +
                     static_cast<double>(b.tv_nsec - a.tv_nsec) / 1e6);
    return r;
  };
  auto report = query::EvaluateDocQuestions(*questions, timed);
  if (!report.ok()) return ctx.Fail(report.status());
  std::sort(cpu_ms.begin(), cpu_ms.end());
  double cpu50 = cpu_ms.empty() ? 0 : cpu_ms[cpu_ms.size() / 2];
  double cpu99 = cpu_ms.empty() ? 0 : cpu_ms[std::min(cpu_ms.size() - 1, cpu_ms.size() * 99 / 100)];
  if (json_out) {
    nlohmann::json splits = nlohmann::json::object();
    for (const auto& [name, s] : report->splits)
      splits[name] = {
          {"questions", s.questions}, {"top1", s.top1}, {"top3", s.top3}, {"mrr", s.mrr}};
    *ctx.out << nlohmann::json{{"ranking", via_ask ? "ask" : "docs search"},
                               {"splits", splits},
                               {"latency_ms_p50", report->p50_ms},
                               {"latency_ms_p99", report->p99_ms},
                               {"cpu_ms_p50", cpu50},
                               {"cpu_ms_p99", cpu99},
                               {"misses", report->misses}}
                    .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
             << "\n";
    return;
  }
  char buf[160];
  int width = 5;  // split names in one column, a space after the longest
  for (const auto& [name, s] : report->splits)
    width = std::max(width, static_cast<int>(std::min<size_t>(name.size() + 1, 40)));
  for (const auto& [name, s] : report->splits) {
    std::snprintf(buf, sizeof buf, "%-*s questions %3zu  top-1 %.3f  top-3 %.3f  MRR %.3f\n", width,
                  name.c_str(), s.questions, s.top1, s.top3, s.mrr);
    *ctx.out << buf;
  }
  std::snprintf(
      buf, sizeof buf,
      "latency per question: p50 %.2f ms  p99 %.2f ms wall, p50 %.2f ms  p99 %.2f ms CPU (%s)\n",
      report->p50_ms, report->p99_ms, cpu50, cpu99, via_ask ? "ask" : "docs search");
  *ctx.out << buf;
  if (misses)
    for (const std::string& m : report->misses) *ctx.out << "  miss " << m << "\n";
}

const char* Band(double score) { return query::DocBand(score); }

void RunDocsSearch(Context& ctx, const std::string& text, bool json_out, int limit) {
  auto src = query::OpenDocSources(ctx.db_dir, ctx.env.docs);
  if (!src.ok()) return ctx.Fail(src.status());
  std::vector<std::string> warnings;
  auto hits = query::SearchWithWarnings(**src, text, static_cast<size_t>(limit), &warnings);
  if (!hits.ok()) return ctx.Fail(hits.status());
  for (const std::string& w : warnings) *ctx.err << "fixgraph: warning: " << w << "\n";
  if ((*src)->Name() == "none")
    *ctx.err << "fixgraph: note: no doc source: no doc index in " << ctx.db_dir
             << " and no KG service ($FIXGRAPH_KG_URL); import docs with `fixgraph docs "
                "import PATH`\n";
  if (json_out) {
    nlohmann::json doc{{"query", text}, {"docs", nlohmann::json::array()}};
    for (const query::DocHit& h : *hits) doc["docs"].push_back(query::ToJson(h));
    *ctx.out << doc.dump() << "\n";
    return;
  }
  if (hits->empty()) {
    *ctx.out << "no doc nodes match (sources: " << (*src)->Name() << ")\n";
    return;
  }
  char buf[64];
  for (const query::DocHit& h : *hits) {
    std::snprintf(buf, sizeof buf, "%.3f %-9s ", h.score, Band(h.score));
    *ctx.out << buf << h.title << "\n      " << h.id << DocProductsText(h);
    if (h.source != "local") *ctx.out << "  (" << h.source << ")";
    *ctx.out << "\n      " << h.snippet << "\n";
  }
}

}  // namespace

void AddDocsCommands(CLI::App& app, Context& ctx) {
  auto* docs = app.add_subcommand("docs", "KG documentation nodes: import and search");
  docs->require_subcommand(1);

  auto* imp =
      docs->add_subcommand("import", "load KG doc nodes (Markdown trees, .md or .jsonl files)");
  auto paths = std::make_shared<std::vector<std::string>>();
  auto imp_json = std::make_shared<bool>(false);
  imp->add_option("PATH", *paths, "Markdown tree or file, or JSONL node file")->required();
  imp->add_flag("--json", *imp_json,
                R"(print JSON: {"files", "nodes", "replaced", "index", "seconds"})");
  imp->callback([&ctx, paths, imp_json] { RunDocsImport(ctx, *paths, *imp_json); });

  auto* search = docs->add_subcommand("search", "search the configured doc sources");
  auto text = std::make_shared<std::string>();
  auto json_out = std::make_shared<bool>(false);
  auto limit = std::make_shared<int>(5);
  search->add_option("TEXT", *text, "question, error line or name")->required();
  search->add_flag("--json", *json_out, R"(print JSON: {"query", "docs": [...]})");
  search->add_option("--limit", *limit, "at most N nodes (default 5)")->check(WholeNumber(1, 200));
  search->callback([&ctx, text, json_out, limit] { RunDocsSearch(ctx, *text, *json_out, *limit); });

  auto* eval = docs->add_subcommand(
      "eval", "score a question set (tests/data/kg-questions.json): top-1, top-3, MRR");
  auto file = std::make_shared<std::string>();
  auto via_ask = std::make_shared<bool>(false);
  auto misses = std::make_shared<bool>(false);
  eval->add_option("QUESTIONS", *file, "question set JSON")->required();
  eval->add_flag("--ask", *via_ask,
                 "rank with `ask` (issues and docs in one ranking) instead of the doc search");
  auto eval_json = std::make_shared<bool>(false);
  eval->add_flag("--misses", *misses, "list the questions whose page was not first");
  eval->add_flag("--json", *eval_json, "print JSON (splits, latency and the misses)");
  auto split = std::make_shared<std::string>();
  eval->add_option("--split", *split,
                   "only the questions of this split (dev, test or another name the file uses)")
      ->option_text("NAME");
  eval->callback([&ctx, file, split, via_ask, misses, eval_json] {
    RunDocsEval(ctx, *file, *split, *via_ask, *misses, *eval_json);
  });
}

}  // namespace fixgraph::cli
