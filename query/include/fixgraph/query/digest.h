// Curated digests (design.md s7): the seed's kind of document, generated from
// the store and the linker's stored results (graph/linker.h), for a chosen set
// of repositories and time window.
//
// BuildDigest selects candidate issues (repositories, organisation, window),
// applies the selection rules (DigestRules; defaults compiled in, overridable
// from data/digest/rules.json or --config) and gathers, for each included
// issue, the facts every rendered sentence is built from: the one-line
// problem (extracted from the title/body), the fix PRs with tier, merge time
// and evidence kinds, the flags, and the answer comment. It also groups issues
// into themes (GraphView clusters plus shared salient terms), picks the
// troubleshooting rows (symptom -> first action, both extractive) and counts
// everything for the disclosure section. Nothing is invented: every sentence
// a renderer writes names a stored fact.
//
// Output is deterministic: repositories sorted by reference, issues by number
// (numerically when both are digits), themes by their first issue, counts in
// sorted maps; no wall-clock time appears (the "as of" date is --until or the
// latest time in the data).
//
// JSON (ToJson), stable for /api/v1/digest:
//   {"version": 1,
//    "selection": {"repos": [..], "org": "", "since": "", "until": "", "min_tier": "D",
//                  "as_of": "2026-09-16"},
//    "overview": [{"repo": REF, "name": "FlashGen", "role": "...",
//                  "role_text": {"zh", "en"}, "included": 3}],
//    "repos": [{"repo": REF, "name", "role", "role_text", "url",
//               "cases": [CASE...]}],
//   ("role" is the description's line, "" when there is none; "role_text" what
//    RepoRole writes, never empty.)
//    "themes": [{"id": 1, "terms": ["ffmpeg", ...], "repos": [REF...],
//                "issues": [REF...], "via": "graph" | "terms" | "repo"}],
//    "troubleshooting": [{"symptom": "...", "action": "...", "source": "answer"|"fix_title",
//                         "cases": [REF...]}],
//    "disclosure": {"links_by_tier": {"A": 9}, "links_by_evidence": {"close_at_merge": 9},
//                   "issues_by_tier": {"A": 8, "none": 12}, "resolutions": {"fixed": 30},
//                   "traps": {"fix_before_issue": [REF..], "close_lag": [..], "false_lead": [..],
//                             "backport": [..], "cross_platform": [..]},
//                   "traceless": {"vendor_fix": [REF..], "service_side": [..], "other_platform":
//                   [..]}, "excluded": [{"issue": REF, "title", "reason":
//                   "stale"|"wontfix"|"duplicate"|
//                                 "no_evidence"|"open"|"below_min_tier", "detail": "..."}],
//                   "candidates": {"considered": 70, "included": 52, "excluded": 18,
//                                  "by_reason": {"stale": 4}}}}
//   CASE = {"issue": REF, "number": "69", "title", "url", "problem", "resolution",
//           "tier": "A".."D" or "", "created_at", "closed_at" (UTC ISO or null),
//           "fixes": [{"pr": REF or URL, "short": "!166", "url", "title", "tier", "confidence",
//                      "state", "merged_at", "created_at", "base_ref", "backport_of",
//                      "evidence": [{"kind", "delta_s"?, "detail"}]}],
//           "evidence": [issue-level evidence], "flags": [..], "false_leads": [..],
//           "duplicate_of": REF or null,
//           "answer": {"author", "created_at", "kind", "text"} or null,
//           "fix_note": {"pr": REF, "cause", "change"} or null,
//           "summary": {"zh": "...", "en": "..."}}
//
// Thread safety: BuildDigest only reads the store (safe concurrently with other
// readers); it collects repositories on up to one thread per core, and
// RenderMarkdown renders repository tables the same way (output unchanged:
// parts are merged in repository order). Digest is a plain value; renderers
// are pure.
#pragma once

#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"
#include "fixgraph/graph/links.h"

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fixgraph::query {

enum class Lang { kZh, kEn };
// "zh" / "en"; InvalidArgument otherwise.
StatusOr<Lang> ParseLang(std::string_view text);

// Selection rules (data/digest/rules.json). Defaults are compiled in.
struct DigestRules {
  // Resolutions that are included (others are excluded with their reason).
  // Default: fixed, fixed_elsewhere, answered.
  std::vector<std::string> include_resolutions = {"fixed", "fixed_elsewhere", "answered"};
  // A duplicate whose linker chain found fix PRs is included (it is how the
  // reader learns the fix). Default: true.
  bool include_duplicates_with_fixes = true;
  // A "fixed" issue needs at least one fix PR at this tier or better; an
  // "answered"/"fixed_elsewhere" issue needs an answer comment, a fix or
  // issue-level evidence. Default: "D" (inferred links are shown, labelled).
  std::string min_tier = "D";
  // At most this many troubleshooting rows (0: none). Default: 20.
  int troubleshooting_max = 20;
  // Themes: a salient term groups issues when it appears in at least
  // term_min_issues and at most max(term_min_issues, term_max_share *
  // included) included issues. Defaults: 2, 0.1.
  int term_min_issues = 2;
  double term_max_share = 0.1;
  // At most this many characters in a one-line problem / action. Defaults: 60, 70.
  int problem_max_chars = 60;
  int action_max_chars = 70;
  // Words that never count as salient terms (lower case).
  std::vector<std::string> stop_terms;
};

// The compiled-in defaults (the content of data/digest/rules.json at build time).
DigestRules DefaultDigestRules();
// Parses a rules file; fields absent keep their defaults. InvalidArgument names
// the field.
StatusOr<DigestRules> ParseDigestRules(const std::string& json_text, const std::string& where);

struct DigestOptions {
  std::vector<RepoRef> repos;  // empty: every repository (after org)
  std::string org;             // "Ascend" or "gitcode:Ascend": owner filter; "" = any
  OptTime since;               // issues closed (or, if open, created) at or after
  OptTime until;               // ... at or before; also the "as of" date
  DigestRules rules = DefaultDigestRules();
  // Called (may be empty; from worker threads, one call at a time) with the
  // repositories collected so far and the number selected, after each.
  std::function<void(size_t done, size_t total)> on_progress;
};

struct DigestCase {
  graph::IssueLinks links;  // the linker's result, as stored
  std::string number;
  std::string title;
  std::string url;
  std::string problem;  // one line, extracted
  std::string tier;     // best fix tier, "" when no fix
  // What the fix's own description says (digest_text::ExtractPrNote): the
  // cause and the change, verbatim, and the PR they come from ("" when none).
  std::string note_pr;
  std::string cause;
  std::string change;
  // Web pages of the PRs the case names (fixes, false leads, backported
  // originals): the PR's html_url when stored, else the platform URL built
  // from its reference; a PR named by URL maps to that URL.
  std::map<std::string, std::string> pr_urls;
};

struct DigestRepo {
  RepoRef repo;
  std::string name;  // repository name ("FlashGen")
  std::string role;  // one line, from the repository description ("" when it has none)
  std::string url;
  // When the description is empty, what RepoRole says instead: the
  // directories the included cases' fix PRs change most and the issues'
  // most frequent labels (each at most three, used at least twice).
  std::vector<std::string> top_paths;
  std::vector<std::string> top_labels;
  std::vector<DigestCase> cases;
};

struct DigestTheme {
  int id = 0;
  std::vector<std::string> terms;   // shared salient terms, most shared first
  std::vector<std::string> repos;   // canonical repository refs, sorted
  std::vector<std::string> issues;  // canonical issue refs, digest order
  std::string via;                  // "graph", "terms" or "repo"
};

struct DigestTroubleRow {
  std::string symptom;
  std::string action;
  std::string source;  // "answer" or "fix_title"
  std::vector<std::string> cases;
};

struct DigestExcluded {
  std::string issue;
  std::string title;
  std::string reason;  // stale | wontfix | duplicate | no_evidence | open | below_min_tier
  std::string detail;
  // The linker's likely fixes (tier D, not verified) of an issue left without
  // a trusted one: listed under their own heading, never counted as fixes.
  std::vector<graph::FixLink> suggested;
};

struct Digest {
  DigestOptions options;
  std::string as_of;              // "2026-09-16" (display offset)
  std::vector<DigestRepo> repos;  // only repositories with included issues
  std::vector<DigestTheme> themes;
  std::vector<DigestTroubleRow> troubleshooting;
  std::vector<DigestExcluded> excluded;
  std::int64_t considered = 0;
  // Repository names held by more than one repository in the store ("docs"):
  // labels use owner/name for them.
  std::vector<std::string> ambiguous_names;
  // Canonical issue ref -> (index in repos, index in cases); filled by
  // BuildDigest so that Find is a lookup.
  std::unordered_map<std::string, std::pair<size_t, size_t>> case_index;

  // Included cases in digest order, and lookup by canonical ref.
  std::vector<const DigestCase*> Cases() const;
  const DigestCase* Find(const std::string& issue) const;
};

// Builds the digest. NotFound when a --repo is not in the store; an empty
// selection is not an error (the digest says so).
StatusOr<Digest> BuildDigest(const Store& store, const DigestOptions& options);

// "MindSpeed-Ops#69", or "mindspore/docs#18" when the name is ambiguous.
std::string IssueLabel(const Digest& d, const std::string& issue);
// "MindSpeed-Ops" / "mindspore/docs" for a canonical repository ref.
std::string RepoLabel(const Digest& d, const std::string& repo);

// The 定位 / role line of a repository: its description, else what its cases
// touch and are labelled ("(no description) fixes mostly change
// `deepspeed/runtime`, ...") or, failing that, that it has no description.
// Never empty.
std::string RepoRole(const DigestRepo& r, Lang lang);

// The resolution sentence of one case ("!166 merged 2026-09-15; ...").
std::string CaseSummary(const Digest& d, const DigestCase& c, Lang lang);

std::string RenderMarkdown(const Digest& d, Lang lang);
// One self-contained HTML file (inline CSS, an inline SVG timeline under each
// repository table; no scripts, no external resources). PR numbers in the
// summaries, timeline rows and troubleshooting cases link to their pages;
// evidence and flag chips carry labels in `lang` (the internal name in
// data-kind / data-flag and the tooltip).
std::string RenderHtml(const Digest& d, Lang lang);
// One repository table's timeline picture: one row per case, issue created ->
// PR merged -> issue closed, every row on one date axis shared by the table
// (date ticks at a round step), so that lengths compare.
std::string RenderTimelineSvg(const Digest& d, const DigestRepo& r, Lang lang);
nlohmann::json ToJson(const Digest& d);

// What the search page's home shows (serve's /api/v1/home): what the store
// holds, and example questions taken from it: the titles (tag stripped) of
// resolved issues with a trusted resolution (a merged fix at tier A or B, or
// an answer comment), the most recently closed of each repository first, one
// repository after another, at most two per repository. JSON:
//   {"stats": {"repositories", "issues", "pulls", "linked_issues", "fix_links",
//              "trusted_issues", "docs"},
//    "examples": [{"question", "issue": REF, "url", "resolution", "tier": "A"|"B"|""}]}
struct StoreOverview {
  std::int64_t repositories = 0;
  std::int64_t issues = 0;
  std::int64_t pulls = 0;
  std::int64_t linked_issues = 0;   // issues with stored links
  std::int64_t fix_links = 0;       // fix links over all issues (tiers A-D)
  std::int64_t trusted_issues = 0;  // closed with a merged A/B fix or an answer
  std::int64_t docs = 0;            // local doc nodes (`docs import`); 0 without an index
  struct Example {
    std::string question;
    std::string issue;
    std::string url;
    std::string resolution;
    std::string tier;  // "" for an answered issue
  };
  std::vector<Example> examples;
};
StatusOr<StoreOverview> BuildStoreOverview(const Store& store, const std::string& db_dir,
                                           size_t max_examples);
nlohmann::json ToJson(const StoreOverview& o);
// Nodes in the local doc index under db_dir (0 when there is none).
StatusOr<std::int64_t> LocalDocCount(const std::string& db_dir);
// Receives the successive pieces of an output; a non-OK status stops it.
using TextSink = std::function<Status(std::string_view piece)>;
// ToJson(d).dump(2) plus a newline, byte for byte, written to `sink` in
// pieces: the document around the repositories, then each repository's entry
// (built on up to one thread per core, a few at a time, written in order and
// dropped), so neither the whole tree nor the whole text is ever held (the
// whole-store digest of a million issues is 2 GB of JSON). Invalid UTF-8 in a
// text is written as U+FFFD, as everywhere else; the sink's error as it is.
Status WriteJson(const Digest& d, const TextSink& sink);
// A sink that appends every piece to *out (never fails).
TextSink AppendTo(std::string* out);
// WriteJson into one string.
StatusOr<std::string> RenderJson(const Digest& d);

}  // namespace fixgraph::query
