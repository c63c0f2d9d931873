// text_internal.h: what the parts of graph/text (text.cc, text_tokens.cc) share and no one
// else uses: UTF-8 decoding as the tokenizer does it, the CJK classes and bigram hash, the
// stop words, and ASCII classes in the "C" locale. All inline: these sit in the hot loops.
#pragma once

#include "fixgraph/engine/cjk.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fixgraph::graph::text {

// Decodes one UTF-8 code point at s[i]; advances i. Invalid bytes decode as
// themselves (one byte).
inline char32_t Next(std::string_view s, size_t* i) {
  auto c = static_cast<unsigned char>(s[*i]);
  int n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (*i + n > s.size()) n = 1;
  char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += n;
  return cp;
}

// The number of bytes Next takes for a sequence led by `c` (before it
// clamps to the end of the text).
inline int SequenceLength(unsigned char c) {
  return c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
}

// The shared CJK vocabulary (engine/cjk.h); the linker takes BMP ideographs
// only (HashCjk hashes three-byte code points).
constexpr bool IsCjk(char32_t cp) { return IsCjkIdeographBmp(cp); }
constexpr bool IsStopChar(char32_t cp) { return IsCjkLinkStopChar(cp); }

// Hash (FNV-1a, as Hash) of the UTF-8 bytes of `n` CJK code points, each
// three bytes long (every IsCjk code point is in U+0800..U+FFFF), without
// building the string.
inline std::uint64_t HashCjk(const char32_t* cps, size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  auto add = [&h](unsigned byte) {
    h ^= byte;
    h *= 1099511628211ull;
  };
  for (size_t k = 0; k < n; ++k) {
    char32_t cp = cps[k];
    add(0xE0 | (cp >> 12));
    add(0x80 | ((cp >> 6) & 0x3F));
    add(0x80 | (cp & 0x3F));
  }
  return h;
}

// The stop words (none longer than 6 bytes: AppendTokens tests only words of
// at most 6).
inline constexpr std::string_view kStopWords[] = {
    "an",   "to",   "of",   "in",   "on",   "or",    "is",    "no",     "be",     "by",
    "at",   "as",   "it",   "do",   "if",   "we",    "pr",    "mr",     "the",    "for",
    "and",  "are",  "not",  "can",  "but",  "you",   "bug",   "with",   "when",   "this",
    "that", "from", "into", "does", "will", "after", "issue", "before", "should", "please"};

inline bool AllAscii(std::string_view s) {
  unsigned char any = 0;
  for (char c : s) any |= static_cast<unsigned char>(c);
  return any < 0x80;
}

// ASCII character classes, as <cctype> gives them in the "C" locale.
constexpr bool AsciiLower(char32_t c) { return c >= 'a' && c <= 'z'; }
constexpr bool AsciiUpper(char32_t c) { return c >= 'A' && c <= 'Z'; }
constexpr bool AsciiAlnum(char32_t c) {
  return (c >= '0' && c <= '9') || AsciiLower(c) || AsciiUpper(c);
}

// std::tolower in the "C" locale, inline.
constexpr char AsciiToLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace fixgraph::graph::text
