// The JSON documents shared by the command line (`show --json`, `links
// --json`, `stats --json`), the HTTP API (`serve`) and the MCP server (`mcp`),
// so every front end returns the same bytes for the same question.
// Private to cli/.
//
//   ShowDocument:  the item view (engine/item_view.h); for an issue also
//                  "links" (graph ToJson(IssueLinks), null when never linked)
//                  and "explanation" (ExplainLines).
//   ForEachLinksDocument: one graph ToJson(IssueLinks) per issue, in store
//                  order (the lines of `links --json`).
//   StatsDocument: {"repositories": [RepoStats...], "totals": {...,
//                  "repositories": N}, "interrupted_imports": [REPO...]}
//
// Errors are values: InvalidArgument for a malformed reference or repository
// (the message names the text), NotFound for an item not in the store.
// Thread safety: reads only; safe to call concurrently on one Store.
#pragma once

#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/query/digest.h"
#include "fixgraph/query/docs.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fixgraph::cli {

StatusOr<nlohmann::json> ShowDocument(const Store& store, const std::string& ref_text);

// Parses a repository filter ("" = every repository; *set tells which).
// `what` names the input in the error ("--repo", "repo").
Status ParseRepoFilter(const std::string& text, const std::string& what, RepoRef* out, bool* set);
// Checks an owner filter ("" = every owner; "Ascend", "gitcode:Ascend",
// "group/subgroup"): a known platform and valid path segments, or an
// InvalidArgument naming `what`.
Status CheckOrgFilter(const std::string& text, const std::string& what);

// Calls fn with each issue's links document; stops early when fn returns false.
Status ForEachLinksDocument(const Store& store, const RepoRef* repo,
                            const std::function<bool(const nlohmann::json&)>& fn);

// One page of the links documents, for the HTTP API (/api/v1/links?cursor=&limit=)
// and MCP list_links. Pages follow store order; a cursor is the reference of
// the last issue of the page before ("" = the first page), so pages stay
// right while issues are added. `next_cursor` is unset on the last page.
// A cursor that names no issue of the listing is InvalidArgument.
constexpr size_t kDefaultLinksPage = 100;
constexpr size_t kMaxLinksPage = 1000;
struct LinksPageResult {
  std::vector<nlohmann::json> issues;
  std::optional<std::string> next_cursor;
  // {"issues": [...], "next_cursor": "..." or null}
  nlohmann::json ToJson() const;
};
StatusOr<LinksPageResult> LinksPage(const Store& store, const RepoRef* repo,
                                    const std::string& cursor, size_t limit);

// Counts per repository and in total, and interrupted imports.
struct StatsData {
  std::vector<RepoStats> rows;
  RepoStats total;
  std::vector<std::string> interrupted;
  PendingWork pending;  // derived work still to do (Store::ListPending)
};
StatusOr<StatsData> CollectStats(const Store& store);
nlohmann::json StatsDocument(const StatsData& data);
StatusOr<nlohmann::json> StatsDocument(const Store& store);

// A digest as `fixgraph digest` writes it (same flags, same bytes):
// format "md" (default), "json" (pretty-printed, 2 spaces) or "html";
// lang "zh" (default) or "en"; since/until dates ("2026-09-15", a bare
// --until date meaning the whole day) or ISO times; repos and org filters;
// min_tier "A".."D" ("" = the rules' default).
struct DigestRequest {
  std::vector<std::string> repos;
  std::string org;
  std::string since;
  std::string until;
  std::string min_tier;
  std::string lang = "zh";
  std::string format = "md";
  std::optional<query::DigestRules> rules;  // unset: the built-in rules
};
// What a rendered digest covers, for a one-line report.
struct DigestCounts {
  size_t cases = 0;
  size_t repos = 0;
  size_t excluded = 0;
};
// The rendered digest. InvalidArgument naming the bad field (`what` prefixes
// the field name: "--" for flags, which then read "--min-tier", "" for HTTP
// parameters); NotFound for a repository not in the store. `counts` may be
// null.
// The checks of DigestText that need no store (flags, dates, formats).
Status CheckDigestRequest(const DigestRequest& request, const std::string& what = "");

// OK when the store holds `repo`; else NotFound naming it and the
// repositories the store does hold (a few, those of the same owner or name
// first).
Status RequireRepository(const Store& store, const RepoRef& repo);

// A doc hit's products as the text output shows them after its id: "" when
// it has none, else "  [A2, A3, inference]", and for a support question the
// families it names, "  asked: inference listed, 950 not listed".
std::string DocProductsText(const query::DocHit& hit);

// `on_progress`: query::DigestOptions::on_progress (repositories collected).
StatusOr<std::string> DigestText(
    const Store& store, const DigestRequest& request, const std::string& what = "",
    DigestCounts* counts = nullptr,
    const std::function<void(size_t done, size_t total)>& on_progress = {});
// The same digest written to `sink` in pieces (JSON: query::WriteJson, never
// held whole; Markdown and HTML: one piece). Nothing is written before the
// digest is built, so an error of the request or the store writes nothing.
Status WriteDigest(const Store& store, const DigestRequest& request, const std::string& what,
                   DigestCounts* counts,
                   const std::function<void(size_t done, size_t total)>& on_progress,
                   const query::TextSink& sink);

}  // namespace fixgraph::cli
