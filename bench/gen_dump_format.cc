// gen_dump_format.cc: value formatting for fixgraph_gen_dump (contract in gen_dump_format.h).

#include "gen_dump_format.h"

#include "gen_dump_random.h"

#include <algorithm>
#include <chrono>

namespace gen_dump {

std::string_view PlatformName(Platform p) {
  switch (p) {
    case Platform::kGitCode:
      return "gitcode";
    case Platform::kGitee:
      return "gitee";
    case Platform::kGitHub:
      return "github";
  }
  return "";
}

std::string_view WebRoot(Platform p) {
  switch (p) {
    case Platform::kGitCode:
      return "https://gitcode.com/";
    case Platform::kGitee:
      return "https://gitee.com/";
    case Platform::kGitHub:
      return "https://github.com/";
  }
  return "";
}

void TruncateCodePoints(std::string& s, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (n++ == max) {
      s.resize(i);
      return;
    }
  }
}

std::string IntString(int64_t v) {
  std::string s;
  AppendInt(s, v);
  return s;
}

void AppendHex(std::string& out, uint64_t v, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) out += kHex[(v >> (4 * i)) & 0xF];
}

std::string HexId(uint64_t key, int digits) {
  std::string s;
  for (uint64_t k = 0; digits > 0; ++k, digits -= 16)
    AppendHex(s, Mix64(key + k), std::min(digits, 16));
  return s;
}

std::string GiteeStyleNumber(uint64_t v) {
  constexpr size_t kMinDigits = 5;
  std::string digits;
  while (v > 0 || digits.size() < kMinDigits) {
    digits += "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[v % 36];
    v /= 36;
  }
  std::reverse(digits.begin(), digits.end());
  return "I" + digits;
}

std::string Lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

CivilTime ToCivil(int64_t seconds) {
  const int64_t days = seconds / kDay;  // the time line is after 1970
  const int64_t rest = seconds - days * kDay;
  const std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  return {static_cast<int>(ymd.year()),     static_cast<unsigned>(ymd.month()),
          static_cast<unsigned>(ymd.day()), rest / kHour,
          rest % kHour / kMinute,           rest % kMinute};
}

void AppendDigits(std::string& out, int64_t value, int width) {
  char digits[8];
  for (int i = width - 1; i >= 0; --i, value /= 10) digits[i] = static_cast<char>('0' + value % 10);
  out.append(digits, static_cast<size_t>(width));
}

std::string FormatTime(int64_t utc, Platform platform) {
  const bool china = platform != Platform::kGitHub;
  const CivilTime t = ToCivil(utc + (china ? kChinaUtcOffset : 0));
  std::string s;
  s.reserve(25);
  AppendDigits(s, t.year, 4);
  s += '-';
  AppendDigits(s, t.month, 2);
  s += '-';
  AppendDigits(s, t.day, 2);
  s += 'T';
  AppendDigits(s, t.hour, 2);
  s += ':';
  AppendDigits(s, t.minute, 2);
  s += ':';
  AppendDigits(s, t.second, 2);
  s += china ? "+08:00" : "Z";
  return s;
}

}  // namespace gen_dump
