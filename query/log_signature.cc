#include "log_signature.h"

#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <unordered_set>
#include <vector>

namespace fixgraph::query {
namespace {

bool HasWord(std::string_view line, std::string_view word) {
  return line.find(word) != std::string_view::npos;
}

bool IsUpperAlnum(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// An Ascend-style error code: E + letter/digit + 4 digits (EZ9999, EE1001,
// E39999), standing alone.
bool HasECode(std::string_view line) {
  for (size_t i = 0; i + 6 <= line.size(); ++i) {
    if (line[i] != 'E') continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '_'))
      continue;
    if (!IsUpperAlnum(line[i + 1])) continue;
    bool digits = true;
    for (size_t k = i + 2; k < i + 6; ++k)
      if (!std::isdigit(static_cast<unsigned char>(line[k]))) digits = false;
    if (!digits) continue;
    if (i + 6 < line.size() && std::isalnum(static_cast<unsigned char>(line[i + 6]))) continue;
    return true;
  }
  return false;
}

// A long negative number or "ret=NNNNNN"/"code NNNNNN": a runtime error code.
bool HasNumericCode(std::string_view line) {
  for (size_t i = 0; i + 6 < line.size(); ++i) {
    if (line[i] == '-' && std::isdigit(static_cast<unsigned char>(line[i + 1]))) {
      size_t j = i + 1;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (j - i - 1 >= 6) return true;
    }
  }
  const std::string lower = LowerAscii(line);
  for (const char* k :
       {"ret=", "ret:", "ret =", "error code", "errcode", "error_code", "错误码", "返回值"})
    if (lower.find(k) != std::string::npos) return true;
  return false;
}

bool IsErrorLine(std::string_view line) {
  if (HasECode(line) || HasNumericCode(line)) return true;
  for (std::string_view w : {"Error",         "ERROR",         "error:",
                             "Exception",     "报错",          "失败",
                             "错误",          "异常",          "failed",
                             "Failed",        "FAILED",        "fatal",
                             "Fatal",         "FATAL",         "Segmentation",
                             "core dumped",   "Aborted",       "undefined symbol",
                             "not supported", "Traceback",     "timeout",
                             "Timeout",       "TIMEOUT",       "超时",
                             "out of memory", "Out of memory", "OOM"})
    if (HasWord(line, w)) return true;
  return false;
}

// Typical log line starts: "[ERROR] ...", "2025-03-05 10:00:00", "[2025-..", "E0305 ...".
bool LooksLikeLogLine(std::string_view line) {
  if (line.empty()) return false;
  if (line.front() == '[') return true;
  if (line.size() >= 10 && std::isdigit(static_cast<unsigned char>(line[0])) &&
      std::isdigit(static_cast<unsigned char>(line[1])) &&
      (line[4] == '-' || line[2] == ':' || line[4] == '/'))
    return true;
  if (line.rfind("File \"", 0) == 0 || line.rfind("at ", 0) == 0) return true;
  if (line.rfind("Traceback", 0) == 0) return true;
  return false;
}

// Removes timestamps, bracketed log headers with PIDs, hex addresses and
// long paths, which only add noise to the search.
std::string Clean(std::string_view line) {
  static const std::regex kTime(R"(\d{4}[-/]\d{2}[-/]\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)");
  static const std::regex kClock(R"(\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\b)");
  static const std::regex kHex(R"(\b0x[0-9a-fA-F]{6,}\b)");
  static const std::regex kPath(R"((?:/[A-Za-z0-9_.+-]+){3,}/?)");
  static const std::regex kPid(R"(\b(?:pid|tid|PID|TID)[:=]?\s*\d+)");
  std::string s(Utf8Prefix(line, 600));  // at a character boundary
  s = std::regex_replace(s, kTime, " ");
  s = std::regex_replace(s, kClock, " ");
  s = std::regex_replace(s, kHex, " ");
  s = std::regex_replace(s, kPath, " ");
  s = std::regex_replace(s, kPid, " ");
  return std::string(TrimAsciiSpace(s));
}

}  // namespace

bool LooksLikeLog(std::string_view text) {
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  return text.size() >= kLogMinBytes || lines >= kLogMinLines;
}

std::string ExtractSignature(std::string_view text, size_t max_lines) {
  if (!LooksLikeLog(text)) return std::string(text);
  std::vector<std::string_view> all;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    all.push_back(TrimAsciiSpace(text.substr(0, nl)));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  std::vector<size_t> keep;
  // The last line of each traceback: the first non-indented line after
  // "Traceback" that is not a frame.
  bool in_tb = false;
  for (size_t i = 0; i < all.size(); ++i) {
    std::string_view l = all[i];
    if (l.rfind("Traceback", 0) == 0) {
      in_tb = true;
      continue;
    }
    if (in_tb && !l.empty() && l.rfind("File \"", 0) != 0 &&
        l.find("^^^") == std::string_view::npos && l.find(": ") != std::string_view::npos &&
        l.find('(') != 0) {
      bool frame_code = i > 0 && all[i - 1].rfind("File \"", 0) == 0;
      if (!frame_code) {
        keep.push_back(i);
        in_tb = false;
      }
    }
  }
  size_t typed = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    std::string_view l = all[i];
    if (l.empty() || l.rfind("File \"", 0) == 0) continue;
    if (IsErrorLine(l)) {
      keep.push_back(i);
    } else if (!LooksLikeLogLine(l) && l.size() <= 200 && typed < 3 && i < 5) {
      keep.push_back(i);  // the user's own words before the paste
      ++typed;
    }
  }
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  if (keep.size() > 4 * max_lines) {  // bound the cleaning work on huge pastes
    std::vector<size_t> cut(keep.begin(),
                            keep.begin() + static_cast<std::ptrdiff_t>(2 * max_lines));
    cut.insert(cut.end(), keep.end() - static_cast<std::ptrdiff_t>(2 * max_lines), keep.end());
    keep = std::move(cut);
  }
  std::unordered_set<std::string> seen;
  std::vector<std::string> lines;
  for (size_t i : keep) {
    std::string c = Clean(all[i]);
    if (c.empty() || !seen.insert(c).second) continue;
    lines.push_back(std::move(c));
  }
  // Too many: keep the first few (the cause) and the last ones (the outcome).
  if (lines.size() > max_lines) {
    size_t head = max_lines / 2;
    std::vector<std::string> cut(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(head));
    cut.insert(cut.end(), lines.end() - static_cast<std::ptrdiff_t>(max_lines - head), lines.end());
    lines = std::move(cut);
  }
  if (lines.empty()) {
    // Nothing error-like: the last lines are the most telling.
    for (size_t i = all.size() > 5 ? all.size() - 5 : 0; i < all.size(); ++i)
      lines.push_back(Clean(all[i]));
  }
  std::string out;
  for (const std::string& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

}  // namespace fixgraph::query
