#include "record_codec.h"

#include "fixgraph/engine/byte_codec.h"
#include "fixgraph/engine/fields.h"

#include <cstdint>
#include <type_traits>

namespace fixgraph::codec {
namespace {

// Type bytes: part of the on-disk format.
template <typename T>
struct Tag;
template <>
struct Tag<Repository> {
  static constexpr char kByte = 'r';
  static constexpr const char* kWhat = "repository";
};
template <>
struct Tag<Issue> {
  static constexpr char kByte = 'i';
  static constexpr const char* kWhat = "issue";
};
template <>
struct Tag<PullRequest> {
  static constexpr char kByte = 'p';
  static constexpr const char* kWhat = "pull request";
};
template <>
struct Tag<Comment> {
  static constexpr char kByte = 'c';
  static constexpr const char* kWhat = "comment";
};
template <>
struct Tag<Commit> {
  static constexpr char kByte = 'k';
  static constexpr const char* kWhat = "commit";
};
template <>
struct Tag<FileChange> {
  static constexpr char kByte = 'f';
  static constexpr const char* kWhat = "file";
};
template <>
struct Tag<OperateLogEvent> {
  static constexpr char kByte = 'o';
  static constexpr const char* kWhat = "operate log";
};
template <>
struct Tag<PlatformLink> {
  static constexpr char kByte = 'l';
  static constexpr const char* kWhat = "platform link";
};
template <>
struct Tag<MentionRecord> {
  static constexpr char kByte = 'm';
  static constexpr const char* kWhat = "mention";
};

// One field's value, by its type (the table in fields.h).
template <typename T>
void Put(ByteWriter& w, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    w.Str(v);
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    w.Int(v);
  } else if constexpr (std::is_same_v<T, OptTime>) {
    w.Time(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    w.Byte(v ? 1 : 0);
  } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
    w.Byte(!v ? 0 : *v ? 2 : 1);
  } else if constexpr (std::is_enum_v<T>) {
    w.Byte(static_cast<std::uint8_t>(v));
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    w.Strings(v);
  } else if constexpr (std::is_same_v<T, RepoRef>) {
    w.Repo(v);
  } else if constexpr (std::is_same_v<T, Ref>) {
    w.RefField(v);
  } else {  // a nested record (User)
    fields::ForEachField<T>([&](const auto& f) { Put(w, v.*f.member); });
  }
}

template <typename T>
void Get(ByteReader& r, T* v) {
  if constexpr (std::is_same_v<T, std::string>) {
    r.Str(v);
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    *v = r.Int();
  } else if constexpr (std::is_same_v<T, OptTime>) {
    r.Time(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    *v = r.Bool();
  } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
    std::uint8_t b = 0;
    r.Enum(&b, 2);
    v->reset();
    if (b != 0) *v = b == 2;
  } else if constexpr (std::is_enum_v<T>) {
    r.Enum(v, fields::EnumInfo<T>::kMax);
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    r.Strings(v);
  } else if constexpr (std::is_same_v<T, RepoRef>) {
    r.Repo(v);
  } else if constexpr (std::is_same_v<T, Ref>) {
    r.RefField(v);
  } else {
    fields::ForEachField<T>([&](const auto& f) { Get(r, &(v->*f.member)); });
  }
}

template <typename T>
void EncodeRecord(const T& v, std::string* out) {
  ByteWriter w(out, Tag<T>::kByte);
  Put(w, v);
}

template <typename T>
Status DecodeRecord(std::string_view in, T* out) {
  ByteReader r(in, Tag<T>::kByte, Tag<T>::kWhat);
  Get(r, out);
  return r.Finish();
}

}  // namespace

void Encode(const Repository& v, std::string* out) { EncodeRecord(v, out); }
void Encode(const Issue& v, std::string* out) { EncodeRecord(v, out); }
void Encode(const PullRequest& v, std::string* out) { EncodeRecord(v, out); }
void Encode(const Comment& v, std::string* out) { EncodeRecord(v, out); }
void Encode(const Commit& v, std::string* out) { EncodeRecord(v, out); }
void Encode(const FileChange& v, std::string* out) { EncodeRecord(v, out); }
void Encode(const OperateLogEvent& v, std::string* out) { EncodeRecord(v, out); }
void Encode(const PlatformLink& v, std::string* out) { EncodeRecord(v, out); }
void Encode(const MentionRecord& v, std::string* out) { EncodeRecord(v, out); }

Status Decode(std::string_view in, Repository* out) { return DecodeRecord(in, out); }
Status Decode(std::string_view in, Issue* out) { return DecodeRecord(in, out); }
Status Decode(std::string_view in, PullRequest* out) { return DecodeRecord(in, out); }
Status Decode(std::string_view in, Comment* out) { return DecodeRecord(in, out); }
Status Decode(std::string_view in, Commit* out) { return DecodeRecord(in, out); }
Status Decode(std::string_view in, FileChange* out) { return DecodeRecord(in, out); }
Status Decode(std::string_view in, OperateLogEvent* out) { return DecodeRecord(in, out); }
Status Decode(std::string_view in, PlatformLink* out) { return DecodeRecord(in, out); }
Status Decode(std::string_view in, MentionRecord* out) { return DecodeRecord(in, out); }

}  // namespace fixgraph::codec
