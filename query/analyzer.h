// Text analysis shared by the issue index (ask) and the KG doc index: the same
// function turns indexed text and query text into terms, so both sides agree.
// Private to query/.
//
// Normalize: NFKC (full-width forms such as `（` `ＡＢＣ` `９１０Ｂ` fold to ASCII)
// and Unicode case folding; invalid UTF-8 bytes become U+FFFD.
//
// Analyze splits normalized text into terms, each with a position:
//   - identifiers and codes whole, lower-cased (`aclnngroupedmatmulv3`,
//     `-1610252272`, `ez9999`, `dts2025030506797`, `910b`, `8.1.rc1`,
//     `ascend_rt_visible_devices`), and, at the same position, their parts
//     split at `_` `.` `-`, camelCase and letter/long-digit boundaries,
//     stemmed when alphabetic (`aclnn`, `group`, `matmul`, `v3`);
//   - plain words English-stemmed (`crashes` -> `crash`), stop words dropped;
//   - runs of CJK characters as overlapping bigrams (`显存不足` -> `显存`
//     `存不` `不足`), a lone CJK character as itself; a few one-character
//     Chinese function words (的 了 吗 呢 吧 啊 和 与 也 都 把 被 这 那) end a
//     run and are dropped, as English stop words are (`结果的精度` -> `结果`
//     `精度`, not `果的` `的精`).
// Terms are at most kMaxTermBytes long (longer tokens are dropped).
//
// Thread safety: all functions are pure and safe to call concurrently (each
// thread keeps its own buffers and stem cache).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::query {

inline constexpr size_t kMaxTermBytes = 64;

enum class TermKind : std::uint8_t {
  kWord,        // a stemmed plain word
  kIdentifier,  // an identifier or code kept whole
  kPart,        // a part of an identifier (same position as the whole)
  kCjk,         // a CJK bigram (or lone character)
};

struct Term {
  std::string text;
  std::uint32_t pos = 0;  // 1-based; parts share the position of their whole
  TermKind kind = TermKind::kWord;
};

// NFKC + case folding; invalid UTF-8 replaced by U+FFFD. Never throws.
std::string Normalize(std::string_view text);

// NFKC only (case kept), invalid UTF-8 replaced. Never throws.
std::string NormalizeKeepCase(std::string_view text);

// Terms of `text` (any bytes; normalized inside), in text order.
std::vector<Term> Analyze(std::string_view text);

// Receives the terms of AnalyzeTo one by one, in text order. `text` is valid
// only during the call.
class TermSink {
 public:
  virtual void Add(std::string_view text, std::uint32_t pos, TermKind kind) = 0;

 protected:
  ~TermSink() = default;
};

// The terms Analyze returns, handed to `sink` without building them as
// strings (the indexing path: analysing a text allocates nothing once this
// thread's buffers have grown). Exceptions thrown by the sink propagate.
void AnalyzeTo(std::string_view text, TermSink* sink);

// The English stem of one lower-case word.
std::string StemWord(std::string_view word);

// True for a code point in a CJK script (Han, Kana, Hangul, CJK punctuation
// excluded).
bool IsCjk(char32_t c);

}  // namespace fixgraph::query
