// The command line, driven in-process through cli::Run.
#include "fixgraph/cli/cli.h"

#include "cli_run.h"
#include "testutil/testutil.h"

#include "fixgraph/engine/version.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace fixgraph::cli {
namespace {

using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

using Result = testing::CliResult;
using testing::RunCli;

void WriteSmallDump(const std::string& dump) {
  std::string root = dump + "/gitcode/Ascend/demo";
  WriteFile(root + "/repo.json", R"({"full_name": "Ascend/demo", "description": "a demo repo"})");
  WriteFile(root + "/issues.json", R"([
    {"number": "7", "title": "NPU 上 aclnnFoo 报错 EZ9999", "body": "log", "state": "closed",
     "created_at": "2026-01-01T10:00:00+08:00", "finished_at": "2026-01-05T12:00:00+08:00",
     "user": {"id": "ab", "login": "alice"}},
    {"number": "8", "title": "open question", "state": "open", "finished_at": ""}])");
  WriteFile(root + "/pulls.json", R"([
    {"number": 12, "title": "修复 aclnnFoo", "body": "fix #7", "state": "merged",
     "merged_at": "2026-01-05T12:00:00+08:00", "head": {"ref": "issue-7"}, "base": {"ref": "master"}}])");
  WriteFile(root + "/issues/7/comments.json",
            R"([{"id": 1, "body": "已在 !12 修复", "user": {"login": "bob"},
                 "created_at": "2026-01-05T11:00:00+08:00"}])");
}

TEST(Cli, HelpAndVersion) {
  Result r = RunCli({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("import"), std::string::npos);
  EXPECT_NE(r.out.find("stats"), std::string::npos);
  r = RunCli({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out,
            std::string("fixgraph ") + fixgraph::kVersion + "\n");  // CMakeLists.txt's version
  r = RunCli({"show", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("REF"), std::string::npos);
}

TEST(Cli, BadUsageExitsTwo) {
  EXPECT_EQ(RunCli({}).code, 2);
  Result r = RunCli({"bogus"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command 'bogus'"), std::string::npos) << r.err;
  r = RunCli({"stats", "--frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--frobnicate"), std::string::npos) << r.err;
  EXPECT_EQ(RunCli({"show"}).code, 2);
  EXPECT_EQ(RunCli({"import"}).code, 2);
}

TEST(Cli, NumericFlagsSayWhatTheyExpect) {
  for (const char* bad : {"abc", "0", "101", "5x", "-3", ""}) {
    Result r = RunCli({"ask", "--limit", bad, "EZ9999"});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("--limit: expected a whole number from 1 to 100, got \"" +
                         std::string(bad) + "\""),
              std::string::npos)
        << r.err;
  }
  Result r = RunCli({"serve", "--threads", "many"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--threads: expected a whole number from 1 to 1024"), std::string::npos)
      << r.err;
}

TEST(Cli, ReadCommandsWithoutAStoreSayWhatToDo) {
  TempDir dir;
  Result r = RunCli({"--db", dir / "nothing", "stats"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no fixgraph store"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fixgraph import"), std::string::npos) << r.err;
}

TEST(Cli, ImportStatsShow) {
  TempDir dir;
  WriteSmallDump(dir / "dump");
  std::string db = dir / "db";
  Result r = RunCli({"--db", db, "import", dir / "dump"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("2 issues, 1 pull requests, 1 comments"), std::string::npos) << r.out;

  r = RunCli({"--db", db, "stats", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  json st = json::parse(r.out);
  ASSERT_EQ(st["repositories"].size(), 1u);
  EXPECT_EQ(st["repositories"][0]["repo"], "gitcode:Ascend/demo");
  EXPECT_EQ(st["repositories"][0]["issues"]["closed"], 1);
  EXPECT_EQ(st["repositories"][0]["issues"]["open"], 1);
  EXPECT_EQ(st["repositories"][0]["pulls"]["merged"], 1);
  EXPECT_EQ(st["totals"]["comments"], 1);

  r = RunCli({"--db", db, "show", "gitcode:Ascend/demo#7", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  json view = json::parse(r.out);
  EXPECT_EQ(view["kind"], "issue");
  EXPECT_EQ(view["issue"]["title"], "NPU 上 aclnnFoo 报错 EZ9999");
  ASSERT_EQ(view["comments"].size(), 1u);
  // The PR body ("fix #7") mentions it, and the issue comment names !12 the other way.
  ASSERT_EQ(view["mentioned_by"].size(), 1u);
  EXPECT_EQ(view["mentioned_by"][0]["source"], "gitcode:Ascend/demo!12");
  EXPECT_EQ(view["mentioned_by"][0]["keyword"], "closing");
  EXPECT_EQ(view["mentioned_by"][0]["source_state"], "merged");

  r = RunCli({"--db", db, "show", "https://gitcode.com/Ascend/demo/merge_requests/12"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("gitcode:Ascend/demo!12  [merged]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("merged 2026-01-05 12:00:00 +08:00"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Mentioned by"), std::string::npos) << r.out;  // the issue comment

  r = RunCli({"--db", db, "show", "gitcode:Ascend/demo"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("a demo repo"), std::string::npos);
}

// A dump packed into a tar file imports as the folder does; a compressed one
// is refused saying what to do.
TEST(Cli, ImportReadsADumpPackedIntoATarFile) {
  if (std::system("tar --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no tar";
  TempDir dir;
  WriteSmallDump(dir / "dump");
  std::string tar = dir / "dump.tar";
  ASSERT_EQ(std::system(("tar -cf '" + tar + "' -C '" + dir.path() + "' dump").c_str()), 0);
  Result r = RunCli({"--db", dir / "db", "import", tar, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_EQ(out["totals"]["issues"], 2);
  EXPECT_EQ(out["totals"]["comments"], 1);
  r = RunCli({"--db", dir / "db", "links", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("gitcode:Ascend/demo!12"), std::string::npos) << r.out;  // linked

  WriteFile(dir / "dump.tar.gz", std::string("\x1f\x8b\x08\x00", 4) + std::string(1000, 'z'));
  r = RunCli({"--db", dir / "db2", "import", dir / "dump.tar.gz"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("dump.tar.gz: compressed (gzip); decompress it first"), std::string::npos)
      << r.err;
}

// show prints every time in one zone (--tz, else FIXGRAPH_TZ, else +08:00),
// including the times the linker wrote into its notes at link time, says
// which zone, and renders code fences as indented blocks.
TEST(Cli, ShowUsesOneZoneAndRendersFences) {
  TempDir dir;
  std::string root = dir / "dump/gitcode/Ascend/demo";
  WriteFile(root + "/repo.json", R"({"full_name": "Ascend/demo", "description": "a demo repo"})");
  WriteFile(root + "/issues.json", R"([
    {"number": "7", "title": "build fails", "state": "closed",
     "body": "Run:\n```bash\nbash build.sh --npu\n```\nthen it fails.",
     "created_at": "2026-01-01T10:00:00+08:00", "finished_at": "2026-01-05T12:00:00+08:00",
     "user": {"login": "alice"}}])");
  WriteFile(root + "/pulls.json", R"([
    {"number": 12, "title": "fix build", "body": "fix #7", "state": "merged",
     "created_at": "2026-01-04T10:00:00+08:00", "merged_at": "2026-01-05T12:00:00+08:00",
     "head": {"ref": "issue-7"}, "base": {"ref": "master"}}])");
  WriteFile(root + "/issues/7/comments.json",
            R"([{"id": 1, "body": "try\n~~~\nexport A=1\n~~~", "user": {"login": "bob"},
                 "created_at": "2026-01-05T11:00:00+08:00"}])");
  std::string db = dir / "db";
  unsetenv("FIXGRAPH_TZ");
  ASSERT_EQ(RunCli({"--db", db, "import", dir / "dump"}).code, 0);  // links at +08:00

  Result r = RunCli({"--db", db, "show", "gitcode:Ascend/demo#7", "--tz", "Z"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("opened 2026-01-01 02:00:00 +00:00"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("merged 2026-01-05 04:00:00 +00:00"), std::string::npos)
      << r.out;  // the linker's note
  EXPECT_EQ(r.out.find("+08:00"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("times in +00:00 (--tz)"), std::string::npos) << r.out;
  // Fences are not printed; the code is indented as a block.
  EXPECT_EQ(r.out.find("```"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("~~~"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n      bash build.sh --npu\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n        export A=1\n"), std::string::npos) << r.out;  // in a comment

  setenv("FIXGRAPH_TZ", "-05:00", 1);
  r = RunCli({"--db", db, "show", "gitcode:Ascend/demo#7"});
  unsetenv("FIXGRAPH_TZ");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("opened 2025-12-31 21:00:00 -05:00"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("+08:00"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("times in -05:00 (FIXGRAPH_TZ"), std::string::npos) << r.out;

  r = RunCli({"--db", db, "show", "gitcode:Ascend/demo!12"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("times in +08:00 (the default"), std::string::npos) << r.out;

  r = RunCli({"--db", db, "show", "gitcode:Ascend/demo#7", "--tz", "+8h"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("--tz"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("+8h"), std::string::npos) << r.err;
}

// import --time-offset: times recorded without an offset are read at the
// given offset instead of China time; a bad offset is refused before the
// store is touched.
TEST(Cli, ImportTimeOffsetReadsNaiveTimes) {
  TempDir dir;
  std::string root = dir / "dump/gitcode/Ascend/demo";
  WriteFile(root + "/repo.json", R"({"full_name": "Ascend/demo"})");
  WriteFile(root + "/issues.json", R"([{"number": "7", "title": "t", "state": "closed",
     "created_at": "2024-04-24 10:00:00", "finished_at": "2024-04-24 22:27:49"}])");
  WriteFile(root + "/pulls.json", "[]");
  auto closed_at = [&](const std::string& db) {
    Result r = RunCli({"--db", db, "show", "gitcode:Ascend/demo#7", "--json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out)["issue"]["closed_at"].get<std::string>();
  };
  Result r = RunCli({"--db", dir / "db1", "import", dir / "dump"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(closed_at(dir / "db1"), "2024-04-24T14:27:49Z");  // +08:00 by default
  r = RunCli({"--db", dir / "db2", "import", "--time-offset", "+00:00", dir / "dump"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(closed_at(dir / "db2"), "2024-04-24T22:27:49Z");
  r = RunCli({"--db", dir / "db3", "import", "--time-offset", "+8h", dir / "dump"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("--time-offset"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "db3"));
}

TEST(Cli, EnvironmentChoosesTheDb) {
  TempDir dir;
  WriteSmallDump(dir / "dump");
  std::string db = dir / "envdb";
  setenv("FIXGRAPH_DB", db.c_str(), 1);
  Result r = RunCli({"import", dir / "dump"});
  unsetenv("FIXGRAPH_DB");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(RunCli({"--db", db, "show", "gitcode:Ascend/demo#8"}).code, 0);
}

TEST(Cli, ErrorsNameWhatAndWhere) {
  TempDir dir;
  WriteSmallDump(dir / "dump");
  std::string db = dir / "db";
  ASSERT_EQ(RunCli({"--db", db, "import", dir / "dump"}).code, 0);

  Result r = RunCli({"--db", db, "show", "gitcode:Ascend/demo#999"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no issue gitcode:Ascend/demo#999"), std::string::npos) << r.err;

  r = RunCli({"--db", db, "show", "Ascend/demo#7"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad reference \"Ascend/demo#7\""), std::string::npos) << r.err;

  r = RunCli({"--db", db, "import", dir / "missing"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(dir / "missing"), std::string::npos) << r.err;

  WriteFile(dir / "dump/gitcode/Ascend/demo/pulls.json", R"([{"number": 12, "merged_at": 5}])");
  r = RunCli({"--db", db, "import", dir / "dump"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("pulls.json: item 0: pull request 12: field \"merged_at\""),
            std::string::npos)
      << r.err;
  // The store kept the good version.
  r = RunCli({"--db", db, "show", "gitcode:Ascend/demo!12", "--json"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(json::parse(r.out)["pull"]["state"], "merged");
}

// True when `s` is well-formed UTF-8 (no cut or stray bytes).
bool ValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

TEST(Cli, AskShortensLongChineseLinesAtCharacterBoundaries) {
  TempDir dir;
  WriteSmallDump(dir / "dump");
  // An answer line (in the fix PR) of 601 bytes: "a" then 200 three-byte characters, so a cut
  // at 600 bytes (the text output's longest line) would fall inside the last character.
  std::string line = "a";
  for (int i = 0; i < 50; ++i)
    line += "\xE5\x8E\x9F\xE5\x9B\xA0\xE6\x98\xAF\xE5\xAD\x98";  // 原因是存
  WriteFile(dir / "dump/gitcode/Ascend/demo/pulls.json",
            R"([{"number": 12, "title": "修复 aclnnFoo", "body": "fix #7\n)" + line + R"(",
                 "state": "merged", "merged_at": "2026-01-05T12:00:00+08:00",
                 "head": {"ref": "issue-7"}, "base": {"ref": "master"}}])");
  std::string db = dir / "db";
  ASSERT_EQ(RunCli({"--db", db, "import", dir / "dump"}).code, 0);
  Result r = RunCli({"--db", db, "ask", "aclnnFoo 报错 EZ9999"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(ValidUtf8(r.out)) << r.out;
  EXPECT_NE(r.out.find("\xE5\x8E\x9F\xE5\x9B\xA0\xE6\x98\xAF...\n"), std::string::npos)
      << r.out;  // ...原因是...
}

}  // namespace
}  // namespace fixgraph::cli
