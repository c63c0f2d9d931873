// What comments say: fix claims, verifications, vendor and service-side
// fixes, declines, stale notices, self-solves, duplicates, and the role of a
// PR named in a comment. Cue lists are Chinese and English. Private to graph/.
//
// Thread safety: pure functions.
#pragma once

#include "fixgraph/engine/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fixgraph::graph::signals {

// Bot accounts: a login or name with a "bot"/"robot" segment
// ("mindspore-ci-bot", "ascend-robot", "dependabot[bot]").
bool IsBot(const User& u);

// "已修复", "已修正", "已合入", "已支持", "fixed", "has been fixed", ...
bool ClaimsFix(std::string_view text);
// "验证通过", "回归通过", "已验证", "问题已修复", "verified", ...
bool ClaimsVerified(std::string_view text);
// A vendor fix: "DTS2025030506797", "海思", "CANN 侧", "问题单".
bool NamesVendorFix(std::string_view text);
// A service-side change: "平台侧", "服务端", "随平台版本", "已上线", "已为 X 开启", ...
bool NamesServiceSide(std::string_view text);
// "根因", "root cause".
bool NamesRootCause(std::string_view text);
// What Resolve asks of each human comment, from one scan of its text: each
// bit is set exactly when its predicate above answers true for `text`.
enum CommentCue : std::uint8_t {
  kCueDeclinesFix = 1,
  kCueClaimsFix = 2,
  kCueClaimsVerified = 4,
  kCueNamesVendorFix = 8,
  kCueNamesServiceSide = 16,
  kCueRootCause = 32,
};
std::uint8_t CommentCues(std::string_view text);
// "不修复", "不再维护", "停止维护", "暂不支持", "won't fix", "by design", ...
bool DeclinesFix(std::string_view text);
// "stale", "长期无活动", "无更新", "inactive", "超过 30 天未回复" (asked of bots' comments).
bool SaysStale(std::string_view text);
// "自己解决", "已解决", "解决了", "solved", ...
bool SelfSolved(std::string_view text);
// A label or platform state word meaning "resolved"/"rejected"/"stale"/...
bool IsResolvedLabel(std::string_view label);
bool IsWontfixLabel(std::string_view label);
bool IsStaleLabel(std::string_view label);
bool IsDuplicateLabel(std::string_view label);

// How a comment frames a PR it names at [offset, offset+len).
enum class PullRole {
  kFix,            // "修复 PR：URL", "fixed by !178", "已在 URL 中修正"
  kIntroduced,     // "问题由 URL 引入", "caused by !12"
  kReferenceOnly,  // "效果可参考 URL", "see !12"
  kNeutral,        // a bare link
};
PullRole ClassifyPullMention(std::string_view body, size_t offset, size_t len);
// The same for a caller that has the mention's clause already:
// `clause_begin` and `clause_end` must be text::ClauseAt(body, offset)'s.
PullRole ClassifyPullMention(std::string_view body, size_t offset, size_t len, size_t clause_begin,
                             size_t clause_end);

// True when the clause holding a mention of an issue at [offset, offset+len)
// says the commented issue duplicates it ("与 #330 重复", "同 #43",
// "Duplicate of #70").
bool SaysDuplicateOf(std::string_view body, size_t offset, size_t len);

// Long enough to be an answer (not "thanks", "closing", "test post").
bool IsSubstantive(std::string_view body);
// How much a comment reads like an answer: action cues, code, length.
int AnswerScore(std::string_view body);
// IsSubstantive and AnswerScore from one measure of the body's visible
// length: kNotSubstantive when IsSubstantive(body) is false, else
// AnswerScore(body).
inline constexpr int kNotSubstantive = -1;
int SubstantiveAnswerScore(std::string_view body);
// The lines of `body` that say what to do, verbatim, at most `max_bytes`
// (cut at a character boundary); the opening lines when no line has a cue.
// `with_fix` also keeps the lines that say what was fixed, where, or why
// (root cause, vendor fix, "修复已合入").
std::string ExtractAnswer(std::string_view body, size_t max_bytes, bool with_fix = false);

}  // namespace fixgraph::graph::signals
