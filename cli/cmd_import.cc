// fixgraph import DUMP...
#include "commands.h"
#include "refresh.h"

#include "fixgraph/engine/time.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/ingest/dump.h"

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace fixgraph::cli {
namespace {

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
  // One line for the whole dump: the records of every repository summed
  // (several are imported at once), and how many repositories are done. A
  // repository the store holds is verified first, so its record total is
  // known; a new one is read once, and the share of its item folders walked
  // stands for its share of records (ImportProgress::items_*). The line's
  // fraction (and so its ETA) weighs each repository by its records, known or
  // estimated as done / share, a repository not started yet by their mean.
  auto progress = ctx.NewProgress("import");
  std::vector<PartProgress> repo_counts;
  if (progress->enabled()) {
    options.on_progress = [&](const ingest::ImportProgress& p) {  // serialised by ImportDump
      if (repo_counts.size() != p.repo_count) repo_counts.assign(p.repo_count, PartProgress());
      if (p.repo_index >= repo_counts.size()) return;
      repo_counts[p.repo_index] = {true, p.records_done, p.records_total, p.items_done,
                                   p.items_total};
      ProgressState st;
      st.unit = "records";
      size_t finished = 0;
      bool totals_known = true;
      for (const PartProgress& c : repo_counts) {
        st.done += c.total > 0 ? std::min(c.done, c.total) : c.done;
        st.total += c.total;
        finished += c.total > 0 && c.done >= c.total ? 1 : 0;
        totals_known = totals_known && c.total > 0;
      }
      if (!totals_known) {
        st.total = 0;
        st.fraction = EstimatedFraction(repo_counts);
      }
      st.detail = std::to_string(finished) + "/" + std::to_string(repo_counts.size()) +
                  " repositories  " + p.repo->repo.ToString();
      progress->Update(st);
    };
  }
  nlohmann::json report = nlohmann::json::array();
  ingest::ImportCounts total;
  auto start = std::chrono::steady_clock::now();
  for (const std::string& dump : dumps) {
    ingest::ImportCounts counts;
    repo_counts.clear();
    // A tar file's headers are read before any record (seconds at a million
    // issues): the line says so meanwhile.
    std::error_code ec;
    progress->Phase("import", std::filesystem::is_regular_file(dump, ec)
                                  ? ProgressState::Note("reading the index of " + dump)
                                  : ProgressState());
    Status s = ingest::ImportDump(store->get(), dump, options, &counts);
    if (!s.ok()) {
      progress->Finish();
      return ctx.Fail(s);
    }
    progress->Clear();
    total.Add(counts);
    nlohmann::json one = ingest::ToJson(counts);
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
  progress->Finish();
  // Relink (and reindex) only the issues the new data can affect.
  RefreshStats refreshed;
  if (link) {
    Status s = FinishPendingWork(ctx, store->get(), &refreshed);
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
    nlohmann::json doc{{"dumps", report},
                       {"totals", ingest::ToJson(total)},
                       {"seconds", secs},
                       {"peak_rss_mb", static_cast<double>(ru.ru_maxrss) / 1024.0},
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
