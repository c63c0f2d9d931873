#include "json_fields.h"

#include <cctype>
#include <charconv>

namespace fixgraph::ingest {

using nlohmann::json;

Fields::Fields(const json& j) : j_(j) {
  if (!j_.is_object())
    status_ = Status::Corruption(std::string("expected a JSON object, found ") + j_.type_name());
}

bool Fields::Has(const char* key) const {
  if (!j_.is_object()) return false;
  auto it = j_.find(key);
  return it != j_.end() && !it->is_null();
}

const json* Fields::Find(const char* key) {
  if (!status_.ok() || !j_.is_object()) return nullptr;
  auto it = j_.find(key);
  if (it == j_.end() || it->is_null()) return nullptr;
  return &*it;
}

void Fields::Fail(const char* key, const std::string& why) {
  if (status_.ok()) status_ = Status::Corruption(std::string("field \"") + key + "\": " + why);
}

const json* Fields::Object(const char* key) {
  const json* v = Find(key);
  if (v != nullptr && !v->is_object()) {
    Fail(key, std::string("expected an object, found ") + v->type_name());
    return nullptr;
  }
  return v;
}

void Fields::String(const char* key, std::string* out) {
  const json* v = Find(key);
  if (v == nullptr) return;
  if (!v->is_string()) return Fail(key, std::string("expected a string, found ") + v->type_name());
  *out = v->get<std::string>();
}

void Fields::Id(const char* key, std::string* out) {
  const json* v = Find(key);
  if (v == nullptr) return;
  if (v->is_string()) {
    *out = v->get<std::string>();
  } else if (v->is_number_integer()) {
    *out = std::to_string(v->get<std::int64_t>());
  } else {
    Fail(key, std::string("expected a string or an integer, found ") + v->type_name());
  }
}

void Fields::Int(const char* key, std::int64_t* out) {
  const json* v = Find(key);
  if (v == nullptr) return;
  if (v->is_number_integer()) {
    *out = v->get<std::int64_t>();
    return;
  }
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (s.empty()) return;
    std::int64_t n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec == std::errc() && p == s.data() + s.size()) {
      *out = n;
      return;
    }
    return Fail(key, "expected an integer, found \"" + s.substr(0, 40) + "\"");
  }
  Fail(key, std::string("expected an integer, found ") + v->type_name());
}

void Fields::Bool(const char* key, std::optional<bool>* out) {
  const json* v = Find(key);
  if (v == nullptr) return;
  if (v->is_boolean()) {
    *out = v->get<bool>();
  } else if (v->is_number_integer()) {
    *out = v->get<std::int64_t>() != 0;
  } else if (v->is_string() && (*v == "true" || *v == "false")) {
    *out = *v == "true";
  } else {
    Fail(key, std::string("expected a bool or 0/1, found ") + v->type_name());
  }
}

void Fields::Time(const char* key, OptTime* out) {
  const json* v = Find(key);
  if (v == nullptr) return;
  if (!v->is_string())
    return Fail(key, std::string("expected a timestamp string, found ") + v->type_name());
  auto t = ParseTimestamp(v->get_ref<const std::string&>());
  if (!t.ok()) return Fail(key, t.status().message());
  *out = *t;
}

void Fields::UserObject(const char* key, User* out) {
  const json* v = Object(key);
  if (v == nullptr) return;
  Fields u(*v);
  u.Id("id", &out->id);
  u.String("login", &out->login);
  u.String("name", &out->name);
  if (!u.status().ok()) Fail(key, u.status().message());
}

void Fields::Labels(const char* key, std::vector<std::string>* out) {
  const json* v = Find(key);
  if (v == nullptr) return;
  if (!v->is_array()) return Fail(key, std::string("expected an array, found ") + v->type_name());
  for (const json& e : *v) {
    if (e.is_string()) {
      out->push_back(e.get<std::string>());
    } else if (e.is_object()) {
      auto it = e.find("name");
      if (it != e.end() && it->is_string()) out->push_back(it->get<std::string>());
    } else {
      return Fail(key, "expected label objects or strings");
    }
  }
}

}  // namespace fixgraph::ingest
