#include "../../graph/link_codec.h"

#include "fixgraph/engine/byte_codec.h"

#include <gtest/gtest.h>

namespace fixgraph::graph {
namespace {

Ref IssueRef(const std::string& n) {
  return Ref{RefKind::kIssue, RepoRef{Platform::kGitCode, "Ascend", "demo"}, n};
}

IssueLinks Bare(const std::string& n) {
  IssueLinks l;
  l.issue = IssueRef(n);
  return l;
}

IssueLinks Full() {
  IssueLinks l;
  l.issue = IssueRef("40");
  l.state = IssueState::kClosed;
  l.created_at = 1757900000;
  l.closed_at = 1757928956;
  l.resolution = Resolution::kFixed;
  FixLink f;
  f.pr = "gitcode:Ascend/demo!192";
  f.tier = Tier::kA;
  f.confidence = 0.97;
  f.evidence.push_back({EvidenceKind::kCloseAtMerge, "closed in the same second", 0});
  f.evidence.push_back({EvidenceKind::kClosingKeyword, "PR body: fixes #40", std::nullopt});
  f.in_store = true;
  f.merged_at = 1757928956;
  f.created_at = -5;  // negative times survive the zigzag form
  f.state = "merged";
  f.base_ref = "master";
  f.title = "修复 aclnn 报错";
  f.backport_of = "gitcode:Ascend/demo!180";
  f.mirror_host = true;
  l.fixes.push_back(f);
  FixLink g;
  g.pr = "https://gitee.com/x/y/pulls/3";
  l.fixes.push_back(g);
  l.flags = {Flag::kFixBeforeIssue, Flag::kTraceless};
  l.evidence.push_back({EvidenceKind::kVerifyCommentClose, "verified", -30});
  l.answer = Answer{"c1", "maint", 1757928000, "请升级到 8.1.RC1", "maintainer"};
  l.duplicate_of = IssueRef("39");
  l.false_leads = {"gitcode:Ascend/demo!100"};
  l.notes = {"batch close discounted", ""};
  return l;
}

TEST(LinkCodecTest, RoundTripKeepsEveryField) {
  for (const IssueLinks& in : {Full(), Bare("I8XK2P")}) {
    std::string bytes;
    EncodeLinks(in, &bytes);
    EXPECT_EQ(bytes.front(), 'L');
    IssueLinks out;
    ASSERT_TRUE(DecodeLinks(bytes, &out).ok());
    EXPECT_EQ(ToJson(out).dump(), ToJson(in).dump());
    EXPECT_EQ(out.fixes.size(), in.fixes.size());
    std::string again;
    EncodeLinks(out, &again);
    EXPECT_EQ(again, bytes);  // deterministic
  }
}

TEST(LinkCodecTest, DecodingIntoAReusedValueLeavesNothingBehind) {
  std::string full, empty;
  EncodeLinks(Full(), &full);
  EncodeLinks(Bare("41"), &empty);
  IssueLinks v;
  ASSERT_TRUE(DecodeLinks(full, &v).ok());
  ASSERT_TRUE(DecodeLinks(empty, &v).ok());
  EXPECT_EQ(ToJson(v).dump(), ToJson(Bare("41")).dump());
}

TEST(LinkCodecTest, ReadsTheJsonRecordsOfEarlierBuilds) {
  IssueLinks in = Full();
  IssueLinks out;
  ASSERT_TRUE(DecodeLinks(ToJson(in).dump(), &out).ok());
  EXPECT_EQ(ToJson(out).dump(), ToJson(in).dump());
  EXPECT_TRUE(DecodeLinks("{\"issue\": 3", &out).IsCorruption());

  std::set<std::string> issues;
  ASSERT_TRUE(DecodePullLinks(R"(["gitcode:a/b#1","gitcode:a/b#2"])", &issues).ok());
  EXPECT_EQ(issues, (std::set<std::string>{"gitcode:a/b#1", "gitcode:a/b#2"}));
  EXPECT_TRUE(DecodePullLinks("[1]", &issues).IsCorruption());
}

TEST(LinkCodecTest, CorruptRecordsAreRejected) {
  std::string bytes;
  EncodeLinks(Full(), &bytes);
  IssueLinks out;
  for (size_t cut = 0; cut < bytes.size(); cut += 7)
    EXPECT_TRUE(DecodeLinks(bytes.substr(0, cut), &out).IsCorruption()) << cut;
  EXPECT_TRUE(DecodeLinks(bytes + "x", &out).IsCorruption());
  std::string wrong_tag = bytes;
  wrong_tag[0] = 'P';
  EXPECT_TRUE(DecodeLinks(wrong_tag, &out).IsCorruption());
  // A huge element count must not allocate: it is bounded by the bytes left.
  std::string huge = "L";
  ByteWriter w(&huge, 'L');
  w.RefField(IssueRef("1"));
  w.Byte(0);
  w.Time(std::nullopt);
  w.Time(std::nullopt);
  w.Byte(0);
  w.Varint(std::uint64_t{1} << 60);
  EXPECT_TRUE(DecodeLinks(huge, &out).IsCorruption());
}

TEST(LinkCodecTest, PullLinksRoundTrip) {
  std::set<std::string> in = {"gitcode:Ascend/demo#40", "gitee:mindspore/mindspore#I8XK2P"};
  std::string bytes;
  EncodePullLinks(in, &bytes);
  std::set<std::string> out = {"stale"};
  ASSERT_TRUE(DecodePullLinks(bytes, &out).ok());
  EXPECT_EQ(out, in);
  EXPECT_TRUE(DecodePullLinks(bytes.substr(0, bytes.size() - 1), &out).IsCorruption());
}

}  // namespace
}  // namespace fixgraph::graph
