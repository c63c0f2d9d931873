// Writes what a sync fetched as a recorded dump (design.md s3), so that
// importing it gives the same store as the sync that wrote it. Private to ingest/.
//
// List files (issues.json, pulls.json) are kept in memory, one element per
// item number (a later copy of an item replaces the earlier one: items that
// shift between pages are written once) and written by Finish. Detail files
// are written as they arrive. Not thread-safe.
#pragma once

#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/status.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fixgraph::ingest {

class DumpWriter {
 public:
  DumpWriter(const std::string& dump_dir, const RepoRef& repo);

  Status SetRepository(const nlohmann::json& repo);
  // `list` is "issues" or "pulls"; `key` the item number.
  void AddListItem(const std::string& list, const std::string& key, const nlohmann::json& item);
  // DUMP/.../<folder>/<number>/<file>, e.g. ("pulls", "12", "files.json").
  Status WriteDetail(const std::string& folder, const std::string& number, const std::string& file,
                     const nlohmann::json& array);
  Status Finish();

 private:
  Status WriteJson(const std::string& path, const nlohmann::json& j);

  std::string root_;
  struct List {
    std::vector<nlohmann::json> items;
    std::map<std::string, size_t> index;
    bool used = false;
  };
  std::map<std::string, List> lists_;
};

}  // namespace fixgraph::ingest
