// fixgraph link | links | graph | eval: the evidence linker's commands.
#include "commands.h"
#include "documents.h"
#include "refresh.h"

#include "fixgraph/graph/evaluate.h"
#include "fixgraph/graph/graph_view.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/graph/suggest.h"
#include "fixgraph/query/ask.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

namespace fixgraph::cli {
namespace {

using nlohmann::json;

// Parses --repo into `out`; empty text means every repository.
bool RepoFilter(Context& ctx, const std::string& text, RepoRef* out, bool* set) {
  *set = false;
  if (text.empty()) return true;
  auto ref = ParseRef(text);
  if (!ref.ok() || ref->kind != RefKind::kRepo) {
    ctx.Fail(Status::InvalidArgument(
        "--repo \"" + text + "\": expected a repository such as gitcode:Ascend/MindSpeed-Ops"));
    return false;
  }
  *out = ref->repo;
  *set = true;
  return true;
}

// Fails (exit 1) when --repo names a repository the store does not hold.
bool RepoKnown(Context& ctx, const Store& store, const RepoRef* repo) {
  if (repo == nullptr) return true;
  Status s = RequireRepository(store, *repo);
  if (!s.ok()) ctx.Fail(s);
  return s.ok();
}

json StatsJson(const graph::LinkStats& s) {
  return {{"issues", s.issues},
          {"issues_with_fixes", s.issues_with_fixes},
          {"fixes", s.fixes},
          {"by_tier", s.by_tier},
          {"by_resolution", s.by_resolution},
          {"by_flag", s.by_flag},
          {"seconds", s.seconds},
          {"phases",
           {{"load", s.load_seconds},
            {"fit", s.fit_seconds},
            {"compute", s.compute_seconds},
            {"write", s.write_seconds}}}};
}

void PrintStats(std::ostream& out, const graph::LinkStats& s) {
  out << "linked " << s.issues << " issues: " << s.issues_with_fixes << " with fixes, " << s.fixes
      << " fix links";
  if (!s.by_tier.empty()) {
    out << " (";
    bool first = true;
    for (const auto& [tier, n] : s.by_tier) {
      out << (first ? "" : ", ") << "tier " << tier << ": " << n;
      first = false;
    }
    out << ")";
  }
  out << "\nresolutions:";
  for (const auto& [r, n] : s.by_resolution) out << " " << r << " " << n;
  if (!s.by_flag.empty()) {
    out << "\nflags:";
    for (const auto& [f, n] : s.by_flag) out << " " << f << " " << n;
  }
  out << "\n";
}

void RunLink(Context& ctx, const std::string& repo_text, bool json_out, bool no_suggest) {
  RepoRef repo;
  bool has_repo = false;
  if (!RepoFilter(ctx, repo_text, &repo, &has_repo)) return;
  // A run over every repository does all pending work itself; one of a
  // single repository finishes the pending work first.
  auto store = ctx.OpenForWrite(/*finish_pending=*/has_repo);
  if (!store.ok()) return ctx.Fail(store.status());
  if (!RepoKnown(ctx, **store, has_repo ? &repo : nullptr)) return;
  graph::LinkerOptions options = CliLinkerOptions(ctx.env);
  options.suggest = !no_suggest;
  graph::LinkStats stats;
  Status s = LinkRun(ctx, store->get(), has_repo ? &repo : nullptr, options, &stats);
  if (!s.ok()) return ctx.Fail(s);
  if (json_out) {
    *ctx.out << StatsJson(stats).dump() << "\n";
  } else {
    PrintStats(*ctx.out, stats);
  }
}

std::string ShortTarget(const std::string& pr, const RepoRef& repo) {
  std::string prefix = repo.ToString() + "!";
  return pr.rfind(prefix, 0) == 0 ? "!" + pr.substr(prefix.size()) : pr;
}

void RunLinks(Context& ctx, const std::string& repo_text, bool json_out) {
  RepoRef repo;
  bool has_repo = false;
  if (!RepoFilter(ctx, repo_text, &repo, &has_repo)) return;
  auto store = ctx.OpenForRead();
  if (!store.ok()) return ctx.Fail(store.status());
  if (!RepoKnown(ctx, **store, has_repo ? &repo : nullptr)) return;
  std::int64_t n = 0;
  Status s =
      graph::ForEachLinks(**store, has_repo ? &repo : nullptr, [&](const graph::IssueLinks& l) {
        ++n;
        if (json_out) {
          *ctx.out << graph::ToJson(l).dump() << "\n";
          return true;
        }
        *ctx.out << l.issue.ToString() << "  " << graph::ResolutionName(l.resolution);
        // As in the JSON view: trusted links (A-C) are fixes, tier D is likely.
        const char* head = "  fixes:";
        for (const graph::FixLink& f : l.fixes) {
          if (!f.Trusted()) continue;
          *ctx.out << head << " " << ShortTarget(f.pr, l.issue.repo) << " ("
                   << graph::TierName(f.tier) << ")";
          head = "";
        }
        const std::vector<const graph::FixLink*> likely = l.Likely();
        if (!likely.empty()) {
          *ctx.out << "  likely (not verified):";
          for (size_t i = 0; i < likely.size() && i < 3; ++i) {
            char p[16];
            std::snprintf(p, sizeof p, "%.2f", likely[i]->confidence);
            *ctx.out << " " << ShortTarget(likely[i]->pr, l.issue.repo) << " (" << p << ")";
          }
        }
        if (!l.flags.empty()) {
          *ctx.out << "  flags:";
          for (graph::Flag f : l.flags) *ctx.out << " " << graph::FlagName(f);
        }
        *ctx.out << "\n";
        return true;
      });
  if (!s.ok()) return ctx.Fail(s);
  if (n == 0 && !json_out)
    *ctx.err << "no links stored" << (has_repo ? " for " + repo.ToString() : std::string())
             << " (run `fixgraph link`)\n";
}

void RunGraph(Context& ctx, const std::string& repo_text, bool dot, bool json_out) {
  RepoRef repo;
  bool has_repo = false;
  if (!RepoFilter(ctx, repo_text, &repo, &has_repo)) return;
  if (dot && json_out) Context::UsageError("give --json or --dot, not both");
  auto store = ctx.OpenForRead();
  if (!store.ok()) return ctx.Fail(store.status());
  if (!RepoKnown(ctx, **store, has_repo ? &repo : nullptr)) return;
  if (dot) {
    Status s = graph::WriteDot(**store, has_repo ? &repo : nullptr, *ctx.out);
    if (!s.ok()) ctx.Fail(s);
    return;
  }
  auto view = graph::GraphView::Build(**store, has_repo ? &repo : nullptr);
  if (!view.ok()) return ctx.Fail(view.status());
  auto clusters = view->Clusters();
  if (json_out) {
    // {"nodes", "edges", "clusters": [[ID...]...]}: the counts and clusters of the text form.
    json doc{{"nodes", view->nodes().size()},
             {"edges", view->edges().size()},
             {"clusters", json::array()}};
    for (const auto& c : clusters) doc["clusters"].push_back(c);
    *ctx.out << doc.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    return;
  }
  *ctx.out << view->nodes().size() << " nodes, " << view->edges().size() << " edges, "
           << clusters.size() << " clusters\n";
  for (const auto& c : clusters) {
    *ctx.out << "-";
    for (const std::string& id : c) *ctx.out << " " << id;
    *ctx.out << "\n";
  }
}

void RunEval(Context& ctx, const std::string& labels_path, bool json_out) {
  auto labels = graph::LoadLabels(labels_path);
  if (!labels.ok()) return ctx.Fail(labels.status());
  auto store = ctx.OpenForRead();
  if (!store.ok()) return ctx.Fail(store.status());
  auto report = graph::EvaluateStore(**store, *labels);
  if (!report.ok()) return ctx.Fail(report.status());
  if (json_out) {
    *ctx.out << graph::ToJson(*report).dump() << "\n";
  } else {
    *ctx.out << graph::FormatReport(*report);
  }
}

// eval-suggest: the suggestion ranking of the labelled issues, measured by
// cross-validation (each fold scored by weights fitted without it), or with
// the model `link` uses (--model builtin) or a model file.
void RunEvalSuggest(Context& ctx, const std::string& labels_path, int folds,
                    const std::string& model_path, const std::string& fit_out, bool json_out,
                    bool show_misses) {
  auto labels = graph::LoadLabels(labels_path);
  if (!labels.ok()) return ctx.Fail(labels.status());
  auto store = ctx.OpenForRead();
  if (!store.ok()) return ctx.Fail(store.status());
  std::vector<graph::IssueFixes> issues;
  for (const graph::LabeledIssue& l : *labels) {
    // Issues labelled open are not ranked (the linker suggests only for closed ones).
    if (l.resolution == graph::Resolution::kOpen && l.fixes.empty()) continue;
    graph::IssueFixes f;
    f.issue = l.issue;
    for (const graph::LabeledFix& x : l.fixes) f.fixes.push_back(graph::CanonicalTarget(x.pr));
    issues.push_back(std::move(f));
  }
  auto examples = graph::LoadRankExamples(**store, issues, /*mask_times=*/false);
  if (!examples.ok()) return ctx.Fail(examples.status());
  const graph::RankFitOptions fit = graph::NeutralFitOptions();
  graph::RankEval report;
  std::string how;
  if (model_path.empty()) {
    report = graph::CrossValidate(*examples, folds, fit);
    how = std::to_string(report.folds) + "-fold cross-validation";
  } else if (model_path == "builtin") {
    report = graph::EvaluateModel(*examples, graph::BuiltinRankModel());
    how = "the built-in model";
  } else {
    std::ifstream in(model_path);
    if (!in) return ctx.Fail(Status::InvalidArgument("--model: cannot read " + model_path));
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded())
      return ctx.Fail(Status::InvalidArgument("--model: " + model_path + " is not JSON"));
    auto m = graph::RankModel::FromJson(j);
    if (!m.ok()) return ctx.Fail(m.status().WithContext(model_path));
    report = graph::EvaluateModel(*examples, *m);
    how = "the model in " + model_path;
  }
  if (!fit_out.empty()) {
    graph::RankModel all = graph::FitRankModel(*examples, fit);
    std::ofstream out(fit_out);
    out << all.ToJson().dump(2) << "\n";
    if (!out) return ctx.Fail(Status::IOError("cannot write " + fit_out));
  }
  if (json_out) {
    nlohmann::json j = report.ToJson();
    j["method"] = how;
    *ctx.out << j.dump() << "\n";
    return;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "suggestions (%s): pairs=%lld (fix in pool %lld) distractors=%lld P@1=%.3f "
                "Hit@5=%.3f MRR=%.3f ECE=%.3f\n",
                how.c_str(), static_cast<long long>(report.pairs),
                static_cast<long long>(report.fix_in_pool),
                static_cast<long long>(report.distractors), report.p_at_1, report.hit_at_5,
                report.mrr, report.ece);
  *ctx.out << buf
           << "reliability of the top-5 suggestions (probability bin: n, mean probability, share "
              "right):\n";
  for (const graph::RankEval::Bin& b : report.bins) {
    if (b.n == 0) continue;
    std::snprintf(buf, sizeof buf, "  %.1f-%.1f: %4lld  %.3f  %.3f\n", b.lo, b.hi,
                  static_cast<long long>(b.n), b.mean_p, b.accuracy);
    *ctx.out << buf;
  }
  if (!show_misses) return;
  *ctx.out << "issues whose fix was not ranked first (" << report.misses.size() << "):\n";
  for (const graph::RankEval::Miss& m : report.misses) {
    std::snprintf(buf, sizeof buf, "  %s: fix at %s (p=%.3f); first %s (p=%.3f)\n", m.issue.c_str(),
                  m.fix_rank ? std::to_string(m.fix_rank).c_str() : "-", m.fix_p,
                  m.top.empty() ? "-" : m.top.c_str(), m.top_p);
    *ctx.out << buf;
  }
}

}  // namespace

void AddLinkCommands(CLI::App& app, Context& ctx) {
  {
    auto* cmd =
        app.add_subcommand("link", "recompute the links of every issue (or one repository)");
    auto repo = std::make_shared<std::string>();
    auto json_out = std::make_shared<bool>(false);
    auto no_suggest = std::make_shared<bool>(false);
    cmd->add_option("--repo", *repo, "only this repository (gitcode:OWNER/REPO)")
        ->check(RepoSyntax());
    cmd->add_flag("--json", *json_out, "print a JSON summary");
    cmd->add_flag("--no-suggest", *no_suggest,
                  "skip the suggested-fix ranking (and its check of implicit tier C links)");
    cmd->callback(
        [&ctx, repo, json_out, no_suggest] { RunLink(ctx, *repo, *json_out, *no_suggest); });
  }
  {
    auto* cmd = app.add_subcommand("links", "every issue: resolution, fixes with tiers, flags");
    auto repo = std::make_shared<std::string>();
    auto json_out = std::make_shared<bool>(false);
    cmd->add_option("--repo", *repo, "only this repository (gitcode:OWNER/REPO)")
        ->check(RepoSyntax());
    cmd->add_flag("--json", *json_out, "JSON Lines, one object per issue");
    cmd->callback([&ctx, repo, json_out] { RunLinks(ctx, *repo, *json_out); });
  }
  {
    auto* cmd = app.add_subcommand("graph", "clusters of issues and PRs; Graphviz with --dot");
    auto repo = std::make_shared<std::string>();
    auto dot = std::make_shared<bool>(false);
    auto json_out = std::make_shared<bool>(false);
    cmd->add_option("--repo", *repo, "only this repository's issues (gitcode:OWNER/REPO)")
        ->check(RepoSyntax());
    cmd->add_flag("--dot", *dot, "print Graphviz DOT");
    cmd->add_flag("--json", *json_out, R"(print JSON: {"nodes", "edges", "clusters": [[ID...]]})");
    cmd->callback([&ctx, repo, dot, json_out] { RunGraph(ctx, *repo, *dot, *json_out); });
  }
  {
    auto* cmd = app.add_subcommand("eval", "measure the stored links against a labelled dev set");
    auto labels = std::make_shared<std::string>("tests/data/demo-labels.json");
    auto json_out = std::make_shared<bool>(false);
    cmd->add_option("--labels", *labels, "labels file (default: tests/data/demo-labels.json)");
    cmd->add_flag("--json", *json_out, "print JSON");
    cmd->callback([&ctx, labels, json_out] { RunEval(ctx, *labels, *json_out); });
  }
  {
    auto* cmd = app.add_subcommand("eval-suggest",
                                   "measure the suggested-fix ranking against a labelled dev set");
    auto labels = std::make_shared<std::string>();
    auto folds = std::make_shared<int>(5);
    auto model = std::make_shared<std::string>();
    auto fit_out = std::make_shared<std::string>();
    auto json_out = std::make_shared<bool>(false);
    cmd->add_option("--labels", *labels, "labels file (issues with their fix PRs)")->required();
    cmd->add_option("--folds", *folds, "cross-validation folds (default 5)")
        ->check(CLI::Range(2, 100));
    cmd->add_option("--model", *model,
                    "score with a fixed model instead: 'builtin' or a model JSON file");
    cmd->add_option("--fit-out", *fit_out,
                    "also fit on every labelled issue and write the model JSON here");
    auto misses = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json_out, "print JSON (with the misses)");
    cmd->add_flag("--misses", *misses, "also list the issues whose fix was not ranked first");
    cmd->callback([&ctx, labels, folds, model, fit_out, json_out, misses] {
      RunEvalSuggest(ctx, *labels, *folds, *model, *fit_out, *json_out, *misses);
    });
  }
}

}  // namespace fixgraph::cli
