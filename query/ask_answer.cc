#include "ask_answer.h"

#include "analyzer.h"

#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace fixgraph::query {
namespace {

// Longest body read (a resolving comment is rarely longer; a pasted log is).
constexpr size_t kMaxBodyBytes = size_t{16} * 1024;
// Longest fenced code block kept inside a passage (lines).
constexpr size_t kMaxCodeLines = 8;

enum class LineKind { kBlank, kText, kItem, kHeading, kFence, kSkip };

enum class BlockKind { kPara, kList, kCode };

struct Block {
  BlockKind kind = BlockKind::kPara;
  std::vector<std::string> lines;
  std::vector<size_t> item_starts;  // kList: the index in `lines` where each item begins
  std::string heading;              // the heading in effect, normalized ("" for none)
  size_t section = 0;               // blocks of one section share a number
  int fix = 0;                      // cues of what to do
  int cause = 0;                    // cues of why it happened
  int noise = 0;                    // cues of tests, environment, thanks
};

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

size_t CountOf(std::string_view hay, std::initializer_list<std::string_view> cues) {
  size_t n = 0;
  for (std::string_view c : cues)
    if (hay.find(c) != std::string_view::npos) ++n;
  return n;
}

// The length of a list marker at the start of `t` (trimmed), 0 for none:
// "1." "1、" "1)" "1．" "(1)" "（1）" "①".."⑳", "- " "* " "+ " "• ".
size_t ListMarker(std::string_view t) {
  if (t.size() >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ') {
    if (StartsWith(t, "- [") || StartsWith(t, "* ["))
      return 0;  // a task-list check box (a template)
    return 2;
  }
  if (StartsWith(t, "\xE2\x80\xA2")) return 3;  // •
  // ① (U+2460) .. ⑳ (U+2473): E2 91 A0 .. E2 91 B3
  if (t.size() >= 3 && static_cast<unsigned char>(t[0]) == 0xE2 &&
      static_cast<unsigned char>(t[1]) == 0x91 && static_cast<unsigned char>(t[2]) >= 0xA0 &&
      static_cast<unsigned char>(t[2]) <= 0xB3)
    return 3;
  size_t i = 0;
  bool paren = false;
  if (StartsWith(t, "(")) {
    paren = true;
    i = 1;
  } else if (StartsWith(t, "\xEF\xBC\x88")) {  // （
    paren = true;
    i = 3;
  }
  size_t digits = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && digits < 3)
    ++i, ++digits;
  if (digits == 0) return 0;
  std::string_view rest = t.substr(i);
  if (paren) {
    if (StartsWith(rest, ")")) return i + 1;
    if (StartsWith(rest, "\xEF\xBC\x89")) return i + 3;  // ）
    return 0;
  }
  if (StartsWith(rest, ". ") || StartsWith(rest, ") ")) return i + 2;
  if (rest == "." || rest == ")") return 0;  // "1." alone: not an item of text
  if (StartsWith(rest, "\xE3\x80\x81") || StartsWith(rest, "\xEF\xBC\x8E")) return i + 3;  // 、 ．
  // "1.确认" (no space) before CJK text; but not "1.5" or "8.1.RC1".
  if ((StartsWith(rest, ".") || StartsWith(rest, ")")) && rest.size() > 1 &&
      static_cast<unsigned char>(rest[1]) >= 0x80)
    return i + 1;
  return 0;
}

// A line that is only bold text ("**现象**", "**Root cause:**"), a heading of
// many comment templates.
bool BoldHeading(std::string_view t) {
  if (!StartsWith(t, "**")) return false;
  std::string_view inner = t.substr(2);
  if (EndsWith(inner, ":") || EndsWith(inner, "\xEF\xBC\x9A"))
    return false;  // "**原因**：..." is text
  if (!EndsWith(inner, "**") && !EndsWith(inner, "**:") && !EndsWith(inner, "**\xEF\xBC\x9A"))
    return false;
  size_t close = inner.find("**");
  return close != std::string_view::npos && close + 2 >= inner.size() - 3 && inner.size() < 80;
}

// PR template lines and other lines that are never part of an answer.
bool TemplateLine(std::string_view t) {
  if (StartsWith(t, "/kind") || StartsWith(t, "/label") || StartsWith(t, "/assign") ||
      StartsWith(t, "<!--") || StartsWith(t, "-->"))
    return true;
  std::string lower = Normalize(t);
  for (const char* k : {"signed-off-by", "self-check", "checklist", "自检"})
    if (lower.find(k) != std::string::npos) return true;
  // Only references ("fix #12", "Fixes !34", a URL): nothing to read.
  std::string_view rest = t;
  size_t letters = 0;
  bool ref = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    auto c = static_cast<unsigned char>(rest[i]);
    if (c == '#' || c == '!') ref = true;
    if (StartsWith(rest.substr(i), "http")) {
      ref = true;
      while (i < rest.size() && rest[i] != ' ') ++i;
      continue;
    }
    if (std::isalpha(c) || c >= 0x80) ++letters;
  }
  if (ref && letters <= 8) return true;
  // No letter at all: "---", "N/A", "**".
  if (letters == 0) return true;
  return lower == "n/a" || lower == "none" || lower == "无";
}

LineKind Classify(std::string_view t) {
  if (t.empty()) return LineKind::kBlank;
  if (StartsWith(t, "```") || StartsWith(t, "~~~")) return LineKind::kFence;
  if (t[0] == '#' && (t.size() == 1 || t[1] == '#' || t[1] == ' ')) return LineKind::kHeading;
  if (BoldHeading(t)) return LineKind::kHeading;
  if (t[0] == '>' || t[0] == '|') return LineKind::kSkip;
  if (TemplateLine(t)) return LineKind::kSkip;
  if (ListMarker(t) > 0) return LineKind::kItem;
  return LineKind::kText;
}

// Removes bold markers and heading hashes.
std::string Clean(std::string_view t) {
  std::string s(t);
  for (size_t at; (at = s.find("**")) != std::string::npos;) s.erase(at, 2);
  size_t hashes = 0;
  while (hashes < s.size() && s[hashes] == '#') ++hashes;
  if (hashes > 0) s.erase(0, hashes);
  return std::string(TrimAsciiSpace(s));
}

// Headings that announce the explanation or the change, and those that
// announce what is not an answer (tests, environment, reproduction, logs).
int HeadingFix(const std::string& h) {
  return static_cast<int>(
      CountOf(h, {"修改", "修复", "方案", "解决", "规避", "办法", "方法", "步骤", "fix", "solution",
                  "workaround", "change", "what this pr does", "modification", "how to",
                  "resolution", "做了什么"}));
}
int HeadingCause(const std::string& h) {
  return static_cast<int>(
      CountOf(h, {"原因", "根因", "分析", "cause", "why", "analysis", "reason"}));
}
int HeadingNoise(const std::string& h) {
  return static_cast<int>(
      CountOf(h, {"测试", "验证", "test", "现象", "环境", "复现", "日志", "environment",
                  "reproduce", "log", "special notes", "reviewer", "which issue", "自检",
                  "checklist", "symptom", "描述", "description", "效果"}));
}

void Score(Block* b) {
  std::string text;
  for (const std::string& l : b->lines) text += l, text += '\n';
  const std::string lower = Normalize(text);
  const bool code = b->kind == BlockKind::kCode;
  if (!code) {
    b->fix = static_cast<int>(CountOf(
        lower, {"修复",       "解决",    "修改",      "改为",   "改成",    "设置",    "使用",
                "升级",       "降级",    "回退",      "规避",   "安装",    "卸载",    "重新",
                "配置",       "添加",    "增加",      "删除",   "替换",    "关闭",    "开启",
                "打开",       "执行",    "请",        "建议",   "需要",    "可以",    "确认",
                "检查",       "清掉",    "清理",      "强制",   "校验",    "避免",    "换成",
                "指定",       "export",  "fix",       "set ",   "use ",    "upgrade", "downgrade",
                "install",    "rebuild", "recompile", "remove", "replace", "add ",    "change",
                "update",     "enable",  "disable",   "run ",   "try ",    "should",  "make sure",
                "workaround", "instead", "avoid",     "pin ",   "switch"}));
    b->cause = static_cast<int>(
        CountOf(lower, {"原因",      "根因",       "因为",         "由于",      "导致",
                        "说明",      "问题在于",   "引起",         "不一致",    "不匹配",
                        "是因",      "root cause", "because",      "caused by", "due to",
                        "the cause", "this means", "happens when", "mismatch",  "the reason"}));
    b->noise = static_cast<int>(
        CountOf(lower, {"测试", "用例", "单测", "test", " ci ", "lgtm", "谢谢", "thanks",
                        "thank you", "感谢", "环境：", "environment:", "已复现"}));
    b->fix += static_cast<int>(std::count(text.begin(), text.end(), '`') / 2 > 0 ? 1 : 0);
  }
  b->fix += 3 * HeadingFix(b->heading);
  b->cause += 3 * HeadingCause(b->heading);
  b->noise += 3 * HeadingNoise(b->heading);
  if (b->kind == BlockKind::kList && b->item_starts.size() >= 2) b->fix += 1;
}

std::vector<Block> ReadBlocks(std::string_view body) {
  std::vector<Block> blocks;
  std::string heading;
  size_t section = 0;
  Block cur;
  bool open = false;
  bool blank_before = true;
  auto close = [&] {
    if (open && !cur.lines.empty()) blocks.push_back(std::move(cur));
    cur = Block();
    open = false;
  };
  auto start = [&](BlockKind kind) {
    close();
    cur.kind = kind;
    cur.heading = heading;
    cur.section = section;
    open = true;
  };
  std::vector<std::string_view> lines;
  for (std::string_view rest = body; !rest.empty();) {
    size_t nl = rest.find('\n');
    lines.push_back(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  bool in_comment = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view raw = lines[i];
    while (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    std::string_view t = TrimAsciiSpace(raw);
    if (in_comment) {
      if (t.find("-->") != std::string_view::npos) in_comment = false;
      continue;
    }
    if (StartsWith(t, "<!--") && t.find("-->") == std::string_view::npos) {
      in_comment = true;
      continue;
    }
    LineKind kind = Classify(t);
    if (kind == LineKind::kFence) {
      // The code up to the closing fence.
      std::vector<std::string> code;
      size_t j = i + 1;
      for (; j < lines.size(); ++j) {
        std::string_view c = lines[j];
        while (!c.empty() && c.back() == '\r') c.remove_suffix(1);
        if (StartsWith(TrimAsciiSpace(c), "```") || StartsWith(TrimAsciiSpace(c), "~~~")) break;
        code.emplace_back(c);
      }
      i = j;
      while (!code.empty() && TrimAsciiSpace(code.back()).empty()) code.pop_back();
      if (code.empty()) continue;
      // A short block inside a list (between its items, or after an item's
      // lead-in) belongs to the item; else it is a block of its own.
      // Each line four spaces in, keeping its indent beyond the block's
      // least (Python's blocks read by it).
      size_t least = std::string::npos;
      for (const std::string& c : code)
        if (!TrimAsciiSpace(c).empty()) least = std::min(least, c.find_first_not_of(" \t"));
      std::vector<std::string> indented;
      for (const std::string& c : code) {
        if (TrimAsciiSpace(c).empty()) continue;
        std::string_view line = std::string_view(c).substr(least);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
        indented.push_back("    " + std::string(line));
      }
      if (open && cur.kind == BlockKind::kList && code.size() <= kMaxCodeLines) {
        for (std::string& c : indented) cur.lines.push_back(std::move(c));
      } else {
        start(BlockKind::kCode);
        cur.lines = std::move(indented);
        close();
      }
      blank_before = false;
      continue;
    }
    switch (kind) {
      case LineKind::kBlank:
        blank_before = true;
        // A blank line ends a paragraph; a list goes on when an item follows.
        if (open && cur.kind == BlockKind::kPara) close();
        if (open && cur.kind == BlockKind::kList) {
          size_t j = i + 1;
          while (j < lines.size() && TrimAsciiSpace(lines[j]).empty()) ++j;
          if (j >= lines.size() || Classify(TrimAsciiSpace(lines[j])) != LineKind::kItem) close();
        }
        continue;
      case LineKind::kHeading:
        close();
        heading = Normalize(Clean(t));
        ++section;
        break;
      case LineKind::kSkip:
        break;
      case LineKind::kItem:
        if (!open || cur.kind != BlockKind::kList) start(BlockKind::kList);
        cur.item_starts.push_back(cur.lines.size());
        cur.lines.push_back(Clean(t));
        break;
      case LineKind::kText: {
        // Inside a list, an indented line (or one right after an item) goes on the item.
        bool indented = !raw.empty() && (raw[0] == ' ' || raw[0] == '\t');
        if (open && cur.kind == BlockKind::kList && (indented || !blank_before)) {
          // Two spaces in: the item's marker stays the only thing at its left.
          cur.lines.push_back("  " + Clean(t));
          break;
        }
        if (!open || cur.kind != BlockKind::kPara) start(BlockKind::kPara);
        cur.lines.push_back(Clean(t));
        break;
      }
      case LineKind::kFence:
        break;
    }
    blank_before = false;
  }
  close();
  for (Block& b : blocks) Score(&b);
  return blocks;
}

size_t Bytes(const std::vector<std::string>& lines) {
  size_t n = 0;
  for (const std::string& l : lines) n += l.size() + 1;
  return n;
}

// The sentences of a paragraph that fit in `budget` bytes, from its start;
// empty when not even the first does.
std::vector<std::string> FitParagraph(const Block& b, size_t budget) {
  std::vector<std::string> out;
  size_t used = 0;
  for (const std::string& line : b.lines) {
    if (used + line.size() + 1 <= budget) {
      out.push_back(line);
      used += line.size() + 1;
      continue;
    }
    // Cut the line at the last sentence end that fits.
    std::string_view room = Utf8Prefix(line, budget > used + 1 ? budget - used - 1 : 0);
    size_t cut = std::string_view::npos;
    for (std::string_view end : {"。", "；", "！", "？", ". ", "; "}) {
      size_t at = room.rfind(end);
      if (at != std::string_view::npos && (cut == std::string_view::npos || at + end.size() > cut))
        cut = at + end.size();
    }
    if (cut != std::string_view::npos && cut > 0)
      out.emplace_back(TrimAsciiSpace(room.substr(0, cut)));
    break;
  }
  return out;
}

// The items of a list that fit in `budget` bytes, whole and from the first;
// the first item cut at a character boundary when even it does not fit.
std::vector<std::string> FitList(const Block& b, size_t budget) {
  std::vector<std::string> out;
  size_t used = 0;
  for (size_t k = 0; k < b.item_starts.size(); ++k) {
    size_t end = k + 1 < b.item_starts.size() ? b.item_starts[k + 1] : b.lines.size();
    std::vector<std::string> item(b.lines.begin() + static_cast<std::ptrdiff_t>(b.item_starts[k]),
                                  b.lines.begin() + static_cast<std::ptrdiff_t>(end));
    size_t need = Bytes(item);
    if (used + need > budget) {
      if (k == 0)
        out.push_back(std::string(Utf8Prefix(item.front(), budget > 4 ? budget - 4 : 0)) + "...");
      break;
    }
    for (std::string& l : item) out.push_back(std::move(l));
    used += need;
  }
  return out;
}

std::vector<std::string> Fit(const Block& b, size_t budget) {
  if (b.kind == BlockKind::kList) return FitList(b, budget);
  if (b.kind == BlockKind::kCode) {
    if (b.lines.size() > kMaxCodeLines || Bytes(b.lines) > budget) return {};
    return b.lines;
  }
  return FitParagraph(b, budget);
}

bool EndsWithColon(const Block& b) {
  if (b.lines.empty()) return false;
  const std::string& l = b.lines.back();
  return EndsWith(l, ":") || EndsWith(l, "\xEF\xBC\x9A");
}

}  // namespace

namespace {

// A value that only names a version or a commit: "v0.13.0", "8.0.RC3",
// "2.1.0.post8", "d68209402dda".
bool VersionLike(std::string_view v) {
  v = TrimAsciiSpace(v);
  bool digit = false;
  for (unsigned char c : v) {
    if (std::isdigit(c)) {
      digit = true;
    } else if (!(std::isalpha(c) || c == '.' || c == '-' || c == '_' || c == '+')) {
      return false;
    }
  }
  return digit;
}

}  // namespace

bool IsVersionNote(std::string_view line) {
  line = TrimAsciiSpace(line);
  if (!line.empty() && (line[0] == '-' || line[0] == '*')) line = TrimAsciiSpace(line.substr(1));
  size_t colon = line.find(':');
  const size_t wide = line.find("\xEF\xBC\x9A");  // ：
  if (wide != std::string_view::npos && wide < colon) colon = wide;
  if (colon == std::string_view::npos || colon == 0 || colon > 40) return false;
  // A label of at most three words ("vLLM main", "Ascend HDK version"), not a
  // sentence that leads into a link ("vLLM bumps numpy version to 2.x:").
  const std::string_view label = TrimAsciiSpace(line.substr(0, colon));
  if (std::count(label.begin(), label.end(), ' ') > 2) return false;
  const std::string_view value = TrimAsciiSpace(line.substr(colon + (line[colon] == ':' ? 1 : 3)));
  if (!value.empty()) return VersionLike(value);
  // Nothing after the colon (the link on the next line): only a label that
  // names a version or a branch ("vLLM main:"), not "Root cause:".
  const std::string lower = LowerAscii(label);
  for (std::string_view w :
       {"version", "main", "master", "commit", "branch", "\xE7\x89\x88\xE6\x9C\xAC" /* 版本 */,
        "\xE5\x88\x86\xE6\x94\xAF" /* 分支 */})
    if (EndsWith(lower, w)) return true;
  return false;
}

bool OnlyVersionNotes(std::string_view text) {
  bool any = false;
  for (size_t at = 0; at < text.size();) {
    size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(at, eol - at);
    at = eol + 1;
    if (TrimAsciiSpace(line).empty()) continue;
    if (!IsVersionNote(line)) return false;
    any = true;
  }
  return any;
}

std::string ExtractAnswerPassage(std::string_view body, size_t max_bytes) {
  std::vector<Block> blocks = ReadBlocks(Utf8Prefix(body, kMaxBodyBytes));
  if (blocks.empty()) return "";
  // The anchor: the block saying most about what to do, tests and
  // environments weighing against; ties go to the earlier block.
  size_t anchor = blocks.size();
  int best = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    if (b.kind == BlockKind::kCode) continue;
    int score = 2 * b.fix - 2 * b.noise;
    if (score > best) best = score, anchor = i;
  }
  if (anchor == blocks.size()) {
    // Nothing says what to do: the block naming the cause, else the first text.
    int cause = 0;
    for (size_t i = 0; i < blocks.size(); ++i)
      if (blocks[i].kind != BlockKind::kCode && blocks[i].cause - blocks[i].noise > cause)
        cause = blocks[i].cause - blocks[i].noise, anchor = i;
    if (anchor == blocks.size())
      for (size_t i = 0; i < blocks.size() && anchor == blocks.size(); ++i)
        if (blocks[i].kind != BlockKind::kCode) anchor = i;
    if (anchor == blocks.size()) anchor = 0;
  }
  std::vector<std::vector<std::string>> chosen(blocks.size());
  size_t budget = max_bytes;
  auto take = [&](size_t i) {
    if (!chosen[i].empty() || budget == 0) return false;
    chosen[i] = Fit(blocks[i], budget);
    size_t used = Bytes(chosen[i]);
    budget = used >= budget ? 0 : budget - used;
    return !chosen[i].empty();
  };
  take(anchor);
  // What the anchor leads into: a list or code right after a paragraph
  // that ends with a colon ("按以下步骤：").
  if (anchor + 1 < blocks.size() && blocks[anchor].kind == BlockKind::kPara &&
      EndsWithColon(blocks[anchor]) && blocks[anchor + 1].section == blocks[anchor].section)
    take(anchor + 1);
  // The diagnosis: the paragraph just before the anchor when it names the
  // cause or leads into it, else the nearest earlier block naming a cause.
  if (anchor > 0) {
    const Block& prev = blocks[anchor - 1];
    bool adjacent = prev.section == blocks[anchor].section && prev.kind == BlockKind::kPara;
    if (adjacent && (prev.cause > 0 || EndsWithColon(prev)) &&
        prev.noise <= prev.cause + prev.fix) {
      take(anchor - 1);
      if (anchor > 1 && EndsWithColon(prev) && prev.cause == 0 && blocks[anchor - 2].cause > 0 &&
          blocks[anchor - 2].section == prev.section)
        take(anchor - 2);
    } else {
      for (size_t i = anchor; i-- > 0;) {
        const Block& b = blocks[i];
        if (b.kind != BlockKind::kCode && b.cause > 0 && b.cause > b.noise) {
          take(i);
          break;
        }
      }
    }
  }
  // A note after the steps that refers to them or says what to do
  // ("第 3 步的 --no-build-isolation 是关键").
  size_t last = anchor;
  while (last + 1 < blocks.size() && !chosen[last + 1].empty()) ++last;
  if (last + 1 < blocks.size()) {
    const Block& next = blocks[last + 1];
    std::string lower = next.lines.empty() ? "" : Normalize(next.lines.front());
    bool refers = CountOf(lower, {"步", "以上", "上述", "注意", "关键", "step", "above", "note",
                                  "important"}) > 0;
    if (next.section == blocks[anchor].section && next.kind == BlockKind::kPara &&
        (refers || next.fix > 0) && next.noise == 0)
      take(last + 1);
  }
  std::string out;
  for (const auto& lines : chosen)
    for (const std::string& l : lines) {
      if (l.empty()) continue;
      if (!out.empty()) out += '\n';
      out += l;
    }
  return out;
}

}  // namespace fixgraph::query
