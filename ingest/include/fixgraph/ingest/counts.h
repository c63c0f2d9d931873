// What an import (dump.h) or a sync (sync.h) wrote: one set of record counts
// for both, so that reports and their JSON read the same.
#pragma once

#include "fixgraph/engine/ref.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace fixgraph::ingest {

struct RecordCounts {
  std::int64_t repos = 0;
  std::int64_t issues = 0;  // a sync: list items seen (new, changed or not)
  std::int64_t pulls = 0;
  std::int64_t comments = 0;
  std::int64_t commits = 0;
  std::int64_t files = 0;
  std::int64_t operate_logs = 0;
  std::int64_t platform_links = 0;
  std::int64_t changed = 0;  // records that were new or different
  // Issues and PRs with new or changed data (Store::Batch::TouchedItems),
  // for RefreshAfterWrite.
  std::vector<Ref> touched;

  std::int64_t records() const {
    return issues + pulls + comments + commits + files + operate_logs + platform_links;
  }
  // Adds every count of `o` and appends its touched items.
  void AddRecords(const RecordCounts& o);
};

// {"repos", "issues", "pulls", "comments", "commits", "files", "operate_logs",
// "platform_links", "changed"}: the counts of `import --json` and, with its
// own fields added, of `sync --json`.
nlohmann::json ToJson(const RecordCounts& c);

}  // namespace fixgraph::ingest
