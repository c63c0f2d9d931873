// gen_dump_format.h: how fixgraph_gen_dump writes values: decimal and hex numbers, SHA-like ids,
// Gitee issue numbers, UTF-8 lengths and cuts, and timestamps in each platform's form.
// Pure functions of their arguments.
#pragma once

#include "gen_dump_shape.h"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gen_dump {

enum class Platform { kGitCode, kGitee, kGitHub };

// "gitcode", "gitee", "github": the dump's top directory and the reference prefix.
std::string_view PlatformName(Platform p);
// "https://gitcode.com/" and so on.
std::string_view WebRoot(Platform p);

// The number of UTF-8 code points in s.
inline size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}
// Cuts s to at most max code points.
void TruncateCodePoints(std::string& s, size_t max);

inline void AppendInt(std::string& out, int64_t v) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(result.ptr - buf));
}
std::string IntString(int64_t v);
// The low 4 * digits bits of v as lowercase hex digits.
void AppendHex(std::string& out, uint64_t v, int digits);
// 40 hex digits (a git SHA) or fewer, from a key.
std::string HexId(uint64_t key, int digits);
// Gitee-style issue number: "I" and at least five base-36 digits.
std::string GiteeStyleNumber(uint64_t v);
// ASCII letters lowered.
std::string Lowercase(std::string_view s);

struct CivilTime {
  int year;
  unsigned month, day;
  int64_t hour, minute, second;
};
// UTC seconds (after 1970) as a calendar date and time of day.
CivilTime ToCivil(int64_t seconds);
// value as exactly width decimal digits (width <= 8), zero-padded.
void AppendDigits(std::string& out, int64_t value, int width);
// "2026-03-01T10:00:00+08:00" (GitCode, Gitee) or "2026-03-01T02:00:00Z" (GitHub).
std::string FormatTime(int64_t utc, Platform platform);

}  // namespace gen_dump
