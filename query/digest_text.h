// Text helpers shared by the digest builder and renderers. Private to query/.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/ref.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fixgraph::query::digest_text {

// Collapses runs of whitespace (including newlines) to one space and trims.
std::string Squash(std::string_view s);

// At most max_chars code points; appends "…" when cut. Never splits a UTF-8
// sequence, an inline code span (`...`: a command) or a URL: a cut inside
// one moves to its end when that is at most 40 code points further, else to
// its start.
std::string Truncate(std::string_view s, int max_chars);

// Number of UTF-8 code points.
size_t CodePoints(std::string_view s);

// The text without fenced code blocks (``` ... ```), URLs kept.
std::string WithoutCodeBlocks(std::string_view s);

// The first meaningful sentence of a text: skips fenced code, markdown
// headings/quotes/list markers and greeting-like lines; cuts at 。！？；, ". ",
// or a line end. "" when none.
std::string FirstSentence(std::string_view s);

// Strips trailing sentence punctuation and spaces (。．.;；,，:： and the like).
std::string TrimSentenceEnd(std::string_view s);

// The first sentences of a text, joined until at least min_chars code points
// (a bare "不需要改。" says little alone). "" when none.
std::string LeadSentences(std::string_view s, int min_chars);

// Strips a leading bracketed tag ("[Bug]", "【需求】"), the punctuation a
// stripped tag leaves ("[Bug]: x" -> "x") and trailing punctuation.
std::string CleanTitle(std::string_view s);

// What a fix PR's description says, extracted verbatim (whitespace squashed):
// `cause` from a "why" section ("Why", "Motivation", "Root cause", "修改原因",
// "问题原因", "根因", ...), `change` from a "what" section ("What this PR does /
// why we need it", "Description", "Changes", "修改内容", "修改描述", ...), or,
// when the description has no such headings, its first substantive
// paragraph. Skipped: HTML comments, code blocks, checklists ("- [x]"),
// reference-only lines ("Fixes #12", "关联 #68 URL"), sign-offs, template
// sections (tests, self-check, related issues, release notes) and text that
// only restates `title`. Each at most max_chars code points (Truncate).
struct PrNote {
  std::string cause;
  std::string change;
};
PrNote ExtractPrNote(std::string_view body, std::string_view title, int max_chars);

// "!166" for a PR of `repo`, "gitcode:mindspore/mindspore!87655" otherwise;
// URLs are kept as they are.
std::string ShortPr(const std::string& pr, const RepoRef& repo);
// The mentions of the PRs of `pr_urls` (canonical ref -> page URL; those
// without a URL left out) as a case's text writes them (ShortPr), each with
// its URL.
std::vector<std::pair<std::string, std::string>> PrMentions(
    const std::map<std::string, std::string>& pr_urls, const RepoRef& repo);
// `text` with each of `mentions` (text as written, URL) replaced by
// link(text, url): the longest mention at a place wins, and it must not touch
// a letter, digit or '_' on either side. A span from `open` to the next
// `close` (markup, a code span) is copied whole. With `first_only`, only the
// first place of each mention is linked.
std::string LinkMentions(
    std::string_view text, std::vector<std::pair<std::string, std::string>> mentions, char open,
    char close, bool first_only,
    const std::function<std::string(const std::string& text, const std::string& url)>& link);
// "#69" for an issue of `repo`, the canonical ref otherwise.
std::string ShortIssue(const std::string& issue, const RepoRef& repo);
// "MindSpeed-Ops#69": repository name and number.
std::string NamedIssue(const std::string& issue);

// Date / minute in the display offset, "" for unset.
std::string Date(const OptTime& t);
std::string DateTime(const OptTime& t);  // "2026-09-15 11:35:56"

// Escapes a Markdown table cell (pipes, newlines).
std::string MdCell(std::string_view s);
// Escapes HTML text and attribute values.
std::string Html(std::string_view s);

// Salient terms of a text: identifiers with an underscore, a digit, inner
// capitals or all capitals (API names, error codes, flags), lower-cased,
// unique, sorted. URLs are skipped.
std::vector<std::string> SalientTerms(std::string_view text);

}  // namespace fixgraph::query::digest_text
