// The stored form of the linker's records (private to graph/).
//
// A links record (derived kind "links", one per issue) is the IssueLinks
// value in the binary form of fixgraph/engine/byte_codec.h, type byte 'L';
// the reverse index row (kind "pull_links", one per PR) is the sorted list of
// issue references, type byte 'P'. Records written by earlier builds are JSON
// (links.h's form, and a JSON array of strings); Decode reads both, so a
// store linked before the change keeps working until it is relinked.
//
// Decode is strict: Corruption names what is wrong. Encoding is
// deterministic.
//
// Thread safety: pure functions.
#pragma once

#include "fixgraph/engine/status.h"
#include "fixgraph/graph/links.h"

#include <set>
#include <string>
#include <string_view>

namespace fixgraph::graph {

void EncodeLinks(const IssueLinks& v, std::string* out);
Status DecodeLinks(std::string_view in, IssueLinks* out);

void EncodePullLinks(const std::set<std::string>& issues, std::string* out);
Status DecodePullLinks(std::string_view in, std::set<std::string>* out);

}  // namespace fixgraph::graph
