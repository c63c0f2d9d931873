// The stored association table (query/docs_assoc.h): lookups by binary search
// over the lines of the text EncodeAssociations writes, and over text that is
// out of order or has malformed lines.
#include "../../query/docs_assoc.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fixgraph::query::docs {
namespace {

using Partners = std::vector<std::string>;

TEST(AssociationTable, FindsEveryTermOfTheEncodedTable) {
  Associations a;
  a["绑核"] = {"affin", "numa"};
  a["alloc"] = {"memori"};
  a["zeta"] = {"alpha", "beta", "gamma"};
  for (int i = 0; i < 50; ++i) a["t" + std::to_string(i)] = {"p" + std::to_string(i)};
  AssociationTable t(EncodeAssociations(a));
  EXPECT_EQ(t.lines(), a.size());
  for (const auto& [term, partners] : a) EXPECT_EQ(t.Partners(term), partners) << term;
  EXPECT_TRUE(t.Partners("absent").empty());
  EXPECT_TRUE(t.Partners("").empty());
  EXPECT_TRUE(t.Partners("t").empty());     // a prefix of terms is not a term
  EXPECT_TRUE(t.Partners("t49x").empty());  // nor a term extended
}

TEST(AssociationTable, OrdersTextWrittenOutOfOrderAndSkipsMalformedLines) {
  AssociationTable t(
      "zeta\tz1 z2\n"
      "no tab on this line\n"
      "\tpartners without a term\n"
      "alpha\ta1\n"
      "mid\t\n"
      "alpha\ta2  a3\n"
      "last\tl1");  // no final newline
  EXPECT_EQ(t.Partners("zeta"), (Partners{"z1", "z2"}));
  EXPECT_EQ(t.Partners("alpha"), (Partners{"a1", "a2", "a3"}));  // both lines, in order
  EXPECT_TRUE(t.Partners("mid").empty());
  EXPECT_EQ(t.Partners("last"), (Partners{"l1"}));
  EXPECT_TRUE(t.Partners("no tab on this line").empty());
  EXPECT_TRUE(t.Partners("no").empty());
  EXPECT_EQ(t.lines(), 5u);
}

// A long text without a tab: no line is indexed, and finding that out reads
// each line once (a tab looked for past the line's end made this quadratic).
TEST(AssociationTable, TextWithoutTabsIsReadOnce) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "term partner partner\n";
  AssociationTable t(std::move(text));
  EXPECT_EQ(t.lines(), 0u);
  EXPECT_TRUE(t.Partners("term").empty());
}

TEST(AssociationTable, EmptyTextIsAnEmptyTable) {
  AssociationTable none;
  EXPECT_TRUE(none.Partners("x").empty());
  AssociationTable empty("");
  EXPECT_EQ(empty.lines(), 0u);
  AssociationTable newlines("\n\n\n");
  EXPECT_EQ(newlines.lines(), 0u);
  EXPECT_TRUE(newlines.Partners("").empty());
}

}  // namespace
}  // namespace fixgraph::query::docs
