// SyncPath (engine/files.h): files and directories sync; a path that cannot
// be opened is an IOError naming it.
#include "fixgraph/engine/files.h"

#include "testutil/testutil.h"

#include <gtest/gtest.h>

namespace fixgraph {
namespace {

using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;

TEST(SyncPathTest, SyncsAFileAndADirectory) {
  TempDir dir;
  const std::string file = dir.path() + "/a.txt";
  WriteFile(file, "bytes");
  EXPECT_TRUE(SyncPath(file).ok());
  EXPECT_TRUE(SyncPath(dir.path()).ok());
}

TEST(SyncPathTest, AMissingPathIsAnErrorNamingIt) {
  TempDir dir;
  const std::string missing = dir.path() + "/nope";
  Status s = SyncPath(missing);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.message();
  EXPECT_NE(s.message().find("opening " + missing), std::string::npos) << s.message();
}

}  // namespace
}  // namespace fixgraph
