// What the HTTP server (`serve`) and the MCP server (`mcp`) answer from: the
// store opened read-only, reopened when another process (import, sync, link)
// has written to it since, and the ask searcher. Private to cli/.
//
// Freshness: a read-only RocksDB instance sees the data as of its Open. Before
// a request, Acquire() compares a cheap signature of the store directory (the
// names, sizes and modification times of CURRENT, MANIFEST-* and the *.log
// write-ahead logs) with the one the open instance was made from, at most once
// per `recheck` interval, and opens a new instance when it changed. Requests
// in flight keep the instance they started with (shared_ptr). When reopening
// fails (a writer mid-flight), the previous instance keeps serving and the
// next check tries again.
//
// Thread safety: every method may be called from several threads at once.
#pragma once

#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/query/ask.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <shared_mutex>
#include <string>
#include <vector>

namespace fixgraph::cli {

// HTTP status for an error Status (400, 404, 409, 503, 500).
int HttpStatusFor(const Status& s);
// {"error": {"status": HTTP, "code": "invalid_argument", "message": "..."}}
nlohmann::json ErrorDocument(int http_status, const std::string& message);

// Parses JSON a client sent (an HTTP request body, an MCP message) without
// ever throwing: a syntax error, a number out of range (1e400) or nesting
// deeper than `max_depth` arrays/objects is InvalidArgument naming the problem
// and the byte offset. `what` names the input in the message ("request body").
constexpr size_t kMaxClientJsonDepth = 64;
StatusOr<nlohmann::json> ParseClientJson(const std::string& text, const std::string& what,
                                         size_t max_depth = kMaxClientJsonDepth);

class Backend {
 public:
  // `docs`: the doc sources ask opens (query::OpenDocSources).
  explicit Backend(std::string db_dir,
                   std::chrono::milliseconds recheck = std::chrono::milliseconds(200),
                   query::DocSourceConfig docs = {});
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // The current store (opened on first use; reopened when stale).
  StatusOr<std::shared_ptr<const Store>> Acquire();
  // How many times the store was (re)opened; for health and tests.
  std::int64_t opens() const;

  // ask: the same document as `ask --json`. Unavailable when this build or
  // this data directory has no ask index.
  // `min_score`: the noise floor (query::AskOptions::min_score).
  StatusOr<nlohmann::json> Ask(const std::string& text, size_t limit, const std::string& repo,
                               double min_score = query::kDefaultMinScore);
  // The same document as text (query::ToJsonText: the bytes of Ask(...).dump()).
  StatusOr<std::string> AskText(const std::string& text, size_t limit, const std::string& repo,
                                double min_score = query::kDefaultMinScore);
  bool AskAvailable();

  const std::string& db_dir() const { return db_dir_; }

 private:
  std::string StoreSignature() const;
  template <typename Out>
  StatusOr<Out> AskAs(const std::string& text, size_t limit, const std::string& repo,
                      double min_score);
  Status OpenSearcherLocked();

  std::string db_dir_;
  std::chrono::milliseconds recheck_;
  query::DocSourceConfig docs_;
  mutable std::mutex mu_;
  std::shared_ptr<const Store> store_;
  std::string signature_;
  std::chrono::steady_clock::time_point checked_{};
  std::int64_t opens_ = 0;
  bool stale_for_searcher_ = false;

  struct SearchState;
  std::unique_ptr<SearchState> search_;
};

// Which Backend answers a request: one data directory (`serve --db`), or
// the snapshot the symbolic link <root>/current names (`serve --snapshots`,
// docs/deploy.md), swapped while serving.
//
// A request takes Current() once and answers from that Backend alone, so
// in-flight requests finish on the snapshot they started with while new ones
// get the new one. Refresh() opens the snapshot `current` names when it is
// another one (its store, and its ask index when it has one) before swapping,
// so a snapshot that cannot be opened never replaces a good one. A replaced
// Backend is kept until ReleaseUnused() finds no request holding it and
// closes it.
//
// Thread safety: every method may be called from several threads at once.
class BackendSource {
 public:
  // Serves `db_dir`, reopened as writers change it (Backend's own check).
  BackendSource(std::string db_dir, query::DocSourceConfig docs);
  // Serves the snapshot <root>/current names; fails when it cannot be opened.
  static StatusOr<std::unique_ptr<BackendSource>> ForSnapshots(const std::string& root,
                                                               query::DocSourceConfig docs);

  std::shared_ptr<Backend> Current() const;

  // With --snapshots: resolves <root>/current again and, when it names
  // another snapshot, opens it and makes it current. True when it swapped;
  // an error (the current snapshot keeps serving) when the new one cannot be
  // opened. Without --snapshots: false.
  StatusOr<bool> Refresh();
  // Closes the replaced snapshots no request uses any more; their folders.
  std::vector<std::string> ReleaseUnused();

  bool follows_snapshots() const { return !root_.empty(); }
  // The folder served (the snapshot's real path, or the --db directory).
  std::string serving() const;
  std::int64_t swaps() const;
  // Backends open: the current one, the replaced ones still in use and those
  // ReleaseUnused() is closing (counted until their files are closed).
  size_t open() const;

 private:
  BackendSource() = default;
  static StatusOr<std::shared_ptr<Backend>> OpenSnapshot(const std::string& dir,
                                                         const query::DocSourceConfig& docs);
  StatusOr<std::string> ResolveCurrent() const;

  std::string root_;  // "" without --snapshots
  query::DocSourceConfig docs_;
  std::mutex refresh_mu_;  // one Refresh at a time
  mutable std::mutex mu_;
  std::shared_ptr<Backend> current_;
  std::string serving_;
  std::vector<std::shared_ptr<Backend>> retired_;
  size_t closing_ = 0;  // taken out of retired_, not yet closed
  std::int64_t swaps_ = 0;
};

}  // namespace fixgraph::cli
