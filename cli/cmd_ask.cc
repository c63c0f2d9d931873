// fixgraph ask: symptom lookup over past issues with the KG fallback
// (docs/design.md s6, s8); and the hidden eval-ask that measures it against a
// query set (docs/evaluation.md).
#include <cstdio>
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <chrono>
#include <ctime>
#include <numeric>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "documents.h"
#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/utf8.h"
#include "fixgraph/query/ask.h"

namespace fixgraph::cli {
namespace {

using nlohmann::json;

struct AskArgs {
  std::vector<std::string> words;
  bool json_out = false;
  size_t limit = 5;
  std::string repo;
  bool no_docs = false;
};

// "--repo" as a canonical repository reference; InvalidArgument otherwise.
StatusOr<std::string> RepoArg(const std::string& text) {
  if (text.empty()) return std::string();
  auto ref = ParseRef(text);
  if (!ref.ok() || ref->kind != RefKind::kRepo)
    return Status::InvalidArgument("--repo \"" + text +
                                   "\": expected a repository such as gitcode:Ascend/MindSpeed-Ops");
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
    if (line.size() > 300) line = std::string(Utf8Prefix(line, 300)) + "...";
    out += pad + line + "\n";
    ++n;
  }
  return out;
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
    out << "  " << d.id << (d.url.empty() ? "" : "  " + d.url) << "\n";
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
    if (!h.fixes.empty() && h.fixes.front().tier != graph::Tier::kD)
      out << ", tier " << graph::TierName(h.fixes.front().tier);
    out << "]  score " << std::fixed << std::setprecision(2) << h.score << " (" << query::DocBand(h.score)
        << ")\n";
    out.unsetf(std::ios::floatfield);
    out << "   " << h.title << "\n";
    if (!h.answer.empty()) {
      out << "   answer" << (h.answer_source == "pr" ? " (from the fix PR)" : "") << ":\n";
      out << Indent(h.answer, "     ", 4);
    }
    size_t shown = 0, likely = 0;
    for (const graph::FixLink& fix : h.fixes) {
      bool d = fix.tier == graph::Tier::kD;
      if (d ? likely++ >= 3 : shown++ >= 3) continue;
      if (d) {
        char p[16];
        std::snprintf(p, sizeof p, "%.2f", fix.confidence);
        out << "   likely fix, not verified: " << ShortPr(fix.pr, h.issue) << " (probability " << p << ")";
      } else {
        out << "   fix: " << ShortPr(fix.pr, h.issue) << " (tier " << graph::TierName(fix.tier) << ")";
      }
      if (!fix.title.empty()) out << " " << fix.title;
      out << "\n";
    }
    if (!h.url.empty()) out << "   " << h.url << "\n";
  }
  if (!r.docs_first) PrintDocs(out, r);
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
  auto searcher = query::Searcher::Open(ctx.db_dir);
  if (!searcher.ok()) return ctx.Fail(searcher.status());
  query::AskOptions options;
  options.limit = args.limit;
  options.repo = *repo;
  options.with_docs = !args.no_docs;
  auto result = (*searcher)->Ask(text, options);
  if (!result.ok()) return ctx.Fail(result.status());
  if (args.json_out) {
    *ctx.out << query::ToJson(*result).dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    PrintText(*ctx.out, *result);
  }
}

// CPU time of the calling thread (what a query costs, whatever else runs).
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// eval-ask: Recall@1, Recall@5 and MRR over a query set
//   [{"q": TEXT, "expect": [ISSUE REF...], "kind": "paraphrase"...}, ...]
void RunEvalAsk(Context& ctx, const std::string& path, bool json_out, size_t limit) {
  std::ifstream in(path);
  if (!in) return ctx.Fail(Status::NotFound("cannot read query set " + path));
  json set = json::parse(in, nullptr, false);
  if (set.is_discarded() || !set.is_array())
    return ctx.Fail(Status::InvalidArgument(path + ": expected a JSON array of {\"q\", \"expect\"}"));
  auto searcher = query::Searcher::Open(ctx.db_dir);
  if (!searcher.ok()) return ctx.Fail(searcher.status());
  query::AskOptions options;
  options.limit = limit;
  options.with_docs = false;
  options.decode_fixes = false;  // as serve asks: only the refs are read here
  size_t n = 0, r1 = 0, r5 = 0;
  double mrr = 0;
  std::vector<double> ms, cpu_ms;
  json rows = json::array();
  std::map<std::string, std::array<double, 3>> by_kind;  // count, r5, rr
  for (size_t i = 0; i < set.size(); ++i) {
    const json& item = set[i];
    if (!item.is_object() || !item.contains("q") || !item["q"].is_string() || !item.contains("expect") ||
        !item["expect"].is_array())
      return ctx.Fail(Status::InvalidArgument(path + ": entry " + std::to_string(i) +
                                              " needs \"q\" (string) and \"expect\" (array)"));
    std::string q = item["q"];
    std::set<std::string> expect;
    for (const json& e : item["expect"])
      if (e.is_string()) expect.insert(e.get<std::string>());
    auto t0 = std::chrono::steady_clock::now();
    double c0 = ThreadCpuMs();
    auto result = (*searcher)->Ask(q, options);
    cpu_ms.push_back(ThreadCpuMs() - c0);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    size_t rank = 0;
    std::vector<std::string> got;
    if (result.ok()) {
      for (size_t k = 0; k < result->hits.size(); ++k) {
        got.push_back(result->hits[k].issue.ToString());
        if (rank == 0 && expect.count(got.back()) > 0) rank = k + 1;
      }
    }
    ++n;
    if (rank == 1) ++r1;
    if (rank >= 1 && rank <= 5) ++r5;
    double rr = rank > 0 ? 1.0 / static_cast<double>(rank) : 0.0;
    mrr += rr;
    std::string kind = item.value("kind", "");
    auto& k = by_kind[kind];
    k[0] += 1;
    k[1] += (rank >= 1 && rank <= 5) ? 1 : 0;
    k[2] += rr;
    rows.push_back({{"q", std::string(Utf8Prefix(q, 120))},
                    {"kind", kind},
                    {"expect", item["expect"]},
                    {"rank", rank},
                    {"ms", ms.back()},
                    {"top", got.size() > 3 ? std::vector<std::string>(got.begin(), got.begin() + 3) : got}});
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu_ms.begin(), cpu_ms.end());
  auto pct_of = [](const std::vector<double>& v, double p) {
    return v.empty() ? 0.0 : v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
  };
  auto pct = [&](double p) { return pct_of(ms, p); };
  double dn = n == 0 ? 1.0 : static_cast<double>(n);
  json kinds = json::object();
  for (const auto& [kind, v] : by_kind)
    kinds[kind.empty() ? "other" : kind] = {{"queries", v[0]}, {"recall_at_5", v[1] / v[0]}, {"mrr", v[2] / v[0]}};
  json report = {{"queries", n},
                 {"recall_at_1", r1 / dn},
                 {"recall_at_5", r5 / dn},
                 {"mrr", mrr / dn},
                 {"latency_ms_p50", pct(0.5)},
                 {"latency_ms_p99", pct(0.99)},
                 {"cpu_ms_p50", pct_of(cpu_ms, 0.5)},
                 {"cpu_ms_p99", pct_of(cpu_ms, 0.99)},
                 {"cpu_ms_mean", cpu_ms.empty() ? 0.0
                                                : std::accumulate(cpu_ms.begin(), cpu_ms.end(), 0.0) /
                                                      static_cast<double>(cpu_ms.size())},
                 {"by_kind", kinds},
                 {"results", rows}};
  if (json_out) {
    *ctx.out << report.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    return;
  }
  *ctx.out << std::fixed << std::setprecision(3) << "queries " << n << "  Recall@1 " << r1 / dn
           << "  Recall@5 " << r5 / dn << "  MRR " << mrr / dn << "\n";
  for (const json& row : rows)
    if (row["rank"].get<size_t>() != 1)
      *ctx.out << "rank " << row["rank"].get<size_t>() << ": " << row["q"].get<std::string>() << "\n";
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
    if (ec) return ctx.Fail(Status::IOError("removing " + ctx.db_dir + "/index-issues: " + ec.message()));
  }
  size_t issues = 0;
  Status counted = (*store)->ForEachIssue(nullptr, [&](const Issue&) {
    ++issues;
    return true;
  });
  if (!counted.ok()) return ctx.Fail(counted);
  auto t0 = std::chrono::steady_clock::now();
  Status s = query::RebuildIssueIndex(**store, ctx.db_dir);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!s.ok()) return ctx.Fail(s);
  if (json_out) {
    *ctx.out << json{{"issues", issues}, {"seconds", seconds}}.dump() << "\n";
  } else {
    *ctx.out << "indexed " << issues << " issues in " << std::fixed << std::setprecision(1) << seconds << " s\n";
    ctx.out->unsetf(std::ios::floatfield);
  }
}

}  // namespace

void AddAskCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<AskArgs>();
  auto* cmd = app.add_subcommand("ask", "find past issues (and their fixes) for a symptom, error or log");
  cmd->add_option("TEXT", args->words,
                  "the symptom: words, an error line, an API name or code; '-' reads a pasted log from stdin")
      ->required();
  cmd->add_flag("--json", args->json_out, "print JSON (docs/design.md s8)");
  cmd->add_option("--limit", args->limit, "at most N issues (default 5)")->check(WholeNumber(1, 100));
  cmd->add_option("--repo", args->repo, "only issues of this repository (gitcode:OWNER/REPO)")->check(RepoSyntax());
  cmd->add_flag("--no-docs", args->no_docs, "never consult the KG doc sources");
  cmd->callback([&ctx, args] { RunAsk(ctx, *args); });

  auto path = std::make_shared<std::string>();
  auto json_out = std::make_shared<bool>(false);
  auto limit = std::make_shared<size_t>(10);
  auto* eval = app.add_subcommand("eval-ask", "measure ask against a query set (Recall@1/5, MRR)");
  eval->group("");  // hidden: a development tool
  eval->add_option("--queries", *path, "JSON array of {\"q\", \"expect\": [ISSUE...]}")->required();
  eval->add_flag("--json", *json_out, "print JSON");
  eval->add_option("--limit", *limit, "hits per query (default 10)")->check(WholeNumber(1, 100));
  eval->callback([&ctx, path, json_out, limit] { RunEvalAsk(ctx, *path, *json_out, *limit); });

  auto fresh = std::make_shared<bool>(false);
  auto index_json = std::make_shared<bool>(false);
  auto* index = app.add_subcommand("index-ask", "rebuild the ask index from the store");
  index->group("");  // hidden: a development tool (import, sync and link keep the index current)
  index->add_flag("--fresh", *fresh, "delete the index first and build it from nothing");
  index->add_flag("--json", *index_json, "print JSON");
  index->callback([&ctx, fresh, index_json] { RunIndexAsk(ctx, *fresh, *index_json); });
}

}  // namespace fixgraph::cli
