// The progress line (cli/progress.h): its text, its redraw on a terminal,
// silence on a pipe, --quiet and --progress; and the commands on a real
// pseudo-terminal (util-linux `script`).
#include "../../cli/progress.h"

#include "testutil/testutil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <thread>

namespace fixgraph::cli {
namespace {

using fixgraph::testing::BinaryPath;
using fixgraph::testing::RunCommand;
using fixgraph::testing::SourceDir;

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

TEST(ProgressLineTest, CountsRateAndEta) {
  ProgressState s = ProgressState::Counting("records");
  s.done = 2500;
  s.total = 10000;
  // 2,500 of 10,000 in 5 s: 500/s, 15 s to go.
  EXPECT_EQ(ProgressLine("import", s, 5.0),
            "import  2,500/10,000 records  25%  500/s  ETA 0:15  0:05");
  // No rate or ETA in the first second; a done count past the total is shown as the total.
  s.done = 46518;
  s.total = 46517;
  EXPECT_EQ(ProgressLine("import", s, 0.5), "import  46,517/46,517 records  100%  0:00");
  // Unknown total: count and rate only.
  s.total = 0;
  s.done = 30;
  s.detail = "3/18 repositories";
  EXPECT_EQ(ProgressLine("import", s, 10.0), "import  30 records  3.0/s  0:10  3/18 repositories");
  // A fraction (sync's pages) drives the percentage and the ETA.
  ProgressState f = ProgressState::Note("listing");
  f.fraction = 0.2;
  EXPECT_EQ(ProgressLine("sync", f, 60.0), "sync  20%  ETA 4:00  1:00  listing");
  EXPECT_EQ(ProgressDuration(3725), "1:02:05");
}

TEST(ProgressLineTest, EstimatedFractionWeighsPartsByRecords) {
  // Nothing started, or a started part without an estimate: unknown.
  EXPECT_EQ(EstimatedFraction({}), -1);
  EXPECT_EQ(EstimatedFraction({PartProgress{true, 5, 0, 0, 100}}), -1);
  // Known totals: 50 of 100 and 0 of 300 records.
  EXPECT_DOUBLE_EQ(EstimatedFraction({{true, 50, 100, 0, 0}, {true, 0, 300, 0, 0}}), 50.0 / 400);
  // A new repository: a quarter of its items walked with 250 records read
  // stands for 1000 records; the part not started weighs the mean (625).
  std::vector<PartProgress> parts = {{true, 250, 0, 25, 100}, {true, 125, 250, 0, 0}, {}};
  EXPECT_DOUBLE_EQ(EstimatedFraction(parts), (250.0 + 125.0) / (1000 + 250 + 625));
}

TEST(ProgressTest, RedrawsInPlaceOnATerminalAndErasesAtTheEnd) {
  std::ostringstream err;
  {
    Progress p(&err, /*terminal=*/true, ProgressMode::kAuto, "link");
    ASSERT_TRUE(p.enabled());
    p.Phase("link", ProgressState::Counting("issues"));
    ProgressState s = ProgressState::Counting("issues");
    s.total = 100;
    for (int i = 1; i <= 3; ++i) {
      s.done = i * 10;
      std::this_thread::sleep_for(std::chrono::milliseconds(120));  // past the redraw interval
      p.Update(s);
    }
    p.Finish();
  }
  const std::string out = err.str();
  EXPECT_EQ(out.rfind("\rlink  0 issues", 0), 0u) << out;
  EXPECT_NE(out.find("\rlink  30/100 issues  30%"), std::string::npos) << out;
  EXPECT_GE(Count(out, "\x1b[K"), 4u) << out;  // every draw erases the rest of the old line
  EXPECT_EQ(out.find('\n'), std::string::npos) << out;  // in place: never a new line
  EXPECT_EQ(out.substr(out.size() - 4), "\r\x1b[K");    // erased at the end
}

TEST(ProgressTest, NothingOnAPipeOrWhenQuiet) {
  for (auto [terminal, mode] :
       {std::pair{false, ProgressMode::kAuto}, std::pair{true, ProgressMode::kQuiet},
        std::pair{false, ProgressMode::kQuiet}}) {
    std::ostringstream err;
    Progress p(&err, terminal, mode, "import");
    EXPECT_FALSE(p.enabled());
    p.Phase("import", ProgressState::Counting("records"));
    p.Update(ProgressState::Counting("records"));
    p.Finish();
    EXPECT_EQ(err.str(), "");
  }
}

TEST(ProgressTest, ForcedOnALogWritesWholeLinesAndEachPhasesLastState) {
  std::ostringstream err;
  Progress p(&err, /*terminal=*/false, ProgressMode::kForce, "link");
  p.Phase("link", ProgressState::Counting("issues"));
  ProgressState s = ProgressState::Counting("issues");
  s.total = 70;
  s.done = 35;
  p.Update(s);  // within the second: held back
  s.done = 70;
  p.Update(s);
  p.Phase("index", ProgressState::Note("rebuilding the ask index"));
  p.Finish();
  const std::string out = err.str();
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
  EXPECT_EQ(out.find("\x1b"), std::string::npos) << out;
  EXPECT_NE(out.find("link  70/70 issues  100%"), std::string::npos) << out;
  EXPECT_EQ(out.find("35/70"), std::string::npos) << out;
  EXPECT_NE(out.find("index  0:00  rebuilding the ask index\n"), std::string::npos) << out;
  EXPECT_EQ(Count(out, "rebuilding"), 1u) << out;
}

// The commands on a pseudo-terminal (script(1) runs them on one): import,
// then the relink and index rebuild it runs, are drawn in place; the output
// on stdout starts on a clean line. On a pipe stderr stays empty; --quiet
// keeps the terminal clean; --progress writes lines to a pipe.
class ProgressCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (RunCommand("command -v script", nullptr) != 0)
      GTEST_SKIP() << "script (util-linux) not installed";
  }
  // Runs `args` under script on a pty; its output (stdout and stderr both, as the terminal shows
  // them).
  std::string OnTerminal(const std::string& args) {
    std::string out;
    EXPECT_EQ(RunCommand("script -qec \"" + BinaryPath() + " --db " + db_.path() + " " + args +
                             "\" /dev/null",
                         &out),
              0);
    return out;
  }
  fixgraph::testing::TempDir db_;
};

TEST_F(ProgressCliTest, ImportAndLinkRedrawOnATerminal) {
  std::string out = OnTerminal("import " + SourceDir() + "/data/demo");
  EXPECT_NE(out.find("\rimport "), std::string::npos) << out;
  EXPECT_GE(Count(out, "\rimport "), 2u) << out;  // redrawn, not printed once
  EXPECT_NE(out.find("541/541 records  100%"), std::string::npos) << out;
  EXPECT_NE(out.find("\rlink "), std::string::npos) << out;
  EXPECT_NE(out.find("\rindex "), std::string::npos) << out;
  // The line is erased before the report: "imported" starts a clean line.
  EXPECT_NE(out.find("\r\x1b[Kimported "), std::string::npos) << out;
  out = OnTerminal("link");
  EXPECT_NE(out.find("\rlink  "), std::string::npos) << out;
  EXPECT_NE(out.find("\r\x1b[Klinked "), std::string::npos) << out;
  out = OnTerminal("--quiet link");
  EXPECT_EQ(out.find('\r' + std::string("link")), std::string::npos) << out;
  EXPECT_EQ(out.find("\x1b[K"), std::string::npos) << out;
  out = OnTerminal("link --quiet");
  EXPECT_EQ(out.find("\x1b[K"), std::string::npos) << out;
}

TEST_F(ProgressCliTest, APipeGetsNothingUnlessForced) {
  std::string out, err;
  ASSERT_EQ(
      RunCommand(BinaryPath() + " --db " + db_.path() + " import " + SourceDir() + "/data/demo",
                 &out, &err),
      0);
  EXPECT_EQ(err, "");
  ASSERT_EQ(RunCommand(BinaryPath() + " --db " + db_.path() + " link", &out, &err), 0);
  EXPECT_EQ(err, "");
  ASSERT_EQ(RunCommand(BinaryPath() + " --db " + db_.path() + " link --progress", &out, &err), 0);
  EXPECT_EQ(err.find('\r'), std::string::npos) << err;
  EXPECT_NE(err.find("link  70/70 issues  100%"), std::string::npos) << err;
  EXPECT_NE(err.find("index  "), std::string::npos) << err;
}

// A dump in a tar file: the line says the archive's index is being read
// before the records are counted.
TEST_F(ProgressCliTest, ATarFileSaysItsIndexIsRead) {
  if (RunCommand("tar --version", nullptr) != 0) GTEST_SKIP() << "no tar";
  fixgraph::testing::TempDir dir;
  std::string tar = dir / "demo.tar";
  ASSERT_EQ(RunCommand("tar -cf " + tar + " -C " + SourceDir() + "/data/demo .", nullptr), 0);
  std::string out, err;
  ASSERT_EQ(RunCommand(BinaryPath() + " --db " + db_.path() + " import --no-link --progress " + tar,
                       &out, &err),
            0)
      << err;
  EXPECT_NE(err.find("import  0:00  reading the index of " + tar + "\n"), std::string::npos) << err;
  EXPECT_NE(err.find("541/541 records  100%"), std::string::npos) << err;
}

// docs import counts the nodes it writes; digest the repositories it reads.
TEST_F(ProgressCliTest, DocsImportAndDigestCount) {
  std::string out, err;
  const std::string fg = BinaryPath() + " --db " + db_.path();
  ASSERT_EQ(RunCommand(fg + " --quiet import " + SourceDir() + "/data/demo", &out, &err), 0);
  ASSERT_EQ(RunCommand(fg + " docs import --progress " + SourceDir() + "/data/kg", &out, &err), 0)
      << err;
  // The last line of the phase: every node written, as many as the report says.
  size_t nodes = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "imported %zu doc nodes", &nodes), 1) << out;
  EXPECT_NE(err.find("docs import  " + std::to_string(nodes) + "/" + std::to_string(nodes) +
                     " nodes  100%"),
            std::string::npos)
      << err;
  ASSERT_EQ(RunCommand(fg + " digest --progress", &out, &err), 0) << err;
  EXPECT_NE(err.find("digest  18/18 repositories  100%"), std::string::npos) << err;
  out = OnTerminal("docs import " + SourceDir() + "/data/kg");
  EXPECT_NE(out.find("\rdocs import "), std::string::npos) << out;
  EXPECT_NE(out.find("\r\x1b[Kimported "), std::string::npos) << out;
}

}  // namespace
}  // namespace fixgraph::cli
