// A strict, zero-copy JSON reader for the import hot path.
//
// JsonDoc parses one JSON value from a byte span into a flat token tape (no
// tree of heap nodes); JsonValue is a cheap view of one token. Strings are read
// straight from the input bytes (unescaped only when they hold escapes), and
// every value keeps its exact byte span, so an importer can store the payload
// as read instead of re-serialising it.
//
// What it accepts is what nlohmann::json::parse accepts (RFC 8259: no comments,
// no trailing commas, well-formed UTF-8 in strings, paired \u surrogates), with
// one limit: values nest at most kMaxDepth deep. As nlohmann, it rejects a
// number too large for a double ("number out of range": 1e400) and skips a
// UTF-8 byte order mark before the top-level value. Integers follow nlohmann's
// typing: a number without fraction or exponent that fits in 64 bits is an
// integer, anything else a float. Duplicate object keys: the last one wins.
//
// Errors are Corruption with a byte offset counted like nlohmann's
// (1-based position of the offending byte): "byte 21: syntax error: ...".
//
// JsonDoc::WriteDump() writes the root as nlohmann's compact dump() would
// (members in byte order of their names), straight from the bytes read, when
// every scalar is already in dump()'s form (no escapes beyond the ones dump()
// writes, integers only, names without escapes or repeats); otherwise it
// returns false and the caller falls back to parse + dump().
//
// Thread safety: a JsonDoc is used by one thread at a time; JsonValues are
// valid while their JsonDoc is alive and not re-parsed.
#pragma once

#include "fixgraph/engine/status.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::ingest {

class JsonDoc;

class JsonValue {
 public:
  enum class Type : std::uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

  // An absent value (a missing key): !valid().
  JsonValue() = default;

  bool valid() const { return doc_ != nullptr; }
  Type type() const;
  // nlohmann's names: "null", "boolean", "number", "string", "array", "object".
  const char* type_name() const;
  bool is_null() const { return valid() && type() == Type::kNull; }
  bool is_object() const { return valid() && type() == Type::kObject; }
  bool is_array() const { return valid() && type() == Type::kArray; }
  bool is_string() const { return valid() && type() == Type::kString; }
  bool is_boolean() const { return valid() && type() == Type::kBool; }
  // A number without fraction or exponent that fits in 64 bits.
  bool is_integer() const;

  // The exact bytes of the value in the input.
  std::string_view raw() const;

  // REQUIRES: is_boolean().
  bool boolean() const;
  // The unescaped text. REQUIRES: is_string().
  std::string str() const;
  // True when the string equals `s` (unescaped). REQUIRES: is_string().
  bool StrEquals(std::string_view s) const;
  // The integer (an unsigned value above INT64_MAX wraps, as nlohmann's
  // get<int64_t>). REQUIRES: is_integer().
  std::int64_t integer() const;

  // The member named `key` of an object (the last one when repeated); an
  // absent value when missing or when this is not an object.
  JsonValue Find(std::string_view key) const;

  // Elements of an array / values of an object, in order.
  std::size_t size() const;
  template <typename Fn>
  void ForEachElement(Fn fn) const;

 private:
  friend class JsonDoc;
  JsonValue(const JsonDoc* doc, std::uint32_t i) : doc_(doc), i_(i) {}
  const JsonDoc* doc_ = nullptr;
  std::uint32_t i_ = 0;
};

class JsonDoc {
 public:
  static constexpr int kMaxDepth = 512;

  // Parses `text`, which must hold exactly one value (whitespace around it is
  // allowed). The text must outlive the JsonDoc's values. Errors: Corruption
  // "byte N: ...".
  Status Parse(std::string_view text);
  // Parses a copy of nlohmann's dump() of `j` (for payloads that arrive as
  // nlohmann values, such as sync's).
  Status ParseJson(const nlohmann::json& j);

  // Parses one value starting at text[pos] (after optional whitespace) and
  // sets *end just past it. On a syntax error sets *error_pos to the 0-based
  // offset of the offending byte (text.size() when the text ends too soon)
  // and returns the message.
  Status ParseValue(std::string_view text, std::size_t pos, std::size_t* end,
                    std::size_t* error_pos);

  JsonValue root() const { return JsonValue(this, 0); }

  // See the file comment. Returns false (out unspecified) when it cannot.
  bool WriteDump(std::string* out) const;

  // `span` (a valid JSON text) without the whitespace outside strings.
  static void Compact(std::string_view span, std::string* out);

 private:
  friend class JsonValue;
  friend class JsonParser;
  struct Token {
    JsonValue::Type type;
    bool escaped;         // strings: holds backslash escapes
    bool integer;         // numbers: integer typed
    std::uint32_t begin;  // strings: after the quote; others: first byte
    std::uint32_t end;    // strings: at the closing quote; others: past the last byte
    std::uint32_t next;   // index of the token after this value and its children
  };
  const Token& tok(std::uint32_t i) const { return toks_[i]; }
  bool WriteSorted(std::uint32_t i, std::string* out, std::vector<std::uint32_t>* scratch) const;

  std::string_view text_;
  std::string owned_;
  std::vector<Token> toks_;
  bool canonical_ = true;  // every scalar as dump() writes it
  bool sorted_ = true;     // every object's names in increasing byte order
};

template <typename Fn>
void JsonValue::ForEachElement(Fn fn) const {
  if (!valid()) return;
  const auto& t = doc_->tok(i_);
  if (t.type != Type::kArray && t.type != Type::kObject) return;
  bool object = t.type == Type::kObject;
  for (std::uint32_t c = i_ + 1; c < t.next;) {
    if (object) c = doc_->tok(c).next;  // skip the key
    fn(JsonValue(doc_, c));
    c = doc_->tok(c).next;
  }
}

// Parses `text` (one JSON value; a leading UTF-8 byte order mark is skipped)
// into a nlohmann value after JsonDoc has checked it: RFC 8259 syntax, nesting
// at most JsonDoc::kMaxDepth deep, numbers a double can hold. For bodies from
// the network and other untrusted text that code then walks recursively
// (dump(), mappers): a hostile body gets an error, never a stack overflow or
// an exception. Errors: Corruption "byte N: ...".
Status ParseJsonLimited(std::string_view text, nlohmann::json* out);

}  // namespace fixgraph::ingest
