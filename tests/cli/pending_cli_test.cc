// Crash consistency of derived data, through the binary: a run killed at any
// write leaves pending work that the next writer finishes (links and the ask
// index as after an uninterrupted run); stats shows pending work and readers
// warn about it. tests/crash/crash_test.sh does the same at many more points.
#include "testutil/testutil.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace fixgraph {
namespace {

using nlohmann::json;
using testing::BinaryPath;
using testing::RunCommand;
using testing::RunFixgraph;
using testing::TempDir;
using testing::WriteFile;

// Dump A: PR 12 fixes issue 7. Dump B: PR 12 now fixes issue 8, which is
// closed at its merge, and issue 7 is retitled.
// `fillers` open issues that neither dump changes are added (numbers 100...).
void WriteDump(const std::string& root, bool changed, int fillers = 0) {
  const std::string repo = root + "/gitcode/Ascend/demo";
  std::string more;
  for (int i = 0; i < fillers; ++i)
    more += R"(, {"number": ")" + std::to_string(100 + i) + R"(", "title": "unrelated question )" +
            std::to_string(i) +
            R"(", "state": "open", "created_at": "2025-06-01T10:00:00+08:00", "finished_at": ""})";
  WriteFile(repo + "/issues.json", std::string(R"([
    {"number": "7", "title": ")") + (changed ? "aclnnFoo fails (edited)" : "aclnnFoo fails") +
                                       R"(", "state": "closed",
     "created_at": "2026-01-01T10:00:00+08:00", "finished_at": "2026-01-05T12:00:00+08:00"},
    {"number": "8", "title": "HCCL timeout", "state": ")" +
                                       (changed ? "closed" : "open") + R"(",
     "created_at": "2026-01-02T10:00:00+08:00", "finished_at": ")" +
                                       (changed ? "2026-01-05T12:00:00+08:00" : "") + R"("})" +
                                       more + "]");
  WriteFile(repo + "/pulls.json", std::string(R"([
    {"number": 12, "title": "fix it", "body": ")") +
                                      (changed ? "fix #8" : "fix #7") + R"(",
     "state": "merged", "created_at": "2026-01-04T10:00:00+08:00",
     "merged_at": "2026-01-05T12:00:00+08:00", "head": {"ref": "b"}, "base": {"ref": "master"}}])");
}

std::string Fg(const std::string& env, const std::string& db, const std::string& args, int* code,
               std::string* err = nullptr) {
  std::string out;
  *code = RunCommand(env + " " + BinaryPath() + " --db " + db + " " + args, &out, err);
  return out;
}

std::string Links(const std::string& db) {
  std::string out;
  EXPECT_EQ(RunFixgraph(db, "links --json", &out), 0);
  return out;
}

json Pending(const std::string& db) {
  std::string out;
  EXPECT_EQ(RunFixgraph(db, "stats --json", &out), 0);
  return json::parse(out).value("pending", json());
}

class PendingCli : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteDump(dir_ / "a", false);
    WriteDump(dir_ / "b", true);
  }
  TempDir dir_;
};

// Finding 1 of issue 21: a re-import killed after its data was written left
// the old links for good (the rerun saw nothing new to relink).
TEST_F(PendingCli, ReimportKilledAtAnyWriteIsFinishedByTheNextImport) {
  int code = 0;
  const std::string ref = dir_ / "ref";
  Fg("", ref, "import " + (dir_ / "a"), &code);
  ASSERT_EQ(code, 0);
  std::string err;
  Fg("FIXGRAPH_CRASH_COUNT=1", ref, "import " + (dir_ / "b"), &code, &err);
  ASSERT_EQ(code, 0) << err;
  size_t at = err.find("crash points: ");
  ASSERT_NE(at, std::string::npos) << err;
  int points = std::stoi(err.substr(at + 14));
  ASSERT_GE(points, 6);
  const std::string want = Links(ref);
  ASSERT_NE(want.find("#8"), std::string::npos) << want;
  for (int k = 1; k <= points; ++k) {
    const std::string db = dir_ / ("db" + std::to_string(k));
    Fg("", db, "import " + (dir_ / "a"), &code);
    ASSERT_EQ(code, 0);
    Fg("FIXGRAPH_CRASH_AT=" + std::to_string(k), db, "import " + (dir_ / "b"), &code, &err);
    ASSERT_EQ(code, 86) << "kill point " << k << ": " << err;  // ended at the crash point
    Fg("", db, "import " + (dir_ / "b"), &code, &err);
    ASSERT_EQ(code, 0) << err;
    EXPECT_EQ(Links(db), want) << "kill point " << k;
    EXPECT_EQ(Pending(db), json({{"relink", 0}, {"reindex", 0}, {"link_runs", json::array()}}))
        << "kill point " << k;
  }
}

// A re-import that changes at least a third of the store's issues and PRs
// relinks the store whole (cli/refresh.cc): here 3 of 5 items changed, and all
// 4 issues are relinked (Relink would relink the 2 affected ones).
TEST_F(PendingCli, ReimportChangingAThirdOfTheStoreRelinksItWhole) {
  WriteDump(dir_ / "a2", false, 2);
  WriteDump(dir_ / "b2", true, 2);
  int code = 0;
  const std::string db = dir_ / "db";
  Fg("", db, "import " + (dir_ / "a2"), &code);
  ASSERT_EQ(code, 0);
  std::string out = Fg("", db, "import " + (dir_ / "b2"), &code);
  ASSERT_EQ(code, 0);
  EXPECT_NE(out.find("relinked 4 issues"), std::string::npos) << out;
}

// The same kills when fewer items changed (3 of 11): the Relink path.
TEST_F(PendingCli, ReimportOfFewChangesKilledAtAnyWriteIsFinished) {
  WriteDump(dir_ / "a8", false, 8);
  WriteDump(dir_ / "b8", true, 8);
  int code = 0;
  const std::string ref = dir_ / "ref";
  Fg("", ref, "import " + (dir_ / "a8"), &code);
  ASSERT_EQ(code, 0);
  std::string err;
  std::string out = Fg("FIXGRAPH_CRASH_COUNT=1", ref, "import " + (dir_ / "b8"), &code, &err);
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(out.find("relinked 2 issues"), std::string::npos) << out;  // not all 10
  size_t at = err.find("crash points: ");
  ASSERT_NE(at, std::string::npos) << err;
  int points = std::stoi(err.substr(at + 14));
  const std::string want = Links(ref);
  ASSERT_NE(want.find("#8"), std::string::npos) << want;
  for (int k = 1; k <= points; ++k) {
    const std::string db = dir_ / ("db" + std::to_string(k));
    Fg("", db, "import " + (dir_ / "a8"), &code);
    ASSERT_EQ(code, 0);
    Fg("FIXGRAPH_CRASH_AT=" + std::to_string(k), db, "import " + (dir_ / "b8"), &code, &err);
    ASSERT_EQ(code, 86) << "kill point " << k << ": " << err;
    Fg("", db, "import " + (dir_ / "b8"), &code, &err);
    ASSERT_EQ(code, 0) << err;
    EXPECT_EQ(Links(db), want) << "kill point " << k;
    EXPECT_EQ(Pending(db), json({{"relink", 0}, {"reindex", 0}, {"link_runs", json::array()}}))
        << "kill point " << k;
  }
}

TEST_F(PendingCli, StatsShowsPendingWorkAndReadersWarn) {
  int code = 0;
  const std::string db = dir_ / "db";
  Fg("", db, "import --no-link " + (dir_ / "a"), &code);
  ASSERT_EQ(code, 0);
  json p = Pending(db);
  EXPECT_EQ(p["relink"], 3);  // issues 7 and 8, PR 12
  std::string out, err;
  out = Fg("", db, "stats", &code, &err);
  EXPECT_NE(out.find("pending: "), std::string::npos) << out;
  out = Fg("", db, "links", &code, &err);
  EXPECT_NE(err.find("warning: the store has unfinished derived work"), std::string::npos) << err;
  // Any writer finishes it first: here a link run of one repository.
  out = Fg("", db, "link --repo gitcode:Ascend/demo", &code, &err);
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(err.find("finished the work an interrupted run left pending"), std::string::npos)
      << err;
  EXPECT_EQ(Pending(db), json({{"relink", 0}, {"reindex", 0}, {"link_runs", json::array()}}));
  EXPECT_NE(Links(db).find("#7"), std::string::npos);
}

TEST_F(PendingCli, KilledLinkRunIsRunAgainByTheNextWriter) {
  int code = 0;
  const std::string ref = dir_ / "ref";
  Fg("", ref, "import " + (dir_ / "b"), &code);
  ASSERT_EQ(code, 0);
  const std::string want = Links(ref);
  const std::string db = dir_ / "db";
  Fg("", db, "import " + (dir_ / "a"), &code);
  Fg("", db, "import --no-link " + (dir_ / "b"), &code);
  ASSERT_EQ(code, 0);
  std::string err;
  Fg("FIXGRAPH_CRASH_AT=3", db, "link", &code, &err);
  ASSERT_EQ(code, 86) << err;
  EXPECT_EQ(Pending(db)["link_runs"], json::array({"*"}));
  // The next writer (an import that changes nothing) runs the link again.
  Fg("", db, "import " + (dir_ / "b"), &code, &err);
  ASSERT_EQ(code, 0) << err;
  EXPECT_EQ(Links(db), want);
  EXPECT_EQ(Pending(db)["link_runs"], json::array());
}

}  // namespace
}  // namespace fixgraph
