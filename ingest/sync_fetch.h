// The request side of live sync (sync.h), private to ingest/: what each
// platform's API offers (reference/api.md), and Fetcher, which sends GETs with
// the platform's auth, a client-side rate limit, retries with backoff and
// jitter (honouring Retry-After and X-RateLimit-Reset), page walking, and
// tokens redacted from every message and URL it returns.
//
// Errors: FailedPrecondition for 401, a 403 that is not a rate limit, or a
// refused redirect (no retry); NotFound for 404; IOError when nothing listens
// or the host does not resolve; InvalidArgument for another 4xx; Unavailable
// or Corruption (a body that is not JSON) after the last attempt. Each names
// the URL with the token redacted.
//
// Thread safety: one Fetcher may be used from many threads (the limiter,
// jitter and counters are shared under a lock or atomic).
#pragma once

#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/ingest/counts.h"
#include "fixgraph/ingest/http.h"
#include "fixgraph/ingest/sync.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>

namespace fixgraph::ingest {

// Most pages read from one list or detail endpoint.
inline constexpr int kMaxPages = 100000;

// ---- Platform facts (reference/api.md).
struct PlatformApi {
  Platform platform;
  std::string default_base;
  std::string token_env;
  double default_rpm;     // client-side limit by default
  bool pulls_since;       // the PR list takes `since`
  bool operate_logs;      // issue and PR operate logs exist
  bool issue_pull_links;  // issues/N/pull_requests
  bool pull_issue_links;  // pulls/N/issues
  bool related_branches;  // issues/N/related_branches
};

PlatformApi ApiFor(Platform p);

// The message of a JSON error body ("message", "error_message" or "error");
// "" when there is none.
std::string ErrorMessageOf(const std::string& body);

// Spaces requests evenly: at most `rpm` per minute across threads.
class Limiter {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Limiter(double rpm)
      : interval_(rpm > 0 ? std::chrono::duration<double>(60.0 / rpm)
                          : std::chrono::duration<double>(0)) {}
  // Returns true when it had to wait.
  bool Acquire() {
    if (interval_.count() <= 0) return false;
    Clock::time_point at;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Clock::time_point now = Clock::now();
      at = std::max(now, next_);
      next_ = at + std::chrono::duration_cast<Clock::duration>(interval_);
    }
    if (at <= Clock::now()) return false;
    std::this_thread::sleep_until(at);
    return true;
  }

 private:
  std::chrono::duration<double> interval_;
  std::mutex mu_;
  Clock::time_point next_{};
};

struct Fetched {  // NOLINT(bugprone-exception-escape): json's destructor may allocate
  nlohmann::json body;
  HttpResponse response;  // headers (body moved out)
};

// Requests with auth, limits, retries and redaction.
class Fetcher {
 public:
  using json = nlohmann::json;

  // Uses options.client, or a curl client of its own; the token comes from
  // options.token_source($<platform>_TOKEN).
  Fetcher(Platform platform, const SyncOptions& options);

  const PlatformApi& api() const { return api_; }
  std::int64_t requests() const { return requests_; }
  std::int64_t waits() const { return waits_; }
  std::int64_t retries() const { return retries_; }

  // Removes the token from any text that leaves this class.
  std::string Shown(const std::string& path_query) const { return Scrub(base_ + path_query); }
  std::string Scrub(std::string s) const;

  // GET base + path_query; the body must be JSON. `not_found` explains a
  // 404 (default: the repository is missing or hidden).
  StatusOr<Fetched> Get(const std::string& path_query, const std::string& not_found = "");

  // Every page of a detail list, concatenated. `object_ok`: a single object
  // (as some docs show issues/N/pull_requests) is taken as a list of one.
  StatusOr<json> GetAll(const std::string& path, const std::string& query, bool paged,
                        const std::string& not_found = "", bool object_ok = false);

  // Whether a list has a page after `page` (which held `got` items): the Link
  // header when there is one, else a full page and total_page not reached.
  static bool HasNextPage(const HttpResponse& r, int page, size_t got, int per_page);

 private:
  static bool IsRateLimit(const HttpResponse& r, const std::string& msg);
  // The wait the server asks for in ms (Retry-After, X-RateLimit-Reset); -1 none.
  static long ServerWaitMs(const HttpResponse& r);
  long Backoff(int attempt);

  PlatformApi api_;
  const SyncOptions& options_;
  Limiter limiter_;
  std::mt19937 rng_;
  std::mutex rng_mu_;
  std::string base_;
  std::string token_;
  int backoff_ms_ = 1000;
  HttpClient* client_ = nullptr;
  std::unique_ptr<HttpClient> owned_;
  std::atomic<std::int64_t> requests_{0};
  std::atomic<std::int64_t> retries_{0};
  std::atomic<std::int64_t> waits_{0};
};

}  // namespace fixgraph::ingest
