// fixgraph sync REPO|org:PLATFORM:ORG... [--api-base URL] [--since TIME] [--record DUMP]
//               [--state all|open|closed] [--only LIST] [--skip LIST] [--rate-limit N]
//               [--parallel N] [--json] [--no-link] [--all-details] [--time-offset +HH:MM]
// Exit status: 0 complete, 1 failed, 3 partial (kExitPartial).
#include "commands.h"
#include "refresh.h"

#include "fixgraph/engine/time.h"
#include "fixgraph/ingest/sync.h"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fixgraph::cli {
namespace {

struct SyncArgs {
  std::vector<std::string> targets;
  std::string api_base;
  std::string since;
  std::string record;
  std::string state = "all";
  std::string only;
  std::string skip;
  double rate_limit = -1;
  int parallel = 4;
  int per_page = 100;
  double timeout_s = 60;
  bool json_out = false;
  bool no_link = false;
  bool all_details = false;
  std::string time_offset;
};

// Exit status of a sync that stored what it could but missed some data (a
// repository failed while others synced, or detail endpoints were skipped).

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

std::string Duration(double s) {
  if (s < 0) return "?";
  long t = std::lround(s);
  if (t < 60) return std::to_string(t) + "s";
  if (t < 3600) return std::to_string(t / 60) + "m" + std::to_string(t % 60) + "s";
  return std::to_string(t / 3600) + "h" + std::to_string(t / 60 % 60) + "m";
}

nlohmann::json CountsJson(const ingest::SyncCounts& c) {
  nlohmann::json j = ingest::ToJson(static_cast<const ingest::RecordCounts&>(c));
  j["detailed"] = c.detailed;
  j["requests"] = c.requests;
  j["retries"] = c.retries;
  j["rate_limit_waits"] = c.rate_limit_waits;
  j["skipped"] = c.skipped.size();
  return j;
}

nlohmann::json SkippedJson(const std::vector<ingest::SkippedEndpoint>& skipped) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : skipped)
    out.push_back(
        {{"item", e.item}, {"endpoint", e.endpoint}, {"url", e.url}, {"reason", e.reason}});
  return out;
}

// The sync options the flags ask for; CLI::ValidationError names a bad flag.
ingest::SyncOptions SyncOptionsFrom(const Context& ctx, const SyncArgs& a) {
  ingest::SyncOptions o;
  o.token_source = EnvironmentValue;  // GITCODE_TOKEN, ...: sent, never printed
  if (ctx.env.http_backoff_ms) o.backoff_ms = *ctx.env.http_backoff_ms;
  o.api_base = a.api_base;
  o.state = a.state;
  o.record_dir = a.record;
  o.requests_per_minute = a.rate_limit;
  o.parallelism = a.parallel;
  o.per_page = a.per_page;
  o.timeout_ms = static_cast<long>(a.timeout_s * 1000);
  o.all_details = a.all_details;
  if (!a.time_offset.empty()) {
    auto off = ParseUtcOffset(a.time_offset);
    if (!off.ok()) throw CLI::ValidationError("--time-offset", off.status().message());
    o.naive_utc_offset_minutes = *off;
  }
  if (!a.since.empty()) {
    auto t = ParseTimestamp(a.since);
    if (!t.ok() || !t->has_value())
      throw CLI::ValidationError("--since", "\"" + a.since +
                                                "\" is not a time (e.g. 2026-01-31 or "
                                                "2026-01-31T08:00:00+08:00)");
    o.since = **t;
  }
  std::set<std::string> endpoints(ingest::AllSyncEndpoints().begin(),
                                  ingest::AllSyncEndpoints().end());
  auto check = [](const std::string& flag, const std::vector<std::string>& names) {
    for (const std::string& n : names) {
      const auto& all = ingest::AllSyncEndpoints();
      if (std::find(all.begin(), all.end(), n) == all.end())
        throw CLI::ValidationError(flag, "unknown endpoint \"" + n +
                                             "\" (expected comments, commits, files, "
                                             "operate_logs, links)");
    }
  };
  if (!a.only.empty()) {
    auto names = SplitList(a.only);
    check("--only", names);
    endpoints = std::set<std::string>(names.begin(), names.end());
  }
  auto skipped = SplitList(a.skip);
  check("--skip", skipped);
  for (const std::string& n : skipped) endpoints.erase(n);
  o.endpoints = endpoints;
  if (endpoints.empty()) o.endpoints = {"none"};  // list endpoints only
  return o;
}

// Splits the targets into repositories and organisations (platform, name);
// CLI::ValidationError for one that is neither.
void ParseTargets(const SyncArgs& a, std::vector<RepoRef>* repos,
                  std::vector<std::pair<Platform, std::string>>* orgs) {
  for (const std::string& t : a.targets) {
    RepoRef r;
    std::string org;
    Status s = ingest::ParseSyncTarget(t, &r, &org);
    if (!s.ok()) throw CLI::ValidationError("REPO", s.message());
    if (org.empty()) {
      repos->push_back(r);
    } else {
      orgs->emplace_back(r.platform, org);
    }
  }
}

// Prints the outcome (JSON or text, warnings for skipped endpoints) and sets
// the exit status: complete, partial (kExitPartial) or failed.
void ReportSync(Context& ctx, const SyncArgs& a, const nlohmann::json& per_repo,
                const ingest::SyncCounts& total, const RefreshStats& refreshed, double secs,
                const Status& failure, size_t failed) {
  // complete, partial (some data stored, some missing) or failed (nothing synced).
  const bool partial = (failed > 0 && total.repos > 0) || (failure.ok() && !total.skipped.empty());
  const char* outcome = partial ? "partial" : failure.ok() ? "complete" : "failed";
  if (a.json_out) {
    nlohmann::json doc{{"repos", per_repo},
                       {"totals", CountsJson(total)},
                       {"seconds", secs},
                       {"relinked", refreshed.link.issues},
                       {"ok", failure.ok() && total.skipped.empty()},
                       {"outcome", outcome},
                       {"db", ctx.db_dir}};
    if (!total.skipped.empty()) doc["skipped_endpoints"] = SkippedJson(total.skipped);
    if (!a.record.empty()) doc["record"] = a.record;
    *ctx.out << doc.dump() << "\n";
  } else if (total.repos > 0) {
    *ctx.out << "synced " << total.repos << " repositories: " << total.issues << " issues, "
             << total.pulls << " pull requests (" << total.detailed
             << " new or changed, details fetched), " << total.comments << " comments, "
             << total.commits << " commits, " << total.files << " files, " << total.operate_logs
             << " operate-log events, " << total.platform_links << " platform links; "
             << total.requests << " requests, " << total.retries << " retries, "
             << total.rate_limit_waits << " rate-limit waits, " << total.changed
             << " records new or changed, in " << Duration(secs) << "\n";
    if (!a.no_link)
      *ctx.out << "relinked " << refreshed.link.issues << " issues (" << refreshed.link.fixes
               << " fix links)\n";
    if (!total.skipped.empty())
      *ctx.out << "partial: " << total.skipped.size()
               << " detail endpoints skipped (recorded in the store; the next sync asks again)\n";
  }
  for (const auto& e : total.skipped)
    *ctx.err << "fixgraph: warning: skipped " << e.endpoint << " of " << e.item << ": " << e.reason
             << "\n";
  if (!failure.ok()) {
    ctx.Fail(failed > 1
                 ? failure.WithContext(std::to_string(failed) + " repositories failed; first")
                 : failure);
  }
  if (partial) ctx.exit_code = kExitPartial;
}

void RunSync(Context& ctx, const SyncArgs& a) {
  ingest::SyncOptions o = SyncOptionsFrom(ctx, a);

  // Targets: repositories and organisations.
  std::vector<RepoRef> repos;
  std::vector<std::pair<Platform, std::string>> orgs;
  ParseTargets(a, &repos, &orgs);

  // Pending work an earlier run left is finished with this run's, after the writes.
  auto store = ctx.OpenForWrite(/*finish_pending=*/false);
  if (!store.ok()) return ctx.Fail(store.status());
  ingest::SyncCounts total;
  auto start = std::chrono::steady_clock::now();
  auto progress = ctx.NewProgress("sync");
  for (const auto& [platform, org] : orgs) {
    progress->Phase("sync", ProgressState::Note(std::string("listing repositories of ") +
                                                PlatformName(platform) + ":" + org));
    auto list = ingest::ListOrgRepositories(platform, org, o, &total);
    if (!list.ok()) return ctx.Fail(list.status());
    repos.insert(repos.end(), list->begin(), list->end());
  }
  // One ETA for the whole run: the share done is the repositories done
  // plus the share of this one's two lists (issues, then pulls) by pages, so
  // it does not restart with each list or repository.
  progress->Phase("sync");
  std::int64_t items_before = 0;  // items of the repositories done
  if (progress->enabled()) {
    o.on_progress = [&](const ingest::SyncProgress& p) {
      ProgressState st;
      st.unit = "items";
      st.done = items_before + p.items;
      double list_share =
          p.total_pages > 0 ? std::min(1.0, static_cast<double>(p.page) / p.total_pages) : 0.0;
      double within = (p.list == "pulls" ? 0.5 : 0.0) + 0.5 * list_share;
      if (p.repo_count > 0)
        st.fraction =
            (static_cast<double>(p.repo_index) + within) / static_cast<double>(p.repo_count);
      st.detail =
          "[" + std::to_string(p.repo_index + 1) + "/" + std::to_string(p.repo_count) + "] " +
          p.repo + "  " + p.list + " page " + std::to_string(p.page) +
          (p.total_pages > 0 ? "/" + std::to_string(p.total_pages) : std::string()) + "  " +
          std::to_string(p.requests) + " requests" +
          (p.rate_limit_waits > 0 ? "  " + std::to_string(p.rate_limit_waits) + " rate-limit waits"
                                  : std::string());
      progress->Update(st);
    };
  }
  nlohmann::json per_repo = nlohmann::json::array();
  Status failure;     // the first repository that failed
  size_t failed = 0;  // repositories that failed
  for (size_t i = 0; i < repos.size(); ++i) {
    ingest::SyncCounts c;
    Status s = ingest::SyncRepository(store->get(), repos[i], o, &c, i, repos.size());
    items_before += c.issues + c.pulls;
    total.Add(c);
    nlohmann::json one = CountsJson(c);
    one["repo"] = repos[i].ToString();
    if (!c.skipped.empty()) one["skipped_endpoints"] = SkippedJson(c.skipped);
    if (!s.ok()) one["error"] = s.message();
    per_repo.push_back(one);
    if (!s.ok()) {
      if (failure.ok()) failure = s;
      ++failed;
      // A bad token or an unreachable host fails every repository alike.
      if (c.stop) break;
    }
  }
  progress->Finish();
  // Relink what was written, even when a later repository failed.
  RefreshStats refreshed;
  if (!a.no_link) {
    Status s = FinishPendingWork(ctx, store->get(), &refreshed);
    if (!s.ok() && failure.ok()) failure = s;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ReportSync(ctx, a, per_repo, total, refreshed, secs, failure, failed);
}

}  // namespace

void AddSyncCommand(CLI::App& app, Context& ctx) {
  auto* cmd =
      app.add_subcommand("sync",
                         "pull repositories over HTTP (GitCode, Gitee, GitHub); tokens from "
                         "GITCODE_TOKEN, GITEE_TOKEN, GITHUB_TOKEN");
  auto a = std::make_shared<SyncArgs>();
  cmd->add_option(
         "REPO", a->targets,
         "repositories (gitcode:Ascend/MindSpeed-Ops) or organisations (org:gitcode:Ascend)")
      ->required();
  cmd->add_option("--api-base", a->api_base,
                  "URL prefix replacing the platform's, e.g. http://127.0.0.1:8900/api/v5");
  cmd->add_option("--since", a->since,
                  "only items updated at or after TIME (default: the stored cursor)");
  cmd->add_option("--record", a->record, "also write what was fetched as a dump under DUMP");
  cmd->add_option("--state", a->state, "all, open or closed (default all)")
      ->check(OneOf({"all", "open", "closed"}));
  cmd->add_option(
      "--only", a->only,
      "detail endpoints to fetch, comma-separated: comments,commits,files,operate_logs,links");
  cmd->add_option("--skip", a->skip, "detail endpoints not to fetch, comma-separated");
  cmd->add_option("--rate-limit", a->rate_limit,
                  "requests per minute, 0 = no limit (default: GitCode 50, others none)");
  cmd->add_option("--parallel", a->parallel, "concurrent detail requests (default 4)")
      ->check(WholeNumber(1, 32));
  cmd->add_option("--per-page", a->per_page, "items per list page (default 100)")
      ->check(WholeNumber(1, 100));
  cmd->add_option("--timeout", a->timeout_s, "seconds per request (default 60)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", a->json_out, "print a JSON summary");
  cmd->add_flag("--all-details", a->all_details,
                "fetch every detail endpoint of each new or changed item (default: only those "
                "that can change a link or an answer)");
  cmd->add_option("--time-offset", a->time_offset,
                  "UTC offset of times sent without one (default +08:00 for GitCode and Gitee, "
                  "Z for GitHub)");
  cmd->add_flag("--no-link", a->no_link, "fetch only; do not relink the affected issues");
  cmd->callback([&ctx, a] { RunSync(ctx, *a); });
}

}  // namespace fixgraph::cli
