// Names and JSON of the linker's result (links.h).
#include "fixgraph/graph/links.h"

#include <gtest/gtest.h>

namespace fixgraph::graph {
namespace {

TEST(LinksNames, RoundTrip) {
  for (int i = 0; i <= static_cast<int>(EvidenceKind::kVerifyCommentClose); ++i) {
    auto k = static_cast<EvidenceKind>(i);
    EXPECT_EQ(*ParseEvidenceKind(EvidenceKindName(k)), k);
  }
  for (int i = 0; i <= static_cast<int>(Resolution::kUnknown); ++i) {
    auto r = static_cast<Resolution>(i);
    EXPECT_EQ(*ParseResolution(ResolutionName(r)), r);
  }
  for (int i = 0; i <= static_cast<int>(Flag::kTraceless); ++i) {
    auto f = static_cast<Flag>(i);
    EXPECT_EQ(*ParseFlag(FlagName(f)), f);
  }
  EXPECT_STREQ(EvidenceKindName(EvidenceKind::kCloseAtMerge), "close_at_merge");
  EXPECT_STREQ(ResolutionName(Resolution::kFixedElsewhere), "fixed_elsewhere");
  EXPECT_STREQ(FlagName(Flag::kFixBeforeIssue), "fix_before_issue");
  EXPECT_STREQ(TierName(Tier::kC), "C");
  EXPECT_TRUE(ParseTier("E").status().IsInvalidArgument());
  EXPECT_TRUE(ParseFlag("closelag").status().IsInvalidArgument());
}

IssueLinks Sample() {
  IssueLinks l;
  l.issue = *ParseRef("gitcode:Ascend/TransformerEngineNPU#43");
  l.state = IssueState::kClosed;
  l.created_at = 1757466330;
  l.closed_at = 1757907356;
  l.resolution = Resolution::kFixed;
  FixLink f;
  f.pr = "gitcode:Ascend/TransformerEngineNPU!192";
  f.tier = Tier::kA;
  f.confidence = 0.974;
  f.evidence.push_back({EvidenceKind::kCloseAtMerge, "merged; closed in the same second", 0});
  f.evidence.push_back({EvidenceKind::kClosingKeyword, "says it closes #43", std::nullopt});
  f.in_store = true;
  f.merged_at = 1757907356;
  f.state = "merged";
  f.base_ref = "main";
  l.fixes.push_back(f);
  FixLink out;
  out.pr = "https://example.org/some/fix";
  out.tier = Tier::kB;
  out.confidence = 0.7;
  out.state = "unknown";
  out.backport_of = "gitcode:Ascend/TransformerEngineNPU!192";
  l.fixes.push_back(out);
  l.flags = {Flag::kBackport};
  l.answer = Answer{"160400247", "goodflower9", 1754533865, "use AdamW", "maintainer"};
  l.duplicate_of = *ParseRef("gitcode:Ascend/TransformerEngineNPU#19");
  l.false_leads = {"gitcode:Ascend/TransformerEngineNPU!163"};
  l.notes = {"a note"};
  return l;
}

TEST(LinksJson, HasTheContractFieldsAndRoundTrips) {
  IssueLinks l = Sample();
  nlohmann::json j = ToJson(l);
  EXPECT_EQ(j["issue"], "gitcode:Ascend/TransformerEngineNPU#43");
  EXPECT_EQ(j["state"], "closed");
  EXPECT_EQ(j["resolution"], "fixed");
  EXPECT_EQ(j["fixes"][0]["pr"], "gitcode:Ascend/TransformerEngineNPU!192");
  EXPECT_EQ(j["fixes"][0]["tier"], "A");
  EXPECT_DOUBLE_EQ(j["fixes"][0]["confidence"].get<double>(), 0.97);
  EXPECT_EQ(j["fixes"][0]["evidence"][0]["kind"], "close_at_merge");
  EXPECT_EQ(j["fixes"][0]["evidence"][0]["delta_s"], 0);
  EXPECT_FALSE(j["fixes"][0]["evidence"][1].contains("delta_s"));
  EXPECT_EQ(j["fixes"][0]["in_store"], true);
  EXPECT_EQ(j["fixes"][0]["merged_at"], "2025-09-15T03:35:56Z");
  EXPECT_EQ(j["fixes"][1]["in_store"], false);
  EXPECT_EQ(j["flags"][0], "backport");
  EXPECT_EQ(j["answer"]["comment_id"], "160400247");
  EXPECT_EQ(j["duplicate_of"], "gitcode:Ascend/TransformerEngineNPU#19");
  EXPECT_EQ(j["false_leads"][0], "gitcode:Ascend/TransformerEngineNPU!163");

  IssueLinks back;
  ASSERT_TRUE(FromJson(j, &back).ok());
  EXPECT_EQ(ToJson(back), j);
}

// The JSON view keeps "fixes" for trusted links (A-C); the evidence's
// tier-D links and the ranking's picks are "suggested", most probable first.
TEST(LinksJson, TierDLinksAreListedAsSuggested) {
  IssueLinks l = Sample();
  FixLink weak;
  weak.pr = "gitcode:Ascend/TransformerEngineNPU!150";
  weak.tier = Tier::kD;
  weak.confidence = 0.2;
  weak.evidence.push_back(
      {EvidenceKind::kTitleMatch, "the title restates the issue", std::nullopt});
  l.fixes.push_back(weak);
  FixLink ranked = weak;
  ranked.pr = "gitcode:Ascend/TransformerEngineNPU!151";
  ranked.confidence = 0.6;
  l.suggested.push_back(ranked);
  nlohmann::json j = ToJson(l);
  ASSERT_EQ(j["fixes"].size(), 2u);
  for (const auto& f : j["fixes"]) EXPECT_NE(f["tier"], "D");
  ASSERT_EQ(j["suggested"].size(), 2u);
  EXPECT_EQ(j["suggested"][0]["pr"], ranked.pr);  // 0.6 before 0.2
  EXPECT_EQ(j["suggested"][1]["pr"], weak.pr);
  std::vector<const FixLink*> likely = l.Likely();
  ASSERT_EQ(likely.size(), 2u);
  EXPECT_EQ(likely[0]->pr, ranked.pr);
  // Read back, the view is the same.
  IssueLinks back;
  ASSERT_TRUE(FromJson(j, &back).ok());
  EXPECT_EQ(back.fixes.size(), 2u);
  EXPECT_EQ(ToJson(back), j);
  // Equal probabilities keep the evidence's links first.
  l.suggested.front().confidence = 0.2;
  EXPECT_EQ(l.Likely().front()->pr, weak.pr);
}

TEST(LinksJson, NullsAndErrors) {
  IssueLinks l = Sample();
  l.answer.reset();
  l.duplicate_of.reset();
  nlohmann::json j = ToJson(l);
  EXPECT_TRUE(j["answer"].is_null());
  EXPECT_TRUE(j["duplicate_of"].is_null());
  IssueLinks back;
  ASSERT_TRUE(FromJson(j, &back).ok());
  EXPECT_FALSE(back.answer.has_value());

  nlohmann::json bad = j;
  bad["fixes"][0]["tier"] = "Z";
  EXPECT_TRUE(FromJson(bad, &back).IsCorruption());
  bad = j;
  bad["issue"] = "gitcode:o/r!1";
  EXPECT_TRUE(FromJson(bad, &back).IsCorruption());
  bad = j;
  bad["resolution"] = 3;
  EXPECT_TRUE(FromJson(bad, &back).IsCorruption());
  EXPECT_TRUE(FromJson(nlohmann::json::array(), &back).IsCorruption());
}

// The booleans of a fix: absent or null is false; another type is
// Corruption naming the field (a legacy JSON links record, an issue index
// document), not a json::type_error thrown out of FromJson.
TEST(LinksJson, FixBooleansOfTheWrongTypeAreCorruption) {
  nlohmann::json j = ToJson(Sample());
  IssueLinks back;
  nlohmann::json absent = j;
  absent["fixes"][0].erase("in_store");
  absent["fixes"][0]["mirror_host"] = nullptr;
  ASSERT_TRUE(FromJson(absent, &back).ok());
  EXPECT_FALSE(back.fixes[0].in_store);
  EXPECT_FALSE(back.fixes[0].mirror_host);
  for (const char* field : {"in_store", "mirror_host"}) {
    nlohmann::json bad = j;
    bad["fixes"][0][field] = "yes";
    Status s = Status::OK();
    EXPECT_NO_THROW(s = FromJson(bad, &back)) << field;
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(s.message(), std::string("fixes: ") + field + ": expected a boolean");
  }
}

TEST(LinksJson, LookupHelpers) {
  IssueLinks l = Sample();
  EXPECT_TRUE(l.HasFlag(Flag::kBackport));
  EXPECT_FALSE(l.HasFlag(Flag::kCloseLag));
  ASSERT_NE(l.FindFix("gitcode:Ascend/TransformerEngineNPU!192"), nullptr);
  EXPECT_TRUE(
      l.FindFix("gitcode:Ascend/TransformerEngineNPU!192")->Has(EvidenceKind::kClosingKeyword));
  EXPECT_EQ(l.FindFix("nope"), nullptr);
}

}  // namespace
}  // namespace fixgraph::graph
