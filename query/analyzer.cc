#include "analyzer.h"

#include "fixgraph/engine/cjk.h"

#include <utf8proc.h>
#include <xapian.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <unordered_map>
#include <utility>

namespace fixgraph::query {
namespace {

// Replaces every byte that does not start a valid UTF-8 sequence by U+FFFD.
std::string Sanitize(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  auto left = static_cast<utf8proc_ssize_t>(text.size());
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0 || cp < 0) {
      out += "\xEF\xBF\xBD";
      ++p;
      --left;
      continue;
    }
    out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    left -= n;
  }
  return out;
}

// One code point of `s` at `i`: its value and length; a byte that does not
// start a valid sequence decodes as U+FFFD of length 1 (as Sanitize replaces it).
struct CodePoint {
  char32_t cp;
  size_t len;
  bool valid;
};
CodePoint DecodeAt(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return {b, 1, true};
  utf8proc_int32_t cp = 0;
  utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                                        static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
  if (n <= 0 || cp < 0) return {0xFFFD, 1, false};
  return {static_cast<char32_t>(cp), static_cast<size_t>(n), true};
}

// A code point that NFKC and case folding map to itself and that composes with
// nothing before or after it (a normalization boundary on both sides): ASCII
// (folding aside: A-Z become a-z), the CJK unified ideographs and U+FFFD.
bool IsInert(char32_t c) { return c < 0x80 || (c >= 0x4E00 && c <= 0x9FFF) || c == 0xFFFD; }

// NFKC (and case folding) of text that is valid UTF-8, appended to `out`.
void MapSegment(std::string_view clean, bool casefold, std::string* out) {
  int options = UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
  if (casefold) options |= UTF8PROC_CASEFOLD;
  utf8proc_uint8_t* mapped = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(clean.data()),
                                    static_cast<utf8proc_ssize_t>(clean.size()), &mapped,
                                    static_cast<utf8proc_option_t>(options));
  if (n < 0 || mapped == nullptr) {
    out->append(clean);  // sanitized text is valid UTF-8; keep it unfolded
  } else {
    out->append(reinterpret_cast<const char*>(mapped), static_cast<size_t>(n));
  }
  std::free(mapped);
}

// Normalization works segment by segment: a segment starts at an inert code
// point (or the text's start) and runs over the code points that are not
// inert after it. Nothing composes or reorders across the start of a segment,
// so mapping each segment on its own gives the mapping of the whole text;
// segments of one inert code point (most of the text) are copied.
void MapUtf8Into(std::string_view text, bool casefold, std::string* out) {
  out->clear();
  out->reserve(text.size());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    // ASCII runs (most of the text of logs and code) are copied, except a
    // last character that non-ASCII follows: a segment starts there.
    auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      size_t j = i + 1;
      while (j < n && static_cast<unsigned char>(text[j]) < 0x80) ++j;
      const size_t stop = j == n ? n : j - 1;
      if (stop > i) {
        const size_t at = out->size();
        out->append(text.substr(i, stop - i));
        if (casefold)
          for (size_t k = at; k < out->size(); ++k)
            if ((*out)[k] >= 'A' && (*out)[k] <= 'Z')
              (*out)[k] = static_cast<char>((*out)[k] - 'A' + 'a');
        i = stop;
        continue;
      }
    }
    CodePoint first = DecodeAt(text, i);
    size_t j = i + first.len;
    bool plain = IsInert(first.cp);
    while (j < n) {
      CodePoint next = DecodeAt(text, j);
      if (IsInert(next.cp)) break;
      plain = false;
      j += next.len;
    }
    if (plain) {
      if (!first.valid) {
        out->append("\xEF\xBF\xBD");
      } else if (first.cp < 0x80) {
        out->push_back(casefold && b >= 'A' && b <= 'Z' ? static_cast<char>(b - 'A' + 'a')
                                                        : static_cast<char>(b));
      } else {
        out->append(text.substr(i, first.len));
      }
    } else {
      MapSegment(Sanitize(text.substr(i, j - i)), casefold, out);
    }
    i = j;
  }
}

std::string MapUtf8(std::string_view text, bool casefold) {
  std::string out;
  MapUtf8Into(text, casefold, &out);
  return out;
}

// Decodes normalized text (valid UTF-8; a stray byte would become U+FFFD)
// into `cps`.
void DecodeInto(std::string_view s, std::vector<char32_t>* cps) {
  cps->clear();
  cps->reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    CodePoint c = DecodeAt(s, i);
    cps->push_back(c.cp);
    i += c.len;
  }
}

void Encode(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
    return;
  }
  utf8proc_uint8_t buf[4];
  utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), buf);
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

bool IsAsciiAlnum(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsDigit(char32_t c) { return c >= '0' && c <= '9'; }
bool IsUpper(char32_t c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char32_t c) { return c >= 'a' && c <= 'z'; }

// A letter or digit outside the CJK scripts.
bool IsWordChar(char32_t c) {
  if (c < 0x80) return IsAsciiAlnum(c) || c == '_';
  if (c == 0xFFFD || IsCjk(c)) return false;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
      return true;
    default:
      return false;
  }
}

// Lower-cases tok[b, e) into `out` (replacing its contents).
void LowerInto(const std::u32string& tok, size_t b, size_t e, std::string* out) {
  out->clear();
  for (size_t k = b; k < e; ++k) {
    char32_t c = tok[k];
    if (c < 0x80) {
      out->push_back(static_cast<char>(IsUpper(c) ? c - 'A' + 'a' : c));
    } else {
      Encode(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))), out);
    }
  }
}

bool IsStopWord(std::string_view w) {
  static constexpr std::array<std::string_view, 64> kStop = {
      "a",     "an",    "the",    "is",    "are",   "was",   "were", "be",   "been",   "to",
      "of",    "in",    "on",     "at",    "for",   "and",   "or",   "but",  "with",   "this",
      "that",  "it",    "as",     "by",    "from",  "i",     "we",   "you",  "he",     "she",
      "they",  "my",    "our",    "your",  "me",    "do",    "does", "did",  "have",   "has",
      "had",   "when",  "what",   "how",   "which", "there", "then", "so",   "if",     "can",
      "will",  "would", "should", "could", "its",   "into",  "any",  "some", "please", "am",
      "these", "those", "than",   "about"};
  constexpr size_t kLongestStopWord = 6;
  if (w.size() > kLongestStopWord) return false;
  return std::find(kStop.begin(), kStop.end(), w) != kStop.end();
}

bool AllAlpha(std::string_view s) {
  for (char c : s)
    if (!(c >= 'a' && c <= 'z')) return false;
  return !s.empty();
}

bool HasDigit(const std::u32string& tok, size_t b, size_t e) {
  return std::any_of(tok.begin() + static_cast<std::ptrdiff_t>(b),
                     tok.begin() + static_cast<std::ptrdiff_t>(e), IsDigit);
}

using Range = std::pair<size_t, size_t>;  // [first, second) of a token

// Splits tok[b, e) (no _ . -) at camelCase and letter/long-digit boundaries.
void SplitCamel(const std::u32string& tok, size_t b, size_t e, std::vector<Range>* out) {
  out->clear();
  size_t start = b;
  auto digit_run = [&](size_t i) {
    size_t j = i;
    while (j < e && IsDigit(tok[j])) ++j;
    return j - i;
  };
  for (size_t i = b + 1; i < e; ++i) {
    char32_t x = tok[i - 1], y = tok[i];
    bool cut = false;
    if (IsLower(x) && IsUpper(y)) cut = true;
    if (IsUpper(x) && IsUpper(y) && i + 1 < e && IsLower(tok[i + 1])) cut = true;
    if ((IsUpper(x) || IsLower(x)) && IsDigit(y) && digit_run(i) >= 4) cut = true;
    if (cut) {
      out->emplace_back(start, i);
      start = i;
    }
  }
  out->emplace_back(start, e);
}

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// The stem of `word`, from this thread's cache of recent stems: Snowball is
// the costliest step of indexing and text repeats its words (bounded: cleared
// when full). The reference is valid until the next call on this thread.
const std::string& StemCached(std::string_view word) {
  constexpr size_t kMaxCachedStems = 1 << 16;
  thread_local std::unordered_map<std::string, std::string, StringHash, std::equal_to<>> cache;
  if (auto it = cache.find(word); it != cache.end()) return it->second;
  std::string key(word);
  std::string stem;
  try {
    thread_local Xapian::Stem stemmer("en");
    stem = stemmer(key);
  } catch (...) {
    stem = key;
  }
  if (cache.size() >= kMaxCachedStems) cache.clear();
  return cache.emplace(std::move(key), std::move(stem)).first->second;
}

// Chinese function words: the shared list (engine/cjk.h).
constexpr bool IsCjkStopChar(char32_t c) { return IsCjkFunctionChar(c); }

// Buffers of one analysis, kept between calls so that analysing a text
// allocates nothing once they have grown.
struct Scratch {
  std::string norm;
  std::vector<char32_t> cps;
  std::u32string tok;
  std::string whole, piece, cjk;
  std::vector<Range> segs, sub;
  std::vector<std::string> parts;  // the first `nparts` are this token's
  size_t nparts = 0;
};

void Emit(TermSink* sink, std::string_view text, std::uint32_t pos, TermKind kind) {
  if (text.empty() || text.size() > kMaxTermBytes) return;
  sink->Add(text, pos, kind);
}

// The terms of the token s.tok.
void EmitToken(Scratch& s, std::uint32_t* pos, TermSink* sink) {
  const std::u32string& tok = s.tok;
  bool ident = false;
  bool camel = false;
  for (size_t i = 0; i < tok.size(); ++i) {
    char32_t c = tok[i];
    if (IsDigit(c) || c == '_' || c == '.' || c == '-') ident = true;
    if (i > 0 && IsLower(tok[i - 1]) && IsUpper(c)) camel = true;
  }
  ident = ident || camel;
  LowerInto(tok, 0, tok.size(), &s.whole);
  const std::string& whole = s.whole;
  if (!ident) {
    if (IsStopWord(whole)) return;
    ++*pos;
    Emit(sink, AllAlpha(whole) ? std::string_view(StemCached(whole)) : std::string_view(whole),
         *pos, TermKind::kWord);
    return;
  }
  // A lone digit or a two-character number carries no meaning on its own.
  if (tok.size() == 1) return;
  ++*pos;
  Emit(sink, whole, *pos, TermKind::kIdentifier);
  s.nparts = 0;
  auto add_part = [&](size_t b, size_t e, bool stem) {
    LowerInto(tok, b, e, &s.piece);
    if (s.piece.size() < 2 || s.piece == whole) return;
    const std::string& p = stem && AllAlpha(s.piece) ? StemCached(s.piece) : s.piece;
    for (size_t k = 0; k < s.nparts; ++k)
      if (s.parts[k] == p) return;
    if (s.nparts == s.parts.size()) s.parts.emplace_back();
    s.parts[s.nparts++].assign(p);
  };
  // Segments between dots and dashes, kept whole when they hold `_` or digits
  // (`torch_npu.npu_fusion_attention` -> `npu_fusion_attention`).
  s.segs.clear();
  {
    size_t start = 0;
    for (size_t i = 0; i <= tok.size(); ++i) {
      if (i == tok.size() || tok[i] == '.' || tok[i] == '-') {
        if (i > start) s.segs.emplace_back(start, i);
        start = i + 1;
      }
    }
  }
  for (const auto& [seg_b, seg_e] : s.segs) {
    if (s.segs.size() > 1) add_part(seg_b, seg_e, false);
    size_t start = seg_b;
    for (size_t i = seg_b; i <= seg_e; ++i) {
      if (i == seg_e || tok[i] == '_') {
        if (i > start) {
          SplitCamel(tok, start, i, &s.sub);
          if (s.sub.size() > 1 || i - start != seg_e - seg_b)
            add_part(start, i, !HasDigit(tok, start, i));
          for (const auto& [b, e] : s.sub) add_part(b, e, true);
        }
        start = i + 1;
      }
    }
  }
  for (size_t k = 0; k < s.nparts; ++k) Emit(sink, s.parts[k], *pos, TermKind::kPart);
}

void AnalyzeWith(std::string_view text, TermSink* sink, Scratch& s) {
  MapUtf8Into(text, false, &s.norm);
  DecodeInto(s.norm, &s.cps);
  const std::vector<char32_t>& cps = s.cps;
  std::uint32_t pos = 0;
  size_t i = 0;
  const size_t n = cps.size();
  while (i < n) {
    char32_t c = cps[i];
    if (IsCjk(c)) {
      if (IsCjkStopChar(c)) {  // ends the run; not a term
        ++i;
        continue;
      }
      size_t j = i;
      while (j < n && IsCjk(cps[j]) && !IsCjkStopChar(cps[j])) ++j;
      if (j - i == 1) {
        s.cjk.clear();
        Encode(c, &s.cjk);
        Emit(sink, s.cjk, ++pos, TermKind::kCjk);
      } else {
        for (size_t k = i; k + 1 < j; ++k) {
          s.cjk.clear();
          Encode(cps[k], &s.cjk);
          Encode(cps[k + 1], &s.cjk);
          Emit(sink, s.cjk, ++pos, TermKind::kCjk);
        }
      }
      i = j;
      continue;
    }
    bool neg = c == '-' && i + 1 < n && IsDigit(cps[i + 1]) && (i == 0 || !IsWordChar(cps[i - 1]));
    if (!IsWordChar(c) && !neg) {
      ++i;
      continue;
    }
    std::u32string& tok = s.tok;
    tok.clear();
    size_t j = i;
    if (neg) tok.push_back(cps[j++]);
    while (j < n) {
      char32_t d = cps[j];
      if (IsWordChar(d) || ((d == '.' || d == '-') && j + 1 < n && IsWordChar(cps[j + 1]) &&
                            cps[j + 1] != '_' && !tok.empty())) {
        tok.push_back(d);
        ++j;
      } else {
        break;
      }
    }
    // Leading/trailing underscores are decoration (`__init__`).
    while (!tok.empty() && tok.back() == '_') tok.pop_back();
    size_t lead = 0;
    while (lead < tok.size() && tok[lead] == '_') ++lead;
    if (lead > 0) tok.erase(0, lead);
    if (!tok.empty()) EmitToken(s, &pos, sink);
    i = j;
  }
}

class VectorSink final : public TermSink {
 public:
  explicit VectorSink(std::vector<Term>* terms) : terms_(terms) {}
  void Add(std::string_view text, std::uint32_t pos, TermKind kind) override {
    terms_->push_back(Term{std::string(text), pos, kind});
  }

 private:
  std::vector<Term>* terms_;
};

}  // namespace

bool IsCjk(char32_t c) { return IsCjkScript(c); }

std::string Normalize(std::string_view text) { return MapUtf8(text, true); }
std::string NormalizeKeepCase(std::string_view text) { return MapUtf8(text, false); }

std::string StemWord(std::string_view word) { return StemCached(word); }

void AnalyzeTo(std::string_view text, TermSink* sink) {
  // One scratch per thread; a sink that analyses text itself gets its own.
  thread_local Scratch scratch;
  thread_local bool busy = false;
  if (busy) {
    Scratch own;
    AnalyzeWith(text, sink, own);
    return;
  }
  struct Release {
    bool* busy;
    ~Release() { *busy = false; }
  } release{&busy};
  busy = true;
  AnalyzeWith(text, sink, scratch);
}

std::vector<Term> Analyze(std::string_view text) {
  std::vector<Term> terms;
  VectorSink sink(&terms);
  AnalyzeTo(text, &sink);
  return terms;
}

}  // namespace fixgraph::query
