// UTF-8 helpers shared by the JSON reader (\u escapes), the text normalisers
// and every place that shortens or trims text.
//
// Thread safety: pure function.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fixgraph {

// Appends the UTF-8 bytes of `cp` (at most U+10FFFF; not checked) to `out`.
inline void AppendUtf8(std::string* out, char32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The bytes of the UTF-8 sequence led by `lead`: 1 for ASCII and for a byte
// that cannot lead one (a stray continuation byte), else 2, 3 or 4 (not
// checked against the bytes that follow).
inline size_t Utf8SequenceLength(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// The longest prefix of `s` of at most `max_bytes` bytes that does not end
// inside a multi-byte UTF-8 sequence: a cut that would fall on a continuation
// byte moves back to the start of its character. Bytes that are not valid
// UTF-8 are cut like single characters.
inline std::string_view Utf8Prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// `s` without the ASCII white space (space, \t, \n, \v, \f, \r) at either
// end; other spaces (U+3000, U+00A0) are kept.
inline std::string_view TrimAsciiSpace(std::string_view s) {
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// `s` with ASCII letters lower-cased; other bytes (UTF-8 included) as they are.
inline std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace fixgraph
