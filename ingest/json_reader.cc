#include "fixgraph/ingest/json_reader.h"

#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

namespace fixgraph::ingest {

using Type = JsonValue::Type;

namespace {
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
}  // namespace

// ---- Parser

class JsonParser {
 public:
  JsonParser(JsonDoc* doc, std::string_view text) : doc_(doc), s_(text.data()), n_(text.size()) {}

  // Parses one value at p_; false on error (err_pos_, err_ set).
  bool Value(int depth) {
    SkipWs();
    if (p_ >= n_) return Fail(p_, "unexpected end of input; expected a value");
    char c = s_[p_];
    switch (c) {
      case '{':
        return Object(depth);
      case '[':
        return Array(depth);
      case '"':
        return String(/*key=*/false);
      case 't':
        return Literal("true", Type::kBool);
      case 'f':
        return Literal("false", Type::kBool);
      case 'n':
        return Literal("null", Type::kNull);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return Number();
        return Fail(p_, std::string("unexpected ") + Shown(c) + "; expected a value");
    }
  }

  void SkipWs() {
    while (p_ < n_) {
      char c = s_[p_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
      ++p_;
    }
  }

  std::size_t p_ = 0;
  std::size_t err_pos_ = 0;
  std::string err_;

 private:
  static std::string Shown(char c) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
  }

  bool Fail(std::size_t at, std::string what) {
    err_pos_ = at;
    err_ = "syntax error: " + std::move(what);
    return false;
  }

  std::uint32_t Push(Type t, std::size_t begin) {
    doc_->toks_.push_back(JsonDoc::Token{t, false, false, static_cast<std::uint32_t>(begin), 0, 0});
    return static_cast<std::uint32_t>(doc_->toks_.size() - 1);
  }
  void Close(std::uint32_t i, std::size_t end) {
    auto& t = doc_->toks_[i];
    t.end = static_cast<std::uint32_t>(end);
    t.next = static_cast<std::uint32_t>(doc_->toks_.size());
  }

  bool Literal(const char* word, Type t) {
    std::size_t len = std::strlen(word);
    for (std::size_t k = 0; k < len; ++k) {
      if (p_ + k >= n_) return Fail(n_, "unexpected end of input in a literal");
      if (s_[p_ + k] != word[k])
        return Fail(p_ + k, std::string("invalid literal; unexpected ") + Shown(s_[p_ + k]));
    }
    std::uint32_t i = Push(t, p_);
    p_ += len;
    Close(i, p_);
    return true;
  }

  bool Number() {
    std::size_t b = p_;
    bool integer = true;
    if (s_[p_] == '-') ++p_;
    if (p_ >= n_) return Fail(n_, "unexpected end of input in a number");
    if (s_[p_] == '0') {
      ++p_;
    } else if (s_[p_] >= '1' && s_[p_] <= '9') {
      while (p_ < n_ && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
    } else {
      return Fail(p_, "invalid number; unexpected " + Shown(s_[p_]));
    }
    if (p_ < n_ && s_[p_] == '.') {
      integer = false;
      ++p_;
      if (p_ >= n_) return Fail(n_, "unexpected end of input in a number");
      if (!(s_[p_] >= '0' && s_[p_] <= '9'))
        return Fail(p_, "invalid number; expected a digit after '.'");
      while (p_ < n_ && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
    }
    if (p_ < n_ && (s_[p_] == 'e' || s_[p_] == 'E')) {
      integer = false;
      ++p_;
      if (p_ < n_ && (s_[p_] == '+' || s_[p_] == '-')) ++p_;
      if (p_ >= n_) return Fail(n_, "unexpected end of input in a number");
      if (!(s_[p_] >= '0' && s_[p_] <= '9'))
        return Fail(p_, "invalid number; expected a digit in the exponent");
      while (p_ < n_ && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
    }
    if (integer) {
      // nlohmann: int64, else uint64, else a float.
      const char* first = s_ + b;
      const char* last = s_ + p_;
      std::int64_t v = 0;
      auto r = std::from_chars(first, last, v);
      if (r.ec != std::errc()) {
        std::uint64_t u = 0;
        auto ru = std::from_chars(first, last, u);
        if (ru.ec != std::errc()) integer = false;
      }
      if (last - first == 2 && first[0] == '-' && first[1] == '0') doc_->canonical_ = false;
    }
    // A float, or an integer too large for 64 bits (read as a float): nlohmann
    // rejects one a double cannot hold ("number overflow"), and so do we.
    if (!integer && !FiniteDouble(s_ + b, s_ + p_)) {
      std::size_t shown = std::min<std::size_t>(p_ - b, 40);
      return Fail(
          b, "number out of range: " + std::string(s_ + b, shown) + (p_ - b > shown ? "..." : ""));
    }
    if (!integer) doc_->canonical_ = false;  // dump() reprints floats
    std::uint32_t i = Push(Type::kNumber, b);
    doc_->toks_[i].integer = integer;
    Close(i, p_);
    return true;
  }

  // Whether the number [first, last) (valid JSON syntax) fits in a double
  // (an underflow to 0 or a subnormal is fine, as for nlohmann).
  static bool FiniteDouble(const char* first, const char* last) {
    // Fast path: no exponent and fewer than 300 digits cannot overflow.
    if (last - first < 300 &&
        std::find_if(first, last, [](char c) { return c == 'e' || c == 'E'; }) == last)
      return true;
    std::string copy(first, last);  // strtod needs a terminator ("C" locale: '.')
    errno = 0;
    double v = std::strtod(copy.c_str(), nullptr);
    return std::isfinite(v);
  }

  static int Hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // Reads 4 hex digits at p_ (after "\u"); -1 on error (reported).
  long Hex4() {
    long v = 0;
    for (int k = 0; k < 4; ++k) {
      if (p_ >= n_) {
        Fail(n_, "unexpected end of input in a \\u escape");
        return -1;
      }
      int h = Hex(s_[p_]);
      if (h < 0) {
        Fail(p_, "invalid string: '\\u' must be followed by 4 hex digits");
        return -1;
      }
      v = v * 16 + h;
      ++p_;
    }
    return v;
  }

  bool String(bool key) {
    std::size_t open = p_;
    ++p_;  // the quote
    bool escaped = false;
    for (;;) {
      // Plain ASCII run: 8 bytes at a time while none needs a look.
      while (p_ + 8 <= n_) {
        std::uint64_t v;
        std::memcpy(&v, s_ + p_, 8);
        constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
        std::uint64_t quote = v ^ (kOnes * '"'), slash = v ^ (kOnes * '\\');
        std::uint64_t special =
            ((v - kOnes * 0x20) & ~v) | ((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash) | v;
        if ((special & kHigh) != 0) break;
        p_ += 8;
      }
      while (p_ < n_) {
        auto c = static_cast<unsigned char>(s_[p_]);
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
        ++p_;
      }
      if (p_ >= n_) return Fail(n_, "unexpected end of input in a string");
      auto c = static_cast<unsigned char>(s_[p_]);
      if (c == '"') break;
      if (c < 0x20) return Fail(p_, "invalid string: control character must be escaped");
      if (c == '\\') {
        escaped = true;
        ++p_;
        if (p_ >= n_) return Fail(n_, "unexpected end of input in a string");
        char e = s_[p_];
        if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
          ++p_;
          continue;
        }
        if (e == '/') {
          doc_->canonical_ = false;
          ++p_;
          continue;
        }
        if (e != 'u') return Fail(p_, "invalid string: forbidden character after backslash");
        std::size_t u_at = p_ + 1;
        ++p_;
        long v = Hex4();
        if (v < 0) return false;
        // dump() writes \u00xx (lowercase) only for control characters without a short form.
        bool canonical_escape = v < 0x20 && v != 0x08 && v != 0x09 && v != 0x0a && v != 0x0c &&
                                v != 0x0d && s_[u_at] == '0' && s_[u_at + 1] == '0' &&
                                !(s_[u_at + 2] >= 'A' && s_[u_at + 2] <= 'F') &&
                                !(s_[u_at + 3] >= 'A' && s_[u_at + 3] <= 'F');
        if (!canonical_escape) doc_->canonical_ = false;
        if (v >= 0xDC00 && v <= 0xDFFF)
          return Fail(p_ - 1,
                      "invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF");
        if (v >= 0xD800 && v <= 0xDBFF) {
          if (p_ + 1 >= n_) return Fail(n_, "unexpected end of input in a string");
          if (s_[p_] != '\\' || s_[p_ + 1] != 'u')
            return Fail(
                p_, "invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF");
          p_ += 2;
          long lo = Hex4();
          if (lo < 0) return false;
          if (lo < 0xDC00 || lo > 0xDFFF)
            return Fail(
                p_ - 1,
                "invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF");
        }
        continue;
      }
      // A run of three-byte sequences whose lead allows any continuation bytes
      // (most CJK text): checked without the general table below.
      std::size_t q = p_;
      while (q + 3 <= n_) {
        auto lead = static_cast<unsigned char>(s_[q]);
        auto d1 = static_cast<unsigned char>(s_[q + 1]);
        auto d2 = static_cast<unsigned char>(s_[q + 2]);
        if (!((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) ||
            (d1 & 0xC0) != 0x80 || (d2 & 0xC0) != 0x80)
          break;
        q += 3;
      }
      if (q > p_) {
        p_ = q;
        continue;
      }
      // UTF-8 sequence (RFC 3629).
      std::size_t need = 0;
      unsigned char lo = 0x80, hi = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
      } else if (c == 0xE0) {
        need = 2, lo = 0xA0;
      } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
        need = 2;
      } else if (c == 0xED) {
        need = 2, hi = 0x9F;
      } else if (c == 0xF0) {
        need = 3, lo = 0x90;
      } else if (c >= 0xF1 && c <= 0xF3) {
        need = 3;
      } else if (c == 0xF4) {
        need = 3, hi = 0x8F;
      } else {
        return Fail(p_, "invalid string: ill-formed UTF-8 byte");
      }
      ++p_;
      for (std::size_t k = 0; k < need; ++k, ++p_) {
        if (p_ >= n_) return Fail(n_, "unexpected end of input in a string");
        auto d = static_cast<unsigned char>(s_[p_]);
        unsigned char l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
        if (d < l || d > h) return Fail(p_, "invalid string: ill-formed UTF-8 byte");
      }
    }
    std::uint32_t i = Push(Type::kString, open + 1);
    doc_->toks_[i].escaped = escaped;
    if (key && escaped) doc_->canonical_ = false;
    Close(i, p_);
    ++p_;  // the closing quote
    return true;
  }

  bool Object(int depth) {
    if (depth >= JsonDoc::kMaxDepth) return Fail(p_, "values nest too deep");
    std::uint32_t obj = Push(Type::kObject, p_);
    ++p_;
    SkipWs();
    if (p_ < n_ && s_[p_] == '}') {
      ++p_;
      Close(obj, p_);
      return true;
    }
    std::uint32_t prev_key = 0;
    bool have_prev = false;
    for (;;) {
      SkipWs();
      if (p_ >= n_) return Fail(n_, "unexpected end of input; expected a member name");
      if (s_[p_] != '"')
        return Fail(p_, "unexpected " + Shown(s_[p_]) + "; expected a string member name");
      auto key = static_cast<std::uint32_t>(doc_->toks_.size());
      if (!String(/*key=*/true)) return false;
      if (doc_->sorted_) {
        // dump() writes members in byte order of their names, each name once.
        if (have_prev) {
          const auto& a = doc_->toks_[prev_key];
          const auto& b = doc_->toks_[key];
          std::string_view ka(s_ + a.begin, a.end - a.begin), kb(s_ + b.begin, b.end - b.begin);
          if (!(ka < kb)) doc_->sorted_ = false;
        }
      }
      prev_key = key;
      have_prev = true;
      SkipWs();
      if (p_ >= n_) return Fail(n_, "unexpected end of input; expected ':'");
      if (s_[p_] != ':') return Fail(p_, "unexpected " + Shown(s_[p_]) + "; expected ':'");
      ++p_;
      if (!Value(depth + 1)) return false;
      SkipWs();
      if (p_ >= n_) return Fail(n_, "unexpected end of input; expected ',' or '}'");
      if (s_[p_] == ',') {
        ++p_;
        continue;
      }
      if (s_[p_] == '}') {
        ++p_;
        Close(obj, p_);
        return true;
      }
      return Fail(p_, "unexpected " + Shown(s_[p_]) + "; expected ',' or '}'");
    }
  }

  bool Array(int depth) {
    if (depth >= JsonDoc::kMaxDepth) return Fail(p_, "values nest too deep");
    std::uint32_t arr = Push(Type::kArray, p_);
    ++p_;
    SkipWs();
    if (p_ < n_ && s_[p_] == ']') {
      ++p_;
      Close(arr, p_);
      return true;
    }
    for (;;) {
      if (!Value(depth + 1)) return false;
      SkipWs();
      if (p_ >= n_) return Fail(n_, "unexpected end of input; expected ',' or ']'");
      if (s_[p_] == ',') {
        ++p_;
        continue;
      }
      if (s_[p_] == ']') {
        ++p_;
        Close(arr, p_);
        return true;
      }
      return Fail(p_, "unexpected " + Shown(s_[p_]) + "; expected ',' or ']'");
    }
  }

  JsonDoc* doc_;
  const char* s_;
  std::size_t n_;
};

Status JsonDoc::ParseValue(std::string_view text, std::size_t pos, std::size_t* end,
                           std::size_t* error_pos) {
  toks_.clear();
  canonical_ = true;
  sorted_ = true;
  if (text.size() >= std::numeric_limits<std::uint32_t>::max())
    return Status::Corruption("JSON value larger than 4 GB");
  JsonParser p(this, text);
  p.p_ = pos;
  if (!p.Value(0)) {
    *error_pos = p.err_pos_;
    toks_.clear();
    text_ = {};
    return Status::Corruption(p.err_);
  }
  text_ = text;
  *end = p.p_;
  return Status::OK();
}

Status JsonDoc::Parse(std::string_view text) {
  std::size_t end = 0, err = 0;
  // A UTF-8 byte order mark before the value is skipped (as nlohmann does).
  std::size_t start = text.substr(0, 3) == kUtf8Bom ? 3 : 0;
  Status s = ParseValue(text, start, &end, &err);
  if (s.ok()) {
    JsonParser p(this, text);
    p.p_ = end;
    p.SkipWs();
    if (p.p_ == text.size()) return Status::OK();
    err = p.p_;
    s = Status::Corruption("syntax error: unexpected text after the value");
    toks_.clear();
    text_ = {};
  }
  return Status::Corruption("byte " + std::to_string(err + 1) + ": " + s.message());
}

Status JsonDoc::ParseJson(const nlohmann::json& j) {
  try {
    owned_ = j.dump();
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("payload cannot be serialised: ") + e.what());
  }
  return Parse(owned_);
}

Status ParseJsonLimited(std::string_view text, nlohmann::json* out) {
  {
    JsonDoc check;
    FG_RETURN_IF_ERROR(check.Parse(text));
  }
  try {
    *out = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(e.what());  // not expected after the check
  }
  return Status::OK();
}

bool JsonDoc::WriteDump(std::string* out) const {
  if (!canonical_ || toks_.empty()) return false;
  std::string_view span = root().raw();
  if (sorted_) {
    Compact(span, out);
    return true;
  }
  out->clear();
  out->reserve(span.size());
  std::vector<std::uint32_t> scratch;
  return WriteSorted(0, out, &scratch);
}

bool JsonDoc::WriteSorted(std::uint32_t i, std::string* out,
                          std::vector<std::uint32_t>* scratch) const {
  const Token& t = toks_[i];
  switch (t.type) {
    case Type::kString:
      out->append(text_.data() + t.begin - 1, t.end - t.begin + 2);
      return true;
    case Type::kArray: {
      out->push_back('[');
      bool first = true;
      for (std::uint32_t c = i + 1; c < t.next; c = toks_[c].next) {
        if (!first) out->push_back(',');
        first = false;
        if (!WriteSorted(c, out, scratch)) return false;
      }
      out->push_back(']');
      return true;
    }
    case Type::kObject: {
      // The member names of this object go on top of the scratch stack.
      std::size_t base = scratch->size();
      for (std::uint32_t c = i + 1; c < t.next; c = toks_[c + 1].next) scratch->push_back(c);
      auto name = [&](std::uint32_t k) {
        return std::string_view(text_.data() + toks_[k].begin, toks_[k].end - toks_[k].begin);
      };
      std::sort(scratch->begin() + static_cast<std::ptrdiff_t>(base), scratch->end(),
                [&](std::uint32_t a, std::uint32_t b) { return name(a) < name(b); });
      out->push_back('{');
      for (std::size_t m = base; m < scratch->size(); ++m) {
        std::uint32_t k = (*scratch)[m];
        if (m > base) {
          if (name((*scratch)[m - 1]) == name(k)) return false;  // a repeated name
          out->push_back(',');
        }
        out->append(text_.data() + toks_[k].begin - 1, toks_[k].end - toks_[k].begin + 2);
        out->push_back(':');
        if (!WriteSorted(k + 1, out, scratch)) return false;
      }
      out->push_back('}');
      scratch->resize(base);
      return true;
    }
    default:
      out->append(text_.data() + t.begin, t.end - t.begin);
      return true;
  }
}

void JsonDoc::Compact(std::string_view span, std::string* out) {
  out->clear();
  out->reserve(span.size());
  bool in_string = false;
  const char* s = span.data();
  std::size_t n = span.size();
  std::size_t run = 0;  // start of the pending run to copy
  for (std::size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      out->append(s + run, i - run);
      run = i + 1;
    }
  }
  out->append(s + run, n - run);
}

// ---- JsonValue

Type JsonValue::type() const { return doc_->tok(i_).type; }

const char* JsonValue::type_name() const {
  if (!valid()) return "null";
  switch (type()) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return "boolean";
    case Type::kNumber:
      return "number";
    case Type::kString:
      return "string";
    case Type::kArray:
      return "array";
    case Type::kObject:
      return "object";
  }
  return "unknown";
}

bool JsonValue::is_integer() const {
  return valid() && type() == Type::kNumber && doc_->tok(i_).integer;
}

std::string_view JsonValue::raw() const {
  const auto& t = doc_->tok(i_);
  if (t.type == Type::kString) return doc_->text_.substr(t.begin - 1, t.end - t.begin + 2);
  return doc_->text_.substr(t.begin, t.end - t.begin);
}

bool JsonValue::boolean() const { return doc_->text_[doc_->tok(i_).begin] == 't'; }

namespace {

unsigned long Hex4At(const char* s) {
  unsigned long v = 0;
  for (int k = 0; k < 4; ++k) {
    char c = s[k];
    v = v * 16 + static_cast<unsigned long>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return v;
}

// Unescapes a validated string body.
void Unescape(std::string_view body, std::string* out) {
  out->clear();
  out->reserve(body.size());
  const char* s = body.data();
  std::size_t n = body.size();
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && s[j] != '\\') ++j;
    out->append(s + i, j - i);
    if (j >= n) break;
    char e = s[j + 1];
    i = j + 2;
    switch (e) {
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'u': {
        unsigned long cp = Hex4At(s + i);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          unsigned long lo = Hex4At(s + i + 2);
          i += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        AppendUtf8(out, static_cast<char32_t>(cp));
        break;
      }
      default:
        out->push_back(e);
        break;  // " \ /
    }
  }
}

}  // namespace

std::string JsonValue::str() const {
  const auto& t = doc_->tok(i_);
  std::string_view body = doc_->text_.substr(t.begin, t.end - t.begin);
  if (!t.escaped) return std::string(body);
  std::string out;
  Unescape(body, &out);
  return out;
}

bool JsonValue::StrEquals(std::string_view s) const {
  const auto& t = doc_->tok(i_);
  std::string_view body = doc_->text_.substr(t.begin, t.end - t.begin);
  if (!t.escaped) return body == s;
  return str() == s;
}

std::int64_t JsonValue::integer() const {
  std::string_view r = raw();
  std::int64_t v = 0;
  auto res = std::from_chars(r.data(), r.data() + r.size(), v);
  if (res.ec == std::errc()) return v;
  std::uint64_t u = 0;
  std::from_chars(r.data(), r.data() + r.size(), u);
  return static_cast<std::int64_t>(u);
}

JsonValue JsonValue::Find(std::string_view key) const {
  if (!is_object()) return JsonValue();
  const auto& t = doc_->tok(i_);
  JsonValue found;
  for (std::uint32_t c = i_ + 1; c < t.next;) {
    const auto& k = doc_->tok(c);
    std::uint32_t v = c + 1;
    bool match;
    if (!k.escaped) {
      match = k.end - k.begin == key.size() &&
              std::memcmp(doc_->text_.data() + k.begin, key.data(), key.size()) == 0;
    } else {
      match = JsonValue(doc_, c).str() == key;
    }
    if (match) found = JsonValue(doc_, v);
    c = doc_->tok(v).next;
  }
  return found;
}

std::size_t JsonValue::size() const {
  std::size_t n = 0;
  ForEachElement([&](const JsonValue&) { ++n; });
  return n;
}

}  // namespace fixgraph::ingest
