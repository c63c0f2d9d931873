// fixgraph import DUMP...
#include <sys/resource.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "refresh.h"
#include "fixgraph/engine/time.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/ingest/dump.h"

namespace fixgraph::cli {
namespace {

nlohmann::json CountsJson(const ingest::ImportCounts& c) {
  return {{"repos", c.repos},       {"issues", c.issues},
          {"pulls", c.pulls},       {"comments", c.comments},
          {"commits", c.commits},   {"files", c.files},
          {"operate_logs", c.operate_logs}, {"platform_links", c.platform_links},
          {"changed", c.changed}};
}

void RunImport(Context& ctx, const std::vector<std::string>& dumps, bool json_out, bool link,
               const std::string& time_offset) {
  std::optional<int> naive_offset;
  if (!time_offset.empty()) {
    auto off = ParseUtcOffset(time_offset);
    if (!off.ok()) Context::UsageError("--time-offset: " + off.status().message());
    naive_offset = *off;
  }
  // Pending work an earlier run left is finished with this run's, after the
  // writes (one relink and one index update for both); --no-link loads only
  // and leaves all of it pending (stats shows it).
  auto store = ctx.OpenForWrite(/*finish_pending=*/false);
  if (!store.ok()) return ctx.Fail(store.status());
  ingest::ImportOptions options;
  options.naive_utc_offset_minutes = naive_offset;
  if (ctx.err_is_terminal) {
    options.on_progress = [&ctx](const ingest::ImportProgress& p) {
      *ctx.err << "\r[" << p.repo_index + 1 << "/" << p.repo_count << "] "
               << p.repo->repo.ToString() << "  " << p.records_done;
      if (p.records_total > 0) *ctx.err << "/" << p.records_total;  // 0: not known yet
      *ctx.err << " records\x1b[K" << std::flush;
    };
  }
  nlohmann::json report = nlohmann::json::array();
  ingest::ImportCounts total;
  auto start = std::chrono::steady_clock::now();
  for (const std::string& dump : dumps) {
    ingest::ImportCounts counts;
    Status s = ingest::ImportDump(store->get(), dump, options, &counts);
    if (ctx.err_is_terminal) *ctx.err << "\r\x1b[K" << std::flush;
    if (!s.ok()) return ctx.Fail(s);
    total.Add(counts);
    nlohmann::json one = CountsJson(counts);
    one["dump"] = dump;
    report.push_back(one);
    if (!json_out) {
      *ctx.out << "imported " << dump << ": " << counts.repos << " repositories, " << counts.issues
               << " issues, " << counts.pulls << " pull requests, " << counts.comments
               << " comments, " << counts.commits << " commits, " << counts.files << " files, "
               << counts.operate_logs << " operate-log events, " << counts.platform_links
               << " platform links (" << counts.changed << " records new or changed)\n";
    }
  }
  // Relink (and reindex) only the issues the new data can affect.
  RefreshStats refreshed;
  if (link) {
    Status s = RefreshAfterWrite(ctx, store->get(), total.touched, &refreshed);
    if (!s.ok()) return ctx.Fail(s);
  }
  const graph::LinkStats& link_stats = refreshed.link;
  if (link && !json_out)
    *ctx.out << "relinked " << link_stats.issues << " issues (" << link_stats.fixes
             << " fix links)\n";
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (json_out) {
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    nlohmann::json doc{{"dumps", report},  {"totals", CountsJson(total)},
                       {"seconds", secs},  {"peak_rss_mb", ru.ru_maxrss / 1024.0},
                       {"relinked", link_stats.issues},
                       {"db", ctx.db_dir}};
    *ctx.out << doc.dump() << "\n";
  }
}

}  // namespace

void AddImportCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("import", "load recorded dumps (DUMP/<platform>/<owner>/<repo>/)");
  auto dumps = std::make_shared<std::vector<std::string>>();
  auto json_out = std::make_shared<bool>(false);
  auto no_link = std::make_shared<bool>(false);
  cmd->add_option("DUMP", *dumps, "dump directories")->required();
  cmd->add_flag("--json", *json_out, "print a JSON summary");
  cmd->add_flag("--no-link", *no_link, "load only; do not relink the affected issues");
  auto time_offset = std::make_shared<std::string>();
  cmd->add_option("--time-offset", *time_offset,
                  "UTC offset of times recorded without one (default +08:00 for GitCode and Gitee, "
                  "Z for GitHub)");
  cmd->callback([&ctx, dumps, json_out, no_link, time_offset] {
    RunImport(ctx, *dumps, *json_out, !*no_link, *time_offset);
  });
}

}  // namespace fixgraph::cli
