#include "digest_text.h"

#include <algorithm>
#include <cctype>

#include "fixgraph/engine/time.h"

namespace fixgraph::query::digest_text {
namespace {

bool IsSpace(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

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
  static const char* const kTail[] = {"。", "，", "；", "：", "！", "？", "、", ".", ",", ";", ":", "!", " "};
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

std::string Truncate(std::string_view s, int max_chars) {
  if (max_chars <= 0) return std::string(s);
  size_t i = 0;
  int n = 0;
  while (i < s.size() && n < max_chars) {
    i += SeqLen(static_cast<unsigned char>(s[i]));
    ++n;
  }
  if (i >= s.size()) return std::string(s);
  std::string out(s.substr(0, std::min(i, s.size())));
  // Avoid leaving an unclosed inline code span.
  if (std::count(out.begin(), out.end(), '`') % 2 == 1) out += '`';
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
    while (!line.empty() && (line[0] == '#' || line[0] == '>' || line[0] == '-' || line[0] == '*' ||
                             line[0] == ' '))
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
  for (int round = 0; round < 2; ++round) {
    if (!t.empty() && t[0] == '[') {
      size_t e = t.find(']');
      if (e != std::string::npos && e + 1 < t.size()) t = Squash(t.substr(e + 1));
    } else if (StartsWith(t, "【")) {
      size_t e = t.find("】");
      if (e != std::string::npos && e + 3 < t.size()) t = Squash(t.substr(e + 3));
    }
  }
  return TrimPunct(t);
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
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
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
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (!ident(c)) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size()) {
      unsigned char d = static_cast<unsigned char>(text[i]);
      if (ident(d)) {
        ++i;
      } else if ((d == '-' || d == '.') && i + 1 < text.size() &&
                 ident(static_cast<unsigned char>(text[i + 1]))) {
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
      unsigned char t = static_cast<unsigned char>(tok[k]);
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
