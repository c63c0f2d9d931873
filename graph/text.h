// Text features for implicit evidence: word/bigram token sets for title
// similarity, code identifiers for patch overlap, clause splitting and cue
// matching for comments. Private to graph/.
//
// Tokens: ASCII words lower-cased (a trailing plural "s" dropped), and CJK
// character bigrams from each run of CJK characters (a lone character stays a
// unigram); full-width ASCII is folded to ASCII first. Stop words and bigrams
// made of function characters (的, 了, ...) are dropped.
//
// Thread safety: pure functions; a CueSet is immutable once built.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::graph::text {

// Tokens as sorted, unique 64-bit hashes: cheap to store per PR and to
// intersect (a collision costs at most a wrong word in a similarity).
using TokenSet = std::vector<std::uint64_t>;

std::uint64_t Hash(std::string_view s);

// An open-addressing table from token hashes to a small value V; a zero
// value marks an empty slot, so absent tokens read as V{}. Membership tests
// cost one probe or two.
template <typename V>
class TokenTable {
 public:
  // Empties the table and sizes it for `n` tokens.
  void Reserve(size_t n) {
    int bits = 4;
    while ((size_t{1} << bits) < 2 * n) ++bits;
    mask_ = (std::uint64_t{1} << bits) - 1;
    shift_ = 64 - bits;
    keys_.assign(mask_ + 1, 0);
    values_.assign(mask_ + 1, V{});
  }
  // The value slot of `token`, claimed if absent. The caller makes it
  // nonzero; at most the reserved number of tokens may be added.
  V& Slot(std::uint64_t token) { return values_[SlotIndex(token)]; }
  // The index of `token`'s slot, claimed if absent (as Slot); its value is
  // then ValueAt(index) until the next Reserve.
  std::uint32_t SlotIndex(std::uint64_t token) {
    std::uint64_t i = Home(token);
    while (values_[i] != V{} && keys_[i] != token) i = (i + 1) & mask_;
    keys_[i] = token;
    return static_cast<std::uint32_t>(i);
  }
  V& ValueAt(std::uint32_t index) { return values_[index]; }
  V ValueAt(std::uint32_t index) const { return values_[index]; }
  std::uint64_t KeyAt(std::uint32_t index) const { return keys_[index]; }
  // The number of slots (indexes run below it).
  size_t Capacity() const { return values_.size(); }
  // The index of `token`'s slot (as SlotIndex gives it); -1 when it was
  // never added.
  std::int64_t IndexOf(std::uint64_t token) const {
    if (values_.empty()) return -1;
    for (std::uint64_t i = Home(token);; i = (i + 1) & mask_) {
      if (values_[i] == V{}) return -1;
      if (keys_[i] == token) return static_cast<std::int64_t>(i);
    }
  }
  // The value of `token`; V{} when it was never added.
  V Of(std::uint64_t token) const {
    std::int64_t i = IndexOf(token);
    return i < 0 ? V{} : values_[static_cast<size_t>(i)];
  }

 private:
  std::uint64_t Home(std::uint64_t token) const {
    return (token * 0x9E3779B97F4A7C15ull) >> shift_ & mask_;
  }
  std::vector<std::uint64_t> keys_;
  std::vector<V> values_;
  std::uint64_t mask_ = 0;
  int shift_ = 0;
};

// Sorts and removes duplicates.
void Normalize(TokenSet* set);

// Folds full-width ASCII (U+FF01..U+FF5E) and the ideographic space to ASCII.
std::string FoldWidth(std::string_view s);

// Title without leading bracketed tags ("[RFC] ", "【社区任务】", "[release/v2.17] ").
std::string StripTitleTags(std::string_view title);

TokenSet Tokens(std::string_view s);
// Tokens of the parts joined by newlines ("a\nb"), without joining them (the
// same set, invalid UTF-8 included: a part whose last code point is cut short
// makes it tokenise the joined text).
TokenSet TokensOfLines(std::span<const std::string_view> parts);
TokenSet TokensOfLines(std::initializer_list<std::string_view> parts);

// True when the sorted sets share an element.
bool Intersects(const TokenSet& a, const TokenSet& b);
// 2|a∩b| / (|a|+|b|); 0 when both are empty.
double Dice(const TokenSet& a, const TokenSet& b);
// |a∩b| / |a|; 0 when a is empty.
double Coverage(const TokenSet& a, const TokenSet& b);
size_t Overlap(const TokenSet& a, const TokenSet& b);

// `s` prepared for FindMentions: full-width forms folded and a space put
// between an ASCII letter or digit and a following non-ASCII character, so
// "同 #43，..." and "见 #12的" yield their references (the engine's scanner
// treats a non-ASCII byte after "#43" as part of a word).
std::string ForMentions(std::string_view s);

// Code-like tokens named in a text, lower-cased: file paths and names
// ("transformer_engine/pytorch/module/grouped_linear.py", "fused_adam.py"),
// snake_case and CamelCase symbols ("prelu_grad", "CheckValidation"),
// dotted module paths (also given as a path: "vllm_mindspore/entrypoints"),
// long hyphenated flags ("reuse-grad-buf-for-mxfp8-param-ag"). URLs, versions
// ("v2.17", "8.3.RC1") and plain words are not identifiers.
// `path_variants`: also give dotted module paths as paths (to match files).
std::vector<std::string> Identifiers(std::string_view s, bool path_variants = true);

// Identifiers' work without a std::string per identifier: the lower-cased
// identifiers of one or more texts laid end to end in one reusable buffer,
// sorted as small entries (an 8-byte prefix key first). Identifiers(s, v)
// equals a fresh buffer's Add(s, v) then Sorted(), as strings; adding several
// texts gives the union of their identifiers. Not thread-safe: one per thread.
class IdentifierBuffer {
 public:
  // Forgets every identifier (keeps the memory).
  void Clear();
  // Adds the identifiers of `s`, as Identifiers(s, path_variants) finds them.
  void Add(std::string_view s, bool path_variants = true);
  // The identifiers added since Clear, sorted and without repeats: views into
  // this buffer, valid until the next Add or Clear.
  std::span<const std::string_view> Sorted();

 private:
  struct Entry {
    std::uint64_t prefix;  // the first 8 bytes, big-endian, zero-padded
    size_t begin;          // in chars_
    size_t size;
  };
  void Push(size_t begin);

  std::string chars_;
  std::string folded_;  // the input with full-width forms folded and URLs blanked
  std::vector<Entry> entries_;
  std::vector<std::string_view> sorted_;
};

// True for an identifier that is only CamelCase (no '_', '.', '/', '-'):
// product names ("MindSpore") look the same, so these weigh less.
bool IsCamelOnly(std::string_view id);

// True for a path-like identifier (has '/' or a file extension).
bool IsPathLike(std::string_view id);
// The part after the last '/'.
inline std::string_view Basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}
// True for file names every repository has (README.md, setup.py, __init__.py, ...).
bool IsGenericFileName(std::string_view basename);

// A clause of a text: the span between delimiters (newline, 。；;！？!?).
struct Clause {
  size_t begin = 0;
  size_t end = 0;
};
// The clause holding byte `offset`, read at most kClauseWindow bytes each way
// (a longer clause is cut there: a text of one long line with many mentions
// must not cost its length for every mention).
inline constexpr size_t kClauseWindow = 2048;
Clause ClauseAt(std::string_view s, size_t offset);

// A fixed list of cue strings, searched for with ASCII case folded on both
// sides: In(h) is true when any non-empty cue occurs in h (an empty cue never
// matches), Count(h) the number of list entries that occur in h (at most 64 entries: more throw
// std::length_error, a programming error). The cues are folded once, when the set is built. Cues of
// three bytes or more are all looked for in one pass over `h`, folding it on the fly: each
// position's next three bytes are tested against a bit filter of the cues' first three bytes, and
// only a hit is compared with the cues starting so. Shorter cues are each one memmem (over `h`
// folded at most once per call, when one of them has an ASCII letter and `h` an upper-case letter).
//
// A grouped set (built from (cue, group) pairs) answers for groups instead:
// bit g of Found(h) is set when any cue of group g (0-63) occurs in h; it may
// hold any number of cues, and one cue may stand in several groups.
class CueSet {
 public:
  CueSet(std::initializer_list<std::string_view> cues);
  explicit CueSet(const std::vector<std::string_view>& cues);
  struct Grouped {
    std::string_view cue;
    unsigned group = 0;  // 0-63 (larger throw std::length_error)
  };
  explicit CueSet(const std::vector<Grouped>& cues);
  bool In(std::string_view haystack) const { return Scan(haystack, false) != 0; }
  size_t Count(std::string_view haystack) const;
  // Bit i set when the i-th cue of the list is in `haystack` (one pass).
  std::uint64_t Found(std::string_view haystack) const { return Scan(haystack, true); }

 private:
  // Bits of the list entries found; with `all` false it stops at the first.
  std::uint64_t Scan(std::string_view haystack, bool all) const;
  void Add(std::string_view cue, std::uint64_t bits);
  void Seal();
  struct Cue {
    std::string folded;
    std::uint64_t bits = 0;  // the bit of its list entry (or of its groups)
    bool letters = false;    // has an ASCII letter (folding the text matters)
    std::uint32_t head = 0;  // the first three folded bytes (cues of three bytes or more)
  };
  std::vector<Cue> cues_;              // shorter than three bytes: those without letters first
  std::vector<Cue> long_;              // three bytes or more, by head
  std::vector<std::uint64_t> filter_;  // 2^16 bits: FilterBit(head) of each of long_
  std::uint64_t long_entries_ = 0;     // the bits of long_ (for an early end of Count)
};

// ASCII lower-case copy.
std::string Lower(std::string_view s);
// `s` with ASCII A-Z lower-cased: `s` itself when it has none, else a copy
// made in `buf` (the view is valid while `buf` is unchanged).
std::string_view FoldedAscii(std::string_view s, std::string* buf);
// Number of Unicode code points, ignoring whitespace.
size_t VisibleLength(std::string_view s);

}  // namespace fixgraph::graph::text
