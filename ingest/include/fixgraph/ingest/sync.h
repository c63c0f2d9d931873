// Live sync (design.md s4, s8): pull a repository's issues, pull requests and
// their details from the platform's v5 API (GitCode, Gitee) or GitHub's REST
// API into the store, incrementally and crash-safely.
//
// What is fetched, per repository (each detail kind selectable, see
// SyncOptions::endpoints):
//   GET /repos/{o}/{r}                                  the repository
//   GET /repos/{o}/{r}/issues?state=..&sort=..&since=..  issues (pages of 100)
//   GET /repos/{o}/{r}/pulls?state=..&sort=..            pull requests
//   per new or changed issue: comments, operate_logs (GitCode/Gitee:
//     /repos/{o}/issues/{n}/operate_logs?repo={r}), pull_requests (GitCode)
//   per new or changed PR: comments, commits, files, issues (GitCode/Gitee),
//     operate_logs (GitCode/Gitee)
// "Changed" means the list payload differs from the stored raw payload.
//
// Incremental: a cursor per repository and list (meta key SyncCursorKey) holds
// the newest updated_at seen; the next sync asks only for items updated since
// then (`since` where the platform has it; otherwise the list sorted by update,
// newest first, read until an older item). The cursor is written in the same
// WriteBatch as the page of data it covers, together with the page position,
// so kill -9 at any point followed by a rerun resumes and ends with the same
// store as an uninterrupted sync.
//
// Faults: 429, 403 with a rate-limit signal, GitCode's 418 (WAF), 5xx,
// transport errors (timeouts, resets) and bodies that are not JSON (truncated,
// HTML error pages) are retried with exponential backoff and jitter, honouring
// Retry-After and X-RateLimit-Reset; then reported naming the URL (tokens
// redacted). 401 fails at once. A 404 on the repository or a list fails the
// repository; a 404, another 4xx or repeated failure on one detail endpoint
// skips that endpoint of that item only (SyncCounts::skipped, recorded in the
// store under SyncSkippedKey and retried by the next sync). Connection
// refused and unknown hosts fail at once (IOError, SyncCounts::stop), before
// anything is written. A client-side limiter spaces requests (GitCode: 50 per
// minute by default).
//
// Detail endpoints are asked for only where they can change a link or an
// answer (SyncOptions::all_details turns this off): comments when the list
// shows some (or shows no count); for issues, operate logs, linked PRs and
// related branches when the issue is closed; for PRs, commits, files and
// operate logs when merged, linked issues when merged or when the PR's title
// or body names an issue.
//
// Tokens: looked up by the variable names GITCODE_TOKEN, GITEE_TOKEN,
// GITHUB_TOKEN only (SyncOptions::token_source; the cli reads them from the
// environment); sent as
// PRIVATE-TOKEN (GitCode), access_token (Gitee), Authorization: Bearer
// (GitHub); never printed, logged, recorded or stored.
//
// Thread safety: one sync per store at a time; SyncRepository uses up to
// `parallelism` threads internally for detail endpoints.
#pragma once

#include "fixgraph/engine/store.h"
#include "fixgraph/ingest/counts.h"
#include "fixgraph/ingest/http.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fixgraph::ingest {

// Detail endpoint names, as used by --only / --skip.
// "comments", "commits", "files", "operate_logs", "links" (issues/N/pull_requests
// and pulls/N/issues).
const std::vector<std::string>& AllSyncEndpoints();

struct SyncProgress {
  std::string repo;       // "gitcode:Ascend/MindSpeed-Ops"
  size_t repo_index = 0;  // 0-based
  size_t repo_count = 0;
  std::string list;        // "issues" or "pulls"
  int page = 0;            // last page fetched
  int total_pages = 0;     // from the total_page header, 0 when unknown
  std::int64_t items = 0;  // list items processed in this repository
  std::int64_t requests = 0;
  std::int64_t rate_limit_waits = 0;
  double elapsed_s = 0;
  double eta_s = -1;  // -1 when unknown
};

// A detail endpoint of one item that was skipped (404, another 4xx, or
// retries exhausted).
struct SkippedEndpoint {
  std::string item;      // "gitcode:Ascend/docs!12"
  std::string endpoint;  // file name in the dump: "issues.json", "comments.json", ...
  std::string url;       // tokens redacted
  std::string reason;    // the error and its likely cause
};

struct SyncCounts : RecordCounts {
  std::int64_t detailed = 0;  // items whose detail endpoints were fetched
  std::int64_t requests = 0;
  std::int64_t retries = 0;
  std::int64_t rate_limit_waits = 0;
  std::vector<SkippedEndpoint> skipped;  // partial: these are missing
  // Set with an error that concerns every repository (bad token, host not
  // reachable): a caller syncing several should stop.
  bool stop = false;
  void Add(const SyncCounts& o);
};

struct SyncOptions {
  // URL prefix replacing the platform's (https://api.gitcode.com/api/v5,
  // https://gitee.com/api/v5, https://api.github.com). Default: the platform's.
  std::string api_base;
  // Only items updated at or after this time. Default: the stored cursor.
  std::optional<UnixSeconds> since;
  // Issue/PR state filter: "all", "open" or "closed". Default: "all".
  std::string state = "all";
  // Detail endpoints to fetch (AllSyncEndpoints names). Default (empty): all.
  // A set holding no known name fetches the lists only.
  std::set<std::string> endpoints;
  // Write what was fetched as a dump (design.md s3) under this folder. Default: none.
  std::string record_dir;
  // Items per list page (1..100). Default: 100.
  int per_page = 100;
  // Concurrent detail requests. Default: 4.
  int parallelism = 4;
  // Fetch every detail endpoint of every new or changed item, not only those
  // that can change a link or an answer. Default: false.
  bool all_details = false;
  // Minutes east of UTC assumed for timestamps without an offset. Default:
  // +08:00 for GitCode and Gitee, UTC for GitHub (mapper.h).
  std::optional<int> naive_utc_offset_minutes;
  // Client-side limit in requests per minute; 0 = none, -1 = the platform's
  // default (GitCode 50, others none).
  double requests_per_minute = -1;
  // Attempts per request for retryable faults. Default: 6.
  int max_attempts = 6;
  // First backoff and cap (ms); jitter halves at random. Defaults: 1000, 60000.
  // The cli sets the first from $FIXGRAPH_HTTP_BACKOFF_MS when set (tests).
  int backoff_ms = 1000;
  int max_backoff_ms = 60000;
  // Longest wait honoured from Retry-After / X-RateLimit-Reset. Default: 900 s.
  int max_wait_s = 900;
  // HTTP timeouts (ms). Defaults: 60000 / 10000.
  long timeout_ms = 60000;
  long connect_timeout_ms = 10000;
  // Client to use; default: libcurl. Not owned.
  HttpClient* client = nullptr;
  // Token lookup by the name of the platform's token variable (GITCODE_TOKEN,
  // GITEE_TOKEN, GITHUB_TOKEN); "" = no token. Default (unset): no token. The
  // cli looks the name up in the environment; tests inject. The token is only
  // sent, never logged, stored or put in a message.
  std::function<std::string(const std::string& env_name)> token_source;
  // Called after each list page is committed, and when waiting.
  std::function<void(const SyncProgress&)> on_progress;
  // Test hook: called after each committed page batch with the count so far.
  std::function<void(size_t batches)> after_batch;
};

// Meta key of a repository's sync cursor (JSON).
std::string SyncCursorKey(const RepoRef& repo);
// Meta key of the detail endpoints a repository's syncs skipped and have not
// fetched since (a JSON array of {item, endpoint, url, reason}); absent when
// none.
std::string SyncSkippedKey(const RepoRef& repo);

// Parses "gitcode:Ascend/MindSpeed-Ops" (or "org:gitcode:Ascend" when
// `org` is non-null, which receives the organisation). InvalidArgument names
// the text.
Status ParseSyncTarget(const std::string& text, RepoRef* repo, std::string* org);

// The repositories of an organisation (GET /orgs/{org}/repos, all pages).
StatusOr<std::vector<RepoRef>> ListOrgRepositories(Platform platform, const std::string& org,
                                                   const SyncOptions& options, SyncCounts* counts);

// Syncs one repository into the store (and the record dump when set).
// `repo_index`/`repo_count` only feed progress.
Status SyncRepository(Store* store, const RepoRef& repo, const SyncOptions& options,
                      SyncCounts* counts, size_t repo_index = 0, size_t repo_count = 1);

}  // namespace fixgraph::ingest
