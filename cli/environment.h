// The environment variables the library's settings come from, read once per
// Run (cli.cc) and passed down as options and setters: engine/, ingest/,
// graph/ and query/ never read the environment (docs/architecture.md,
// "Configuration"). Private to cli/.
#pragma once

#include "fixgraph/query/docs.h"

#include <optional>
#include <ostream>
#include <string>

namespace fixgraph::cli {

struct Environment {
  std::string tz;            // $FIXGRAPH_TZ ("" when unset): the display offset
  long crash_at = 0;         // $FIXGRAPH_CRASH_AT (crash tests; engine/store.h SetCrashPoints)
  bool crash_count = false;  // $FIXGRAPH_CRASH_COUNT set and not empty
  std::optional<int> http_backoff_ms;  // $FIXGRAPH_HTTP_BACKOFF_MS when set and not empty
  unsigned link_threads = 0;           // $FIXGRAPH_LINK_THREADS (0: the machine's)
  std::optional<size_t> link_batch;    // $FIXGRAPH_LINK_BATCH when set and not empty
  unsigned index_threads = 0;          // $FIXGRAPH_INDEX_THREADS (0: the machine's)
  // $FIXGRAPH_KG_MODE, _URL, _API_KEY, _TIMEOUT, _TUNE; local.debug is the
  // given stream when $FIXGRAPH_KG_DEBUG is set (to anything).
  query::DocSourceConfig docs;
};

// Reads the variables above; `debug` is where $FIXGRAPH_KG_DEBUG sends the
// doc search's debug lines.
Environment ReadEnvironment(std::ostream* debug);

// Applies the process-wide settings: the display offset (engine/time.h) and
// the crash points (engine/store.h).
void ApplyEnvironment(const Environment& env);

// The value of environment variable `name`, "" when unset: the sync token
// lookup (ingest::SyncOptions::token_source). The value is never logged.
std::string EnvironmentValue(const std::string& name);

}  // namespace fixgraph::cli
