#include "signals.h"

#include "text.h"

#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <vector>

namespace fixgraph::graph::signals {
namespace {

std::string_view Trim(std::string_view s) {
  auto junk = [](std::string_view v, bool front) {
    if (v.empty()) return size_t{0};
    auto c = static_cast<unsigned char>(front ? v.front() : v.back());
    if (std::isspace(c) || c == ':' || c == ',' || c == '*' || c == '(' || c == ')')
      return size_t{1};
    // Full-width ： ， （ ） and 、 are three bytes.
    std::string_view three = front ? v.substr(0, 3) : v.substr(v.size() >= 3 ? v.size() - 3 : 0);
    if (three == "\xEF\xBC\x9A" || three == "\xEF\xBC\x8C" || three == "\xEF\xBC\x88" ||
        three == "\xEF\xBC\x89" || three == "\xE3\x80\x81")
      return size_t{3};
    return size_t{0};
  };
  for (;;) {
    size_t n = junk(s, true);
    if (n == 0) break;
    s.remove_prefix(n);
  }
  for (;;) {
    size_t n = junk(s, false);
    if (n == 0) break;
    s.remove_suffix(n);
  }
  return s;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         text::Lower(s.substr(s.size() - suffix.size())) == text::Lower(suffix);
}

// Splits on newlines and 。 keeping the delimiter with the piece.
std::vector<std::string_view> Sentences(std::string_view body) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    // '\n' or 。 (E3 80 82): the three-byte compare only where the lead byte is E3.
    size_t len = body[i] == '\n'                                                ? 1
                 : body[i] == '\xE3' && body.compare(i, 3, "\xE3\x80\x82") == 0 ? 3
                                                                                : 0;
    if (len == 0) continue;
    size_t end = body[i] == '\n' ? i : i + len;
    if (end > start) out.push_back(body.substr(start, end - start));
    start = i + len;
    i += len - 1;
  }
  if (start < body.size()) out.push_back(body.substr(start));
  return out;
}

template <size_t N>
std::vector<std::string_view> ListOf(const std::string_view (&cues)[N]) {
  return std::vector<std::string_view>(std::begin(cues), std::end(cues));
}

constexpr std::string_view kFixClaimCues[] = {
    "已修复",   "已修正",        "修复了",      "已经修复",       "已合入",   "已合并",
    "已支持",   "已添加",        "已经改",      "改对了",         "已改正",   "已更新",
    "已刷新",   "已解决",        "已完成",      "已实现",         "已覆盖",   "已验收",
    "验收通过", "已经包含修复",  "包含修复",    "has been fixed", "is fixed", "fixed in",
    "fixed by", "been resolved", "been merged", "is resolved"};

constexpr std::string_view kVerifiedCues[] = {
    "验证通过",  "回归通过",   "已验证",          "验证ok",           "复测",
    "测试通过",  "问题已修复", "已修复",          "已解决",           "verified",
    "works now", "is fixed",   "confirmed fixed", "regression passed"};

// The vendor cues (the first kVendorCueCount) and the fix cues of a CANN
// sentence (the rest).
constexpr std::string_view kVendorOrFixedCues[] = {"海思",     "CANN 侧",    "CANN侧",
                                                   "问题单",   "vendor fix", "已修复",
                                                   "修复版本", "版本修复",   "fixed in"};
constexpr size_t kVendorCueCount = 5;
constexpr std::uint64_t kVendorBits = (std::uint64_t{1} << kVendorCueCount) - 1;

const text::CueSet& VendorOrFixedCues() {
  static const text::CueSet k(ListOf(kVendorOrFixedCues));
  return k;
}

constexpr std::string_view kServiceSideCues[] = {
    "平台侧",      "平台会",      "平台已",       "随平台",         "平台版本",   "服务端",
    "服务侧",      "服务器端",    "已上线",       "上线后",         "发布后生效", "流水线已",
    "server side", "server-side", "service side", "backend service"};

constexpr std::string_view kDeclineCues[] = {"不修复",
                                             "不再修复",
                                             "不会修复",
                                             "不予修复",
                                             "不做修复",
                                             "暂不修复",
                                             "不再维护",
                                             "停止维护",
                                             "暂不支持",
                                             "不计划",
                                             "不考虑支持",
                                             "won't fix",
                                             "wont fix",
                                             "will not fix",
                                             "wontfix",
                                             "not planned",
                                             "no longer maintained",
                                             "won\xE2\x80\x99t fix" /* curly apostrophe */,
                                             "by design",
                                             "working as intended",
                                             "works as intended",
                                             "works as designed",
                                             "设计如此"};

constexpr std::string_view kRootCauseCues[] = {"根因", "root cause"};

// True when `t` holds `w` (lower-case ASCII) at `p`, ASCII case folded.
bool FoldedAt(std::string_view t, size_t p, std::string_view w) {
  if (p + w.size() > t.size()) return false;
  for (size_t k = 0; k < w.size(); ++k) {
    char c = t[p + k];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != w[k]) return false;
  }
  return true;
}

// "DTS2025030506797": "dts" (any case) and eight digits or more.
bool HasDtsNumber(std::string_view t) {
  for (size_t p = 0; p + 3 <= t.size(); ++p) {
    if (!FoldedAt(t, p, "dts")) continue;
    size_t q = p + 3, digits = 0;
    while (q < t.size() && std::isdigit(static_cast<unsigned char>(t[q]))) ++q, ++digits;
    if (digits >= 8) return true;
  }
  return false;
}

// "已为 X 开启".
bool OpensFor(std::string_view t) {
  size_t p = t.find("已为");
  return p != std::string_view::npos && t.find("开启", p) != std::string_view::npos;
}

// NamesVendorFix past the DTS numbers, from `found` =
// VendorOrFixedCues().Found(t) (only whether a vendor cue and whether a fix
// cue were found matters).
bool VendorFromCues(std::string_view t, std::uint64_t found) {
  if (found & kVendorBits) return true;
  // Every sentence is a part of `t`, and no cue below holds a sentence's
  // delimiter: none names CANN, or a fix, when `t` does not.
  static const text::CueSet kCann{"CANN"};
  if ((found & ~kVendorBits) == 0 || !kCann.In(t)) return false;
  // "CANN 8.0.RC3 已修复此问题", "This is fixed in CANN 8.2.RC1": a sentence
  // naming CANN and a fix cue (no vendor cue is in any sentence by now).
  for (std::string_view s : Sentences(t))
    if (kCann.In(s) && (VendorOrFixedCues().Found(s) & ~kVendorBits) != 0) return true;
  return false;
}

const text::CueSet& ActionCues() {
  static const text::CueSet k{
      "建议",    "请",      "需要", "可以",       "改为",       "改成", "使用",   "设置",
      "加上",    "添加",    "换成", "换回",       "应",         "先",   "不要",   "勿",
      "不建议",  "原因",    "根因", "因为",       "正确做法",   "方法", "不需要", "支持",
      "取决",    "只",      "仅",   "should",     "use ",       "set ", "try",    "run ",
      "instead", "because", "need", "root cause", "workaround", "规避", "解决"};
  return k;
}

}  // namespace

bool IsBot(const User& u) {
  for (const std::string* s : {&u.login, &u.name}) {
    std::string l = text::Lower(*s);
    if (l.empty()) continue;
    if (l.size() >= 3 && l.compare(l.size() - 3, 3, "bot") == 0) return true;
    if (l.find("robot") != std::string::npos || l.find("[bot]") != std::string::npos) return true;
    if (l.find("-bot") != std::string::npos || l.find("_bot") != std::string::npos ||
        l.find("bot-") != std::string::npos || l.find("bot_") != std::string::npos)
      return true;
  }
  return false;
}

bool ClaimsFix(std::string_view t) {
  static const text::CueSet k(ListOf(kFixClaimCues));
  return k.In(t);
}

bool ClaimsVerified(std::string_view t) {
  static const text::CueSet k(ListOf(kVerifiedCues));
  return k.In(t);
}

bool NamesVendorFix(std::string_view t) {
  return HasDtsNumber(t) || VendorFromCues(t, VendorOrFixedCues().Found(t));
}

bool NamesServiceSide(std::string_view t) {
  static const text::CueSet k(ListOf(kServiceSideCues));
  return k.In(t) || OpensFor(t);
}

bool DeclinesFix(std::string_view t) {
  static const text::CueSet k(ListOf(kDeclineCues));
  return k.In(t);
}

std::uint8_t CommentCues(std::string_view t) {
  // Every cue of the five lists and the root-cause list in one grouped set
  // (a cue in two lists, such as "已修复", in both groups).
  enum Group : unsigned { kDecline, kFixClaim, kVerified, kVendor, kService, kRoot, kCannFix };
  static const text::CueSet kAll = [] {
    std::vector<text::CueSet::Grouped> g;
    for (std::string_view c : kDeclineCues) g.push_back({c, kDecline});
    for (std::string_view c : kFixClaimCues) g.push_back({c, kFixClaim});
    for (std::string_view c : kVerifiedCues) g.push_back({c, kVerified});
    for (size_t i = 0; i < std::size(kVendorOrFixedCues); ++i)
      g.push_back({kVendorOrFixedCues[i], i < kVendorCueCount ? kVendor : kCannFix});
    for (std::string_view c : kServiceSideCues) g.push_back({c, kService});
    for (std::string_view c : kRootCauseCues) g.push_back({c, kRoot});
    return text::CueSet(g);
  }();
  const std::uint64_t f = kAll.Found(t);
  auto has = [&](Group g) { return (f >> g & 1) != 0; };
  std::uint8_t out = 0;
  if (has(kDecline)) out |= kCueDeclinesFix;
  if (has(kFixClaim)) out |= kCueClaimsFix;
  if (has(kVerified)) out |= kCueClaimsVerified;
  if (has(kService) || OpensFor(t)) out |= kCueNamesServiceSide;
  if (has(kRoot)) out |= kCueRootCause;
  // The bits VendorFromCues reads of VendorOrFixedCues().Found(t): its
  // entries 0-4 (vendor) and 5-8 (fix cues of a CANN sentence).
  const std::uint64_t vendor_bits = (has(kVendor) ? std::uint64_t{1} : 0) |
                                    (has(kCannFix) ? std::uint64_t{1} << kVendorCueCount : 0);
  if (HasDtsNumber(t) || VendorFromCues(t, vendor_bits)) out |= kCueNamesVendorFix;
  return out;
}

bool NamesRootCause(std::string_view t) {
  static const text::CueSet k(ListOf(kRootCauseCues));
  return k.In(t);
}

bool SaysStale(std::string_view t) {
  static const text::CueSet kStale{
      "stale", "长期无活动", "无更新", "无活动", "inactive", "no activity",
      // Only bots' comments are asked: "超过 30 天未回复，已自动关闭".
      "未回复", "未响应", "未更新", "无回复", "no response", "not had recent activity"};
  return kStale.In(t);
}

bool SelfSolved(std::string_view t) {
  static const text::CueSet kSelfSolved{"自己解决", "已解决",        "解决了",   "问题解决",
                                        "搞定",     "solved",        "找到原因", "原因找到",
                                        "fixed it", "figured it out"};
  return kSelfSolved.In(t);
}

bool IsResolvedLabel(std::string_view l) {
  static const text::CueSet kResolvedLabel{"resolved", "fixed", "已解决", "已修复", "done"};
  return kResolvedLabel.In(l);
}
bool IsWontfixLabel(std::string_view l) {
  static const text::CueSet kWontfixLabel{"wontfix",     "won't fix",   "wont fix",
                                          "不修复",      "rejected",    "已拒绝",
                                          "not planned", "not_planned", "invalid"};
  return kWontfixLabel.In(l);
}
bool IsStaleLabel(std::string_view l) {
  static const text::CueSet kStaleLabel{"stale", "inactive"};
  return kStaleLabel.In(l);
}
bool IsDuplicateLabel(std::string_view l) {
  static const text::CueSet kDuplicateLabel{"duplicate", "重复"};
  return kDuplicateLabel.In(l);
}

PullRole ClassifyPullMention(std::string_view body, size_t offset, size_t len) {
  text::Clause c = text::ClauseAt(body, offset);
  return ClassifyPullMention(body, offset, len, c.begin, c.end);
}

PullRole ClassifyPullMention(std::string_view body, size_t offset, size_t len, size_t clause_begin,
                             size_t clause_end) {
  const text::Clause c{clause_begin, clause_end};
  std::string_view clause = body.substr(c.begin, c.end - c.begin);
  std::string_view before = Trim(body.substr(c.begin, offset - c.begin));
  size_t after_at = std::min(offset + len, c.end);
  std::string_view after = Trim(body.substr(after_at, c.end - after_at));
  static const text::CueSet kIntroduced{"引入",       "introduced", "caused by", "regressed by",
                                        "导致的问题", "带来的问题", "引起"};
  if (kIntroduced.In(clause)) return PullRole::kIntroduced;
  static const text::CueSet kFixWords{"修复",    "修正",   "修改", "合入", "已提", "提了",
                                      "提交",    "改掉",   "改了", "刷新", "合并", "fix",
                                      "resolve", "merged", "解决", "同步"};
  if (kFixWords.In(clause)) return PullRole::kFix;
  static const text::CueSet kReference{"可参考",      "效果", "示例",   "例如",
                                       "for example", "类似", "similar"};
  if (EndsWith(before, "见") || EndsWith(before, "参考") || EndsWith(before, "see") ||
      EndsWith(before, "e.g.") || EndsWith(before, "like") || kReference.In(clause) ||
      after.substr(0, 6) == "\xE7\xA4\xBA\xE4\xBE\x8B" /* 示例 */)
    return PullRole::kReferenceOnly;
  return PullRole::kNeutral;
}

bool SaysDuplicateOf(std::string_view body, size_t offset, size_t len) {
  text::Clause c = text::ClauseAt(body, offset);
  std::string_view clause = body.substr(c.begin, c.end - c.begin);
  std::string_view before = Trim(body.substr(c.begin, offset - c.begin));
  (void)len;
  static const text::CueSet kNotDuplicate{"不是重复", "并非重复", "not a duplicate",
                                          "not duplicate"};
  if (kNotDuplicate.In(clause)) return false;
  static const text::CueSet kDuplicate{"重复",    "duplicate",  "dup of",   "dupe of",
                                       "same as", "同一个问题", "同一问题", "相同问题"};
  if (kDuplicate.In(clause)) return true;
  // "同 #43", "同#43，..."
  return before == "\xE5\x90\x8C" /* 同 */ || before == "\xE5\x90\x8C\xE4\xB8\x8A" /* 同上 */ ||
         text::Lower(before) == "dup" || text::Lower(before) == "duplicates";
}

namespace {
constexpr size_t kSubstantiveLength = 20;  // visible characters
}  // namespace

bool IsSubstantive(std::string_view body) {
  return text::VisibleLength(body) >= kSubstantiveLength;
}

namespace {
int AnswerScoreOf(std::string_view body, size_t visible) {
  int score = static_cast<int>(ActionCues().Count(body));  // cues found, ASCII case folded
  score += static_cast<int>(std::count(body.begin(), body.end(), '`') / 2);
  score += static_cast<int>(std::min<size_t>(visible / 40, 5));
  return score;
}
}  // namespace

int AnswerScore(std::string_view body) { return AnswerScoreOf(body, text::VisibleLength(body)); }

int SubstantiveAnswerScore(std::string_view body) {
  size_t visible = text::VisibleLength(body);
  return visible >= kSubstantiveLength ? AnswerScoreOf(body, visible) : kNotSubstantive;
}

std::string ExtractAnswer(std::string_view body, size_t max_bytes, bool with_fix) {
  std::vector<std::string_view> pieces = Sentences(body);
  std::string out;
  auto add = [&](std::string_view piece) {
    // Markdown bold markers are formatting, and a sentence split can leave half a pair.
    std::string p(Trim(piece));
    for (size_t at; (at = p.find("**")) != std::string::npos;) p.erase(at, 2);
    if (p.empty()) return true;
    size_t need = out.empty() ? p.size() : p.size() + 1;
    if (out.size() + need > max_bytes) return false;
    if (!out.empty()) out.push_back(' ');
    out.append(p);
    return true;
  };
  for (std::string_view p : pieces) {
    static const text::CueSet kFixLine{"根因", "原因", "root cause", "修复", "fix"};
    bool fix_line =
        with_fix && (ClaimsFix(p) || NamesVendorFix(p) || ClaimsVerified(p) || kFixLine.In(p));
    if (fix_line || ActionCues().In(p) || p.find('`') != std::string_view::npos) {
      if (!add(p)) break;
    }
  }
  if (out.empty()) {
    for (std::string_view p : pieces)
      if (!add(p)) break;
  }
  if (out.empty() && !body.empty()) {
    // One long sentence: cut at a character boundary.
    out = std::string(Trim(Utf8Prefix(body, max_bytes)));
  }
  return out;
}

}  // namespace fixgraph::graph::signals
