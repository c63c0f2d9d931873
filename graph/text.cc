// graph/text (text.h) except tokens (text_tokens.cc): lower-casing and width folding, title
// tags, hashes, mention text, identifiers (IdentifierBuffer), clauses and cue search (CueSet).
#include "text.h"

#include "text_internal.h"

#include "fixgraph/engine/cjk.h"
#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstring>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fixgraph::graph::text {
namespace {

// ASCII classes: the program runs in the "C" locale (no setlocale call).
constexpr bool IsIdentByte(unsigned char c) {
  return AsciiAlnum(c) || c == '_' || c == '.' || c == '/' || c == '-';
}
// Per byte: kIdent for identifier characters, plus kMarked for those that
// can make a token an identifier (an upper-case letter for CamelCase, '_',
// '/', '.', '-'): a token without any is a plain word. The other bits tell
// which identifier character it is, so a token's classes are the OR of its
// bytes' entries.
constexpr std::uint8_t kIdent = 1, kMarked = 2, kLowerBit = 4, kUpperBit = 8, kUnderscoreBit = 16,
                       kSlashBit = 32, kDotBit = 64, kHyphenBit = 128;
constexpr std::array<std::uint8_t, 256> kIdentClass = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (!IsIdentByte(static_cast<unsigned char>(c))) continue;
    t[c] = kIdent;
    if (AsciiUpper(static_cast<char32_t>(c)) || c == '_' || c == '/' || c == '.' || c == '-')
      t[c] |= kMarked;
    if (AsciiLower(static_cast<char32_t>(c))) t[c] |= kLowerBit;
    if (AsciiUpper(static_cast<char32_t>(c))) t[c] |= kUpperBit;
    if (c == '_') t[c] |= kUnderscoreBit;
    if (c == '/') t[c] |= kSlashBit;
    if (c == '.') t[c] |= kDotBit;
    if (c == '-') t[c] |= kHyphenBit;
  }
  return t;
}();

// True when "http" occurs in `s` (memmem's answer), 16 positions a step
// where SSE2 is there.
bool HasHttp(std::string_view s) {
  const char* d = s.data();
  const size_t n = s.size();
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i h = _mm_set1_epi8('h'), t = _mm_set1_epi8('t'), p = _mm_set1_epi8('p');
  for (; i + 19 <= n; i += 16) {
    const __m128i at = _mm_and_si128(
        _mm_and_si128(
            _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i)), h),
            _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i + 1)), t)),
        _mm_and_si128(
            _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i + 2)), t),
            _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i + 3)), p)));
    if (_mm_movemask_epi8(at) != 0) return true;
  }
#endif
  return memmem(d + i, n - i, "http", 4) != nullptr;
}

// The first position in [i, n) of a marked byte (kMarked), else n: 16 bytes
// at a time where SSE2 is there (always on x86-64).
size_t NextMarked(const char* d, size_t i, size_t n) {
#if defined(__SSE2__)
  // A byte x is in [lo, lo + len) when x + (0x80 - lo), as a signed byte, is
  // below -128 + len.
  const __m128i upper_bias = _mm_set1_epi8(static_cast<char>(0x80 - 'A'));
  const __m128i upper_limit = _mm_set1_epi8(static_cast<char>(-128 + 26));  // 'A'..'Z'
  const __m128i punct_bias = _mm_set1_epi8(static_cast<char>(0x80 - '-'));
  const __m128i punct_limit = _mm_set1_epi8(static_cast<char>(-128 + 3));  // '-', '.', '/'
  const __m128i underscore = _mm_set1_epi8('_');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i));
    const __m128i upper = _mm_cmplt_epi8(_mm_add_epi8(v, upper_bias), upper_limit);
    const __m128i punct = _mm_cmplt_epi8(_mm_add_epi8(v, punct_bias), punct_limit);
    const __m128i under = _mm_cmpeq_epi8(v, underscore);
    const auto mask =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(upper, punct), under)));
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(mask));
  }
#endif
  while (i < n && !(kIdentClass[static_cast<unsigned char>(d[i])] & kMarked)) ++i;
  return i;
}

// The first position in [i, n) of a byte 0x80 or above, else n: 16 bytes at
// a time where SSE2 is there.
size_t NextNonAscii(const char* d, size_t i, size_t n) {
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    const auto mask = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i))));
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(mask));
  }
#endif
  while (i < n && static_cast<unsigned char>(d[i]) < 0x80) ++i;
  return i;
}

// True when the 15 bytes at d are five three-byte sequences that FoldWidth
// copies as they are (leads E1..EE, two continuation bytes each, none the
// ideographic space E3 80 80); E0 and EF leads are left to its byte checks.
// Reads 16 bytes; always false without SSE2.
bool FiveSameSequences(const char* d) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d));
  const auto lead = static_cast<unsigned>(_mm_movemask_epi8(
      _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(0x80 - 0xE1))),
                     _mm_set1_epi8(static_cast<char>(-128 + 14)))));
  const auto cont =
      static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(-64))));  // 80..BF
  constexpr unsigned kLeads = 0x1249, kConts = 0x6DB6;  // bytes 0, 3, 6, 9, 12; the others below 15
  if ((lead & kLeads) != kLeads || (cont & kConts) != kConts) return false;
  const auto e3 = static_cast<unsigned>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(static_cast<char>(0xE3)))));
  const auto x80 = static_cast<unsigned>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(static_cast<char>(0x80)))));
  return (e3 & (x80 >> 1) & (x80 >> 2) & kLeads) == 0;
#else
  (void)d;
  return false;
#endif
}

// The first position in [i, n) of a byte 0xC0 or above (a multi-byte
// lead), else n (or i when i > n): 16 bytes at a time where SSE2 is there.
size_t NextLead(const char* d, size_t i, size_t n) {
#if defined(__SSE2__)
  const __m128i top = _mm_set1_epi8(static_cast<char>(0xC0));
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i));
    const auto mask =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(v, top), top)));
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(mask));
  }
#endif
  while (i < n && static_cast<unsigned char>(d[i]) < 0xC0) ++i;
  return i;
}

bool HasLetter(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](unsigned char c) { return AsciiLower(c) || AsciiUpper(c); });
}

bool LooksLikeVersion(std::string_view s) {
  if (s.empty()) return true;
  if (std::isdigit(static_cast<unsigned char>(s[0]))) return true;
  if ((s[0] == 'v' || s[0] == 'V' || s[0] == 'r' || s[0] == 'R') && s.size() > 1 &&
      std::isdigit(static_cast<unsigned char>(s[1])))
    return true;
  return false;
}

bool HasFileExtension(std::string_view s) {
  // The last '.' of the basename, looked for from the end: an extension is
  // at most five bytes long, so at most six bytes are read.
  const size_t n = s.size();
  size_t end = n;  // the last '.' is at end - 1
  while (end > 0 && n - end < 6 && s[end - 1] != '.' && s[end - 1] != '/') --end;
  if (end == 0 || n - end > 5 || s[end - 1] != '.') return false;
  const size_t dot = end - 1;
  if (dot == 0 || s[dot - 1] == '/' || dot + 1 >= n) return false;  // ".bashrc", "a."
  std::string_view ext = s.substr(dot + 1);
  if (ext.size() > 5) return false;
  // The extension lower-cased and packed into an integer (little-endian,
  // zero-padded; its length in the top byte), looked up among the known ones.
  std::uint64_t key = std::uint64_t{ext.size()} << 56;
  for (size_t i = 0; i < ext.size(); ++i)
    key |= std::uint64_t{static_cast<unsigned char>(AsciiToLower(ext[i]))} << (8 * i);
  static constexpr auto kKnown = [] {
    constexpr std::string_view kExtensions[] = {
        "c",    "h",    "py",   "cc",   "cu",    "md",    "sh",   "js",  "ts",
        "go",   "rs",   "so",   "mk",   "in",    "cpp",   "hpp",  "rst", "txt",
        "yml",  "cfg",  "ini",  "whl",  "xml",   "pyi",   "bat",  "sql", "yaml",
        "json", "toml", "java", "html", "proto", "cmake", "ipynb"};
    std::array<std::uint64_t, std::size(kExtensions)> keys{};
    for (size_t k = 0; k < keys.size(); ++k) {
      std::uint64_t v = std::uint64_t{kExtensions[k].size()} << 56;
      for (size_t i = 0; i < kExtensions[k].size(); ++i)
        v |= std::uint64_t{static_cast<unsigned char>(kExtensions[k][i])} << (8 * i);
      keys[k] = v;
    }
    return keys;
  }();
  for (std::uint64_t k : kKnown)
    if (k == key) return true;
  return false;
}

// Blanks out http(s) URLs so their paths are not read as file paths.
std::string WithoutUrls(std::string out) {
  size_t pos = 0;
  while ((pos = out.find("http", pos)) != std::string::npos) {
    if (out.compare(pos, 7, "http://") != 0 && out.compare(pos, 8, "https://") != 0) {
      pos += 4;
      continue;
    }
    size_t end = pos;
    while (end < out.size() && !std::isspace(static_cast<unsigned char>(out[end])) &&
           static_cast<unsigned char>(out[end]) < 0x80 && out[end] != ')' && out[end] != ']')
      ++end;
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(pos),
              out.begin() + static_cast<std::ptrdiff_t>(end), ' ');
    pos = end;
  }
  return out;
}

}  // namespace

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiToLower(c);
  return out;
}

std::string FoldWidth(std::string_view s) {
  if (AllAscii(s)) return std::string(s);  // nothing to fold
  std::string out;
  out.reserve(s.size());
  // ASCII bytes and well-formed three-byte sequences (most CJK text) other
  // than the full-width forms and the ideographic space decode and re-encode
  // as themselves: they are skipped over and copied in one piece (from
  // `copied`) when a code point that changes, or the end, is reached.
  const char* d = s.data();
  const size_t n = s.size();
  size_t i = 0, copied = 0;
  while (i < n) {
    i = NextNonAscii(d, i, n);
    if (i == n) break;
    size_t same = i;
    for (;;) {
      while (same + 16 <= n && FiveSameSequences(d + same)) same += 15;
      if (same + 3 > n) break;
      const auto b0 = static_cast<unsigned char>(d[same]),
                 b1 = static_cast<unsigned char>(d[same + 1]),
                 b2 = static_cast<unsigned char>(d[same + 2]);
      if ((b0 & 0xF0) != 0xE0 || (b1 & 0xC0) != 0x80 || (b2 & 0xC0) != 0x80) break;
      if (b0 == 0xE0 && b1 < 0xA0) break;                                   // overlong
      if (b0 == 0xEF && (b1 == 0xBC || (b1 == 0xBD && b2 <= 0x9E))) break;  // U+FF00..U+FF5E
      if (b0 == 0xE3 && b1 == 0x80 && b2 == 0x80) break;                    // U+3000
      same += 3;
    }
    if (same > i) {
      i = same;
      continue;
    }
    out.append(d + copied, i - copied);
    char32_t cp = Next(s, &i);
    if (cp >= 0xFF01 && cp <= 0xFF5E) cp = cp - 0xFF01 + 0x21;
    if (cp == 0x3000) cp = ' ';
    AppendUtf8(&out, cp);
    copied = i;
  }
  out.append(d + copied, n - copied);
  return out;
}

std::string StripTitleTags(std::string_view title) {
  std::string t = FoldWidth(title);
  std::string_view v(t);
  for (;;) {
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    size_t close = std::string_view::npos;
    if (!v.empty() && v.front() == '[') {
      close = v.find(']');
      if (close != std::string_view::npos) close += 1;
    } else if (v.substr(0, 3) == "\xE3\x80\x90") {  // 【
      close = v.find("\xE3\x80\x91");               // 】
      if (close != std::string_view::npos) close += 3;
    }
    if (close == std::string_view::npos || close >= v.size()) break;
    v.remove_prefix(close);
  }
  return std::string(v);
}

std::uint64_t Hash(std::string_view s) {
  constexpr std::uint64_t kPrime = 1099511628211ull;
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t k = 0;
  for (; k + 4 <= n; k += 4) {  // four bytes a step: fewer loop tests, the same steps
    h = (h ^ p[k]) * kPrime;
    h = (h ^ p[k + 1]) * kPrime;
    h = (h ^ p[k + 2]) * kPrime;
    h = (h ^ p[k + 3]) * kPrime;
  }
  for (; k < n; ++k) h = (h ^ p[k]) * kPrime;
  return h;
}

void Normalize(TokenSet* set) {
  std::sort(set->begin(), set->end());
  set->erase(std::unique(set->begin(), set->end()), set->end());
}

std::string ForMentions(std::string_view input) {
  // ASCII text has nothing to fold and no non-ASCII byte to separate.
  if (AllAscii(input)) return std::string(input);
  std::string s = FoldWidth(input);
  // Copied a span at a time, a space put after each ASCII letter or digit
  // that a multi-byte lead follows (the leads found 16 bytes a step); the
  // folded text itself when there is none.
  const char* d = s.data();
  const size_t n = s.size();
  std::string out;
  size_t start = 0;
  for (size_t i = NextLead(d, 1, n); i < n; i = NextLead(d, i + 1, n)) {
    const auto c = static_cast<unsigned char>(d[i - 1]);
    if (c >= 0x80 || !AsciiAlnum(c)) continue;
    if (start == 0) out.reserve(n + 16);
    out.append(d + start, i - start);
    out.push_back(' ');
    start = i;
  }
  if (start == 0) return s;
  out.append(d + start, n - start);
  return out;
}

bool IsCamelOnly(std::string_view id) { return id.find_first_of("_./-") == std::string_view::npos; }

bool IsPathLike(std::string_view id) {
  return id.find('/') != std::string_view::npos || HasFileExtension(id);
}

bool IsGenericFileName(std::string_view basename) {
  static constexpr std::array<std::string_view, 22> kGeneric = {
      "readme.md",      "readme",           "readme_cn.md",   "readme_en.md", "setup.py",
      "__init__.py",    "requirements.txt", "cmakelists.txt", "build.sh",     "makefile",
      "license",        ".gitignore",       "index.md",       "changelog.md", "conftest.py",
      "main.py",        "utils.py",         "config.yaml",    "dockerfile",   "package.json",
      "pyproject.toml", "setup.cfg"};
  std::string b = Lower(basename);
  return std::find(kGeneric.begin(), kGeneric.end(), b) != kGeneric.end();
}

void IdentifierBuffer::Clear() {
  chars_.clear();
  entries_.clear();
  sorted_.clear();
}

void IdentifierBuffer::Push(size_t begin) {
  Entry e{0, begin, chars_.size() - begin};
  if (e.size >= 8) {
    std::uint64_t v;
    std::memcpy(&v, chars_.data() + begin, 8);
    e.prefix = std::endian::native == std::endian::little ? __builtin_bswap64(v)
                                                          : v;  // the first byte on top
  } else {
    for (size_t k = 0; k < e.size; ++k)
      e.prefix |= std::uint64_t{static_cast<unsigned char>(chars_[begin + k])} << (56 - 8 * k);
  }
  entries_.push_back(e);
}

void IdentifierBuffer::Add(std::string_view input, bool path_variants) {
  // The text with full-width forms folded and URLs blanked: the input itself
  // when it has neither (no non-ASCII byte, no "http").
  std::string_view s = input;
  if (!AllAscii(input) || HasHttp(input)) {
    folded_ = WithoutUrls(FoldWidth(input));
    s = folded_;
  }
  const size_t n = s.size();
  const char* d = s.data();
  // Tokens are the maximal runs of identifier characters. A plain word (lower
  // case and digits only) is never an identifier, so only the tokens holding a
  // marked byte are looked at: found from that byte, the words between never
  // read one at a time. No token starts before i (0, or just past a token).
  size_t i = 0;
  while (i < n) {
    const size_t m = NextMarked(d, i, n);
    if (m == n) break;
    // The token's bounds and the OR of its bytes' classes in one pass.
    const auto* u = reinterpret_cast<const unsigned char*>(d);
    unsigned classes = kIdentClass[u[m]];
    size_t start = m;
    for (unsigned c; start > i && (c = kIdentClass[u[start - 1]]) != 0; --start) classes |= c;
    size_t j = m + 1;
    for (unsigned c; j < n && (c = kIdentClass[u[j]]) != 0; ++j) classes |= c;
    std::string_view tok(d + start, j - start);
    i = j;
    // "torch_npu 2.6.0", "transformer_engine==1.9": a package and its
    // version (an environment line), not what the issue is about.
    size_t k = j;
    while (k < n && (s[k] == ' ' || s[k] == '=' || s[k] == '\t')) ++k;
    if (k < n && k > j &&
        (std::isdigit(static_cast<unsigned char>(s[k])) ||
         ((s[k] == 'v' || s[k] == 'V') && k + 1 < n &&
          std::isdigit(static_cast<unsigned char>(s[k + 1])))))
      continue;
    const size_t untrimmed = tok.size();
    while (!tok.empty() && (tok.front() == '.' || tok.front() == '/' || tok.front() == '-'))
      tok.remove_prefix(1);
    while (!tok.empty() && (tok.back() == '.' || tok.back() == '/' || tok.back() == '-'))
      tok.remove_suffix(1);
    if (tok.size() < 4) continue;
    if (tok.size() != untrimmed) {  // the classes of what is left
      classes = 0;
      for (char c : tok) classes |= kIdentClass[static_cast<unsigned char>(c)];
    }
    // The token's character classes (what HasLetter, find and IsCamel tell):
    // CamelCase is looked for only when it has both cases.
    bool letter = (classes & (kLowerBit | kUpperBit)) != 0,
         underscore = (classes & kUnderscoreBit) != 0, slash = (classes & kSlashBit) != 0,
         dot = (classes & kDotBit) != 0, hyphen = (classes & kHyphenBit) != 0, camel = false;
    if ((classes & (kLowerBit | kUpperBit)) == (kLowerBit | kUpperBit)) {
      for (size_t p = 1; p < tok.size() && !camel; ++p) {
        if (AsciiUpper(tok[p]) &&
            (AsciiLower(tok[p - 1]) ||
             (AsciiUpper(tok[p - 1]) && p + 1 < tok.size() && AsciiLower(tok[p + 1]))))
          camel = true;
      }
    }
    if (!letter || LooksLikeVersion(tok)) continue;
    bool file = dot && HasFileExtension(tok);
    bool dotted = !file && dot;
    hyphen = hyphen && tok.size() >= 8;
    if (!(underscore || slash || file || dotted || hyphen || camel)) continue;
    if (slash && !file && !underscore) {
      // "A2/A3", "CPU/GPU": short alternatives, not a path.
      bool real = false;
      for (size_t a = 0, b; a <= tok.size(); a = b + 1) {
        b = tok.find('/', a);
        if (b == std::string_view::npos) b = tok.size();
        std::string_view seg = tok.substr(a, b - a);
        if (seg.size() >= 4 && HasLetter(seg)) real = true;
      }
      if (!real) continue;
    }
    if (dotted && !underscore && !camel && !slash) {
      // "e.g", "torch.cuda": keep only module paths with an identifier part.
      size_t parts = static_cast<size_t>(std::count(tok.begin(), tok.end(), '.')) + 1;
      if (parts < 2 || tok.size() < 8) continue;
    }
    const size_t begin = chars_.size();
    chars_.resize(begin + tok.size());
    char* id = chars_.data() + begin;
    for (size_t p = 0; p < tok.size(); ++p) id[p] = AsciiToLower(tok[p]);
    Push(begin);
    if (dotted && !slash && path_variants) {
      const size_t path = chars_.size();
      chars_.resize(path + tok.size());
      char* to = chars_.data() + path;
      const char* from = chars_.data() + begin;
      for (size_t p = 0; p < tok.size(); ++p) to[p] = from[p] == '.' ? '/' : from[p];
      Push(path);
    }
  }
}

std::span<const std::string_view> IdentifierBuffer::Sorted() {
  // Ordered by the prefix keys, then (on a tie) by the whole strings: the
  // order of the strings, as identifiers hold no NUL byte.
  const char* chars = chars_.data();
  std::sort(entries_.begin(), entries_.end(), [chars](const Entry& a, const Entry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return std::string_view(chars + a.begin, a.size) < std::string_view(chars + b.begin, b.size);
  });
  sorted_.clear();
  sorted_.reserve(entries_.size());
  for (size_t k = 0; k < entries_.size(); ++k) {
    const Entry& e = entries_[k];
    std::string_view v(chars + e.begin, e.size);
    if (k > 0 && e.prefix == entries_[k - 1].prefix && v == sorted_.back()) continue;
    sorted_.push_back(v);
  }
  return sorted_;
}

std::vector<std::string> Identifiers(std::string_view input, bool path_variants) {
  static thread_local IdentifierBuffer buf;
  buf.Clear();
  buf.Add(input, path_variants);
  std::span<const std::string_view> ids = buf.Sorted();
  return std::vector<std::string>(ids.begin(), ids.end());
}

namespace {

// The bytes a clause delimiter can start with ('\n', '\r', ';', '!', '?',
// and the leads of 。 ；！？).
constexpr std::array<bool, 256> kClauseLead = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : {'\n', '\r', ';', '!', '?'}) t[c] = true;
  t[0xE3] = t[0xEF] = true;
  return t;
}();

// The length of the clause delimiter at s[i], 0 when none starts there:
// newline, 。, ；, ';', ！, ？, '!', '?', '\r'; a '!' or '?' that starts a PR
// reference ("!12") is not a delimiter.
size_t DelimiterAt(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  switch (c) {
    case '\n':
    case '\r':
    case ';':
      return 1;
    case '!':
    case '?':
      return i + 1 < s.size() && std::isalnum(static_cast<unsigned char>(s[i + 1])) ? 0 : 1;
    case 0xE3:  // 。 E3 80 82
      return i + 3 <= s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
                     static_cast<unsigned char>(s[i + 2]) == 0x82
                 ? 3
                 : 0;
    case 0xEF: {  // ； EF BC 9B, ！ EF BC 81, ？ EF BC 9F
      if (i + 3 > s.size() || static_cast<unsigned char>(s[i + 1]) != 0xBC) return 0;
      const auto c2 = static_cast<unsigned char>(s[i + 2]);
      return c2 == 0x9B || c2 == 0x81 || c2 == 0x9F ? 3 : 0;
    }
    default:
      return 0;
  }
}

}  // namespace

Clause ClauseAt(std::string_view s, size_t offset) {
  offset = std::min(offset, s.size());
  // The window's edges on character boundaries (a clause cut there is still
  // whole UTF-8).
  auto continuation = [&](size_t at) {
    return at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80;
  };
  size_t from = offset > kClauseWindow ? offset - kClauseWindow : 0;
  while (from < offset && continuation(from)) ++from;
  const size_t n = offset + Utf8Prefix(s.substr(offset), kClauseWindow).size();
  Clause c{from, n};
  size_t i = from;
  while (i < n) {
    if (!kClauseLead[static_cast<unsigned char>(s[i])]) {
      ++i;
      continue;
    }
    const size_t len = DelimiterAt(s, i);
    if (len == 0) {
      ++i;
      continue;
    }
    if (i + len <= offset) {
      c.begin = i + len;
    } else if (i >= offset) {
      c.end = i;
      break;
    }
    i += len;
  }
  return c;
}

namespace {

bool HasUpperAscii(std::string_view s) {
  for (char c : s)
    if (c >= 'A' && c <= 'Z') return true;
  return false;
}

}  // namespace

std::string_view FoldedAscii(std::string_view s, std::string* buf) {
  if (!HasUpperAscii(s)) return s;
  buf->assign(s.data(), s.size());
  for (char& c : *buf)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return *buf;
}

CueSet::CueSet(std::initializer_list<std::string_view> cues)
    : CueSet(std::vector<std::string_view>(cues.begin(), cues.end())) {}

namespace {

// ASCII A-Z lower-cased, every other byte as is.
constexpr std::array<unsigned char, 256> kFoldByte = [] {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[c] = static_cast<unsigned char>(AsciiToLower(static_cast<char>(c)));
  return t;
}();

// The bit of a cue's first three bytes in CueSet's 2^16-bit filter.
inline std::uint32_t FilterBit(std::uint32_t head) { return (head * 0x9E3779B1u) >> 16; }

}  // namespace

CueSet::CueSet(const std::vector<std::string_view>& cues) {
  if (cues.size() > 64) throw std::length_error("text::CueSet: more than 64 cues");
  for (size_t i = 0; i < cues.size(); ++i) Add(cues[i], std::uint64_t{1} << i);
  Seal();
}

CueSet::CueSet(const std::vector<Grouped>& cues) {
  std::vector<std::pair<std::string, std::uint64_t>> merged;  // a cue named in several groups once
  for (const Grouped& g : cues) {
    if (g.group >= 64) throw std::length_error("text::CueSet: a group above 63");
    std::string folded = Lower(g.cue);
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const auto& m) { return m.first == folded; });
    if (it == merged.end()) {
      merged.emplace_back(std::move(folded), std::uint64_t{1} << g.group);
    } else {
      it->second |= std::uint64_t{1} << g.group;
    }
  }
  for (const auto& [cue, bits] : merged) Add(cue, bits);
  Seal();
}

void CueSet::Add(std::string_view cue, std::uint64_t bits) {
  if (cue.empty()) return;  // an empty cue never matches
  Cue c;
  c.folded = Lower(cue);
  c.bits = bits;
  c.letters = HasLetter(c.folded);
  if (c.folded.size() >= 3) {
    const auto* f = reinterpret_cast<const unsigned char*>(c.folded.data());
    c.head = std::uint32_t{f[0]} << 16 | std::uint32_t{f[1]} << 8 | f[2];
    long_entries_ |= c.bits;
    long_.push_back(std::move(c));
  } else {
    cues_.push_back(std::move(c));
  }
}

void CueSet::Seal() {
  std::stable_partition(cues_.begin(), cues_.end(), [](const Cue& c) { return !c.letters; });
  std::stable_sort(long_.begin(), long_.end(),
                   [](const Cue& a, const Cue& b) { return a.head < b.head; });
  if (!long_.empty()) {
    filter_.assign((size_t{1} << 16) / 64, 0);
    for (const Cue& c : long_) {
      std::uint32_t bit = FilterBit(c.head);
      filter_[bit >> 6] |= std::uint64_t{1} << (bit & 63);
    }
  }
}

std::uint64_t CueSet::Scan(std::string_view h, bool all) const {
  std::uint64_t found = 0;
  std::string buf;
  std::string_view folded;
  bool have_folded = false;
  for (const Cue& c : cues_) {
    if (c.folded.size() > h.size()) continue;
    std::string_view hay = h;
    if (c.letters) {
      if (!have_folded) {
        folded = FoldedAscii(h, &buf);
        have_folded = true;
      }
      hay = folded;
    }
    if ((found & c.bits) == c.bits) continue;  // nothing new to learn from it
    if (memmem(hay.data(), hay.size(), c.folded.data(), c.folded.size()) != nullptr) {
      found |= c.bits;
      if (!all) return found;
    }
  }
  // The longer cues, in one pass over the folded bytes. Matching a cue
  // without letters against the folded text is matching it against the text:
  // folding turns letters into letters only.
  const size_t n = h.size();
  if (long_.empty() || n < 3) return found;
  const auto* p = reinterpret_cast<const unsigned char*>(h.data());
  std::uint32_t head = std::uint32_t{kFoldByte[p[0]]} << 8 | kFoldByte[p[1]];
  for (size_t i = 0; i + 3 <= n; ++i) {
    head = (head << 8 | kFoldByte[p[i + 2]]) & 0xFFFFFF;
    std::uint32_t bit = FilterBit(head);
    if (!(filter_[bit >> 6] >> (bit & 63) & 1)) continue;
    auto c = std::lower_bound(long_.begin(), long_.end(), head,
                              [](const Cue& x, std::uint32_t v) { return x.head < v; });
    for (; c != long_.end() && c->head == head; ++c) {
      size_t len = c->folded.size();
      if (len > n - i || (found & c->bits) == c->bits) continue;
      const auto* want = reinterpret_cast<const unsigned char*>(c->folded.data());
      size_t k = 3;
      while (k < len && kFoldByte[p[i + k]] == want[k]) ++k;
      if (k < len) continue;
      found |= c->bits;
      if (!all) return found;
    }
    if ((found & long_entries_) == long_entries_) break;  // every longer cue found
  }
  return found;
}

size_t CueSet::Count(std::string_view haystack) const {
  return static_cast<size_t>(__builtin_popcountll(Scan(haystack, true)));
}

size_t VisibleLength(std::string_view s) {
  size_t i = 0, n = 0;
  while (i < s.size()) {
    char32_t cp = Next(s, &i);
    if (cp < 0x80 && std::isspace(static_cast<int>(cp))) continue;
    ++n;
  }
  return n;
}

}  // namespace fixgraph::graph::text
