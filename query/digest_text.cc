#include "digest_text.h"

#include "ask_answer.h"

#include "fixgraph/engine/time.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace fixgraph::query::digest_text {
namespace {

bool IsSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Length of the UTF-8 sequence starting with byte c (1 for invalid bytes).
size_t SeqLen(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xE) return 3;
  if ((c >> 3) == 0x1E) return 4;
  return 1;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string TrimPunct(std::string s) {
  // Trailing ASCII and full-width punctuation and spaces.
  static const char* const kTail[] = {"。", "，", "；", "：", "！", "？", "、",
                                      ".",  ",",  ";",  ":",  "!",  " "};
  bool changed = true;
  while (changed && !s.empty()) {
    changed = false;
    for (const char* t : kTail) {
      std::string_view tv(t);
      if (s.size() >= tv.size() && s.compare(s.size() - tv.size(), tv.size(), tv) == 0) {
        s.resize(s.size() - tv.size());
        changed = true;
      }
    }
  }
  return s;
}

}  // namespace

std::string Squash(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto space = [&](size_t k) { return IsSpace(static_cast<unsigned char>(s[k])); };
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && space(i)) ++i;
    if (i == s.size()) break;
    size_t j = i;
    while (j < s.size() && !space(j)) ++j;
    if (!out.empty()) out += ' ';
    out.append(s, i, j - i);
    i = j;
  }
  return out;
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); i += SeqLen(static_cast<unsigned char>(s[i]))) ++n;
  return n;
}

namespace {

// Where a URL starting at or before `at` ends (the first space, non-ASCII
// byte or closing bracket), or npos when `at` is not inside one.
std::pair<size_t, size_t> UrlAround(std::string_view s, size_t at) {
  size_t start = std::string_view::npos;
  for (std::string_view scheme : {"https://", "http://"}) {
    size_t p = s.rfind(scheme, at);
    if (p != std::string_view::npos && (start == std::string_view::npos || p > start)) start = p;
  }
  if (start == std::string_view::npos) return {start, start};
  auto url_byte = [](unsigned char c) {
    return c > 0x20 && c < 0x80 && c != ')' && c != ']' && c != '>' && c != '`' && c != '"';
  };
  size_t end = start;
  while (end < s.size() && url_byte(static_cast<unsigned char>(s[end]))) ++end;
  if (at <= start || at >= end) return {std::string_view::npos, std::string_view::npos};
  return {start, end};
}

}  // namespace

std::string Truncate(std::string_view s, int max_chars) {
  if (max_chars <= 0) return std::string(s);
  size_t i = 0;
  int n = 0;
  while (i < s.size() && n < max_chars) {
    i += SeqLen(static_cast<unsigned char>(s[i]));
    ++n;
  }
  if (i >= s.size()) return std::string(s);
  constexpr size_t kSlack = 40;  // code points a cut may move forward
  // Inside an inline code span (an odd number of backticks before the cut)?
  size_t ticks =
      static_cast<size_t>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(i), '`'));
  if (ticks % 2 == 1) {
    size_t open = s.rfind('`', i - 1);
    size_t close = s.find('`', i);
    if (close != std::string_view::npos && CodePoints(s.substr(i, close + 1 - i)) <= kSlack) {
      i = close + 1;
    } else {
      i = open;
    }
  } else if (auto [start, end] = UrlAround(s, i); start != std::string_view::npos) {
    i = CodePoints(s.substr(i, end - i)) <= kSlack ? end : start;
  }
  if (i >= s.size()) return std::string(s);
  std::string out(s.substr(0, i));
  return TrimPunct(out) + "…";
}

std::string WithoutCodeBlocks(std::string_view s) {
  std::string out;
  bool in_code = false;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find('\n', pos);
    if (end == std::string_view::npos) end = s.size();
    std::string_view line = s.substr(pos, end - pos);
    std::string_view t = line;
    while (!t.empty() && IsSpace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    if (StartsWith(t, "```") || StartsWith(t, "~~~")) {
      in_code = !in_code;
    } else if (!in_code) {
      out.append(line);
      out += '\n';
    }
    pos = end + 1;
  }
  return out;
}

std::string FirstSentence(std::string_view s) {
  std::string text = WithoutCodeBlocks(s);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = Squash(std::string_view(text).substr(pos, end - pos));
    pos = end + 1;
    // Markdown decoration.
    while (!line.empty() &&
           (line[0] == '#' || line[0] == '>' || line[0] == '-' || line[0] == '*' || line[0] == ' '))
      line.erase(0, 1);
    // Leading punctuation left over from a previous sentence.
    for (bool again = true; again && !line.empty();) {
      again = false;
      for (std::string_view lead : {"。", "；", "，", "：", "！", "？", ".", ";", ",", ":", " "}) {
        if (line.compare(0, lead.size(), lead) == 0) {
          line.erase(0, lead.size());
          again = true;
        }
      }
    }
    if (line.empty()) continue;
    if (line.rfind("<!--", 0) == 0) continue;
    // Cut at the first sentence end.
    size_t cut = std::string::npos;
    for (std::string_view mark : {"。", "！", "？", "；", ". ", "? ", "! "}) {
      size_t p = line.find(mark);
      if (p != std::string::npos && p > 0) cut = std::min(cut, p);
    }
    if (cut != std::string::npos) line.resize(cut);
    line = TrimPunct(line);
    // A label line such as "复现步骤：" or "Environment:" says nothing alone.
    if (CodePoints(line) < 4) continue;
    return line;
  }
  return "";
}

std::string TrimSentenceEnd(std::string_view s) { return TrimPunct(std::string(s)); }

std::string LeadSentences(std::string_view s, int min_chars) {
  std::string text = WithoutCodeBlocks(s);
  std::string out;
  std::string_view rest = text;
  for (int i = 0; i < 3 && !rest.empty(); ++i) {
    std::string first = FirstSentence(rest);
    if (first.empty()) break;
    out += out.empty() ? first : "；" + first;
    if (static_cast<int>(CodePoints(out)) >= min_chars) break;
    size_t at = rest.find(first);
    if (at == std::string_view::npos) break;
    rest.remove_prefix(at + first.size());
  }
  return out;
}

std::string CleanTitle(std::string_view s) {
  std::string t = Squash(s);
  auto strip_lead = [](std::string x) {
    // What a stripped tag leaves before the text: "[Bug]: x", "【需求】：x", "[CI] - x".
    for (bool again = true; again && !x.empty();) {
      again = false;
      for (std::string_view lead :
           {"：", "，", "。", "；", "、", "- ", "— ", "– ", ":", ",", ";", "|", " "}) {
        if (x.compare(0, lead.size(), lead) == 0) {
          x.erase(0, lead.size());
          again = true;
        }
      }
    }
    return x;
  };
  for (int round = 0; round < 2; ++round) {
    if (!t.empty() && t[0] == '[') {
      size_t e = t.find(']');
      if (e == std::string::npos) break;
      std::string rest = strip_lead(Squash(t.substr(e + 1)));
      if (rest.empty()) break;
      t = rest;
    } else if (StartsWith(t, "【")) {
      size_t e = t.find("】");
      if (e == std::string::npos) break;
      std::string rest = strip_lead(Squash(t.substr(e + 3)));
      if (rest.empty()) break;
      t = rest;
    }
  }
  return TrimPunct(t);
}

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool Contains(const std::string& hay, std::initializer_list<std::string_view> needles) {
  for (std::string_view n : needles)
    if (hay.find(n) != std::string::npos) return true;
  return false;
}

// A description's section kinds, from the heading's words.
enum class Section { kNone, kCause, kChange, kSkip };

Section ClassifyHeading(const std::string& heading) {
  std::string h = Lower(heading);
  // Template parts that never say what was wrong or what changed.
  if (Contains(h, {"checklist",    "check list",     "self-check",   "test",
                   "自测",         "测试",           "验证",         "related issue",
                   "linked issue", "which issue",    "关联",         "issue",
                   "reviewer",     "release note",   "special note", "does this pr introduce",
                   "user-facing",  "signed",         "screenshot",   "截图",
                   "检视",         "type of change", "pr 类型",      "pr类型",
                   "类型"}))
    return Section::kSkip;
  // "What this PR does / why we need it" says both: a change.
  if (Contains(h, {"what this pr", "what does this pr"})) return Section::kChange;
  if (Contains(h, {"why", "motivation", "root cause", "cause", "background", "原因", "根因", "背景",
                   "问题描述", "问题现象"}))
    return Section::kCause;
  if (Contains(h, {"description", "summary", "change", "修改内容", "修改描述", "修改说明",
                   "修改方案", "改动", "修改", "变更", "方案", "solution", "the fix", "fix", "实现",
                   "描述", "内容", "overview", "details"}))
    return Section::kChange;
  if (Contains(h, {"problem", "the error", "bug", "问题"})) return Section::kCause;
  return Section::kNone;
}

// The heading a (squashed) line is, or "" when it is none: "## 修改",
// "**The error**", "修改原因：" (a short line ending with a colon).
std::string HeadingOf(const std::string& t) {
  if (t.empty()) return "";
  if (t[0] == '#') {
    size_t k = t.find_first_not_of('#');
    return k == std::string::npos ? "" : TrimPunct(Squash(t.substr(k)));
  }
  if (t.size() > 4 && StartsWith(t, "**") && t.compare(t.size() - 2, 2, "**") == 0 &&
      t.find("**", 2) == t.size() - 2)
    return TrimPunct(t.substr(2, t.size() - 4));
  for (std::string_view colon : {":", "："}) {
    if (t.size() > colon.size() && t.compare(t.size() - colon.size(), colon.size(), colon) == 0 &&
        CodePoints(t) <= 40) {
      std::string h = t.substr(0, t.size() - colon.size());
      if (StartsWith(h, "**") && h.size() > 4 && h.compare(h.size() - 2, 2, "**") == 0)
        h = h.substr(2, h.size() - 4);
      // A label, not a sentence that leads into a link or a list: bold, a
      // template's heading, or at most five words ("Root cause", "修改原因",
      // "What this PR does / why we need it"; not "vLLM bumps numpy version to 2.x").
      const bool bold = StartsWith(t, "**");
      if (h.find("http") == std::string::npos && h.find('`') == std::string::npos &&
          (bold || std::count(h.begin(), h.end(), ' ') < 5 || ClassifyHeading(h) != Section::kNone))
        return TrimPunct(Squash(h));
    }
  }
  return "";
}

// Text of a (squashed) line once list markers are gone; "" for lines that
// say nothing about the change (checklists, references, sign-offs, rules,
// placeholders).
std::string Substance(const std::string& line, bool* item) {
  *item = false;
  std::string t = line;
  std::string low = Lower(t);
  if (t.empty()) return "";
  if (StartsWith(low, "- [") || StartsWith(low, "* [") || StartsWith(low, "[x]") ||
      StartsWith(low, "[ ]"))
    return "";
  if (t.find_first_not_of("-=*_ ") == std::string::npos) return "";  // a rule
  if (IsVersionNote(t)) return "";  // "- vLLM version: v0.13.0", a template's footer
  for (std::string_view p :
       {"signed-off-by", "co-authored-by", "cc @", "cc:", "see:", "see also", "/cc", "reviewed-by"})
    if (StartsWith(low, p)) return "";
  // Reference-only lines: "Fixes #12", "Closes https://...", "关联 #68 URL".
  {
    std::string rest = low;
    for (bool again = true; again;) {
      again = false;
      for (std::string_view w :
           {"fixes",   "fixed",      "fix",     "closes", "closed", "close", "resolves", "resolved",
            "resolve", "related to", "related", "refs",   "ref",    "关联",  "修复",     "解决",
            "issues",  "issue",      "pr",      ":",      "：",     "-",     "*"}) {
        if (StartsWith(rest, w)) {
          rest = Squash(rest.substr(w.size()));
          again = true;
          break;
        }
      }
    }
    bool refs_only = true;
    bool any_ref = false;
    for (size_t i = 0; i < rest.size();) {
      auto c = static_cast<unsigned char>(rest[i]);
      if (c == '#' || c == '!') {
        size_t j = i + 1;
        while (j < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[j])))) ++j;
        any_ref = any_ref || j > i + 1;
        i = j;
      } else if (StartsWith(rest.substr(i), "http")) {
        while (i < rest.size() && rest[i] != ' ') ++i;
        any_ref = true;
      } else if (c == ' ' || c == ',' || c == ':' || c == ';' || c == '.' || c == '(' || c == ')') {
        ++i;
      } else if (StartsWith(rest.substr(i), "、") || StartsWith(rest.substr(i), "，") ||
                 StartsWith(rest.substr(i), "：")) {
        i += 3;
      } else {
        refs_only = false;
        break;
      }
    }
    if (refs_only && (any_ref || rest.empty())) return "";
  }
  // Placeholders a template leaves.
  if (low == "na" || low == "n/a" || low == "none" || low == "无" || low == "no" || low == "yes" ||
      low == "不涉及")
    return "";
  // What a dropped reference line before it left: "URL\n, this will cause".
  while (!t.empty() && (t[0] == ',' || t[0] == ';')) t = Squash(t.substr(1));
  for (std::string_view p : {"，", "；"})
    while (StartsWith(t, p)) t = Squash(t.substr(p.size()));
  if (t.empty()) return "";
  // List markers.
  while (!t.empty() && (t[0] == '-' || t[0] == '*' || t[0] == '+' || t[0] == '>') && t.size() > 1 &&
         t[1] == ' ') {
    t = Squash(t.substr(2));
    *item = true;
  }
  if (!t.empty() && std::isdigit(static_cast<unsigned char>(t[0]))) {
    size_t k = t.find_first_not_of("0123456789");
    if (k != std::string::npos && k < 3 &&
        (t.compare(k, 2, ". ") == 0 || t.compare(k, 3, "、") == 0))
      *item = true;
  }
  return t;
}

// "Fix #5241: Improve ..." -> "Improve ...": a leading reference phrase.
std::string WithoutLeadingRef(std::string t) {
  std::string low = Lower(t);
  for (std::string_view w :
       {"fixes ", "fix ", "closes ", "close ", "resolves ", "this is to fix ", "this fixes "}) {
    if (!StartsWith(low, w)) continue;
    size_t p = w.size();
    if (p < t.size() && (t[p] == '#' || StartsWith(std::string_view(t).substr(p), "http"))) {
      size_t q = t.find(' ', p);
      if (q == std::string::npos) return "";
      std::string rest = Squash(t.substr(q));
      while (!rest.empty() &&
             (rest[0] == ':' || rest[0] == ',' || rest[0] == '.' || rest[0] == '-'))
        rest = Squash(rest.substr(1));
      return rest;
    }
  }
  return t;
}

// A trailing "Fixes #12" / "Closes URL" sentence removed.
std::string WithoutTrailingRef(std::string t) {
  // A reference sentence is short: look at the end only.
  const size_t from = t.size() > 64 ? t.size() - 64 : 0;
  std::string low = Lower(std::string_view(t).substr(from));
  for (std::string_view w : {"fixes ", "fix ", "closes ", "close ", "resolves "}) {
    size_t p = low.rfind(w);
    if (p == std::string::npos || (p > 0 && low[p - 1] != ' ') ||
        (p == 0 && from > 0 && t[from - 1] != ' '))
      continue;
    std::string tail = low.substr(p + w.size());
    bool ref = !tail.empty() && (tail[0] == '#' || StartsWith(tail, "http"));
    if (ref && tail.find(' ') == std::string::npos) return TrimPunct(Squash(t.substr(0, from + p)));
  }
  return t;
}

// A short line that is mostly a pointer elsewhere ("As discussed in #4565
// with @x") says nothing about the change.
bool MostlyPointer(const std::string& t) {
  if (CodePoints(t) >= 40) return false;
  for (size_t i = 0; i + 1 < t.size(); ++i)
    if ((t[i] == '#' && std::isdigit(static_cast<unsigned char>(t[i + 1]))) ||
        (t[i] == '@' && std::isalnum(static_cast<unsigned char>(t[i + 1]))))
      return true;
  return false;
}

// Only a restatement of the title (or its start) tells nothing new.
bool RestatesTitle(const std::string& text, std::string_view title) {
  std::string a = Lower(TrimPunct(Squash(text)));
  std::string b = Lower(CleanTitle(title));
  if (a.empty()) return true;
  if (b.empty()) return false;
  return a == b || (b.find(a) != std::string::npos);
}

}  // namespace

PrNote ExtractPrNote(std::string_view body, std::string_view title, int max_chars) {
  // HTML comments (template instructions) go first, across lines.
  std::string text;
  for (size_t pos = 0; pos < body.size();) {
    size_t open = body.find("<!--", pos);
    if (open == std::string_view::npos) {
      text.append(body.substr(pos));
      break;
    }
    text.append(body.substr(pos, open - pos));
    size_t close = body.find("-->", open + 4);
    pos = close == std::string_view::npos ? body.size() : close + 3;
  }
  text = WithoutCodeBlocks(text);
  // Paragraphs with the section they sit in.
  struct Para {
    Section section;
    std::vector<std::pair<std::string, bool>> lines;  // (text, is a list item)
  };
  std::vector<Para> paras;
  Section current = Section::kNone;
  bool open_para = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = Squash(std::string_view(text).substr(pos, end - pos));
    pos = end + 1;
    if (line.empty()) {
      open_para = false;
      continue;
    }
    std::string heading = HeadingOf(line);
    if (!heading.empty()) {
      current = ClassifyHeading(heading);
      open_para = false;
      continue;
    }
    // An inline label: "**Root Cause**：text", "修改原因: text" (labels are short).
    {
      const std::string& t = line;
      std::string_view head = std::string_view(t).substr(0, 64);
      size_t colon = std::min(head.find("："), head.find(": "));
      if (colon != std::string::npos && colon > 0) {
        std::string label = t.substr(0, colon);
        bool bold = StartsWith(label, "**") && label.size() > 4 &&
                    label.compare(label.size() - 2, 2, "**") == 0;
        if (bold) label = label.substr(2, label.size() - 4);
        Section kind = ClassifyHeading(label);
        if (kind != Section::kNone && (bold || CodePoints(label) <= 12) &&
            label.find_first_of("`/.#") == std::string::npos) {
          current = kind;
          open_para = false;
          line =
              Squash(std::string_view(t).substr(colon + (t.compare(colon, 3, "：") == 0 ? 3 : 2)));
        }
      }
    }
    bool item = false;
    std::string sub = Substance(line, &item);
    if (sub.empty()) continue;
    if (!open_para) {
      paras.push_back({current, {}});
      open_para = true;
    }
    paras.back().lines.emplace_back(sub, item);
  }
  auto join = [](const Para& p) {
    std::string out;
    bool cjk = false;  // any non-ASCII text: list items join with "；"
    for (const auto& [l, item] : p.lines)
      for (char ch : l) cjk = cjk || static_cast<unsigned char>(ch) >= 0x80;
    for (const auto& [l, item] : p.lines) {
      if (!out.empty()) {
        // List items read as one clause each; wrapped lines join with a space.
        if (!item) {
          out += " ";
        } else if (cjk) {
          out = TrimPunct(out) + "；";
        } else {
          out = TrimPunct(out) + "; ";
        }
      }
      out += l;
    }
    return Squash(out);
  };
  auto first_of = [&](Section want) -> std::string {
    std::string out;
    for (const Para& p : paras) {
      if (p.section != want) continue;
      std::string t = WithoutTrailingRef(WithoutLeadingRef(join(p)));
      if (CodePoints(t) < 8 || RestatesTitle(t, title) || MostlyPointer(t)) continue;
      out = out.empty() ? t : out + " " + t;
      if (static_cast<int>(CodePoints(out)) >= max_chars / 2) break;
    }
    return out;
  };
  PrNote note;
  note.cause = first_of(Section::kCause);
  note.change = first_of(Section::kChange);
  if (note.cause.empty() && note.change.empty()) {
    // No useful headings: the first substantive paragraph outside skipped
    // sections says what the PR does.
    for (const Para& p : paras) {
      if (p.section == Section::kSkip) continue;
      std::string t = WithoutTrailingRef(WithoutLeadingRef(join(p)));
      if (CodePoints(t) < 12 || RestatesTitle(t, title) || MostlyPointer(t)) continue;
      note.change = t;
      break;
    }
  }
  note.cause = TrimPunct(Truncate(note.cause, max_chars));
  note.change = TrimPunct(Truncate(note.change, max_chars));
  return note;
}

namespace {
// "!166" / "#69" when `ref` is `repo` followed by `mark`, else `ref`.
std::string Shorten(const std::string& ref, const RepoRef& repo, char mark) {
  std::string prefix = repo.ToString();
  prefix.push_back(mark);
  if (ref.size() <= prefix.size() || ref.compare(0, prefix.size(), prefix) != 0) return ref;
  std::string out(1, mark);
  out.append(ref, prefix.size(), std::string::npos);
  return out;
}
}  // namespace

std::string ShortPr(const std::string& pr, const RepoRef& repo) { return Shorten(pr, repo, '!'); }

std::vector<std::pair<std::string, std::string>> PrMentions(
    const std::map<std::string, std::string>& pr_urls, const RepoRef& repo) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [pr, url] : pr_urls)
    if (!url.empty()) out.emplace_back(ShortPr(pr, repo), url);
  return out;
}

std::string LinkMentions(
    std::string_view text, std::vector<std::pair<std::string, std::string>> mentions, char open,
    char close, bool first_only,
    const std::function<std::string(const std::string& text, const std::string& url)>& link) {
  if (mentions.empty()) return std::string(text);
  std::sort(mentions.begin(), mentions.end(), [](const auto& a, const auto& b) {
    return a.first.size() != b.first.size() ? a.first.size() > b.first.size() : a.first < b.first;
  });
  auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  std::vector<bool> done(mentions.size(), false);
  std::string out;
  out.reserve(text.size() + 64);
  for (size_t i = 0; i < text.size();) {
    if (text[i] == open) {  // copy the span whole
      size_t end = text.find(close, i + 1);
      end = end == std::string_view::npos ? text.size() : end + 1;
      out.append(text, i, end - i);
      i = end;
      continue;
    }
    bool matched = false;
    if (i == 0 || !word(text[i - 1])) {
      for (size_t k = 0; k < mentions.size(); ++k) {
        const auto& [m, url] = mentions[k];
        if (text.compare(i, m.size(), m) != 0) continue;
        size_t after = i + m.size();
        if (after < text.size() && word(text[after])) continue;
        out += first_only && done[k] ? m : link(m, url);
        done[k] = true;
        i = after;
        matched = true;
        break;
      }
    }
    if (!matched) out += text[i++];
  }
  return out;
}

std::string ShortIssue(const std::string& issue, const RepoRef& repo) {
  return Shorten(issue, repo, '#');
}

std::string NamedIssue(const std::string& issue) {
  size_t hash = issue.rfind('#');
  size_t slash = issue.rfind('/', hash);
  if (hash == std::string::npos || slash == std::string::npos) return issue;
  return issue.substr(slash + 1);
}

std::string Date(const OptTime& t) {
  return t ? FormatDate(*t, DisplayOffsetMinutes()) : std::string();
}

std::string DateTime(const OptTime& t) {
  if (!t) return "";
  std::string s = FormatWithOffset(*t, DisplayOffsetMinutes());
  size_t sp = s.rfind(' ');
  return sp == std::string::npos ? s : s.substr(0, sp);
}

std::string MdCell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string Html(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<std::string> SalientTerms(std::string_view text) {
  // ASCII classes (the bytes of CJK text are never identifier characters).
  auto lower_c = [](unsigned char c) { return c >= 'a' && c <= 'z'; };
  auto upper_c = [](unsigned char c) { return c >= 'A' && c <= 'Z'; };
  auto digit_c = [](unsigned char c) { return c >= '0' && c <= '9'; };
  auto alpha_c = [&](unsigned char c) { return lower_c(c) || upper_c(c); };
  auto ident = [&](unsigned char c) { return alpha_c(c) || digit_c(c) || c == '_'; };
  std::vector<std::string> terms;
  size_t i = 0;
  while (i < text.size()) {
    // Skip URLs entirely.
    if (text[i] == 'h' &&
        (text.compare(i, 7, "http://") == 0 || text.compare(i, 8, "https://") == 0)) {
      while (i < text.size() && !IsSpace(static_cast<unsigned char>(text[i])) &&
             static_cast<unsigned char>(text[i]) < 0x80)
        ++i;
      continue;
    }
    auto c = static_cast<unsigned char>(text[i]);
    if (!ident(c)) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size()) {
      auto d = static_cast<unsigned char>(text[i]);
      if (ident(d) || ((d == '-' || d == '.') && i + 1 < text.size() &&
                       ident(static_cast<unsigned char>(text[i + 1])))) {
        ++i;
      } else {
        break;
      }
    }
    std::string_view tok = text.substr(start, i - start);
    if (tok.size() < 3 || tok.size() > 48) continue;
    // Versions, sizes and durations ("8.0.RC3", "16ms", "910B") start with a digit.
    if (digit_c(static_cast<unsigned char>(tok[0]))) continue;
    bool under = false, digit = false, lower = false, inner_upper = false;
    int upper = 0;
    size_t letters = 0;
    for (size_t k = 0; k < tok.size(); ++k) {
      auto t = static_cast<unsigned char>(tok[k]);
      if (t == '_') under = true;
      if (digit_c(t)) digit = true;
      if (lower_c(t)) {
        lower = true;
        ++letters;
      }
      if (upper_c(t)) {
        ++upper;
        ++letters;
        if (k > 0 && lower_c(static_cast<unsigned char>(tok[k - 1]))) inner_upper = true;
      }
    }
    if (letters == 0) continue;  // numbers
    bool all_caps = !lower && upper >= 4;
    // "fp8", "bf16" count; "v2", "h264" (one letter) do not.
    if (digit && !under && !inner_upper && !all_caps && letters < 2) continue;
    if (!(under || digit || inner_upper || all_caps)) continue;
    while (!tok.empty() && (tok.back() == '.' || tok.back() == '-')) tok.remove_suffix(1);
    if (tok.size() < 3) continue;
    std::string& term = terms.emplace_back(tok);
    for (char& t : term)
      if (upper_c(static_cast<unsigned char>(t))) t = static_cast<char>(t - 'A' + 'a');
  }
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  return terms;
}

}  // namespace fixgraph::query::digest_text
