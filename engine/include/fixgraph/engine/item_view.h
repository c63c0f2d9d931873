// ItemView: one item with everything the store knows around it, as the JSON
// document `fixgraph show --json` prints (and the HTTP API serves).
//
//   issue: {"kind":"issue", "issue":{...}, "comments":[...], "operate_log":[...],
//           "platform_links":[...], "mentioned_by":[...]}
//     mentioned_by lists every recorded mention of the issue: which PR or issue
//     (title, body, comment or commit) names it, how ("#69", URL), with which
//     keyword, and the mentioning PR's state and merge time when it is a PR.
//   pull:  {"kind":"pull", "pull":{...}, "comments":[...], "commits":[...],
//           "files":[...], "operate_log":[...], "platform_links":[...],
//           "mentions":[...], "mentioned_by":[...]}
//     mentions lists what the PR's own texts name.
//   repo:  {"kind":"repo", "repository":{...}, "stats":{...}}
//
// Thread safety: reads only; safe to call concurrently on one Store.
#pragma once

#include "fixgraph/engine/store.h"

#include <nlohmann/json.hpp>

namespace fixgraph {

// NotFound when the item is not in the store; InvalidArgument for doc refs.
StatusOr<nlohmann::json> BuildItemView(const Store& store, const Ref& ref);

nlohmann::json ToJson(const MentionRecord& m);
nlohmann::json ToJson(const RepoStats& s);

}  // namespace fixgraph
