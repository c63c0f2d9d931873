// Evaluation math (evaluate.h).
#include "fixgraph/graph/evaluate.h"

#include <gtest/gtest.h>

namespace fixgraph::graph {
namespace {

using nlohmann::json;

std::vector<LabeledIssue> Labels() {
  json doc = json::parse(R"({"version": 1, "issues": [
    {"issue": "gitcode:o/r#1", "resolution": "fixed",
     "fixes": [{"pr": "gitcode:o/r!10", "tier": "A", "evidence": ["close_at_merge"]},
               {"pr": "https://gitcode.com/o/r/merge_requests/11", "tier": "B"}],
     "flags": ["backport"]},
    {"issue": "gitcode:o/r#2", "resolution": "answered", "fixes": [], "flags": []},
    {"issue": "gitcode:o/r#3", "resolution": "duplicate", "fixes": [], "flags": [],
     "duplicate_of": "gitcode:o/r#1", "note": "ignored"},
    {"issue": "gitcode:o/r#4", "resolution": "fixed", "fixes": [{"pr": "gitcode:o/r!12", "tier": "C"}]}
  ]})");
  auto l = ParseLabels(doc);
  EXPECT_TRUE(l.ok()) << l.status().ToString();
  return *l;
}

FixLink F(const std::string& pr, Tier t) {
  FixLink f;
  f.pr = pr;
  f.tier = t;
  return f;
}

TEST(Evaluate, ParseLabels) {
  std::vector<LabeledIssue> l = Labels();
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].fixes[1].pr, "gitcode:o/r!11");  // the URL, canonical
  EXPECT_EQ(l[0].fixes[0].tier, Tier::kA);
  EXPECT_EQ(l[0].flags, (std::vector<Flag>{Flag::kBackport}));
  ASSERT_TRUE(l[2].duplicate_of.has_value());
  EXPECT_TRUE(ParseLabels(json::parse(R"({"issues": [{"issue": "x"}]})")).status().IsCorruption());
  EXPECT_TRUE(
      ParseLabels(json::parse(R"({"issues": [{"issue": "gitcode:o/r#1", "resolution": "meh"}]})"))
          .status()
          .IsCorruption());
  EXPECT_TRUE(ParseLabels(json::array()).status().IsCorruption());
  EXPECT_EQ(LoadLabels("/nonexistent/labels.json").status().code(), Status::Code::kIOError);
}

TEST(Evaluate, CanonicalTarget) {
  EXPECT_EQ(CanonicalTarget("https://gitee.com/mindspore/mindformers/pulls/5672"),
            "gitee:mindspore/mindformers!5672");
  EXPECT_EQ(CanonicalTarget("gitcode:o/r!3"), "gitcode:o/r!3");
  EXPECT_EQ(CanonicalTarget("https://example.org/x"), "https://example.org/x");
}

TEST(Evaluate, Figures) {
  std::map<std::string, IssueLinks> pred;
  IssueLinks one;
  one.issue = *ParseRef("gitcode:o/r#1");
  one.resolution = Resolution::kFixed;
  one.fixes = {F("gitcode:o/r!10", Tier::kA), F("gitcode:o/r!11", Tier::kC),
               F("gitcode:o/r!99", Tier::kD)};
  one.flags = {Flag::kBackport, Flag::kCloseLag};
  pred["gitcode:o/r#1"] = one;
  IssueLinks two;
  two.issue = *ParseRef("gitcode:o/r#2");
  two.resolution = Resolution::kAnswered;
  pred["gitcode:o/r#2"] = two;
  IssueLinks three;
  three.issue = *ParseRef("gitcode:o/r#3");
  three.resolution = Resolution::kUnknown;
  pred["gitcode:o/r#3"] = three;
  // #4 has no prediction.
  EvalReport r = Evaluate(Labels(), [&](const Ref& ref) -> std::optional<IssueLinks> {
    auto it = pred.find(ref.ToString());
    if (it == pred.end()) return std::nullopt;
    return it->second;
  });
  EXPECT_EQ(r.issues, 4);
  EXPECT_EQ(r.link_tp, 2);
  EXPECT_EQ(r.link_fp, 1);
  EXPECT_EQ(r.link_fn, 1);
  EXPECT_DOUBLE_EQ(r.link_precision, 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.link_recall, 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.link_f1, 2.0 / 3);
  // Trusted (A-C): !10 and !11 are labelled fixes; !99 is tier D.
  EXPECT_EQ(r.trusted_tp, 2);
  EXPECT_EQ(r.trusted_fp, 0);
  EXPECT_DOUBLE_EQ(r.trusted_precision, 1.0);
  EXPECT_EQ(r.tier_total, 2);
  EXPECT_EQ(r.tier_correct, 1);
  EXPECT_DOUBLE_EQ(r.tier_accuracy, 0.5);
  EXPECT_EQ(r.resolution_correct, 2);
  EXPECT_DOUBLE_EQ(r.resolution_accuracy, 0.5);
  EXPECT_EQ(r.flag_tp, 1);
  EXPECT_EQ(r.flag_fp, 1);
  EXPECT_EQ(r.flag_fn, 0);
  EXPECT_DOUBLE_EQ(r.flag_precision, 0.5);
  EXPECT_DOUBLE_EQ(r.flag_recall, 1.0);
  EXPECT_EQ(r.resolution_confusion["duplicate"]["unknown"], 1);
  EXPECT_EQ(r.resolution_confusion["fixed"]["(not linked)"], 1);
  ASSERT_EQ(r.disagreements.size(), 3u);  // #1, #3, #4
  EXPECT_EQ(r.disagreements[0].issue.number, "1");
  EXPECT_EQ(r.disagreements[0].extra_fixes, (std::vector<std::string>{"gitcode:o/r!99 (D)"}));
  EXPECT_EQ(r.disagreements[0].tier_mismatches,
            (std::vector<std::string>{"gitcode:o/r!11: expected B, got C"}));
  EXPECT_EQ(r.disagreements[0].extra_flags, (std::vector<std::string>{"close_lag"}));
  EXPECT_TRUE(r.disagreements[2].not_linked);
  EXPECT_EQ(r.disagreements[2].missing_fixes, (std::vector<std::string>{"gitcode:o/r!12"}));

  json j = ToJson(r);
  EXPECT_EQ(j["links"]["tp"], 2);
  EXPECT_EQ(j["disagreements"].size(), 3u);
  std::string text = FormatReport(r);
  EXPECT_NE(text.find("fix links: precision 0.667 recall 0.667 F1 0.667"), std::string::npos);
  EXPECT_NE(text.find("resolution duplicate -> unknown"), std::string::npos);
  EXPECT_NE(text.find("trusted (A-C) links: precision 1.000 (tp 2 fp 0)"), std::string::npos);
  EXPECT_EQ(j["trusted"]["tp"], 2);
}

TEST(Evaluate, EmptyDenominatorsAreOne) {
  EvalReport r = Evaluate({}, [](const Ref&) { return std::optional<IssueLinks>(); });
  EXPECT_EQ(r.link_precision, 1);
  EXPECT_EQ(r.link_recall, 1);
  EXPECT_EQ(r.link_f1, 1);
  EXPECT_EQ(r.resolution_accuracy, 1);
}

}  // namespace
}  // namespace fixgraph::graph
