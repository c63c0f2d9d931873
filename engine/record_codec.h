// Binary encoding of the store's record values (column family "items"; the
// platform-link and mention rows of the index). Private to engine/.
//
// A value is one type byte followed by the record's fields in the order of its
// table in fixgraph/engine/fields.h, written with ByteWriter
// (fixgraph/engine/byte_codec.h). Encoding is
// deterministic, so equal records have equal bytes (the store's upserts
// compare bytes to detect "unchanged").
//
// Decode is strict: a wrong type byte, a truncated value or trailing bytes is
// Corruption. The format is part of the on-disk schema (kStoreSchemaVersion).
//
// Thread safety: pure functions.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"

#include <string>
#include <string_view>

namespace fixgraph::codec {

void Encode(const Repository& v, std::string* out);
void Encode(const Issue& v, std::string* out);
void Encode(const PullRequest& v, std::string* out);
void Encode(const Comment& v, std::string* out);
void Encode(const Commit& v, std::string* out);
void Encode(const FileChange& v, std::string* out);
void Encode(const OperateLogEvent& v, std::string* out);
void Encode(const PlatformLink& v, std::string* out);
void Encode(const MentionRecord& v, std::string* out);

Status Decode(std::string_view in, Repository* out);
Status Decode(std::string_view in, Issue* out);
Status Decode(std::string_view in, PullRequest* out);
Status Decode(std::string_view in, Comment* out);
Status Decode(std::string_view in, Commit* out);
Status Decode(std::string_view in, FileChange* out);
Status Decode(std::string_view in, OperateLogEvent* out);
Status Decode(std::string_view in, PlatformLink* out);
Status Decode(std::string_view in, MentionRecord* out);

}  // namespace fixgraph::codec
