// The answer `ask` shows for an issue: the passage of the resolving comment
// (or of the fix PR's description) that explains the problem and says what
// to do, extracted verbatim, never written.
//
// A comment or description is read as Markdown-like blocks: paragraphs,
// lists (numbered "1." "1、" "(1)" "①", or bulleted), fenced code, headings
// ("### 问题原因", "**Root cause**"), quotes and tables (skipped: a quote
// repeats the issue). The passage is built around the block that says most
// about what to do (the anchor): a list is kept whole from its first step;
// the diagnosis before it (a paragraph naming the cause, or under a cause
// heading) and a short note after it that refers to the steps come with it.
// Blocks about tests, environments and reproduction ("新增用例", "Tested on")
// weigh less than the ones that explain the cause and the fix.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fixgraph::query {

// Longest passage, in bytes (about 400 CJK characters or 200 English words):
// a list is cut at an item boundary, a paragraph at a sentence boundary.
inline constexpr size_t kMaxPassageBytes = 1200;

// The passage of `body`, lines joined by '\n' (list items keep their
// markers, code lines are indented by four spaces beyond their block's least
// indent, bold markers and headings are dropped); "" when the body has no
// text.
std::string ExtractAnswerPassage(std::string_view body, size_t max_bytes = kMaxPassageBytes);

// A note of the version the text was written against, as PR templates end
// with: "LABEL: VERSION", a label of at most three words and 40 bytes, and a
// version or a commit after the colon, or nothing when the label ends with
// version, main, master, commit, branch, 版本 or 分支 ("- vLLM version:
// v0.13.0", "- vLLM main:", "CANN 版本：8.0.RC3"). Such lines say nothing of
// the change.
bool IsVersionNote(std::string_view line);
// True when `text` has a line and every line that is not blank is one.
bool OnlyVersionNotes(std::string_view text);

}  // namespace fixgraph::query
