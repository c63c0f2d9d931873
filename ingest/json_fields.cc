#include "json_fields.h"

#include <cctype>
#include <charconv>

namespace fixgraph::ingest {

Fields::Fields(const JsonValue& j, int naive_offset_minutes)
    : j_(j), naive_offset_(naive_offset_minutes) {
  if (!j_.is_object())
    status_ = Status::Corruption(std::string("expected a JSON object, found ") + j_.type_name());
}

JsonValue Fields::Get(const char* key) const {
  JsonValue v = j_.Find(key);
  return v.is_null() ? JsonValue() : v;
}

bool Fields::Has(const char* key) const { return Get(key).valid(); }

JsonValue Fields::Find(const char* key) {
  if (!status_.ok()) return JsonValue();
  return Get(key);
}

void Fields::Fail(const char* key, const std::string& why) {
  if (status_.ok()) status_ = Status::Corruption(std::string("field \"") + key + "\": " + why);
}

JsonValue Fields::Object(const char* key) {
  JsonValue v = Find(key);
  if (v.valid() && !v.is_object()) {
    Fail(key, std::string("expected an object, found ") + v.type_name());
    return JsonValue();
  }
  return v;
}

void Fields::String(const char* key, std::string* out) {
  JsonValue v = Find(key);
  if (!v.valid()) return;
  if (!v.is_string()) return Fail(key, std::string("expected a string, found ") + v.type_name());
  *out = v.str();
}

void Fields::Id(const char* key, std::string* out) {
  JsonValue v = Find(key);
  if (!v.valid()) return;
  if (v.is_string()) {
    *out = v.str();
  } else if (v.is_integer()) {
    *out = std::to_string(v.integer());
  } else {
    Fail(key, std::string("expected a string or an integer, found ") + v.type_name());
  }
}

void Fields::Int(const char* key, std::int64_t* out) {
  JsonValue v = Find(key);
  if (!v.valid()) return;
  if (v.is_integer()) {
    *out = v.integer();
    return;
  }
  if (v.is_string()) {
    std::string s = v.str();
    if (s.empty()) return;
    std::int64_t n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec == std::errc() && p == s.data() + s.size()) {
      *out = n;
      return;
    }
    return Fail(key, "expected an integer, found \"" + s.substr(0, 40) + "\"");
  }
  Fail(key, std::string("expected an integer, found ") + v.type_name());
}

void Fields::Bool(const char* key, std::optional<bool>* out) {
  JsonValue v = Find(key);
  if (!v.valid()) return;
  if (v.is_boolean()) {
    *out = v.boolean();
  } else if (v.is_integer()) {
    *out = v.integer() != 0;
  } else if (v.is_string() && (v.StrEquals("true") || v.StrEquals("false"))) {
    *out = v.StrEquals("true");
  } else {
    Fail(key, std::string("expected a bool or 0/1, found ") + v.type_name());
  }
}

void Fields::Time(const char* key, OptTime* out) {
  JsonValue v = Find(key);
  if (!v.valid()) return;
  if (!v.is_string())
    return Fail(key, std::string("expected a timestamp string, found ") + v.type_name());
  auto t = ParseTimestamp(v.str(), naive_offset_);
  if (!t.ok()) return Fail(key, t.status().message());
  *out = *t;
}

void Fields::UserObject(const char* key, User* out) {
  JsonValue v = Object(key);
  if (!v.valid()) return;
  Fields u(v);
  u.Id("id", &out->id);
  u.String("login", &out->login);
  u.String("name", &out->name);
  if (!u.status().ok()) Fail(key, u.status().message());
}

void Fields::Labels(const char* key, std::vector<std::string>* out) {
  JsonValue v = Find(key);
  if (!v.valid()) return;
  if (!v.is_array()) return Fail(key, std::string("expected an array, found ") + v.type_name());
  bool bad = false;
  v.ForEachElement([&](const JsonValue& e) {
    if (bad) return;
    if (e.is_string()) {
      out->push_back(e.str());
    } else if (e.is_object()) {
      JsonValue name = e.Find("name");
      if (name.is_string()) out->push_back(name.str());
    } else {
      bad = true;
    }
  });
  if (bad) Fail(key, "expected label objects or strings");
}

}  // namespace fixgraph::ingest
