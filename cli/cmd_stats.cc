// fixgraph stats
#include "commands.h"
#include "documents.h"
#include "refresh.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace fixgraph::cli {
namespace {

void RunStats(Context& ctx, bool json_out) {
  auto store = ctx.OpenForRead(/*report_pending=*/false);  // shown below
  if (!store.ok()) return ctx.Fail(store.status());
  auto data = CollectStats(**store);
  if (!data.ok()) return ctx.Fail(data.status());
  if (Status s = (*store)->ListPending(&data->pending); !s.ok()) return ctx.Fail(s);
  const PendingWork& pending = data->pending;
  if (json_out) {
    *ctx.out << StatsDocument(*data).dump() << "\n";
    return;
  }
  const std::vector<RepoStats>& rows = data->rows;
  const RepoStats& total = data->total;
  const std::vector<std::string>& interrupted = data->interrupted;
  char line[512];
  std::snprintf(line, sizeof line, "%-45s %6s %6s  %6s %6s %6s  %8s %7s %6s\n", "repository",
                "issues", "closed", "PRs", "merged", "open", "comments", "commits", "files");
  *ctx.out << line;
  auto print = [&](const std::string& name, const RepoStats& s) {
    std::snprintf(line, sizeof line, "%-45s %6lld %6lld  %6lld %6lld %6lld  %8lld %7lld %6lld\n",
                  name.c_str(), static_cast<long long>(s.issues_open) + s.issues_closed,
                  static_cast<long long>(s.issues_closed),
                  static_cast<long long>(s.pulls_merged) + s.pulls_open + s.pulls_closed,
                  static_cast<long long>(s.pulls_merged), static_cast<long long>(s.pulls_open),
                  static_cast<long long>(s.comments), static_cast<long long>(s.commits),
                  static_cast<long long>(s.files));
    *ctx.out << line;
  };
  for (const RepoStats& st : rows) print(st.repo.ToString(), st);
  print("total (" + std::to_string(rows.size()) + " repositories)", total);
  for (const std::string& r : interrupted)
    *ctx.out << "warning: the import of " << r
             << " was interrupted; run the import again to complete it\n";
  if (!pending.empty()) *ctx.out << "pending: " << PendingWarning(pending) << "\n";
}

}  // namespace

void AddStatsCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("stats", "counts per repository");
  auto json_out = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json_out, "print JSON");
  cmd->callback([&ctx, json_out] { RunStats(ctx, *json_out); });
}

}  // namespace fixgraph::cli
