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

}  // namespace
}  // namespace fixgraph::query
