// The one declaration of each stored model type's fields: their order, their
// JSON keys and their per-field options. The binary record codec
// (engine/record_codec.cc) and the JSON conversion (engine/model_json.cc) both
// walk these tables, so a field is added in one place.
//
// Schema<T>::kFields is a tuple of Field<&T::member, options>{"json key"} in
// the record's on-disk order (part of the store format: append new fields at
// the end and bump kStoreSchemaVersion). How a field is written follows from
// its C++ type:
//
//   type                   binary (byte_codec.h)             JSON
//   std::string            varint length + bytes             string
//   std::int64_t           zigzag varint                     integer
//   OptTime                presence byte + zigzag varint     "2026-...Z" or null; "" reads as unset
//   enum (EnumInfo below)  one byte, at most kMax            its name (see kStrictEnum)
//   bool                   one byte, 0 or 1                  (not used in JSON records)
//   std::optional<bool>    one byte: 0 unset, 1 false, 2 true  null, false or true; other values
//   ignored std::vector<string>    varint count + strings            array of strings RepoRef
//   platform byte, owner, name        "gitcode:owner/name" (required) Ref                    kind
//   byte, RepoRef, number        its canonical text User (a Schema type)   its fields in order a
//   nested object
//
// Schema<T>::kDerived lists JSON-only keys computed from the record (an
// item's "ref", a comment's "parent"): written by ToJson, ignored when read.
//
// Every member of a type must be in its table: the static_asserts at the end
// compare the table's length with the struct's member count, so a member added
// to model.h without an entry here does not compile.
//
// Thread safety: constants.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/store.h"

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace fixgraph::fields {

// Per-field options.
enum Options : unsigned {
  kNone = 0,
  // JSON: an enum name outside EnumInfo's names is Corruption ("expected issue
  // or pull"). Without it an unknown or missing name reads as the value 0.
  kStrictEnum = 1u << 0,
};

// One stored field: `Member` is a pointer to the data member, `key` its JSON key.
template <auto Member, unsigned Opts = kNone>
struct Field {
  static constexpr auto member = Member;
  static constexpr unsigned options = Opts;
  const char* key;
};

// One JSON-only key: `Fn` is a const member function returning a Ref.
template <auto Fn>
struct Derived {
  static constexpr auto fn = Fn;
  const char* key;
};

// The enums stored as one byte: the largest valid value and, for those in
// JSON, the name of each value (Name(E(i)) for i in 0..kMax).
template <typename E>
struct EnumInfo;

template <>
struct EnumInfo<IssueState> {
  static constexpr std::uint8_t kMax = static_cast<std::uint8_t>(IssueState::kClosed);
  static const char* Name(IssueState s) { return IssueStateName(s); }
};
template <>
struct EnumInfo<PullState> {
  static constexpr std::uint8_t kMax = static_cast<std::uint8_t>(PullState::kMerged);
  static const char* Name(PullState s) { return PullStateName(s); }
};
template <>
struct EnumInfo<ParentKind> {
  static constexpr std::uint8_t kMax = static_cast<std::uint8_t>(ParentKind::kPull);
  static const char* Name(ParentKind k) { return k == ParentKind::kIssue ? "issue" : "pull"; }
};
template <>
struct EnumInfo<MentionSource> {
  static constexpr std::uint8_t kMax = static_cast<std::uint8_t>(MentionSource::kBranchName);
};
template <>
struct EnumInfo<MentionForm> {
  static constexpr std::uint8_t kMax = static_cast<std::uint8_t>(MentionForm::kUrl);
};
template <>
struct EnumInfo<MentionKeyword> {
  static constexpr std::uint8_t kMax = static_cast<std::uint8_t>(MentionKeyword::kReason);
};

template <typename T>
struct Schema;

template <>
struct Schema<User> {
  static constexpr std::tuple kFields{
      Field<&User::id>{"id"},
      Field<&User::login>{"login"},
      Field<&User::name>{"name"},
  };
  static constexpr std::tuple<> kDerived{};
};

template <>
struct Schema<Repository> {
  static constexpr std::tuple kFields{
      Field<&Repository::ref>{"repo"},
      Field<&Repository::full_name>{"full_name"},
      Field<&Repository::display_name>{"display_name"},
      Field<&Repository::description>{"description"},
      Field<&Repository::default_branch>{"default_branch"},
      Field<&Repository::html_url>{"html_url"},
  };
  static constexpr std::tuple<> kDerived{};
};

template <>
struct Schema<Issue> {
  static constexpr std::tuple kFields{
      Field<&Issue::repo>{"repo"},
      Field<&Issue::number>{"number"},
      Field<&Issue::platform_id>{"platform_id"},
      Field<&Issue::title>{"title"},
      Field<&Issue::body>{"body"},
      Field<&Issue::state>{"state"},  // unknown names read as open
      Field<&Issue::state_detail>{"state_detail"},
      Field<&Issue::author>{"author"},
      Field<&Issue::labels>{"labels"},
      Field<&Issue::html_url>{"html_url"},
      Field<&Issue::created_at>{"created_at"},
      Field<&Issue::updated_at>{"updated_at"},
      Field<&Issue::closed_at>{"closed_at"},
      Field<&Issue::comment_count>{"comment_count"},
      Field<&Issue::branch>{"branch"},
  };
  static constexpr std::tuple kDerived{Derived<&Issue::ref>{"ref"}};
};

template <>
struct Schema<PullRequest> {
  static constexpr std::tuple kFields{
      Field<&PullRequest::repo>{"repo"},
      Field<&PullRequest::number>{"number"},
      Field<&PullRequest::platform_id>{"platform_id"},
      Field<&PullRequest::title>{"title"},
      Field<&PullRequest::body>{"body"},
      Field<&PullRequest::state>{"state"},  // unknown names read as open
      Field<&PullRequest::author>{"author"},
      Field<&PullRequest::labels>{"labels"},
      Field<&PullRequest::html_url>{"html_url"},
      Field<&PullRequest::created_at>{"created_at"},
      Field<&PullRequest::updated_at>{"updated_at"},
      Field<&PullRequest::merged_at>{"merged_at"},
      Field<&PullRequest::closed_at>{"closed_at"},
      Field<&PullRequest::head_ref>{"head_ref"},
      Field<&PullRequest::head_sha>{"head_sha"},
      Field<&PullRequest::head_repo>{"head_repo"},
      Field<&PullRequest::base_ref>{"base_ref"},
      Field<&PullRequest::close_related_issue>{"close_related_issue"},
      Field<&PullRequest::merged_by>{"merged_by"},
  };
  static constexpr std::tuple kDerived{Derived<&PullRequest::ref>{"ref"}};
};

template <>
struct Schema<Comment> {
  static constexpr std::tuple kFields{
      Field<&Comment::repo>{"repo"},
      Field<&Comment::parent_kind, kStrictEnum>{"parent_kind"},
      Field<&Comment::parent_number>{"parent_number"},
      Field<&Comment::id>{"id"},
      Field<&Comment::author>{"author"},
      Field<&Comment::body>{"body"},
      Field<&Comment::kind>{"kind"},
      Field<&Comment::path>{"path"},
      Field<&Comment::created_at>{"created_at"},
      Field<&Comment::updated_at>{"updated_at"},
  };
  static constexpr std::tuple kDerived{Derived<&Comment::parent>{"parent"}};
};

template <>
struct Schema<Commit> {
  static constexpr std::tuple kFields{
      Field<&Commit::repo>{"repo"},
      Field<&Commit::pr_number>{"pr_number"},
      Field<&Commit::sha>{"sha"},
      Field<&Commit::message>{"message"},
      Field<&Commit::author_name>{"author_name"},
      Field<&Commit::author_email>{"author_email"},
      Field<&Commit::author_login>{"author_login"},
      Field<&Commit::committer_name>{"committer_name"},
      Field<&Commit::committer_email>{"committer_email"},
      Field<&Commit::authored_at>{"authored_at"},
      Field<&Commit::committed_at>{"committed_at"},
  };
  static constexpr std::tuple<> kDerived{};
};

template <>
struct Schema<FileChange> {
  static constexpr std::tuple kFields{
      Field<&FileChange::repo>{"repo"},
      Field<&FileChange::pr_number>{"pr_number"},
      Field<&FileChange::filename>{"filename"},
      Field<&FileChange::previous_filename>{"previous_filename"},
      Field<&FileChange::status>{"status"},
      Field<&FileChange::additions>{"additions"},
      Field<&FileChange::deletions>{"deletions"},
      Field<&FileChange::patch>{"patch"},
  };
  static constexpr std::tuple<> kDerived{};
};

template <>
struct Schema<OperateLogEvent> {
  static constexpr std::tuple kFields{
      Field<&OperateLogEvent::repo>{"repo"},
      Field<&OperateLogEvent::parent_kind, kStrictEnum>{"parent_kind"},
      Field<&OperateLogEvent::parent_number>{"parent_number"},
      Field<&OperateLogEvent::id>{"id"},
      Field<&OperateLogEvent::action_type>{"action_type"},
      Field<&OperateLogEvent::action>{"action"},
      Field<&OperateLogEvent::content>{"content"},
      Field<&OperateLogEvent::actor>{"actor"},
      Field<&OperateLogEvent::created_at>{"created_at"},
  };
  static constexpr std::tuple kDerived{Derived<&OperateLogEvent::parent>{"parent"}};
};

template <>
struct Schema<PlatformLink> {
  static constexpr std::tuple kFields{
      Field<&PlatformLink::issue>{"issue"},
      Field<&PlatformLink::pull>{"pull"},
      Field<&PlatformLink::source>{"source"},
  };
  static constexpr std::tuple<> kDerived{};
};

// A mention-index row: binary only (no JSON form), so the keys are unused.
template <>
struct Schema<MentionRecord> {
  static constexpr std::tuple kFields{
      Field<&MentionRecord::target>{"target"},
      Field<&MentionRecord::source_item>{"source_item"},
      Field<&MentionRecord::source>{"source"},
      Field<&MentionRecord::source_id>{"source_id"},
      Field<&MentionRecord::form>{"form"},
      Field<&MentionRecord::keyword>{"keyword"},
      Field<&MentionRecord::mirror_host>{"mirror_host"},
      Field<&MentionRecord::text>{"text"},
      Field<&MentionRecord::at>{"at"},
  };
  static constexpr std::tuple<> kDerived{};
};

// Calls fn(field) for each Field of T's table, in order.
template <typename T, typename Fn>
constexpr void ForEachField(Fn&& fn) {
  std::apply([&](const auto&... f) { (fn(f), ...); }, Schema<T>::kFields);
}

// Calls fn(derived) for each Derived key of T.
template <typename T, typename Fn>
constexpr void ForEachDerived(Fn&& fn) {
  std::apply([&](const auto&... d) { (fn(d), ...); }, Schema<T>::kDerived);
}

template <typename T>
inline constexpr std::size_t kFieldCount = std::tuple_size_v<decltype(Schema<T>::kFields)>;

namespace detail {

// Converts to anything; only named in unevaluated aggregate initialisation.
struct AnyInit {
  template <typename U>
  operator U() const;  // NOLINT(google-explicit-constructor): deliberate
};

// The number of members of the aggregate T: the most initialisers T{...}
// accepts. (A member that cannot be copy-initialised from a converted value
// would stop the count early; the assertion below then fails, which is safe.)
template <typename T, typename... A>
constexpr std::size_t MemberCount() {
  if constexpr (requires { T{A{}..., AnyInit{}}; })
    return MemberCount<T, A..., AnyInit>();
  else
    return sizeof...(A);
}

// True when no member appears twice in T's table (a duplicate would let a
// missing member pass the count check).
template <typename T>
constexpr bool DistinctMembers() {
  bool distinct = true;
  std::size_t i = 0;
  ForEachField<T>([&](const auto& a) {
    std::size_t j = 0;
    ForEachField<T>([&](const auto& b) {
      if constexpr (std::is_same_v<decltype(a.member), decltype(b.member)>)
        if (i != j && a.member == b.member) distinct = false;
      ++j;
    });
    ++i;
  });
  return distinct;
}

}  // namespace detail

template <typename T>
inline constexpr std::size_t kMemberCount = detail::MemberCount<T>();

// True when T's table lists each member of T exactly once.
template <typename T>
constexpr bool kListsEveryMember = kFieldCount<T> == kMemberCount<T>&& detail::DistinctMembers<T>();

static_assert(kListsEveryMember<User>);
static_assert(kListsEveryMember<Repository>);
static_assert(kListsEveryMember<Issue>);
static_assert(kListsEveryMember<PullRequest>);
static_assert(kListsEveryMember<Comment>);
static_assert(kListsEveryMember<Commit>);
static_assert(kListsEveryMember<FileChange>);
static_assert(kListsEveryMember<OperateLogEvent>);
static_assert(kListsEveryMember<PlatformLink>);
static_assert(kListsEveryMember<MentionRecord>);

}  // namespace fixgraph::fields
