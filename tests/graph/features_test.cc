// Branch names and release branches (graph/features.h, private: white-box).
#include "../../graph/features.h"

#include <gtest/gtest.h>

namespace fixgraph::graph {
namespace {

TEST(Features, BranchNamesIssue) {
  EXPECT_TRUE(BranchNamesIssue("issue-31-mhc-triton", "31"));
  EXPECT_TRUE(BranchNamesIssue("fix/31", "31"));
  EXPECT_TRUE(BranchNamesIssue("31-mhc", "31"));
  EXPECT_TRUE(BranchNamesIssue("bugfix_31", "31"));
  EXPECT_TRUE(BranchNamesIssue("issue31", "31"));
  EXPECT_TRUE(BranchNamesIssue("feat/I8XK2P-cache", "I8XK2P"));
  EXPECT_FALSE(BranchNamesIssue("v0.1.0_local_rank", "1"));   // a version, not an issue
  EXPECT_FALSE(BranchNamesIssue("cp_178_to_v2.17", "17"));
  EXPECT_FALSE(BranchNamesIssue("release-31", "31"));
  EXPECT_FALSE(BranchNamesIssue("main", "31"));
  EXPECT_FALSE(BranchNamesIssue("", "31"));
}

TEST(Features, ReleaseBranches) {
  EXPECT_TRUE(IsReleaseBranch("release/v2.17"));
  EXPECT_TRUE(IsReleaseBranch("r2.4.1"));
  EXPECT_TRUE(IsReleaseBranch("v0.1.0"));
  EXPECT_TRUE(IsReleaseBranch("branch-2.1"));
  EXPECT_FALSE(IsReleaseBranch("main"));
  EXPECT_FALSE(IsReleaseBranch("master"));
  EXPECT_FALSE(IsReleaseBranch("develop"));
  EXPECT_FALSE(IsReleaseBranch("feat/x"));
}

}  // namespace
}  // namespace fixgraph::graph
