#include "fixgraph/engine/model_json.h"

#include "fixgraph/engine/fields.h"

#include <type_traits>

namespace fixgraph {
namespace {

using nlohmann::json;

// One field's JSON value, by its type (the table in fields.h).
template <typename T>
json ValueToJson(const T& v) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::int64_t> ||
                std::is_same_v<T, std::vector<std::string>>) {
    return json(v);
  } else if constexpr (std::is_same_v<T, OptTime>) {
    return TimeToJson(v);
  } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
    return v ? json(*v) : json(nullptr);
  } else if constexpr (std::is_enum_v<T>) {
    return json(fields::EnumInfo<T>::Name(v));
  } else if constexpr (std::is_same_v<T, RepoRef> || std::is_same_v<T, Ref>) {
    return json(v.ToString());
  } else {  // a nested record (User)
    return ToJson(v);
  }
}

// Writes every field and derived key of T's table.
template <typename T>
json RecordToJson(const T& v) {
  json j = json::object();
  fields::ForEachDerived<T>([&](const auto& d) { j[d.key] = (v.*d.fn)().ToString(); });
  fields::ForEachField<T>([&](const auto& f) { j[f.key] = ValueToJson(v.*f.member); });
  return j;
}

// Field readers for decoding our own records: strict about types. Keys that
// are absent or null leave the field as it was (except enums, see Enum).
class Reader {
 public:
  explicit Reader(const json& j) : j_(j) {
    if (!j_.is_object()) status_ = Status::Corruption("record is not a JSON object");
  }

  template <typename T>
  void Field(const char* key, unsigned options, T* out) {
    if constexpr (std::is_same_v<T, std::string>) {
      Str(key, out);
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      Int(key, out);
    } else if constexpr (std::is_same_v<T, OptTime>) {
      Time(key, out);
    } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
      OptBool(key, out);
    } else if constexpr (std::is_enum_v<T>) {
      Enum(key, (options & fields::kStrictEnum) != 0, out);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      Strings(key, out);
    } else if constexpr (std::is_same_v<T, RepoRef>) {
      RepoField(key, out);
    } else if constexpr (std::is_same_v<T, Ref>) {
      RefField(key, out);
    } else {
      Nested(key, out);
    }
  }
  Status status() const { return status_; }

 private:
  void Str(const char* key, std::string* out) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return;
    if (!v->is_string()) return Fail(key, "a string");
    *out = v->get<std::string>();
  }
  void Int(const char* key, std::int64_t* out) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return;
    if (!v->is_number_integer()) return Fail(key, "an integer");
    *out = v->get<std::int64_t>();
  }
  void Time(const char* key, OptTime* out) {
    std::string s;
    Str(key, &s);
    if (s.empty() || !status_.ok()) return;  // "" means unset
    auto t = ParseTimestamp(s);
    if (!t.ok()) return Fail(key, "a timestamp");
    *out = *t;
  }
  // Only a boolean sets the field; anything else leaves it.
  void OptBool(const char* key, std::optional<bool>* out) {
    const json* v = Find(key);
    if (v != nullptr && v->is_boolean()) *out = v->get<bool>();
  }
  // The value whose EnumInfo name matches. An unknown, absent or null name is
  // Corruption when strict, the value 0 otherwise.
  template <typename E>
  void Enum(const char* key, bool strict, E* out) {
    std::string s;
    Str(key, &s);
    if (!status_.ok()) return;
    using Info = fields::EnumInfo<E>;
    for (unsigned i = 0; i <= Info::kMax; ++i) {
      if (s == Info::Name(static_cast<E>(i))) {
        *out = static_cast<E>(i);
        return;
      }
    }
    if (!strict) {
      *out = static_cast<E>(0);
      return;
    }
    std::string expected;
    for (unsigned i = 0; i <= Info::kMax; ++i) {
      if (i > 0) expected += i == Info::kMax ? " or " : ", ";
      expected += Info::Name(static_cast<E>(i));
    }
    Fail(key, expected.c_str());
  }
  void Strings(const char* key, std::vector<std::string>* out) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return;
    if (!v->is_array()) return Fail(key, "an array");
    for (const json& e : *v) {
      if (!e.is_string()) return Fail(key, "an array of strings");
      out->push_back(e.get<std::string>());
    }
  }
  // Required: absent is Corruption too.
  void RepoField(const char* key, RepoRef* out) {
    std::string s;
    Str(key, &s);
    if (!status_.ok()) return;
    auto r = ParseRef(s);
    if (!r.ok() || r->kind != RefKind::kRepo) return Fail(key, "a repository reference");
    *out = r->repo;
  }
  void RefField(const char* key, Ref* out) {
    std::string s;
    Str(key, &s);
    if (!status_.ok()) return;
    auto r = ParseRef(s);
    if (!r.ok()) return Fail(key, "a reference");
    *out = *r;
  }
  template <typename T>
  void Nested(const char* key, T* out) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return;
    Status s = FromJson(*v, out);
    if (!s.ok() && status_.ok()) status_ = s.WithContext(key);
  }
  const json* Find(const char* key) {
    if (!status_.ok()) return nullptr;
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  void Fail(const char* key, const char* expected) {
    if (status_.ok())
      status_ = Status::Corruption(std::string("field \"") + key + "\": expected " + expected);
  }
  const json& j_;
  Status status_;
};

template <typename T>
Status RecordFromJson(const json& j, T* out) {
  Reader r(j);
  fields::ForEachField<T>([&](const auto& f) { r.Field(f.key, f.options, &(out->*f.member)); });
  return r.status();
}

}  // namespace

json TimeToJson(const OptTime& t) { return t ? json(FormatUtc(*t)) : json(nullptr); }

json ToJson(const User& v) { return RecordToJson(v); }
json ToJson(const Repository& v) { return RecordToJson(v); }
json ToJson(const Issue& v) { return RecordToJson(v); }
json ToJson(const PullRequest& v) { return RecordToJson(v); }
json ToJson(const Comment& v) { return RecordToJson(v); }
json ToJson(const Commit& v) { return RecordToJson(v); }
json ToJson(const FileChange& v) { return RecordToJson(v); }
json ToJson(const OperateLogEvent& v) { return RecordToJson(v); }
json ToJson(const PlatformLink& v) { return RecordToJson(v); }

Status FromJson(const json& j, User* out) { return RecordFromJson(j, out); }
Status FromJson(const json& j, Repository* out) { return RecordFromJson(j, out); }
Status FromJson(const json& j, Issue* out) { return RecordFromJson(j, out); }
Status FromJson(const json& j, PullRequest* out) { return RecordFromJson(j, out); }
Status FromJson(const json& j, Comment* out) { return RecordFromJson(j, out); }
Status FromJson(const json& j, Commit* out) { return RecordFromJson(j, out); }
Status FromJson(const json& j, FileChange* out) { return RecordFromJson(j, out); }
Status FromJson(const json& j, OperateLogEvent* out) { return RecordFromJson(j, out); }
Status FromJson(const json& j, PlatformLink* out) { return RecordFromJson(j, out); }

}  // namespace fixgraph
