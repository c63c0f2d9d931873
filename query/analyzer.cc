#include "analyzer.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <unordered_map>
#include <xapian.h>

namespace fixgraph::query {
namespace {

// Replaces every byte that does not start a valid UTF-8 sequence by U+FFFD.
std::string Sanitize(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(text.size());
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

std::string MapUtf8(std::string_view text, bool casefold) {
  // ASCII is its own NFKC form: skip utf8proc (most of the text of logs and code).
  bool ascii = true;
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      break;
    }
  if (ascii) {
    std::string out(text);
    if (casefold)
      for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  }
  std::string clean = Sanitize(text);
  if (clean.empty()) return clean;
  int options = UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
  if (casefold) options |= UTF8PROC_CASEFOLD;
  utf8proc_uint8_t* mapped = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(clean.data()),
                                    static_cast<utf8proc_ssize_t>(clean.size()), &mapped,
                                    static_cast<utf8proc_option_t>(options));
  if (n < 0 || mapped == nullptr) {
    std::free(mapped);
    return clean;  // sanitized text is valid UTF-8; keep it unfolded
  }
  std::string out(reinterpret_cast<const char*>(mapped), static_cast<size_t>(n));
  std::free(mapped);
  return out;
}

std::vector<char32_t> Decode(std::string_view s) {
  std::vector<char32_t> cps;
  cps.reserve(s.size());
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0 || cp < 0) {
      cps.push_back(0xFFFD);
      n = 1;
    } else {
      cps.push_back(static_cast<char32_t>(cp));
    }
    p += n;
    left -= n;
  }
  return cps;
}

void Encode(char32_t c, std::string* out) {
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

std::string Lower(const std::u32string& s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(IsUpper(c) ? c - 'A' + 'a' : c));
    } else {
      Encode(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))), &out);
    }
  }
  return out;
}

bool IsStopWord(std::string_view w) {
  static constexpr std::array<std::string_view, 64> kStop = {
      "a",     "an",    "the",   "is",    "are",   "was",   "were",  "be",    "been",
      "to",    "of",    "in",    "on",    "at",    "for",   "and",   "or",    "but",
      "with",  "this",  "that",  "it",    "as",    "by",    "from",  "i",     "we",
      "you",   "he",    "she",   "they",  "my",    "our",   "your",  "me",    "do",
      "does",  "did",   "have",  "has",   "had",   "when",  "what",  "how",   "which",
      "there", "then",  "so",    "if",    "can",   "will",  "would", "should", "could",
      "its",   "into",  "any",   "some",  "please", "am",   "these", "those", "than",
      "about"};
  return std::find(kStop.begin(), kStop.end(), w) != kStop.end();
}

bool AllAlpha(std::string_view s) {
  for (char c : s)
    if (!(c >= 'a' && c <= 'z')) return false;
  return !s.empty();
}

bool HasDigit(const std::u32string& s) {
  return std::any_of(s.begin(), s.end(), IsDigit);
}

// Splits one segment (no _ . -) at camelCase and letter/long-digit boundaries.
void SplitCamel(const std::u32string& seg, std::vector<std::u32string>* out) {
  size_t start = 0;
  auto digit_run = [&](size_t i) {
    size_t j = i;
    while (j < seg.size() && IsDigit(seg[j])) ++j;
    return j - i;
  };
  for (size_t i = 1; i < seg.size(); ++i) {
    char32_t a = seg[i - 1], b = seg[i];
    bool cut = false;
    if (IsLower(a) && IsUpper(b)) cut = true;
    if (IsUpper(a) && IsUpper(b) && i + 1 < seg.size() && IsLower(seg[i + 1])) cut = true;
    if ((IsUpper(a) || IsLower(a)) && IsDigit(b) && digit_run(i) >= 4) cut = true;
    if (cut) {
      out->push_back(seg.substr(start, i - start));
      start = i;
    }
  }
  out->push_back(seg.substr(start));
}

void Emit(std::vector<Term>* terms, std::string text, std::uint32_t pos, TermKind kind) {
  if (text.empty() || text.size() > kMaxTermBytes) return;
  terms->push_back(Term{std::move(text), pos, kind});
}

void EmitToken(const std::u32string& tok, std::uint32_t* pos, std::vector<Term>* terms) {
  bool ident = false;
  bool camel = false;
  for (size_t i = 0; i < tok.size(); ++i) {
    char32_t c = tok[i];
    if (IsDigit(c) || c == '_' || c == '.' || c == '-') ident = true;
    if (i > 0 && IsLower(tok[i - 1]) && IsUpper(c)) camel = true;
  }
  ident = ident || camel;
  std::string whole = Lower(tok);
  if (!ident) {
    if (IsStopWord(whole)) return;
    ++*pos;
    Emit(terms, AllAlpha(whole) ? StemWord(whole) : whole, *pos, TermKind::kWord);
    return;
  }
  // A lone digit or a two-character number carries no meaning on its own.
  if (tok.size() == 1) return;
  ++*pos;
  Emit(terms, whole, *pos, TermKind::kIdentifier);
  std::vector<std::string> parts;
  auto add_part = [&](std::string p, bool stem) {
    if (p.size() < 2 || p == whole) return;
    if (stem && AllAlpha(p)) p = StemWord(p);
    if (std::find(parts.begin(), parts.end(), p) == parts.end()) parts.push_back(std::move(p));
  };
  // Segments between dots and dashes, kept whole when they hold `_` or digits
  // (`torch_npu.npu_fusion_attention` -> `npu_fusion_attention`).
  std::vector<std::u32string> segs;
  {
    size_t start = 0;
    for (size_t i = 0; i <= tok.size(); ++i) {
      if (i == tok.size() || tok[i] == '.' || tok[i] == '-') {
        if (i > start) segs.push_back(tok.substr(start, i - start));
        start = i + 1;
      }
    }
  }
  for (const std::u32string& seg : segs) {
    if (segs.size() > 1) add_part(Lower(seg), false);
    size_t start = 0;
    for (size_t i = 0; i <= seg.size(); ++i) {
      if (i == seg.size() || seg[i] == '_') {
        if (i > start) {
          std::u32string piece = seg.substr(start, i - start);
          std::vector<std::u32string> sub;
          SplitCamel(piece, &sub);
          if (sub.size() > 1 || piece.size() != seg.size()) add_part(Lower(piece), !HasDigit(piece));
          for (const auto& s : sub) add_part(Lower(s), true);
        }
        start = i + 1;
      }
    }
  }
  for (std::string& p : parts) Emit(terms, std::move(p), *pos, TermKind::kPart);
}

}  // namespace

bool IsCjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) ||    // CJK unified ideographs
         (c >= 0x3400 && c <= 0x4DBF) ||    // extension A
         (c >= 0x20000 && c <= 0x2FA1F) ||  // extensions B.. and compatibility supplement
         (c >= 0xF900 && c <= 0xFAFF) ||    // compatibility ideographs
         (c >= 0x3040 && c <= 0x30FF) ||    // hiragana, katakana
         (c >= 0x31F0 && c <= 0x31FF) ||    // katakana extension
         (c >= 0xAC00 && c <= 0xD7AF) ||    // hangul syllables
         (c >= 0x1100 && c <= 0x11FF);      // hangul jamo
}

std::string Normalize(std::string_view text) { return MapUtf8(text, true); }
std::string NormalizeKeepCase(std::string_view text) { return MapUtf8(text, false); }

std::string StemWord(std::string_view word) {
  // Snowball is the costliest step of indexing; text repeats its words, so
  // each thread remembers recent stems (bounded: cleared when full).
  constexpr size_t kMaxCachedStems = 1 << 16;
  thread_local std::unordered_map<std::string, std::string> cache;
  std::string key(word);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::string stem;
  try {
    thread_local Xapian::Stem stemmer("en");
    stem = stemmer(key);
  } catch (...) {
    stem = key;
  }
  if (cache.size() >= kMaxCachedStems) cache.clear();
  cache.emplace(std::move(key), stem);
  return stem;
}

std::vector<Term> Analyze(std::string_view text) {
  std::vector<Term> terms;
  std::vector<char32_t> cps = Decode(NormalizeKeepCase(text));
  std::uint32_t pos = 0;
  size_t i = 0;
  const size_t n = cps.size();
  while (i < n) {
    char32_t c = cps[i];
    if (IsCjk(c)) {
      size_t j = i;
      while (j < n && IsCjk(cps[j])) ++j;
      if (j - i == 1) {
        std::string t;
        Encode(c, &t);
        Emit(&terms, std::move(t), ++pos, TermKind::kCjk);
      } else {
        for (size_t k = i; k + 1 < j; ++k) {
          std::string t;
          Encode(cps[k], &t);
          Encode(cps[k + 1], &t);
          Emit(&terms, std::move(t), ++pos, TermKind::kCjk);
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
    std::u32string tok;
    size_t j = i;
    if (neg) tok.push_back(cps[j++]);
    while (j < n) {
      char32_t d = cps[j];
      if (IsWordChar(d)) {
        tok.push_back(d);
        ++j;
      } else if ((d == '.' || d == '-') && j + 1 < n && IsWordChar(cps[j + 1]) && cps[j + 1] != '_' &&
                 !tok.empty()) {
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
    if (!tok.empty()) EmitToken(tok, &pos, &terms);
    i = j;
  }
  return terms;
}

}  // namespace fixgraph::query
