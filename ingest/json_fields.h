// Tolerant, type-checked readers for API payload fields. Private to ingest/.
//
// Each reader leaves `out` untouched when the field is missing or null, fills
// it when the field has an accepted type, and otherwise records the first
// error, naming the field. Check status() once at the end.
//
// Fields read a JsonValue (json_reader.h): a view into the bytes parsed, so a
// string is copied once, into the model record.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"
#include "fixgraph/ingest/json_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fixgraph::ingest {

class Fields {
 public:
  // `naive_offset_minutes`: the UTC offset assumed for timestamps that carry
  // none (MapperOptions).
  explicit Fields(const JsonValue& j, int naive_offset_minutes = 0);

  bool is_object() const { return j_.is_object(); }
  bool Has(const char* key) const;
  // A sub-object, or an absent value when missing/null; a non-object is an error.
  JsonValue Object(const char* key);
  // The member, absent when missing or null.
  JsonValue Get(const char* key) const;

  // A string. Numbers and booleans are not accepted.
  void String(const char* key, std::string* out);
  // A string or an integer, as text ("309" or 309 -> "309").
  void Id(const char* key, std::string* out);
  // An integer or a decimal string ("3" or 3).
  void Int(const char* key, std::int64_t* out);
  // A bool, 0/1, or "true"/"false".
  void Bool(const char* key, std::optional<bool>* out);
  // A timestamp string; "" and null are unset; no offset: naive_offset_minutes.
  void Time(const char* key, OptTime* out);
  // A user object {id, login, name}.
  void UserObject(const char* key, User* out);
  // Names of a labels array: [{name}] or ["name"].
  void Labels(const char* key, std::vector<std::string>* out);

  // Records an error about `key` unless one is already recorded.
  void Fail(const char* key, const std::string& why);
  Status status() const { return status_; }

 private:
  JsonValue Find(const char* key);

  JsonValue j_;
  int naive_offset_ = 0;
  Status status_;
};

}  // namespace fixgraph::ingest
