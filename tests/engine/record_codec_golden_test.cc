// Golden bytes of the on-disk record encoding and of the JSON form: one fully
// populated record of each type (every field non-default, multi-byte varints,
// negative and unset times) and one default record. Any change to field order
// or encoding, binary or JSON, breaks these; stores written before stay
// readable only while they pass.
#include "../../engine/record_codec.h"

#include "fixgraph/engine/fields.h"
#include "fixgraph/engine/model_json.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace fixgraph {
namespace {

std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

RepoRef Repo() { return RepoRef{Platform::kGitHub, "owner-x", "name.y"}; }
User Person(const char* tag) {
  return User{std::string("id-") + tag, std::string("login-") + tag, std::string("名 ") + tag};
}

Repository FullRepository() {
  Repository v;
  v.ref = Repo();
  v.full_name = "Owner-X/Name.y";
  v.display_name = "display";
  v.description = std::string(200, 'd');  // a two-byte length varint
  v.default_branch = "trunk";
  v.html_url = "https://github.com/owner-x/x";
  return v;
}

Issue FullIssue() {
  Issue v;
  v.repo = Repo();
  v.number = "I8XK2P";
  v.platform_id = "p-1";
  v.title = "标题 \"q\"";
  v.body = std::string("nul\0byte", 8);
  v.state = IssueState::kClosed;
  v.state_detail = "已完成";
  v.author = Person("a");
  v.labels = {"bug", "", "kind/x"};
  v.html_url = "https://gitee.com/o/r/issues/I8XK2P";
  v.created_at = -86401;
  v.updated_at = 1'789'443'356;
  v.closed_at = 0;
  v.comment_count = 300;
  v.branch = "fix-branch";
  return v;
}

PullRequest FullPull() {
  PullRequest v;
  v.repo = Repo();
  v.number = 166'000;
  v.platform_id = "p-2";
  v.title = "Fix #69";
  v.body = "fixes #69";
  v.state = PullState::kMerged;
  v.author = Person("b");
  v.labels = {"lgtm"};
  v.html_url = "https://github.com/o/r/pull/166000";
  v.created_at = 1;
  v.updated_at = 2;
  v.merged_at = 3;
  v.closed_at = 4;
  v.head_ref = "dev";
  v.head_sha = "abc123";
  v.head_repo = "bob/r";
  v.base_ref = "main";
  v.close_related_issue = false;
  v.merged_by = "carol";
  return v;
}

Comment FullComment() {
  Comment v;
  v.repo = Repo();
  v.parent_kind = ParentKind::kPull;
  v.parent_number = "166000";
  v.id = "c-9";
  v.author = Person("c");
  v.body = "LGTM";
  v.kind = "diff_comment";
  v.path = "src/a.cc";
  v.created_at = -1;
  v.updated_at = 64;
  return v;
}

Commit FullCommit() {
  Commit v;
  v.repo = Repo();
  v.pr_number = -7;
  v.sha = "0123456789abcdef";
  v.message = "msg\nbody";
  v.author_name = "An";
  v.author_email = "an@x";
  v.author_login = "an";
  v.committer_name = "Cn";
  v.committer_email = "cn@x";
  v.authored_at = 1'700'000'000;
  v.committed_at = 1'700'000'001;
  return v;
}

FileChange FullFile() {
  FileChange v;
  v.repo = Repo();
  v.pr_number = 12;
  v.filename = "b.cc";
  v.previous_filename = "a.cc";
  v.status = "renamed";
  v.additions = std::numeric_limits<std::int64_t>::max();
  v.deletions = std::numeric_limits<std::int64_t>::min();
  v.patch = "@@ -1 +1 @@";
  return v;
}

OperateLogEvent FullOplog() {
  return OperateLogEvent{.repo = Repo(),
                         .parent_kind = ParentKind::kPull,
                         .parent_number = "5",
                         .id = "e-1",
                         .action_type = "add_issue_mr_link",
                         .action = "linked",
                         .content = "#69",
                         .actor = Person("d"),
                         .created_at = 1'000'000};
}

PlatformLink FullLink() {
  return PlatformLink{Ref::Issue(Repo(), "I1"), Ref::Pull(Repo(), 3), "operate_log"};
}

MentionRecord FullMention() {
  MentionRecord m;
  m.target = Ref::Issue(Repo(), "I8XK2P");
  m.source_item = Ref::Pull(RepoRef{Platform::kGitCode, "a", "b"}, 12);
  m.source = MentionSource::kBranchName;
  m.source_id = "abc123";
  m.form = MentionForm::kUrl;
  m.keyword = MentionKeyword::kRelating;
  m.mirror_host = true;
  m.text = "https://gitee.com/o/r/issues/I8XK2P";
  m.at = -5;
  return m;
}

// The bytes of v, which must decode to a record that encodes the same.
template <typename T>
std::string Golden(const T& v) {
  std::string bytes;
  codec::Encode(v, &bytes);
  T back;
  Status s = codec::Decode(bytes, &back);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::string again;
  codec::Encode(back, &again);
  EXPECT_EQ(again, bytes);
  return Hex(bytes);
}

// The JSON text of v, which must decode (from the text) to the same JSON.
template <typename T>
std::string GoldenJson(const T& v) {
  std::string text = ToJson(v).dump();
  T back;
  Status s = FromJson(nlohmann::json::parse(text), &back);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ToJson(back).dump(), text);
  return text;
}

TEST(RecordCodecGolden, FullRecordsEncodeToTheseBytes) {
  EXPECT_EQ(Golden(FullRepository()),
            "7203076f776e65722d78066e616d652e790e4f776e65722d582f4e616d652e7907646973706c6179"
            "c8016464646464646464646464646464646464646464646464646464646464646464646464646464"
            "64646464646464646464646464646464646464646464646464646464646464646464646464646464"
            "64646464646464646464646464646464646464646464646464646464646464646464646464646464"
            "64646464646464646464646464646464646464646464646464646464646464646464646464646464"
            "64646464646464646464646464646464646464646464646464646464646464646464646464646464"
            "6464057472756e6b1c68747470733a2f2f6769746875622e636f6d2f6f776e65722d782f78");
  EXPECT_EQ(Golden(FullIssue()),
            "6903076f776e65722d78066e616d652e79064938584b325003702d310ae6a087e9a2982022712208"
            "6e756c00627974650109e5b7b2e5ae8ce688900469642d61076c6f67696e2d6105e5908d20610303"
            "62756700066b696e642f782368747470733a2f2f67697465652e636f6d2f6f2f722f697373756573"
            "2f4938584b32500181c60a01b8f4c5aa0d0100d8040a6669782d6272616e6368");
  EXPECT_EQ(Golden(FullPull()),
            "7003076f776e65722d78066e616d652e79e0a11403702d3207466978202336390966697865732023"
            "3639020469642d62076c6f67696e2d6205e5908d206201046c67746d2268747470733a2f2f676974"
            "6875622e636f6d2f6f2f722f70756c6c2f3136363030300102010401060108036465760661626331"
            "323305626f622f72046d61696e01056361726f6c");
  EXPECT_EQ(Golden(FullComment()),
            "6303076f776e65722d78066e616d652e79010631363630303003632d390469642d63076c6f67696e"
            "2d6305e5908d2063044c47544d0c646966665f636f6d6d656e74087372632f612e63630101018001");
  EXPECT_EQ(Golden(FullCommit()),
            "6b03076f776e65722d78066e616d652e790d1030313233343536373839616263646566086d73670a"
            "626f647902416e04616e407802616e02436e04636e40780180c49fd50c0182c49fd50c");
  EXPECT_EQ(Golden(FullFile()),
            "6603076f776e65722d78066e616d652e791804622e636304612e63630772656e616d6564feffffff"
            "ffffffffff01ffffffffffffffffff010b4040202d31202b31204040");
  EXPECT_EQ(Golden(FullOplog()),
            "6f03076f776e65722d78066e616d652e7901013503652d31116164645f69737375655f6d725f6c69"
            "6e6b066c696e6b6564032336390469642d64076c6f67696e2d6405e5908d20640180897a");
  EXPECT_EQ(Golden(FullLink()),
            "6c0103076f776e65722d78066e616d652e790249310203076f776e65722d78066e616d652e790133"
            "0b6f7065726174655f6c6f67");
  EXPECT_EQ(Golden(FullMention()),
            "6d0103076f776e65722d78066e616d652e79064938584b3250020101610162023132060661626331"
            "32330302012368747470733a2f2f67697465652e636f6d2f6f2f722f6973737565732f4938584b32"
            "500109");
}

TEST(RecordCodecGolden, DefaultRecordsEncodeToTheseBytes) {
  EXPECT_EQ(Golden(Repository{}), "720100000000000000");
  EXPECT_EQ(Golden(Issue{}), "6901000000000000000000000000000000000000");
  EXPECT_EQ(Golden(PullRequest{}), "700100000000000000000000000000000000000000000000");
  EXPECT_EQ(Golden(Comment{}), "630100000000000000000000000000");
  EXPECT_EQ(Golden(Commit{}), "6b01000000000000000000000000");
  EXPECT_EQ(Golden(FileChange{}), "6601000000000000000000");
  EXPECT_EQ(Golden(OperateLogEvent{}), "6f01000000000000000000000000");
  EXPECT_EQ(Golden(PlatformLink{}), "6c0001000000000100000000");
  EXPECT_EQ(Golden(MentionRecord{}), "6d0001000000000100000000000000000000");
}

TEST(ModelJsonGolden, FullRecordsWriteThisJson) {
  EXPECT_EQ(
      GoldenJson(FullRepository()),
      R"({"default_branch":"trunk","description":"dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd","display_name":"display","full_name":"Owner-X/Name.y","html_url":"https://github.com/owner-x/x","repo":"github:owner-x/name.y"})");
  EXPECT_EQ(
      GoldenJson(FullIssue()),
      R"({"author":{"id":"id-a","login":"login-a","name":"名 a"},"body":"nul\u0000byte","branch":"fix-branch","closed_at":"1970-01-01T00:00:00Z","comment_count":300,"created_at":"1969-12-30T23:59:59Z","html_url":"https://gitee.com/o/r/issues/I8XK2P","labels":["bug","","kind/x"],"number":"I8XK2P","platform_id":"p-1","ref":"github:owner-x/name.y#I8XK2P","repo":"github:owner-x/name.y","state":"closed","state_detail":"已完成","title":"标题 \"q\"","updated_at":"2026-09-15T03:35:56Z"})");
  EXPECT_EQ(
      GoldenJson(FullPull()),
      R"({"author":{"id":"id-b","login":"login-b","name":"名 b"},"base_ref":"main","body":"fixes #69","close_related_issue":false,"closed_at":"1970-01-01T00:00:04Z","created_at":"1970-01-01T00:00:01Z","head_ref":"dev","head_repo":"bob/r","head_sha":"abc123","html_url":"https://github.com/o/r/pull/166000","labels":["lgtm"],"merged_at":"1970-01-01T00:00:03Z","merged_by":"carol","number":166000,"platform_id":"p-2","ref":"github:owner-x/name.y!166000","repo":"github:owner-x/name.y","state":"merged","title":"Fix #69","updated_at":"1970-01-01T00:00:02Z"})");
  EXPECT_EQ(
      GoldenJson(FullComment()),
      R"({"author":{"id":"id-c","login":"login-c","name":"名 c"},"body":"LGTM","created_at":"1969-12-31T23:59:59Z","id":"c-9","kind":"diff_comment","parent":"github:owner-x/name.y!166000","parent_kind":"pull","parent_number":"166000","path":"src/a.cc","repo":"github:owner-x/name.y","updated_at":"1970-01-01T00:01:04Z"})");
  EXPECT_EQ(
      GoldenJson(FullCommit()),
      R"({"author_email":"an@x","author_login":"an","author_name":"An","authored_at":"2023-11-14T22:13:20Z","committed_at":"2023-11-14T22:13:21Z","committer_email":"cn@x","committer_name":"Cn","message":"msg\nbody","pr_number":-7,"repo":"github:owner-x/name.y","sha":"0123456789abcdef"})");
  EXPECT_EQ(
      GoldenJson(FullFile()),
      R"({"additions":9223372036854775807,"deletions":-9223372036854775808,"filename":"b.cc","patch":"@@ -1 +1 @@","pr_number":12,"previous_filename":"a.cc","repo":"github:owner-x/name.y","status":"renamed"})");
  EXPECT_EQ(
      GoldenJson(FullOplog()),
      R"({"action":"linked","action_type":"add_issue_mr_link","actor":{"id":"id-d","login":"login-d","name":"名 d"},"content":"#69","created_at":"1970-01-12T13:46:40Z","id":"e-1","parent":"github:owner-x/name.y!5","parent_kind":"pull","parent_number":"5","repo":"github:owner-x/name.y"})");
  EXPECT_EQ(
      GoldenJson(FullLink()),
      R"({"issue":"github:owner-x/name.y#I1","pull":"github:owner-x/name.y!3","source":"operate_log"})");
  EXPECT_EQ(GoldenJson(Person("u")), R"({"id":"id-u","login":"login-u","name":"名 u"})");
}

TEST(ModelJsonGolden, DefaultRecordsWriteThisJson) {
  EXPECT_EQ(
      ToJson(Repository{}).dump(),
      R"({"default_branch":"","description":"","display_name":"","full_name":"","html_url":"","repo":"gitcode:/"})");
  EXPECT_EQ(
      ToJson(Issue{}).dump(),
      R"({"author":{"id":"","login":"","name":""},"body":"","branch":"","closed_at":null,"comment_count":0,"created_at":null,"html_url":"","labels":[],"number":"","platform_id":"","ref":"gitcode:/#","repo":"gitcode:/","state":"open","state_detail":"","title":"","updated_at":null})");
  EXPECT_EQ(
      ToJson(PullRequest{}).dump(),
      R"({"author":{"id":"","login":"","name":""},"base_ref":"","body":"","close_related_issue":null,"closed_at":null,"created_at":null,"head_ref":"","head_repo":"","head_sha":"","html_url":"","labels":[],"merged_at":null,"merged_by":"","number":0,"platform_id":"","ref":"gitcode:/!0","repo":"gitcode:/","state":"open","title":"","updated_at":null})");
  EXPECT_EQ(
      ToJson(Comment{}).dump(),
      R"({"author":{"id":"","login":"","name":""},"body":"","created_at":null,"id":"","kind":"","parent":"gitcode:/#","parent_kind":"issue","parent_number":"","path":"","repo":"gitcode:/","updated_at":null})");
  EXPECT_EQ(
      ToJson(Commit{}).dump(),
      R"({"author_email":"","author_login":"","author_name":"","authored_at":null,"committed_at":null,"committer_email":"","committer_name":"","message":"","pr_number":0,"repo":"gitcode:/","sha":""})");
  EXPECT_EQ(
      ToJson(FileChange{}).dump(),
      R"({"additions":0,"deletions":0,"filename":"","patch":"","pr_number":0,"previous_filename":"","repo":"gitcode:/","status":""})");
  EXPECT_EQ(
      ToJson(OperateLogEvent{}).dump(),
      R"({"action":"","action_type":"","actor":{"id":"","login":"","name":""},"content":"","created_at":null,"id":"","parent":"gitcode:/#","parent_kind":"issue","parent_number":"","repo":"gitcode:/"})");
  EXPECT_EQ(ToJson(PlatformLink{}).dump(),
            R"({"issue":"gitcode:/","pull":"gitcode:/","source":""})");
}

// ---- The field tables (fields.h) drive both encodings: every member of every
// type reaches the bytes and the JSON, and comes back.

template <typename T>
constexpr bool kIsRecord = requires {
  fields::Schema<T>::kFields;
};

// Equal field by field (User has no operator==).
template <typename T>
bool Same(const T& a, const T& b) {
  if constexpr (kIsRecord<T>) {
    bool same = true;
    fields::ForEachField<T>([&](const auto& f) { same = same && Same(a.*f.member, b.*f.member); });
    return same;
  } else {
    return a == b;
  }
}

// Changes a leaf value to a different valid one.
template <typename T>
void Perturb(T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    v += "+";
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    v = v == std::numeric_limits<std::int64_t>::max() ? 0 : v + 1;
  } else if constexpr (std::is_same_v<T, OptTime>) {
    v = v ? *v + 1 : 1;
  } else if constexpr (std::is_same_v<T, bool>) {
    v = !v;
  } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
    v = v ? std::optional<bool>(!*v) : std::optional<bool>(true);
  } else if constexpr (std::is_enum_v<T>) {
    constexpr unsigned kValues = fields::EnumInfo<T>::kMax + 1u;
    v = static_cast<T>((static_cast<unsigned>(v) + 1) % kValues);
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    v.push_back("+");
  } else if constexpr (std::is_same_v<T, RepoRef>) {
    v.name += "z";
  } else {
    static_assert(std::is_same_v<T, Ref>);
    v.number += "9";  // still a valid issue or PR number
  }
}

// Calls check(name, mutate) once per leaf field of T (nested records' fields
// one by one), mutate(T&) changing only that field.
template <typename T, typename Check>
void ForEachMutation(Check&& check) {
  fields::ForEachField<T>([&](const auto& f) {
    using M = std::remove_cvref_t<decltype(std::declval<T&>().*f.member)>;
    if constexpr (kIsRecord<M>) {
      fields::ForEachField<M>([&](const auto& g) {
        check(std::string(f.key) + "." + g.key, [&](T& v) { Perturb((v.*f.member).*g.member); });
      });
    } else {
      check(std::string(f.key), [&](T& v) { Perturb(v.*f.member); });
    }
  });
}

template <typename T>
constexpr bool kHasJson = requires(const T& v) {
  ToJson(v);
};

// The full record sets every field; changing any one field changes its bytes
// (and its JSON), and the changed record survives both round trips.
template <typename T>
void CheckEveryField(const T& full) {
  fields::ForEachField<T>([&](const auto& f) {
    EXPECT_FALSE(Same(full.*f.member, T{}.*f.member))
        << "the full record leaves " << f.key << " unset";
  });
  std::string base;
  codec::Encode(full, &base);
  int mutations = 0;
  ForEachMutation<T>([&](const std::string& name, auto mutate) {
    SCOPED_TRACE(name);
    ++mutations;
    T changed = full;
    mutate(changed);
    ASSERT_FALSE(Same(changed, full));
    std::string bytes;
    codec::Encode(changed, &bytes);
    EXPECT_NE(bytes, base);
    T back;
    ASSERT_TRUE(codec::Decode(bytes, &back).ok());
    EXPECT_TRUE(Same(back, changed));
    if constexpr (kHasJson<T>) {
      EXPECT_NE(ToJson(changed).dump(), ToJson(full).dump());
      T from_json;
      Status s = FromJson(nlohmann::json::parse(ToJson(changed).dump()), &from_json);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_TRUE(Same(from_json, changed));
    }
  });
  EXPECT_GE(mutations, static_cast<int>(fields::kFieldCount<T>));
  T back;
  ASSERT_TRUE(codec::Decode(base, &back).ok());
  EXPECT_TRUE(Same(back, full));
}

TEST(RecordFields, EveryFieldOfEveryTypeSurvivesCodecAndJson) {
  {
    SCOPED_TRACE("repository");
    CheckEveryField(FullRepository());
  }
  {
    SCOPED_TRACE("issue");
    CheckEveryField(FullIssue());
  }
  {
    SCOPED_TRACE("pull");
    CheckEveryField(FullPull());
  }
  {
    SCOPED_TRACE("comment");
    CheckEveryField(FullComment());
  }
  {
    SCOPED_TRACE("commit");
    CheckEveryField(FullCommit());
  }
  {
    SCOPED_TRACE("file");
    CheckEveryField(FullFile());
  }
  {
    SCOPED_TRACE("oplog");
    CheckEveryField(FullOplog());
  }
  {
    SCOPED_TRACE("link");
    CheckEveryField(FullLink());
  }
  {
    SCOPED_TRACE("mention");
    CheckEveryField(FullMention());
  }
}

}  // namespace

// The completeness check itself can fail: a table missing a member or listing
// one twice does not pass.
struct Probe {
  std::string a;
  std::int64_t b = 0;
  bool c = false;
};
struct ProbeMissing {
  std::string a;
  std::int64_t b = 0;
  bool c = false;
};
struct ProbeTwice {
  std::string a;
  std::int64_t b = 0;
  bool c = false;
};

namespace fields {
template <>
struct Schema<Probe> {
  static constexpr std::tuple kFields{Field<&Probe::a>{"a"}, Field<&Probe::b>{"b"},
                                      Field<&Probe::c>{"c"}};
};
template <>
struct Schema<ProbeMissing> {
  static constexpr std::tuple kFields{Field<&ProbeMissing::a>{"a"}, Field<&ProbeMissing::b>{"b"}};
};
template <>
struct Schema<ProbeTwice> {
  static constexpr std::tuple kFields{Field<&ProbeTwice::a>{"a"}, Field<&ProbeTwice::b>{"b"},
                                      Field<&ProbeTwice::b>{"b"}};
};
}  // namespace fields

static_assert(fields::kListsEveryMember<Probe>);
static_assert(!fields::kListsEveryMember<ProbeMissing>);
static_assert(!fields::kListsEveryMember<ProbeTwice>);

}  // namespace fixgraph
