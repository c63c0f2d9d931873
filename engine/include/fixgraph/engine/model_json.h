// JSON encoding of the domain model, used for every `--json` output. (The
// store keeps records in a binary encoding, engine/record_codec.h, that holds
// the same fields: a record read back gives the same JSON. Both walk the field
// tables of fixgraph/engine/fields.h.)
//
// Times are written as UTC ISO 8601 strings ("2026-09-15T03:35:56Z") or null;
// references as their canonical text. Decoding is strict about types and
// returns Corruption naming the field.
//
// Thread safety: pure functions.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"

#include <nlohmann/json.hpp>

namespace fixgraph {

nlohmann::json ToJson(const User& v);
nlohmann::json ToJson(const Repository& v);
nlohmann::json ToJson(const Issue& v);
nlohmann::json ToJson(const PullRequest& v);
nlohmann::json ToJson(const Comment& v);
nlohmann::json ToJson(const Commit& v);
nlohmann::json ToJson(const FileChange& v);
nlohmann::json ToJson(const OperateLogEvent& v);
nlohmann::json ToJson(const PlatformLink& v);

Status FromJson(const nlohmann::json& j, User* out);
Status FromJson(const nlohmann::json& j, Repository* out);
Status FromJson(const nlohmann::json& j, Issue* out);
Status FromJson(const nlohmann::json& j, PullRequest* out);
Status FromJson(const nlohmann::json& j, Comment* out);
Status FromJson(const nlohmann::json& j, Commit* out);
Status FromJson(const nlohmann::json& j, FileChange* out);
Status FromJson(const nlohmann::json& j, OperateLogEvent* out);
Status FromJson(const nlohmann::json& j, PlatformLink* out);

// null or "2026-09-15T03:35:56Z".
nlohmann::json TimeToJson(const OptTime& t);

}  // namespace fixgraph
