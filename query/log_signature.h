// Error signatures from pasted logs: `ask` with hundreds of log lines searches
// with the lines that identify the failure, not with timestamps and paths.
// Private to query/.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace fixgraph::query {

// Texts shorter than this (bytes) and with few lines are used as they are.
inline constexpr size_t kLogMinBytes = 1500;
inline constexpr size_t kLogMinLines = 12;

// True when `text` looks like a pasted log rather than a question.
bool LooksLikeLog(std::string_view text);

// The lines of `text` that carry the error signature, in order, deduplicated,
// at most `max_lines`: lines with error codes (EZ9999, E39999, -1610252272,
// ret=507033), "error"/"ERROR"/"报错"/"失败"/"failed", exception lines
// ("RuntimeError: ..."), the last line of each Python traceback; plus the
// short non-log lines a user typed around the paste. Timestamps, PIDs and
// paths are stripped from the kept lines. Returns `text` unchanged when it
// is not a log (LooksLikeLog).
std::string ExtractSignature(std::string_view text, size_t max_lines = 24);

}  // namespace fixgraph::query
