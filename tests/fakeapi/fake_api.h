// A fake GitCode / Gitee / GitHub API on loopback, serving a recorded dump
// (design.md s3) the way the platforms do (reference/api.md), for the sync
// tests and for trying `fixgraph sync` without a network.
//
// Routes (under any prefix, e.g. /api/v5; an optional first segment
// /gitcode, /gitee or /github picks the platform when an OWNER/REPO exists
// on several):
//   GET /repos/O/R                               repo.json
//   GET /repos/O/R/issues|pulls                  state, sort (created|updated),
//        direction (asc|desc), since, page, per_page (default 20, max 100)
//   GET /repos/O/R/issues/N, /pulls/N            one item
//   GET /repos/O/R/issues/N/{comments,pull_requests,related_branches}
//        (pull_requests, related_branches: GitCode; served as the file holds
//        them, an object included)
//   GET /repos/O/issues/N/operate_logs?repo=R    (GitCode, Gitee)
//   GET /repos/O/R/pulls/N/{comments,commits,files,issues,operate_logs}
//   GET /orgs/O/repos                            repositories of an owner
// Detail lists are paginated when page or per_page is given, else whole.
// Pagination headers: GitCode total_count/total_page, Gitee Total_count/
// Total_page (other case on purpose), GitHub Link (rel="next", rel="last").
// Errors use each platform's body shape ({"error_message"...} / {"message"}).
//
// Faults (FakeFault) are matched against "PATH?QUERY" in arrival order.
// Quirks (FakeQuirk) rewrite what is served into a shape the real platforms
// also send, whatever the dump holds.
// Thread safety: all methods may be called while the server runs.
#pragma once

#include "fixgraph/engine/status.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph::fakeapi {

struct FakeFault {
  // 429 (with Retry-After), 403rate (403 + X-RateLimit-Remaining: 0 and
  // X-RateLimit-Reset), 418, 500, 502, 503, slow (delay, then normal),
  // truncate (half the body, then the connection is cut), reset (connection
  // cut before any byte), html (200 with an HTML page), badjson (200, body cut
  // short but complete), shift (after serving this list page, a new item
  // appears at the front of the list), unshift (after serving, the first item
  // of the list disappears), 404 (the platform's 404 body, as GitCode answers
  // for some pulls/N/issues).
  std::string kind;
  int count = 1;          // matching requests affected; -1 = all
  std::string match;      // substring of "PATH?QUERY"; "" = any
  int retry_after_s = 1;  // 429 / 403rate
  int slow_ms = 1500;     // slow
};

// "KIND[:COUNT[:MATCH]]", e.g. "429:2:/issues", "slow:1", "500:-1:/pulls/3/files".
StatusOr<FakeFault> ParseFakeFault(const std::string& spec);

// Response shapes the platforms send that a dump may not hold:
//   action-only   operate-log records without action_type (GitCode's 2024
//                 shape: the type only in "action")
//   links-object  issues/N/pull_requests as one object when it holds one PR
//                 (as the GitCode docs show it)
//   naive-times   "2024-04-24T22:27:49+08:00" sent as "2024-04-24 22:27:49"
//                 (China time without an offset)
//   no-close-time closed issues sent with finished_at "" and closed_at null
//                 (GitCode issues rejected or closed by a custom state)
enum class FakeQuirk { kActionOnly, kLinksObject, kNaiveTimes, kNoCloseTime };
StatusOr<FakeQuirk> ParseFakeQuirk(const std::string& name);

struct FakeRequest {
  std::string path;   // without the query
  std::string query;  // raw query string
  int status = 0;
  std::string fault;          // fault applied, "" when none
  std::string private_token;  // the PRIVATE-TOKEN header
  std::string authorization;  // the Authorization header
  std::string access_token;   // the access_token query parameter
  std::string user_agent;
};

class FakeApi {
 public:
  explicit FakeApi(std::string dump_dir);
  ~FakeApi();
  FakeApi(const FakeApi&) = delete;
  FakeApi& operator=(const FakeApi&) = delete;

  // Requests must carry this token (per the platform's auth forms), else 401.
  void RequireToken(const std::string& token);
  void AddFault(const FakeFault& fault);
  void AddQuirk(FakeQuirk quirk);

  // Listens on host:port (0 = any free port) in a background thread.
  // Returns the port.
  StatusOr<int> Start(const std::string& host = "127.0.0.1", int port = 0);
  // Serves on the calling thread until Stop (for the binary). Port 0 picks a
  // free port; `bound` (when set) is called with the port once it listens.
  Status Listen(const std::string& host, int port, const std::function<void(int)>& bound = {});
  void Stop();

  // "http://127.0.0.1:PORT/api/v5".
  std::string BaseUrl() const;
  std::vector<FakeRequest> Requests() const;
  void ClearRequests();
  // Drops cached files (after a test rewrites the dump).
  void Reload();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fixgraph::fakeapi
