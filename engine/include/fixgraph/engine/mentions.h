// Mentions: references to issues and pull requests found in free text (PR
// titles and bodies, commit messages, comments).
//
// Recognised forms, resolved against the repository the text belongs to:
//   #69, 关联 #69, PR#1127 / PR #12 / MR #12 (a pull request), !166,
//   #I8XK2P (Gitee issue), Ascend/MindSpeed-Ops#69, owner/repo!12,
//   issue and PR URLs of gitcode.com, gitee.com, github.com, atomgit.com;
//   a full-width sign "＃69" reads as "#69".
// Not mentions: anything inside fenced (``` or ~~~) or inline (`...`) code,
// "#12" glued to a word or a path ("v1.2#3", "a/b#3", "&#123;"), HTML colour
// codes ("#2865E0"), version-like "#1.2.3", and URLs of other sites.
//
// Each mention records the keyword right before it: a closing keyword
// (fix/fixes/fixed/close/closes/closed/resolve/resolves/resolved, 修复/解决/
// 关闭/修正) or a relating one (关联/related/relates/ref/refs/see/参考/同/见),
// past fillers such as ":", "(", "[", "issue", "问题", "了" ("fix(#12)",
// "修复了 #12"). A mention that continues a list after one with a keyword
// ("fixes #12, #13 and #14", "修复 #12、#13 和 #14") takes that keyword.
//
// A mention the text gives only as the reason it skips a test or turns
// something off for now is kReason (in place of none or relating): its
// sentence (or, for a mention that opens its line, the line before too) says
// skip / xfail / 跳过 / 屏蔽, or disable / 禁用 with temporarily / for now /
// 临时 / 暂时, and why or until when (due to, because, until, once, blocked
// by, pending, a relating keyword such as "see", 由于, 因为, 待, 直到), and
// says before the mention neither fix / resolve / 修复 / 解决 nor re-enable /
// unskip / 恢复 / 放开: "Skip test_x.py due to xgrammar errors\n(URL)",
// "skipped the failed test, see #12", "暂时跳过该用例，待 #12 修复后放开";
// not "Re-enable the test skipped due to #12", nor a mention with a closing
// keyword.
//
// Thread safety: pure functions.
#pragma once

#include "fixgraph/engine/ref.h"

#include <string>
#include <string_view>
#include <vector>

namespace fixgraph {

enum class MentionForm : std::uint8_t {
  kHash,       // #69 or #I8XK2P, in the text's own repository
  kBang,       // !166
  kCrossRepo,  // owner/repo#69 or owner/repo!12
  kUrl,        // a web URL
};

enum class MentionKeyword : std::uint8_t {
  kNone,
  kClosing,
  kRelating,
  kReason,  // named as the reason for a skip or a temporary switch-off, not as fixed
};

struct Mention {
  Ref target;
  MentionForm form = MentionForm::kHash;
  MentionKeyword keyword = MentionKeyword::kNone;
  bool mirror_host = false;  // URL on a mirror host (atomgit.com)
  size_t offset = 0;         // byte offset in the scanned text
  std::string text;          // the matched text, e.g. "#69" or the URL
};

const char* MentionFormName(MentionForm f);
const char* MentionKeywordName(MentionKeyword k);

// Scans `text` written in repository `context`. Mentions come in text order;
// the same target may appear several times.
std::vector<Mention> FindMentions(std::string_view text, const RepoRef& context);

// `text` with fenced and inline code replaced by spaces (byte offsets kept).
std::string MaskCode(std::string_view text);

}  // namespace fixgraph
