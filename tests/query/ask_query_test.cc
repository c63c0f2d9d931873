// From query text to the Xapian query: identifier parts that the index says
// too many issues hold are left out.
#include "../../query/ask_query.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace fixgraph::query {
namespace {

std::set<std::string> Terms(const Xapian::Query& q) {
  std::set<std::string> out;
  for (auto it = q.get_unique_terms_begin(); it != q.get_unique_terms_end(); ++it) out.insert(*it);
  return out;
}

TEST(AskQueryTest, IdentifierIsSearchedWholeAndByItsParts) {
  BuiltQuery q = BuildQuery("aclnnConvolution fails");
  std::set<std::string> terms = Terms(q.query);
  EXPECT_TRUE(terms.count("aclnnconvolution")) << q.query.get_description();
  EXPECT_TRUE(terms.count("aclnn")) << q.query.get_description();
  EXPECT_TRUE(terms.count("convolut")) << q.query.get_description();
}

TEST(AskQueryTest, CommonIdentifierPartsAreLeftOut) {
  std::set<std::string> asked;
  BuiltQuery q = BuildQuery("aclnnConvolution fails", [&](const std::string& part) {
    asked.insert(part);
    return part == "aclnn";
  });
  std::set<std::string> terms = Terms(q.query);
  EXPECT_FALSE(terms.count("aclnn")) << q.query.get_description();
  EXPECT_TRUE(terms.count("aclnnconvolution")) << q.query.get_description();
  EXPECT_TRUE(terms.count("convolut")) << q.query.get_description();
  EXPECT_EQ(asked, (std::set<std::string>{"aclnn", "convolut"}));  // only parts are judged
  EXPECT_EQ(Terms(q.partial).count("aclnn"), 0u);
  // Every part common: the identifier is searched whole, still one unit.
  BuiltQuery whole = BuildQuery("aclnnConvolution", [](const std::string&) { return true; });
  EXPECT_EQ(whole.units, 1u);
  EXPECT_EQ(Terms(whole.query), (std::set<std::string>{"aclnnconvolution"}));
}

TEST(AskQueryTest, TitleUnitsHeldByManyTitlesAddNoPartialWeight) {
  BuiltQuery q = BuildQuery("alpha bravo 报错");
  ASSERT_EQ(q.title_units.size(), 3u);
  std::set<std::string> asked;
  // A synonym group counts the postings of all its members.
  auto freq = [&](const std::string& term) -> unsigned {
    asked.insert(term);
    if (term == "Salpha") return 10;
    if (term == "Sbravo") return 500;
    return 40;  // each member of the error group
  };
  std::set<std::string> terms = Terms(RareTitleUnits(q, freq, 100));
  EXPECT_TRUE(terms.count("Salpha"));
  EXPECT_FALSE(terms.count("Sbravo"));
  EXPECT_FALSE(terms.count("S报错"));  // 40 per member, more than 100 in all
  EXPECT_TRUE(asked.count("S报错") && asked.count("Serror"));
  for (const std::string& t : asked) EXPECT_EQ(t[0], 'S') << t;  // title terms only
  EXPECT_TRUE(Terms(RareTitleUnits(q, freq, 1000)).count("S报错"));
  EXPECT_TRUE(RareTitleUnits(q, freq, 5).empty());
}

TEST(AskQueryTest, RareUnitsFilterThePartialPass) {
  constexpr double kAny = 1e12;  // no budget
  BuiltQuery q = BuildQuery("alpha bravo charlie");
  auto freq = [](const std::string& term) -> unsigned {
    if (term == "alpha") return 10;
    if (term == "bravo") return 900;
    return 800;
  };
  EXPECT_EQ(Terms(RareUnits(q, freq, 500, kAny)), (std::set<std::string>{"alpha"}));
  EXPECT_EQ(Terms(RareUnits(q, freq, 850, kAny)), (std::set<std::string>{"alpha", "charli"}));
  // A unit no issue holds brings no candidate: it counts as common.
  auto none = [](const std::string& term) -> unsigned {
    if (term == "alpha") return 0;
    return term == "bravo" ? 10 : 900;
  };
  EXPECT_EQ(Terms(RareUnits(q, none, 500, kAny)), (std::set<std::string>{"bravo"}));
  // Long queries too (their partial pass is an elite set).
  BuiltQuery six = BuildQuery("alpha bravo charlie delta echo foxtrot");
  ASSERT_EQ(six.partial.get_type(), Xapian::Query::OP_ELITE_SET);
  EXPECT_EQ(Terms(RareUnits(six, freq, 500, kAny)), (std::set<std::string>{"alpha"}));
  // No unit, or every unit, common: no filter.
  EXPECT_TRUE(RareUnits(q, freq, 5, kAny).empty());
  EXPECT_TRUE(RareUnits(q, freq, 5000, kAny).empty());
  // A member of several words is estimated by its rarest word.
  BuiltQuery phrase = BuildQuery("alpha 找不到");
  auto by_word = [](const std::string& term) -> unsigned {
    if (term == "alpha") return 900;
    if (term == "not" || term == "不到" || term == "未找" || term == "不存") return 5;
    return 1000;  // "found", "找不", "找到", "存在": 4 x 1000 in all, yet each member is rare
  };
  std::set<std::string> rare = Terms(RareUnits(phrase, by_word, 500, kAny));
  EXPECT_TRUE(rare.count("found") && !rare.count("alpha"))
      << RareUnits(phrase, by_word, 500, kAny).get_description();
}

TEST(AskQueryTest, ThePartialMatchOfALongLineKeepsAtMostSixteenUnits) {
  EXPECT_EQ(EliteSize(2), kMinFallbackUnits);
  EXPECT_EQ(EliteSize(9), 5u);
  EXPECT_EQ(EliteSize(32), 16u);
  EXPECT_EQ(EliteSize(60), kMaxFallbackUnits);
  // A pasted line of 40 distinct words: an elite set of 16 of them.
  std::string line;
  for (int i = 0; i < 40; ++i)
    line += "word" + std::string(1, static_cast<char>('a' + i % 26)) +
            std::string(1, static_cast<char>('a' + i / 26)) + " ";
  BuiltQuery q = BuildQuery(line);
  ASSERT_EQ(q.body_units.size(), 40u) << q.query.get_description();
  ASSERT_EQ(q.partial.get_type(), Xapian::Query::OP_ELITE_SET);
  EXPECT_NE(q.partial.get_description().find("ELITE_SET 16"), std::string::npos)
      << q.partial.get_description();
}

TEST(AskQueryTest, RareUnitsAreTakenRarestFirstWithinTheBudget) {
  // A pasted log line: many units, none common; the filter keeps the rarest
  // while their postings together stay within the budget.
  BuiltQuery q = BuildQuery("alpha bravo charlie delta echo foxtrot");
  auto freq = [](const std::string& term) -> unsigned {
    if (term == "alpha") return 300;
    if (term == "bravo") return 40;
    if (term == "charli") return 2000;
    if (term == "delta") return 150;
    if (term == "echo") return 0;  // no issue holds it
    return 700;                    // foxtrot
  };
  EXPECT_EQ(Terms(RareUnits(q, freq, 5000, 500)),
            (std::set<std::string>{"bravo", "delta", "alpha"}));
  EXPECT_EQ(Terms(RareUnits(q, freq, 5000, 200)), (std::set<std::string>{"bravo", "delta"}));
  // The rarest unit is taken even when it alone is over the budget.
  EXPECT_EQ(Terms(RareUnits(q, freq, 5000, 10)), (std::set<std::string>{"bravo"}));
  // Every unit that any issue holds fits: the filter would be the query
  // itself (here without the unit no issue holds; with it, no filter).
  EXPECT_EQ(Terms(RareUnits(q, freq, 5000, 1e9)),
            (std::set<std::string>{"alpha", "bravo", "charli", "delta", "foxtrot"}));
  BuiltQuery held = BuildQuery("alpha bravo delta");
  EXPECT_TRUE(RareUnits(held, freq, 5000, 1e9).empty());
  // The budget never lets a common unit in.
  EXPECT_EQ(Terms(RareUnits(q, freq, 1000, 1e9)),
            (std::set<std::string>{"bravo", "delta", "alpha", "foxtrot"}));
}

TEST(AskQueryTest, RareUnitsAreIntersectedWhenTheRarestIsOverTheBudget) {
  // A store of a million issues: the rarest unit of a pasted line (an error
  // code) is held by tens of thousands; the filter is the rarest units
  // together, taken while their estimated intersection is over the budget.
  constexpr double kIssues = 1e6;
  BuiltQuery q = BuildQuery("alpha bravo charlie delta echo");
  auto freq = [](const std::string& term) -> unsigned {
    if (term == "alpha") return 40000;
    if (term == "bravo") return 30000;
    if (term == "charli") return 100000;
    if (term == "delta") return 600000;  // over half the issues: narrows too little
    return 0;                            // echo: no issue holds it
  };
  const Xapian::Query two = RareIntersection(q, freq, 50000, 2000, kIssues);
  EXPECT_EQ(two.get_type(), Xapian::Query::OP_AND) << two.get_description();
  EXPECT_EQ(Terms(two), (std::set<std::string>{"alpha", "bravo"}));  // 30,000 x 0.04 = 1,200
  // A tighter budget takes the next rarest too (1,200 x 0.1 = 120), and no
  // more than kIntersectionUnits, however tight.
  EXPECT_EQ(Terms(RareIntersection(q, freq, 50000, 500, kIssues)),
            (std::set<std::string>{"alpha", "bravo", "charli"}));
  EXPECT_EQ(Terms(RareIntersection(q, freq, 50000, 1, kIssues)).size(), kIntersectionUnits);
  // The rarest unit within the budget alone: RareUnits' filter does (none here).
  EXPECT_TRUE(RareIntersection(q, freq, 50000, 30000, kIssues).empty());
  // The rarest unit common: no filter either.
  EXPECT_TRUE(RareIntersection(q, freq, 20000, 2000, kIssues).empty());
  // Fewer than two units that narrow, or every unit taken: none.
  EXPECT_TRUE(RareIntersection(BuildQuery("bravo delta echo"), freq, 50000, 2000, kIssues).empty());
  EXPECT_TRUE(RareIntersection(BuildQuery("alpha bravo"), freq, 50000, 2000, kIssues).empty());
}

TEST(AskQueryTest, ConjunctionLeavesOutUnitsMostIssuesHold) {
  // The conjunctive pass of a large index: a unit held by more than half the
  // issues (a word, or a synonym group as the union of its members) narrows
  // the AND too little to be read; the others stay, in the query's order.
  constexpr double kIssues = 1000;
  auto freq = [](const std::string& term) -> unsigned {
    if (term == "alpha") return 600;  // over half
    if (term == "bravo") return 10;
    if (term == "charli") return 20;
    if (term == "delta") return 500;  // half: kept
    if (term == "devic") return 300;  // the group of "device" (devic, 设备, 卡, card,
    if (term == "npu") return 400;    // npu): 1 - 0.7 x 0.6 = 58% of the issues
    return 0;
  };
  BuiltQuery q = BuildQuery("alpha bravo charlie delta");
  const Xapian::Query narrowed = Conjunction(q, freq, kIssues);
  EXPECT_EQ(narrowed.get_type(), Xapian::Query::OP_AND) << narrowed.get_description();
  EXPECT_EQ(Terms(narrowed), (std::set<std::string>{"bravo", "charli", "delta"}));
  EXPECT_EQ(Terms(Conjunction(BuildQuery("device bravo charlie"), freq, kIssues)),
            (std::set<std::string>{"bravo", "charli"}));
  // Nothing to leave out, or fewer than two units left: the whole AND.
  BuiltQuery rare = BuildQuery("bravo charlie delta");
  EXPECT_EQ(Conjunction(rare, freq, kIssues).get_description(), rare.all.get_description());
  BuiltQuery one_left = BuildQuery("alpha bravo");
  EXPECT_EQ(Conjunction(one_left, freq, kIssues).get_description(), one_left.all.get_description());
  // One unit: no conjunctive pass at all.
  EXPECT_TRUE(Conjunction(BuildQuery("bravo"), freq, kIssues).empty());
}

TEST(AskQueryTest, MatchesAreEstimatedAsIfTermsWereIndependent) {
  constexpr double kIssues = 1000;
  auto freq = [](const std::string& term) -> unsigned {
    if (term == "alpha") return 500;
    if (term == "bravo") return 200;
    if (term == "charli") return 1000;
    return 0;
  };
  EXPECT_DOUBLE_EQ(EstimatedMatches(Xapian::Query("alpha"), freq, kIssues), 500);
  BuiltQuery q = BuildQuery("alpha bravo charlie");
  // AND: 1,000 x 0.5 x 0.2 x 1.
  EXPECT_NEAR(EstimatedMatches(q.all, freq, kIssues), 100, 1e-9);
  // OR: 1,000 x (1 - 0.5 x 0.8 x 0): every issue holds "charli".
  EXPECT_NEAR(EstimatedMatches(q.query, freq, kIssues), 1000, 1e-9);
  EXPECT_NEAR(EstimatedMatches(BuildQuery("alpha bravo").wholes, freq, kIssues), 600, 1e-9);
  // A term no issue holds makes an AND empty; an empty index matches nothing.
  EXPECT_DOUBLE_EQ(EstimatedMatches(BuildQuery("alpha delta").all, freq, kIssues), 0);
  EXPECT_DOUBLE_EQ(EstimatedMatches(q.all, freq, 0), 0);
  // The postings read: an AND is driven by its rarest part, an OR reads all.
  EXPECT_DOUBLE_EQ(MatchPostings(q.all, freq), 200);
  EXPECT_DOUBLE_EQ(MatchPostings(q.query, freq), 1700);
}

TEST(AskQueryTest, WholesHoldEveryUnitWithoutIdentifierParts) {
  BuiltQuery q = BuildQuery("aclnnConvolution fails");
  const std::set<std::string> wholes = Terms(q.wholes);
  EXPECT_TRUE(wholes.count("aclnnconvolution")) << q.wholes.get_description();
  EXPECT_FALSE(wholes.count("aclnn")) << q.wholes.get_description();
  EXPECT_FALSE(wholes.count("convolut")) << q.wholes.get_description();
  EXPECT_EQ(q.wholes.get_type(), Xapian::Query::OP_OR);
  EXPECT_TRUE(Terms(q.query).count("aclnn"));  // the query itself keeps them
}

TEST(AskQueryTest, OneCommonUnitIsSearchedInTitlesFirst) {
  auto freq = [](const std::string& term) -> unsigned { return term == "alpha" ? 10 : 900; };
  EXPECT_TRUE(CommonSingleUnit(BuildQuery("bravo"), freq, 500));
  EXPECT_FALSE(CommonSingleUnit(BuildQuery("alpha"), freq, 500));
  EXPECT_FALSE(CommonSingleUnit(BuildQuery("bravo alpha"), freq, 500));  // two units
  // An identifier or error code is ranked by BM25 however common.
  EXPECT_FALSE(CommonSingleUnit(BuildQuery("EZ9999"), freq, 500));
  EXPECT_FALSE(CommonSingleUnit(BuildQuery("aclnnMatmul"), freq, 500));
}

}  // namespace
}  // namespace fixgraph::query
