// fixgraph link | links | graph | eval: the evidence linker's commands.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "refresh.h"
#include "fixgraph/graph/evaluate.h"
#include "fixgraph/graph/graph_view.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/query/ask.h"

namespace fixgraph::cli {
namespace {

using nlohmann::json;

// Parses --repo into `out`; empty text means every repository.
bool RepoFilter(Context& ctx, const std::string& text, RepoRef* out, bool* set) {
  *set = false;
  if (text.empty()) return true;
  auto ref = ParseRef(text);
  if (!ref.ok() || ref->kind != RefKind::kRepo) {
    ctx.Fail(Status::InvalidArgument("--repo \"" + text +
                                     "\": expected a repository such as gitcode:Ascend/MindSpeed-Ops"));
    return false;
  }
  *out = ref->repo;
  *set = true;
  return true;
}

json StatsJson(const graph::LinkStats& s) {
  return {{"issues", s.issues},      {"issues_with_fixes", s.issues_with_fixes},
          {"fixes", s.fixes},        {"by_tier", s.by_tier},
          {"by_resolution", s.by_resolution}, {"by_flag", s.by_flag},
          {"seconds", s.seconds},
          {"phases", {{"load", s.load_seconds}, {"compute", s.compute_seconds}, {"write", s.write_seconds}}}};
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

void RunLink(Context& ctx, const std::string& repo_text, bool json_out) {
  RepoRef repo;
  bool has_repo = false;
  if (!RepoFilter(ctx, repo_text, &repo, &has_repo)) return;
  // A run over every repository does all pending work itself; one of a
  // single repository finishes the pending work first.
  auto store = ctx.OpenForWrite(/*finish_pending=*/has_repo);
  if (!store.ok()) return ctx.Fail(store.status());
  graph::LinkStats stats;
  Status s = LinkRun(ctx, store->get(), has_repo ? &repo : nullptr, CliLinkerOptions(), &stats);
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
  std::int64_t n = 0;
  Status s = graph::ForEachLinks(**store, has_repo ? &repo : nullptr,
                                 [&](const graph::IssueLinks& l) {
    ++n;
    if (json_out) {
      *ctx.out << graph::ToJson(l).dump() << "\n";
      return true;
    }
    *ctx.out << l.issue.ToString() << "  " << graph::ResolutionName(l.resolution);
    if (!l.fixes.empty()) {
      *ctx.out << "  fixes:";
      for (const graph::FixLink& f : l.fixes)
        *ctx.out << " " << ShortTarget(f.pr, l.issue.repo) << " (" << graph::TierName(f.tier)
                 << ")";
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

void RunGraph(Context& ctx, const std::string& repo_text, bool dot) {
  RepoRef repo;
  bool has_repo = false;
  if (!RepoFilter(ctx, repo_text, &repo, &has_repo)) return;
  auto store = ctx.OpenForRead();
  if (!store.ok()) return ctx.Fail(store.status());
  if (dot) {
    Status s = graph::WriteDot(**store, has_repo ? &repo : nullptr, *ctx.out);
    if (!s.ok()) ctx.Fail(s);
    return;
  }
  auto view = graph::GraphView::Build(**store, has_repo ? &repo : nullptr);
  if (!view.ok()) return ctx.Fail(view.status());
  auto clusters = view->Clusters();
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

}  // namespace

void AddLinkCommands(CLI::App& app, Context& ctx) {
  {
    auto* cmd = app.add_subcommand("link", "recompute the links of every issue (or one repository)");
    auto repo = std::make_shared<std::string>();
    auto json_out = std::make_shared<bool>(false);
    cmd->add_option("--repo", *repo, "only this repository (gitcode:OWNER/REPO)");
    cmd->add_flag("--json", *json_out, "print a JSON summary");
    cmd->callback([&ctx, repo, json_out] { RunLink(ctx, *repo, *json_out); });
  }
  {
    auto* cmd = app.add_subcommand("links", "every issue: resolution, fixes with tiers, flags");
    auto repo = std::make_shared<std::string>();
    auto json_out = std::make_shared<bool>(false);
    cmd->add_option("--repo", *repo, "only this repository (gitcode:OWNER/REPO)");
    cmd->add_flag("--json", *json_out, "JSON Lines, one object per issue");
    cmd->callback([&ctx, repo, json_out] { RunLinks(ctx, *repo, *json_out); });
  }
  {
    auto* cmd = app.add_subcommand("graph", "clusters of issues and PRs; Graphviz with --dot");
    auto repo = std::make_shared<std::string>();
    auto dot = std::make_shared<bool>(false);
    cmd->add_option("--repo", *repo, "only this repository's issues (gitcode:OWNER/REPO)");
    cmd->add_flag("--dot", *dot, "print Graphviz DOT");
    cmd->callback([&ctx, repo, dot] { RunGraph(ctx, *repo, *dot); });
  }
  {
    auto* cmd = app.add_subcommand("eval", "measure the stored links against a labelled dev set");
    auto labels = std::make_shared<std::string>("tests/data/demo-labels.json");
    auto json_out = std::make_shared<bool>(false);
    cmd->add_option("--labels", *labels, "labels file (default: tests/data/demo-labels.json)");
    cmd->add_flag("--json", *json_out, "print JSON");
    cmd->callback([&ctx, labels, json_out] { RunEval(ctx, *labels, *json_out); });
  }
}

}  // namespace fixgraph::cli
