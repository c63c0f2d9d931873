// fixgraph ask: symptom lookup over past issues with the KG fallback
// (docs/design.md s6, s8); and the hidden eval-ask that measures it against a
// query set (docs/evaluation.md).
#include "commands.h"
#include "documents.h"
#include "refresh.h"

#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/utf8.h"
#include "fixgraph/query/ask.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <sstream>

namespace fixgraph::cli {
namespace {

using nlohmann::json;

struct AskArgs {
  std::vector<std::string> words;
  bool json_out = false;
  size_t limit = 5;
  std::string repo;
  bool no_docs = false;
  double min_score = query::kDefaultMinScore;
};

// "--repo" as a canonical repository reference; InvalidArgument otherwise.
StatusOr<std::string> RepoArg(const std::string& text) {
  if (text.empty()) return std::string();
  auto ref = ParseRef(text);
  if (!ref.ok() || ref->kind != RefKind::kRepo)
    return Status::InvalidArgument(
        "--repo \"" + text + "\": expected a repository such as gitcode:Ascend/MindSpeed-Ops");
  return ref->repo.ToString();
}

std::string Indent(const std::string& text, const std::string& pad, size_t max_lines) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (n == max_lines) {
      out += pad + "...\n";
      break;
    }
    if (line.size() > 600) line = std::string(Utf8Prefix(line, 600)) + "...";
    out += pad + line + "\n";
    ++n;
  }
  return out;
}

// Lines of an answer the text output shows: a whole diagnosis and its
// steps (query/ask_answer.h caps the passage itself).
constexpr size_t kAnswerLines = 12;

// What a flag warns of, in a few words (docs/evidence.md).
const char* FlagHint(graph::Flag f) {
  switch (f) {
    case graph::Flag::kFixBeforeIssue:
      return "the fix predates the issue";
    case graph::Flag::kCloseLag:
      return "closed long after the fix merged";
    case graph::Flag::kFalseLead:
      return "a referenced PR never merged";
    case graph::Flag::kBackport:
      return "the fix merged again into a release branch";
    case graph::Flag::kCrossPlatform:
      return "the fix lives on another platform";
    case graph::Flag::kTraceless:
      return "resolved, but no change found";
  }
  return "";
}

std::string ShortPr(const std::string& pr, const Ref& issue) {
  std::string prefix = issue.repo.ToString() + "!";
  return pr.rfind(prefix, 0) == 0 ? "!" + pr.substr(prefix.size()) : pr;
}

void PrintDocs(std::ostream& out, const query::AskResult& r) {
  if (r.docs.empty()) return;
  out << (r.docs_first ? "" : "\n") << "docs" << (r.fallback ? " (KG fallback)" : "") << ":\n";
  for (const query::DocHit& d : r.docs) {
    out << "- " << d.title << "  score " << std::fixed << std::setprecision(2) << d.score << " ("
        << query::DocBand(d.score) << ")\n";
    out.unsetf(std::ios::floatfield);
    // With the products the page lists: the answer to "does X work on Y".
    out << "  " << d.id << (d.url.empty() ? "" : "  " + d.url) << DocProductsText(d) << "\n";
    if (!d.snippet.empty()) out << Indent(d.snippet, "  ", 3);
  }
  if (r.docs_first) out << "\n";
}

// Issues and docs in the order of the single ranking: the docs first when
// the best doc outscores the best issue (AskResult::docs_first).
void PrintText(std::ostream& out, const query::AskResult& r) {
  if (r.docs_first) PrintDocs(out, r);
  if (r.hits.empty()) out << "no matching issues\n";
  for (size_t i = 0; i < r.hits.size(); ++i) {
    const query::AskHit& h = r.hits[i];
    out << i + 1 << ". " << h.issue.ToString() << "  [" << graph::ResolutionName(h.resolution);
    if (!h.fixes.empty() && h.fixes.front().Trusted())
      out << ", tier " << graph::TierName(h.fixes.front().tier);
    out << "]  score " << std::fixed << std::setprecision(2) << h.score << " ("
        << query::DocBand(h.score) << ")\n";
    out.unsetf(std::ios::floatfield);
    out << "   " << h.title << "\n";
    if (!h.flags.empty()) {
      out << "   flags:";
      for (graph::Flag f : h.flags) out << " " << graph::FlagName(f) << " (" << FlagHint(f) << ")";
      out << "\n";
    }
    // An answer that is only the fix PR's title (its description said no
    // more) is the fix line below: printed once.
    const bool title_only =
        h.answer_source == "pr" &&
        std::any_of(h.fixes.begin(), h.fixes.end(),
                    [&](const graph::FixLink& f) { return f.Trusted() && f.title == h.answer; });
    if (!h.answer.empty() && !title_only) {
      out << "   answer" << (h.answer_source == "pr" ? " (from the fix PR)" : "") << ":\n";
      out << Indent(h.answer, "     ", kAnswerLines);
    }
    size_t shown = 0, likely = 0;
    for (const graph::FixLink& fix : h.fixes) {
      bool d = !fix.Trusted();
      if (d ? likely++ >= 3 : shown++ >= 3) continue;
      if (d) {
        char p[16];
        std::snprintf(p, sizeof p, "%.2f", fix.confidence);
        out << "   likely fix, not verified: " << ShortPr(fix.pr, h.issue) << " (probability " << p
            << ")";
      } else {
        out << "   fix: " << ShortPr(fix.pr, h.issue) << " (tier " << graph::TierName(fix.tier)
            << ")";
      }
      if (!fix.title.empty()) out << " " << fix.title;
      out << "\n";
    }
    if (!h.url.empty()) out << "   " << h.url << "\n";
  }
  if (!r.docs_first) PrintDocs(out, r);
  if (r.dropped > 0) {
    char floor[16];
    std::snprintf(floor, sizeof floor, "%.2f", r.min_score);
    out << "(" << r.dropped << " weaker " << (r.dropped == 1 ? "hit" : "hits") << " below score "
        << floor << " not shown; --min-score 0 shows them)\n";
  }
}

void RunAsk(Context& ctx, const AskArgs& args) {
  std::string text;
  if (args.words.size() == 1 && args.words[0] == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    for (const std::string& w : args.words) text += (text.empty() ? "" : " ") + w;
  }
  auto repo = RepoArg(args.repo);
  if (!repo.ok()) return ctx.Fail(repo.status());
  if (!repo->empty()) {
    // An unknown repository is an error, as for links and digest, not an empty answer.
    auto store = ctx.OpenForRead(/*report_pending=*/false);
    if (!store.ok()) return ctx.Fail(store.status());
    auto ref = ParseRef(*repo);
    if (Status s = RequireRepository(**store, ref->repo); !s.ok()) return ctx.Fail(s);
  }
  // One question per process: no prior table to read (query::SearcherUse).
  auto searcher = query::Searcher::Open(ctx.db_dir, ctx.env.docs, query::SearcherUse::kOneQuestion);
  if (!searcher.ok()) return ctx.Fail(searcher.status());
  query::AskOptions options;
  options.limit = args.limit;
  options.repo = *repo;
  options.with_docs = !args.no_docs;
  options.min_score = args.min_score;
  auto result = (*searcher)->Ask(text, options);
  if (!result.ok()) return ctx.Fail(result.status());
  if (args.json_out) {
    *ctx.out << query::ToJson(*result).dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    PrintText(*ctx.out, *result);
  }
  // A sharded index with shards down (docs/deploy.md, "Shards"): the answer
  // of the others, exit 3.
  if (!result->missing_shards.empty()) {
    for (const std::string& m : result->missing_shards)
      *ctx.err << "fixgraph: warning: degraded answer: issue index " << m << "\n";
    ctx.exit_code = kExitPartial;
  }
}

// eval-ask: Recall@1, Recall@5 and MRR over a query set (query::EvaluateAsk).
void RunEvalAsk(Context& ctx, const std::string& path, bool json_out, size_t limit,
                double min_score) {
  std::ifstream in(path);
  if (!in) return ctx.Fail(Status::NotFound("cannot read query set " + path));
  json set = json::parse(in, nullptr, false);
  if (set.is_discarded() || !set.is_array())
    return ctx.Fail(
        Status::InvalidArgument(path + R"(: expected a JSON array of {"q", "expect"})"));
  auto searcher = query::Searcher::Open(ctx.db_dir, ctx.env.docs);
  if (!searcher.ok()) return ctx.Fail(searcher.status());
  query::AskOptions options;
  options.limit = limit;
  options.with_docs = false;
  options.decode_fixes = false;  // as serve asks: only the refs are read here
  options.min_score = min_score;
  auto report = query::EvaluateAsk(**searcher, set, options);
  if (!report.ok()) return ctx.Fail(report.status().WithContext(path));
  if (json_out) {
    *ctx.out << report->dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    return;
  }
  *ctx.out << std::fixed << std::setprecision(3) << "queries " << (*report)["queries"].get<size_t>()
           << "  Recall@1 " << (*report)["recall_at_1"].get<double>() << "  Recall@5 "
           << (*report)["recall_at_5"].get<double>() << "  MRR " << (*report)["mrr"].get<double>()
           << "  (min score " << min_score << "; lowest expected hit "
           << (*report)["expected_score_min"].get<double>() << ")\n";
  for (const json& row : (*report)["results"])
    if (row["rank"].get<size_t>() != 1)
      *ctx.out << "rank " << row["rank"].get<size_t>() << ": " << row["q"].get<std::string>()
               << "\n";
  ctx.out->unsetf(std::ios::floatfield);
}

// index-ask: rebuilds the ask index from the store and reports the time it took
// (a development tool: `link` and `import` keep the index current).
void RunIndexAsk(Context& ctx, bool fresh, bool json_out) {
  auto store = ctx.OpenForWrite();  // the write lock keeps import/sync/link out meanwhile
  if (!store.ok()) return ctx.Fail(store.status());
  if (fresh) {
    std::error_code ec;
    std::filesystem::remove_all(ctx.db_dir + "/index-issues", ec);
    if (ec)
      return ctx.Fail(Status::IOError("removing " + ctx.db_dir + "/index-issues: " + ec.message()));
  }
  size_t issues = 0;
  Status counted = (*store)->ForEachIssue(nullptr, [&](const Issue&) {
    ++issues;
    return true;
  });
  if (!counted.ok()) return ctx.Fail(counted);
  auto t0 = std::chrono::steady_clock::now();
  Status s = query::RebuildIssueIndex(**store, ctx.db_dir, CliIndexOptions(ctx.env));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!s.ok()) return ctx.Fail(s);
  if (json_out) {
    *ctx.out << json{{"issues", issues}, {"seconds", seconds}}.dump() << "\n";
  } else {
    *ctx.out << "indexed " << issues << " issues in " << std::fixed << std::setprecision(1)
             << seconds << " s\n";
    ctx.out->unsetf(std::ios::floatfield);
  }
}

// --min-score: the noise floor (a number in [0, 1]).
void AddMinScoreOption(CLI::App* cmd, double& floor) {
  char help[160];
  std::snprintf(help, sizeof help,
                "drop issue and doc hits scoring below S, 0 to 1 (default %.2f; 0 keeps all)",
                query::kDefaultMinScore);
  cmd->add_option("--min-score", floor, help)->check(CLI::Range(0.0, 1.0))->option_text("S");
}

}  // namespace

void AddAskCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<AskArgs>();
  auto* cmd =
      app.add_subcommand("ask", "find past issues (and their fixes) for a symptom, error or log");
  cmd->add_option("TEXT", args->words,
                  "the symptom: words, an error line, an API name or code; '-' reads a pasted log "
                  "from stdin")
      ->required();
  cmd->add_flag("--json", args->json_out, "print JSON (docs/design.md s8)");
  cmd->add_option("--limit", args->limit, "at most N issues (default 5)")
      ->check(WholeNumber(1, 100));
  cmd->add_option("--repo", args->repo, "only issues of this repository (gitcode:OWNER/REPO)")
      ->check(RepoSyntax());
  cmd->add_flag("--no-docs", args->no_docs, "never consult the KG doc sources");
  AddMinScoreOption(cmd, args->min_score);
  cmd->callback([&ctx, args] { RunAsk(ctx, *args); });

  auto path = std::make_shared<std::string>();
  auto json_out = std::make_shared<bool>(false);
  auto limit = std::make_shared<size_t>(10);
  auto* eval = app.add_subcommand("eval-ask", "measure ask against a query set (Recall@1/5, MRR)");
  eval->group("");  // hidden: a development tool
  eval->add_option("--queries", *path, R"(JSON array of {"q", "expect": [ISSUE...]})")->required();
  eval->add_flag("--json", *json_out, "print JSON");
  eval->add_option("--limit", *limit, "hits per query (default 10)")->check(WholeNumber(1, 100));
  auto eval_floor = std::make_shared<double>(query::kDefaultMinScore);
  AddMinScoreOption(eval, *eval_floor);
  eval->callback([&ctx, path, json_out, limit, eval_floor] {
    RunEvalAsk(ctx, *path, *json_out, *limit, *eval_floor);
  });

  auto fresh = std::make_shared<bool>(false);
  auto index_json = std::make_shared<bool>(false);
  auto* index = app.add_subcommand("index-ask", "rebuild the ask index from the store");
  index->group("");  // hidden: a development tool (import, sync and link keep the index current)
  index->add_flag("--fresh", *fresh, "delete the index first and build it from nothing");
  index->add_flag("--json", *index_json, "print JSON");
  index->callback([&ctx, fresh, index_json] { RunIndexAsk(ctx, *fresh, *index_json); });
}

}  // namespace fixgraph::cli
