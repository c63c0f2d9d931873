// fixgraph stats
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fixgraph/engine/item_view.h"
#include "fixgraph/ingest/dump.h"

namespace fixgraph::cli {
namespace {

void RunStats(Context& ctx, bool json_out) {
  auto store = ctx.OpenForRead();
  if (!store.ok()) return ctx.Fail(store.status());
  std::vector<Repository> repos;
  if (Status s = (*store)->ListRepositories(&repos); !s.ok()) return ctx.Fail(s);
  std::vector<RepoStats> rows;
  RepoStats total;
  for (const Repository& r : repos) {
    auto st = (*store)->Stats(r.ref);
    if (!st.ok()) return ctx.Fail(st.status());
    rows.push_back(*st);
    total.issues_open += st->issues_open;
    total.issues_closed += st->issues_closed;
    total.pulls_merged += st->pulls_merged;
    total.pulls_open += st->pulls_open;
    total.pulls_closed += st->pulls_closed;
    total.comments += st->comments;
    total.commits += st->commits;
    total.files += st->files;
    total.operate_logs += st->operate_logs;
    total.platform_links += st->platform_links;
  }
  std::vector<std::string> interrupted;
  if (Status s = ingest::InterruptedImports(**store, &interrupted); !s.ok()) return ctx.Fail(s);
  if (json_out) {
    nlohmann::json doc{{"repositories", nlohmann::json::array()}};
    for (const RepoStats& st : rows) doc["repositories"].push_back(ToJson(st));
    nlohmann::json t = ToJson(total);
    t.erase("repo");
    t["repositories"] = rows.size();
    doc["totals"] = t;
    doc["interrupted_imports"] = interrupted;
    *ctx.out << doc.dump() << "\n";
    return;
  }
  char line[512];
  std::snprintf(line, sizeof line, "%-45s %6s %6s  %6s %6s %6s  %8s %7s %6s\n", "repository",
                "issues", "closed", "PRs", "merged", "open", "comments", "commits", "files");
  *ctx.out << line;
  auto print = [&](const std::string& name, const RepoStats& s) {
    std::snprintf(line, sizeof line, "%-45s %6lld %6lld  %6lld %6lld %6lld  %8lld %7lld %6lld\n",
                  name.c_str(), static_cast<long long>(s.issues_open + s.issues_closed),
                  static_cast<long long>(s.issues_closed),
                  static_cast<long long>(s.pulls_merged + s.pulls_open + s.pulls_closed),
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
}

}  // namespace

void AddStatsCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("stats", "counts per repository");
  auto json_out = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json_out, "print JSON");
  cmd->callback([&ctx, json_out] { RunStats(ctx, *json_out); });
}

}  // namespace fixgraph::cli
