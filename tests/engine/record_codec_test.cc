// Tests of the binary record encoding (engine/record_codec.h): the on-disk format.
#include "../../engine/record_codec.h"

#include "fixgraph/engine/model_json.h"

#include <gtest/gtest.h>

#include <string>

namespace fixgraph {
namespace {

RepoRef Repo() { return RepoRef{Platform::kGitee, "mindspore", "mindspore"}; }

// Encodes, decodes, and checks the decoded record has the same JSON (every field).
template <typename T>
void RoundTrip(const T& v) {
  std::string bytes;
  codec::Encode(v, &bytes);
  T back;
  Status s = codec::Decode(bytes, &back);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ToJson(back).dump(), ToJson(v).dump());
  std::string again;
  codec::Encode(back, &again);
  EXPECT_EQ(again, bytes);  // deterministic: equal records, equal bytes
  // Every proper prefix and any trailing byte is rejected.
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_TRUE(codec::Decode(std::string_view(bytes).substr(0, n), &back).IsCorruption()) << n;
  EXPECT_TRUE(codec::Decode(bytes + "x", &back).IsCorruption());
}

TEST(RecordCodec, IssueRoundTrips) {
  Issue v;
  v.repo = Repo();
  v.number = "I8XK2P";
  v.platform_id = "123";
  v.title = "标题 \"quoted\"";
  v.body = std::string("with\0nul", 8);
  v.state = IssueState::kClosed;
  v.state_detail = "已完成";
  v.author = {"1", "alice", "Alice"};
  v.labels = {"bug", "", "kind/feature"};
  v.html_url = "https://gitee.com/mindspore/mindspore/issues/I8XK2P";
  v.created_at = -86400;
  v.closed_at = 1'700'000'000;
  v.comment_count = 300;
  v.branch = "master";
  RoundTrip(v);
  RoundTrip(Issue{});
}

TEST(RecordCodec, PullRoundTripsWithEachCloseFlag) {
  PullRequest v;
  v.repo = Repo();
  v.number = 166;
  v.title = "fix";
  v.state = PullState::kMerged;
  v.merged_at = 5;
  v.head_repo = "a/b";
  for (std::optional<bool> flag :
       {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
    v.close_related_issue = flag;
    RoundTrip(v);
  }
}

TEST(RecordCodec, OtherRecordsRoundTrip) {
  Comment c;
  c.repo = Repo();
  c.parent_kind = ParentKind::kPull;
  c.parent_number = "7";
  c.id = "99";
  c.body = "LGTM";
  c.updated_at = 1;
  RoundTrip(c);
  Commit k;
  k.repo = Repo();
  k.pr_number = 7;
  k.sha = "abc";
  k.message = "msg";
  k.committed_at = 2;
  RoundTrip(k);
  FileChange f;
  f.repo = Repo();
  f.pr_number = 7;
  f.filename = "a.cc";
  f.additions = -1;
  f.deletions = std::numeric_limits<std::int64_t>::max();
  f.patch = std::string(70000, 'p');
  RoundTrip(f);
  OperateLogEvent o;
  o.repo = Repo();
  o.id = "5";
  o.action_type = "add_issue_mr_link";
  o.actor.login = "bob";
  RoundTrip(o);
  Repository r;
  r.ref = Repo();
  r.full_name = "mindspore/mindspore";
  RoundTrip(r);
  PlatformLink l{Ref::Issue(Repo(), "I1"), Ref::Pull(Repo(), 3), "operate_log"};
  RoundTrip(l);
}

TEST(RecordCodec, MentionRoundTrips) {
  MentionRecord m;
  m.target = Ref::Issue(Repo(), "I8XK2P");
  m.source_item = Ref::Pull(Repo(), 12);
  m.source = MentionSource::kCommitMessage;
  m.source_id = "abc123";
  m.form = MentionForm::kUrl;
  m.keyword = MentionKeyword::kClosing;
  m.mirror_host = true;
  m.text = "https://gitee.com/mindspore/mindspore/issues/I8XK2P";
  m.at = 1'700'000'000;
  std::string bytes;
  codec::Encode(m, &bytes);
  MentionRecord back;
  ASSERT_TRUE(codec::Decode(bytes, &back).ok());
  EXPECT_EQ(back.target, m.target);
  EXPECT_EQ(back.source_item, m.source_item);
  EXPECT_EQ(back.source, m.source);
  EXPECT_EQ(back.source_id, m.source_id);
  EXPECT_EQ(back.form, m.form);
  EXPECT_EQ(back.keyword, m.keyword);
  EXPECT_TRUE(back.mirror_host);
  EXPECT_EQ(back.text, m.text);
  EXPECT_EQ(back.at, m.at);
  EXPECT_TRUE(
      codec::Decode(std::string_view(bytes).substr(0, bytes.size() - 1), &back).IsCorruption());
}

TEST(RecordCodec, WrongTypeIsCorruption) {
  Issue v;
  std::string bytes;
  codec::Encode(v, &bytes);
  PullRequest p;
  EXPECT_TRUE(codec::Decode(bytes, &p).IsCorruption());
  EXPECT_TRUE(codec::Decode("{\"repo\": 1}", &p).IsCorruption());  // a JSON-era value
}

}  // namespace
}  // namespace fixgraph
