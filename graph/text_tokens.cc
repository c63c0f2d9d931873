// graph/text tokens (text.h: Tokens, TokensOfLines, Overlap, Intersects, Dice, Coverage): the
// SIMD byte classification, the stop-word table and AppendTokens, and the set comparisons.
#include "text.h"
#include "text_internal.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fixgraph::graph::text {

namespace {

// Per ASCII byte, for AppendTokens: the byte lower-cased when it belongs to
// a word (a-z, 0-9, '_' after folding A-Z), 0 for a separator; kNonAscii for
// bytes 0x80 and up (decoded as UTF-8).
constexpr unsigned char kNonAscii = 0xFF;
constexpr std::array<unsigned char, 256> kWordByte = [] {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (c >= 0x80) {
      t[c] = kNonAscii;
    } else if (AsciiUpper(static_cast<char32_t>(c))) {
      t[c] = static_cast<unsigned char>(c - 'A' + 'a');
    } else if (AsciiAlnum(static_cast<char32_t>(c)) || c == '_') {
      t[c] = static_cast<unsigned char>(c);
    }
  }
  return t;
}();

// FNV-1a (as Hash) of a string known at compile time.
constexpr std::uint64_t ConstHash(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

// The stop words (kStopWords) as an open-addressing table of their hashes
// (slot: the hash's top seven bits), each with its bytes packed into an
// integer (little-endian, zero-padded: stop words are at most 6 bytes long
// and hold no NUL byte), so a word is tested with one probe or two and, on a
// hash hit, one integer comparison.
struct StopSlot {
  std::uint64_t hash = 0, packed = 0;
};
constexpr std::uint64_t Packed(std::string_view w) {
  std::uint64_t v = 0;
  for (size_t k = 0; k < w.size(); ++k)
    v |= std::uint64_t{static_cast<unsigned char>(w[k])} << (8 * k);
  return v;
}
constexpr std::array<StopSlot, 128> kStopTable = [] {
  std::array<StopSlot, 128> t{};
  for (std::string_view w : kStopWords) {
    const std::uint64_t h = ConstHash(w);
    size_t i = h >> 57;
    while (t[i].hash != 0) i = (i + 1) & 127;
    t[i] = {h, Packed(w)};
  }
  return t;
}();
// A 1024-bit filter of the stop words' hashes (bit: the top ten bits): most
// words are ruled out with one bit test, before any probe of kStopTable.
constexpr std::array<std::uint64_t, 16> kStopFilter = [] {
  std::array<std::uint64_t, 16> f{};
  for (std::string_view w : kStopWords) {
    const std::uint64_t bit = ConstHash(w) >> 54;
    f[bit >> 6] |= std::uint64_t{1} << (bit & 63);
  }
  return f;
}();
// True when the word of hash `hash` is a stop word; `packed` gives its bytes
// packed as Packed does (called only on a hash hit).
template <typename F>
inline bool IsStopHash(std::uint64_t hash, F packed) {
  const std::uint64_t bit = hash >> 54;
  if (!(kStopFilter[bit >> 6] >> (bit & 63) & 1)) return false;
  for (size_t i = hash >> 57;; i = (i + 1) & 127) {
    if (kStopTable[i].hash == 0) return false;
    if (kStopTable[i].hash == hash) return kStopTable[i].packed == packed();
  }
}

// Bit maps of a text's bytes, 64 bytes a block, for AppendTokens: which
// bytes are ASCII word bytes (A-Z, a-z, 0-9, '_'), which of them letters,
// which are 0x80 and up. Bits past the end are clear (as for NUL bytes, which
// are separators). One per thread, kept across calls.
struct ByteBlock {
  std::uint64_t word, alpha, high;
};

void ClassifyBlock(const unsigned char* p, ByteBlock* b) {
#if defined(__SSE2__)
  const __m128i alpha_bias = _mm_set1_epi8(static_cast<char>(0x80 - 'a'));
  const __m128i alpha_limit = _mm_set1_epi8(static_cast<char>(-128 + 26));  // 'a'..'z' after | 0x20
  const __m128i digit_bias = _mm_set1_epi8(static_cast<char>(0x80 - '0'));
  const __m128i digit_limit = _mm_set1_epi8(static_cast<char>(-128 + 10));  // '0'..'9'
  const __m128i case_bit = _mm_set1_epi8(0x20);
  const __m128i underscore = _mm_set1_epi8('_');
  std::uint64_t word = 0, alpha = 0, high = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + std::ptrdiff_t{16} * k));
    const __m128i a =
        _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(v, case_bit), alpha_bias), alpha_limit);
    const __m128i d = _mm_cmplt_epi8(_mm_add_epi8(v, digit_bias), digit_limit);
    const __m128i w = _mm_or_si128(_mm_or_si128(a, d), _mm_cmpeq_epi8(v, underscore));
    const unsigned shift = 16 * static_cast<unsigned>(k);
    word |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(w))} << shift;
    alpha |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(a))} << shift;
    high |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(v))} << shift;
  }
  *b = {word, alpha, high};
#else
  *b = {0, 0, 0};
  for (int k = 0; k < 64; ++k) {
    const unsigned char w = kWordByte[p[k]];
    if (w == kNonAscii)
      b->high |= std::uint64_t{1} << k;
    else if (w != 0)
      b->word |= std::uint64_t{1} << k;
    if (AsciiLower(w)) b->alpha |= std::uint64_t{1} << k;
  }
#endif
}

// The blocks of `n` bytes at `p`: n / 64 + 1 of them (the last one partly or
// wholly past the end).
const ByteBlock* ClassifyText(const unsigned char* p, size_t n) {
  static thread_local std::vector<ByteBlock> blocks;
  const size_t full = n / 64;
  blocks.resize(full + 1);
  for (size_t k = 0; k < full; ++k) ClassifyBlock(p + 64 * k, &blocks[k]);
  unsigned char tail[64] = {};
  if (n > 64 * full) std::memcpy(tail, p + 64 * full, n - 64 * full);
  ClassifyBlock(tail, &blocks[full]);
  return blocks.data();
}

constexpr std::uint64_t kFnvBasis = 1469598103934665603ull, kFnvPrime = 1099511628211ull;
// The FNV prime's inverse modulo 2^64 (the prime is odd): undoes the last FNV step, so the
// hash of all but a word's last byte is recovered from the whole word's.
constexpr std::uint64_t kFnvPrimeInverse = 0xce965057aff6957bull;
static_assert(kFnvPrime * kFnvPrimeInverse == 1, "the FNV prime's inverse modulo 2^64");

// Searches of a text's ByteBlocks (ClassifyText) for AppendTokens: runs of
// ASCII separators and of ASCII word bytes, and letters, found from the bit
// maps rather than a byte at a time.
class BlockScan {
 public:
  BlockScan(const ByteBlock* blocks, size_t n) : blocks_(blocks), n_(n) {}

  // The first position at or after i that is not an ASCII separator (n when
  // none is).
  size_t NextNonSeparator(size_t i) const {
    size_t k = i >> 6;
    std::uint64_t m = (blocks_[k].word | blocks_[k].high) >> (i & 63);
    while (m == 0) {
      if (++k > n_ >> 6) return n_;
      i = k << 6;
      m = blocks_[k].word | blocks_[k].high;
    }
    return i + static_cast<size_t>(__builtin_ctzll(m));  // below n: the bits past the end are clear
  }
  // The first position after i that is not an ASCII word byte (at most n:
  // the bits past the end are clear).
  size_t WordEnd(size_t i) const {
    ++i;
    size_t k = i >> 6;
    std::uint64_t m = ~blocks_[k].word >> (i & 63);
    while (m == 0) {
      i = ++k << 6;
      m = ~blocks_[k].word;
    }
    return i + static_cast<size_t>(__builtin_ctzll(m));
  }
  // True when a letter is in [i, j) (i < j).
  bool AnyLetter(size_t i, size_t j) const {
    if ((i & 63) + (j - i) <= 64)  // within one block: the bits of [i, j) shifted to the top
      return (blocks_[i >> 6].alpha >> (i & 63) << (64 - (j - i))) != 0;
    for (size_t k = i >> 6; k << 6 < j; ++k) {
      std::uint64_t m = blocks_[k].alpha;
      if (k == i >> 6) m &= ~std::uint64_t{0} << (i & 63);
      if (j - (k << 6) < 64) m &= (std::uint64_t{1} << (j - (k << 6))) - 1;
      if (m != 0) return true;
    }
    return false;
  }

 private:
  const ByteBlock* blocks_;
  size_t n_;
};

// The token of a whole ASCII word p[i, j) (one run of word bytes between
// separators, most words), appended to `out` unless it is shorter than two
// bytes, holds no letter or is a stop word; a plural "s" is dropped first.
inline void AppendWholeWord(const unsigned char* p, size_t i, size_t j, const BlockScan& scan,
                            TokenSet* out) {
  size_t m = j - i;
  if (m < 2 || !scan.AnyLetter(i, j)) return;
  std::uint64_t hash = kFnvBasis;
  size_t k = i;
  for (; k + 4 <= j; k += 4) {  // four bytes a step: fewer loop tests, the same steps
    hash = (hash ^ kWordByte[p[k]]) * kFnvPrime;
    hash = (hash ^ kWordByte[p[k + 1]]) * kFnvPrime;
    hash = (hash ^ kWordByte[p[k + 2]]) * kFnvPrime;
    hash = (hash ^ kWordByte[p[k + 3]]) * kFnvPrime;
  }
  for (; k < j; ++k) hash = (hash ^ kWordByte[p[k]]) * kFnvPrime;
  if (m > 3 && kWordByte[p[j - 1]] == 's' && kWordByte[p[j - 2]] != 's') {
    hash = (hash * kFnvPrimeInverse) ^ 's';
    --m;
  }
  if (m > 6 || !IsStopHash(hash, [&] {
        std::uint64_t v = 0;
        for (size_t q = 0; q < m; ++q) v |= std::uint64_t{kWordByte[p[i + q]]} << (8 * q);
        return v;
      }))
    out->push_back(hash);
}

// The tokens AppendTokens builds piece by piece: a word that runs into or out
// of folded code points, hashed as its bytes arrive (so no word is copied),
// and the current run of CJK characters, whose bigrams are hashed as its
// characters arrive and which is a unigram when it ends after one.
class TokenBuilder {
 public:
  explicit TokenBuilder(TokenSet* out) : out_(out) {}

  bool in_word() const { return len_ != 0; }
  bool in_run() const { return run_ != 0; }

  // ASCII word bytes p[i, j) that continue the word (or start one that a
  // folded code point continues).
  void AddAsciiRun(const unsigned char* p, size_t i, size_t j, const BlockScan& scan) {
    std::uint64_t hh = h_;
    for (size_t k = i; k < j; ++k) hh = (hh ^ kWordByte[p[k]]) * kFnvPrime;
    h_ = hh;
    for (size_t k = i; len_ + (k - i) < sizeof head_ && k < j; ++k)
      head_[len_ + (k - i)] = static_cast<char>(kWordByte[p[k]]);
    len_ += j - i;
    letter_ = letter_ || scan.AnyLetter(i, j);
    prev_ = j - i >= 2 ? static_cast<char>(kWordByte[p[j - 2]]) : last_;
    last_ = static_cast<char>(kWordByte[p[j - 1]]);
  }
  // A folded code point that is an ASCII word character.
  void AddAsciiChar(char32_t cp) {
    const char c = static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp - 'A' + 'a' : cp);
    letter_ |= AsciiLower(static_cast<unsigned char>(c));
    h_ = (h_ ^ static_cast<unsigned char>(c)) * kFnvPrime;
    if (len_ < sizeof head_) head_[len_] = c;
    ++len_;
    prev_ = last_;
    last_ = c;
  }
  // Ends the word: its token unless it is shorter than two bytes, holds no
  // letter or is a stop word (a plural "s" dropped first).
  void FlushWord() {
    if (len_ >= 2 && letter_) {
      std::uint64_t hash = h_;
      size_t m = len_;
      if (m > 3 && last_ == 's' && prev_ != 's') {
        hash = (h_ * kFnvPrimeInverse) ^ static_cast<unsigned char>(last_);
        --m;
      }
      if (m > 6 || !IsStopHash(hash, [&] { return Packed(std::string_view(head_, m)); }))
        out_->push_back(hash);
    }
    h_ = kFnvBasis;
    len_ = 0;
    letter_ = false;
  }
  // A CJK character: with the one before it in the run, a bigram, unless
  // either is a stop character (the hashes of their UTF-8 bytes, as Hash
  // gives them).
  void AddCjk(char32_t cp) {
    const bool stop = IsStopChar(cp);
    if (run_ == 0) {
      run_first_ = cp;
    } else if (!stop && !last_stop_) {
      const char32_t pair[2] = {run_last_, cp};
      out_->push_back(HashCjk(pair, 2));
    }
    ++run_;
    run_last_ = cp;
    last_stop_ = stop;
  }
  // Ends the CJK run: a lone character that is not a stop character is a
  // unigram.
  void FlushRun() {
    if (run_ == 1 && !last_stop_) out_->push_back(HashCjk(&run_first_, 1));
    run_ = 0;
  }

 private:
  TokenSet* out_;
  std::uint64_t h_ = kFnvBasis;  // FNV-1a of the word
  size_t len_ = 0;
  bool letter_ = false;
  char head_[6];              // the word's first bytes (stop words are at most 6 long)
  char last_ = 0, prev_ = 0;  // its last two bytes
  size_t run_ = 0;            // the CJK run's length, first and last code points
  char32_t run_first_ = 0, run_last_ = 0;
  bool last_stop_ = false;  // run_last_ is a stop character
};

// The code point at p[*i] (0x80 and up), as FoldWidth(s) would give it (it
// re-encodes exactly what Next decodes), folded here without the copy; moves
// *i past it. Clears *whole when the code point is cut short by the end of s.
inline char32_t NextFolded(std::string_view s, size_t* i, bool* whole) {
  const size_t n = s.size();
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned char b = p[*i];
  char32_t cp;
  if ((b >> 4) == 0xE && *i + 3 <= n) {
    // A three-byte lead (most CJK text): decoded here as Next decodes it.
    cp = static_cast<char32_t>((b & 0x0F) << 12 | (p[*i + 1] & 0x3F) << 6 | (p[*i + 2] & 0x3F));
    *i += 3;
  } else {
    if (n - *i < 4) *whole = *whole && *i + SequenceLength(b) <= n;
    cp = Next(s, i);
  }
  if (cp >= 0xFF01 && cp <= 0xFF5E) cp = cp - 0xFF01 + 0x21;
  if (cp == 0x3000) cp = ' ';
  return cp;
}

// Appends the tokens of `s` to `out` (unsorted, with repeats). The bytes are
// classified 64 at a time (ClassifyText, BlockScan); a word that is one run
// of ASCII word bytes between separators is hashed and tested in one go
// (AppendWholeWord), other code points are decoded and folded as FoldWidth
// would fold them (NextFolded) and built up by a TokenBuilder. Returns false
// when the last code point was cut short by the end of `s` (a multi-byte lead
// too near the end): text following `s` would then have been decoded into it.
bool AppendTokens(std::string_view s, TokenSet* out) {
  const size_t n = s.size();
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const BlockScan scan(ClassifyText(p, n), n);
  TokenBuilder token(out);
  size_t i = 0;
  bool whole = true;
  while (i < n) {
    const unsigned char w = kWordByte[p[i]];
    if (w == 0) {
      // ASCII separators: they end the word and the CJK run.
      if (token.in_word()) token.FlushWord();
      if (token.in_run()) token.FlushRun();
      i = scan.NextNonSeparator(i + 1);
      continue;
    }
    if (w != kNonAscii) {
      // ASCII word bytes (lower-cased).
      if (token.in_run()) token.FlushRun();
      const size_t j = scan.WordEnd(i);
      if (!token.in_word() && (j == n || kWordByte[p[j]] == 0)) {
        AppendWholeWord(p, i, j, scan, out);
        i = j < n ? scan.NextNonSeparator(j + 1) : n;  // past the separator that ends it
        continue;
      }
      // A word continued by (or continuing) a folded code point.
      token.AddAsciiRun(p, i, j, scan);
      i = j;
      continue;
    }
    const char32_t cp = NextFolded(s, &i, &whole);
    if (cp < 0x80 && (AsciiAlnum(cp) || cp == '_')) {
      if (token.in_run()) token.FlushRun();
      token.AddAsciiChar(cp);
    } else if (IsCjk(cp)) {
      token.FlushWord();
      token.AddCjk(cp);
    } else {
      token.FlushWord();
      token.FlushRun();
    }
  }
  token.FlushWord();
  token.FlushRun();
  return whole;
}

// The tokens are gathered in one buffer per thread, kept across calls, and
// the set returned is one exact-size copy of the sorted, unique ones.
TokenSet& TokenScratch() {
  static thread_local TokenSet scratch;
  scratch.clear();
  return scratch;
}

TokenSet NormalizedCopy(TokenSet* scratch) {
  Normalize(scratch);
  return TokenSet(scratch->begin(), scratch->end());
}

}  // namespace

TokenSet Tokens(std::string_view s) {
  TokenSet& out = TokenScratch();
  AppendTokens(s, &out);
  return NormalizedCopy(&out);
}

TokenSet TokensOfLines(std::span<const std::string_view> parts) {
  // A newline ends every word and CJK run, so each part's tokens are its own,
  // unless a part's last code point was cut short (invalid UTF-8): then the
  // joined text, tokenised whole.
  TokenSet& out = TokenScratch();
  for (size_t k = 0; k < parts.size(); ++k) {
    if (!AppendTokens(parts[k], &out) && k + 1 < parts.size()) {
      std::string joined;
      for (size_t j = 0; j < parts.size(); ++j) {
        if (j) joined += '\n';
        joined += parts[j];
      }
      return Tokens(joined);
    }
  }
  return NormalizedCopy(&out);
}

TokenSet TokensOfLines(std::initializer_list<std::string_view> parts) {
  return TokensOfLines(std::span<const std::string_view>(parts.begin(), parts.size()));
}

namespace {

// When one sorted set is much smaller than the other, looking each of its
// elements up by binary search (in the part of the larger set not yet passed)
// beats a linear merge: O(small * log large) instead of O(small + large).
constexpr size_t kSkew = 4;

// Calls on_common(x) for every element common to the sorted sets `a` and
// `b`, in increasing order; stops early when on_common returns false.
template <typename F>
void ForCommon(const TokenSet& a, const TokenSet& b, F on_common) {
  const TokenSet& small = a.size() <= b.size() ? a : b;
  const TokenSet& large = a.size() <= b.size() ? b : a;
  if (small.empty()) return;
  if (small.size() * kSkew < large.size()) {
    auto from = large.begin();
    for (std::uint64_t x : small) {
      from = std::lower_bound(from, large.end(), x);
      if (from == large.end()) return;
      if (*from == x && !on_common(x)) return;
    }
    return;
  }
  auto i = a.begin(), j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      if (!on_common(*i)) return;
      ++i, ++j;
    }
  }
}

}  // namespace

size_t Overlap(const TokenSet& a, const TokenSet& b) {
  size_t n = 0;
  ForCommon(a, b, [&n](std::uint64_t) {
    ++n;
    return true;
  });
  return n;
}

bool Intersects(const TokenSet& a, const TokenSet& b) {
  bool any = false;
  ForCommon(a, b, [&any](std::uint64_t) {
    any = true;
    return false;
  });
  return any;
}

double Dice(const TokenSet& a, const TokenSet& b) {
  if (a.empty() && b.empty()) return 0;
  return 2.0 * static_cast<double>(Overlap(a, b)) / static_cast<double>(a.size() + b.size());
}

double Coverage(const TokenSet& a, const TokenSet& b) {
  if (a.empty()) return 0;
  return static_cast<double>(Overlap(a, b)) / static_cast<double>(a.size());
}

}  // namespace fixgraph::graph::text
