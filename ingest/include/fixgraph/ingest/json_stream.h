// Streaming reads of JSON files, so that a dump's issues.json of any size is
// read in constant memory: one array element at a time.
//
// Errors name the file and, for syntax errors, the byte offset:
//   "dump/gitcode/a/b/issues.json: byte 1207: syntax error ... unexpected '}'".
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "fixgraph/engine/status.h"

namespace fixgraph::ingest {

// Calls fn(element, index) for each element of the top-level array in `path`,
// in order. Stops at the first non-OK status from fn and returns it (with the
// file and item index prepended). A file whose top level is not an array is
// Corruption; an unreadable file is IOError.
Status ForEachArrayElement(const std::string& path,
                           const std::function<Status(nlohmann::json& element, size_t index)>& fn);

// Reads a whole JSON document (for small files such as repo.json).
StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

}  // namespace fixgraph::ingest
