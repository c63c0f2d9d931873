// Output files (`digest -o`): written atomically, never over a non-regular
// file (issue 21: `digest -o` replaced a FIFO, symlink or device).
#include "../../cli/output_file.h"

#include "testutil/testutil.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace fixgraph::cli {
namespace {

namespace fs = std::filesystem;
using fixgraph::testing::ReadFile;
using fixgraph::testing::RunFixgraph;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;

// Files in `dir` (names), to see that no temporary file is left behind.
std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(OutputFile, WritesNewAndReplacesRegularFilesKeepingTheirMode) {
  TempDir dir;
  std::string path = dir / "out.md";
  ASSERT_TRUE(WriteOutputFile(path, "one\n").ok());
  EXPECT_EQ(ReadFile(path), "one\n");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(WriteOutputFile(path, "two\n").ok());
  EXPECT_EQ(ReadFile(path), "two\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"out.md"});
  Status s = WriteOutputFile(dir / "no-such-dir/x.md", "x");
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_NE(s.message().find("no-such-dir"), std::string::npos) << s.message();
}

TEST(OutputFile, PiecesAreJoinedAndAFailedProducerLeavesTheOldFile) {
  TempDir dir;
  std::string path = dir / "out.json";
  ASSERT_TRUE(WriteOutputFile(path, "old\n").ok());
  Status s = WriteOutputFileFrom(path, [](const PieceSink& sink) {
    for (const char* piece : {"{", "\"a\": ", "1", "}\n"}) FG_RETURN_IF_ERROR(sink(piece));
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ReadFile(path), "{\"a\": 1}\n");
  // Pieces written, then a failure: the old file stays, no temporary file is left.
  s = WriteOutputFileFrom(path, [](const PieceSink& sink) {
    FG_RETURN_IF_ERROR(sink("half"));
    return Status::Internal("the producer failed midway");
  });
  EXPECT_EQ(s.code(), Status::Code::kInternal);
  EXPECT_EQ(ReadFile(path), "{\"a\": 1}\n");
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"out.json"});
}

TEST(OutputFile, RefusesFifoSymlinkDirectoryAndDevice) {
  TempDir dir;
  std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string target = dir / "target";
  WriteFile(target, "keep\n");
  std::string link = dir / "link";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  std::string sub = dir / "sub";
  fs::create_directory(sub);
  for (const auto& [path, kind] :
       std::vector<std::pair<std::string, std::string>>{{fifo, "a FIFO"},
                                                        {link, "a symbolic link"},
                                                        {sub, "a directory"},
                                                        {"/dev/null", "a device"}}) {
    Status s = WriteOutputFile(path, "x");
    ASSERT_FALSE(s.ok()) << path;
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
    EXPECT_NE(s.message().find(path + ": " + kind), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("-o -"), std::string::npos) << s.message();
  }
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(ReadFile(target), "keep\n");
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(Names(dir.path()), (std::vector<std::string>{"fifo", "link", "sub", "target"}));
}

// Regression: `fixgraph digest -o FIFO` replaced the FIFO with a regular file.
TEST(OutputFile, DigestRefusesAFifoAndWritesStdoutForDash) {
  TempDir dir;
  std::string fifo = dir / "digest.md";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string out, err;
  ASSERT_EQ(fixgraph::testing::ImportDemo(dir / "db", &err), 0) << err;
  int rc = RunFixgraph(dir / "db", "digest -o " + fifo, &out, &err);
  EXPECT_NE(rc, 0);
  EXPECT_NE(err.find("a FIFO, not a regular file"), std::string::npos) << err;
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  rc = RunFixgraph(dir / "db", "digest -o -", &out, &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_FALSE(out.empty());
  rc = RunFixgraph(dir / "db", "digest -o " + (dir / "d.md"), &out, &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_EQ(ReadFile(dir / "d.md").empty(), false);
}

}  // namespace
}  // namespace fixgraph::cli
