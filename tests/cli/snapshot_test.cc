// fixgraph snapshot and serve --snapshots, end to end with the built binary:
// a snapshot answers alone as its source did, failures leave nothing behind,
// and a server swapping snapshots under load from several threads answers
// every request from the old or the new data, then closes the old snapshot.
#include "serve_process.h"
#include "testutil/testutil.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph {
namespace {

namespace fs = std::filesystem;
using fixgraph::testing::PartialDemo;
using fixgraph::testing::ReadFile;
using fixgraph::testing::RunCommand;
using fixgraph::testing::RunFixgraph;
using fixgraph::testing::ServeProcess;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

// Repositories of data/demo in the first import; the rest come later.
const std::vector<std::string> kFirstRepos = {
    "gitcode/Ascend/MindSpeed-Ops", "gitcode/mindspore/mindspore", "gitee/mindspore/mindformers"};
const char* kQueries[] = {"error", "HCCL timeout", "精度", "out of memory",
                          "Segmentation fault 910B"};

std::string Cli(const std::string& db, const std::string& args, int want = 0) {
  std::string out, err;
  int rc = RunFixgraph(db, args, &out, &err);
  EXPECT_EQ(rc, want) << args << ": " << err << out;
  return out;
}

int CliRc(const std::string& db, const std::string& args, std::string* out, std::string* err) {
  return RunFixgraph(db, args, out, err);
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// The first dump of the tests: kFirstRepos of data/demo.
std::string FirstDump(const TempDir& dir) { return PartialDemo(dir, "first", kFirstRepos); }

// Folder entries whose name starts with `prefix`.
std::vector<std::string> EntriesStartingWith(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0) found.push_back(name);
  }
  return found;
}

// Every answer the readers give: ask, docs search, show of the first hit, stats.
std::map<std::string, std::string> ReaderAnswers(const std::string& db) {
  std::map<std::string, std::string> a;
  for (const char* q : kQueries) {
    a[std::string("ask ") + q] = Cli(db, "ask --json --limit 5 " + Quote(q));
    a[std::string("docs ") + q] = Cli(db, "docs search --json " + Quote(q));
  }
  json hits = json::parse(a["ask error"])["hits"];
  if (!hits.empty()) {
    std::string ref = hits[0]["issue"];
    a["show " + ref] = Cli(db, "show --json " + Quote(ref));
  }
  a["stats"] = Cli(db, "stats --json");
  a["links"] = Cli(db, "links --json");
  return a;
}

class SnapshotTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    std::string db = *dir_ / "writer";
    Cli(db, "--quiet import " + FirstDump(*dir_));
    Cli(db, "--quiet docs import " + SourceDir() + "/data/kg");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string Writer() { return *dir_ / "writer"; }
  static TempDir* dir_;
};
TempDir* SnapshotTest::dir_ = nullptr;

TEST_F(SnapshotTest, AnswersAloneAsItsSourceDid) {
  TempDir out;
  std::string snap = out / "snaps/s1";
  std::string printed = Cli(Writer(), "snapshot " + snap);
  EXPECT_NE(printed.find("written (store, index-issues, index-docs)"), std::string::npos)
      << printed;
  EXPECT_TRUE(fs::exists(snap + "/store/CURRENT"));
  EXPECT_TRUE(fs::exists(snap + "/index-issues/iamglass"));
  EXPECT_TRUE(fs::exists(snap + "/index-docs/iamglass"));
  EXPECT_TRUE(EntriesStartingWith(out / "snaps", ".s1.partial").empty());
  auto source = ReaderAnswers(Writer());
  ASSERT_GT(json::parse(source["ask error"])["hits"].size(), 0u);
  ASSERT_GT(json::parse(source["docs HCCL timeout"])["docs"].size(), 0u);
  // A copy elsewhere, the writer's folder gone: the snapshot stands alone.
  std::string moved = out / "moved";
  ASSERT_EQ(RunCommand("cp -a " + snap + " " + moved, nullptr), 0);
  auto alone = ReaderAnswers(moved);
  for (const auto& [what, answer] : source) EXPECT_EQ(alone[what], answer) << what;
  // The writer goes on; the snapshot keeps the data as it was.
  Cli(Writer(), "--quiet import " + SourceDir() + "/data/demo");
  auto later = ReaderAnswers(snap);
  for (const auto& [what, answer] : source) EXPECT_EQ(later[what], answer) << what;
  EXPECT_NE(ReaderAnswers(Writer())["stats"], source["stats"]);
}

TEST_F(SnapshotTest, FinishesPendingWorkFirst) {
  TempDir dir;
  std::string db = dir / "db";
  Cli(db, "import --no-link " + FirstDump(dir));
  json before = json::parse(Cli(db, "stats --json"));
  ASSERT_GT(before["pending"]["relink"].get<int>(), 0) << before.dump();
  std::string snap = dir / "s";
  std::string out, err;
  ASSERT_EQ(CliRc(db, "snapshot " + snap, &out, &err), 0) << err;
  EXPECT_NE(err.find("finished the work an interrupted run left pending"), std::string::npos)
      << err;
  json after = json::parse(Cli(snap, "stats --json"));
  EXPECT_EQ(after["pending"], json::parse(Cli(db, "stats --json"))["pending"]);
  EXPECT_EQ(after["pending"]["relink"], 0) << after.dump();
  EXPECT_EQ(after["pending"]["reindex"], 0) << after.dump();
  EXPECT_EQ(Cli(snap, "ask --json error"), Cli(db, "ask --json error"));
  EXPECT_EQ(Cli(snap, "links --json"), Cli(db, "links --json"));
  EXPECT_FALSE(Cli(snap, "links --json").empty());
}

TEST_F(SnapshotTest, RefusesAnInterruptedImport) {
  TempDir dir;
  std::string db = dir / "db";
  // End the import at its 3rd disk write: after the import marker, before the data.
  std::string out, err;
  int rc = RunCommand("FIXGRAPH_CRASH_AT=3 " + fixgraph::testing::BinaryPath() + " --db " + db +
                          " --quiet import " + FirstDump(dir),
                      &out, &err);
  ASSERT_NE(rc, 0);
  std::string stats = Cli(db, "stats");
  ASSERT_NE(stats.find("was interrupted"), std::string::npos) << stats;
  rc = CliRc(db, "snapshot " + (dir / "s"), &out, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("was interrupted; run the import again"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "s"));
  EXPECT_TRUE(EntriesStartingWith(dir.path(), ".s.partial").empty());
}

TEST_F(SnapshotTest, FailuresNameTheProblemAndLeaveNothing) {
  TempDir dir;
  std::string out, err;
  // An existing, non-empty folder is never written over.
  WriteFile(dir / "full/keep.txt", "mine");
  EXPECT_EQ(CliRc(Writer(), "snapshot " + (dir / "full"), &out, &err), 1);
  EXPECT_NE(err.find("exists and is not empty"), std::string::npos) << err;
  EXPECT_EQ(ReadFile(dir / "full/keep.txt"), "mine");
  // A file where the folder would go.
  WriteFile(dir / "afile", "x");
  EXPECT_EQ(CliRc(Writer(), "snapshot " + (dir / "afile"), &out, &err), 1);
  EXPECT_NE(err.find("exists and is not a folder"), std::string::npos) << err;
  // A place that cannot be written (its parent is a file).
  EXPECT_EQ(CliRc(Writer(), "snapshot " + (dir / "afile/s"), &out, &err), 1);
  EXPECT_NE(err.find("cannot create the folder"), std::string::npos) << err;
  // No store at --db.
  EXPECT_EQ(CliRc(dir / "nothing", "snapshot " + (dir / "s"), &out, &err), 1);
  EXPECT_NE(err.find("no fixgraph store"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "s"));
  // Inside the data directory.
  EXPECT_EQ(CliRc(Writer(), "snapshot " + Writer() + "/snap", &out, &err), 1);
  EXPECT_NE(err.find("inside the data directory"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(Writer() + "/snap"));
  // Missing argument: a usage error.
  EXPECT_EQ(CliRc(Writer(), "snapshot", &out, &err), 2);
  EXPECT_TRUE(EntriesStartingWith(dir.path(), ".").empty());
  // An empty folder is fine.
  fs::create_directories(dir / "empty");
  EXPECT_EQ(CliRc(Writer(), "snapshot " + (dir / "empty"), &out, &err), 0) << err;
  EXPECT_TRUE(fs::exists(dir / "empty/store/CURRENT"));
}

TEST_F(SnapshotTest, PublishPointsCurrentAtTheNewSnapshot) {
  TempDir dir;
  std::string out, err;
  ASSERT_EQ(CliRc(Writer(), "snapshot --publish " + (dir / "a"), &out, &err), 0) << err;
  EXPECT_NE(out.find("-> a"), std::string::npos) << out;
  EXPECT_EQ(fs::read_symlink(dir / "current"), "a");
  ASSERT_EQ(CliRc(Writer(), "snapshot --publish " + (dir / "b"), &out, &err), 0) << err;
  EXPECT_EQ(fs::read_symlink(dir / "current"), "b");
  EXPECT_TRUE(fs::exists(dir / "a/store/CURRENT"));  // the old one stays for its readers
  // A real folder named current is not replaced.
  TempDir other;
  fs::create_directories(other / "current");
  EXPECT_EQ(CliRc(Writer(), "snapshot --publish " + (other / "c"), &out, &err), 1);
  EXPECT_NE(err.find("is not a symbolic link"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_directory(other / "current"));
}

// --- serve --snapshots ---------------------------------------------------------

// Points <root>/current at `name` in one step, as `snapshot --publish` does.
void Flip(const std::string& root, const std::string& name) {
  fs::remove(root + "/.flip");
  fs::create_symlink(name, root + "/.flip");
  fs::rename(root + "/.flip", root + "/current");
}

json Health(httplib::Client& c) {
  auto r = c.Get("/healthz");
  if (!r || r->status != 200) return json();
  return json::parse(r->body);
}

// Waits until /healthz satisfies `ok` (up to 10 s).
bool WaitHealth(httplib::Client& c, const std::function<bool(const json&)>& ok) {
  for (int i = 0; i < 200; ++i) {
    json h = Health(c);
    if (!h.is_null() && ok(h)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// The files of `dir` the process `pid` holds open.
int OpenFilesUnder(pid_t pid, const std::string& dir) {
  int n = 0;
  std::error_code ec;
  std::string prefix = fs::canonical(dir).string() + "/";
  for (fs::directory_iterator it("/proc/" + std::to_string(pid) + "/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code rl;
    std::string target = fs::read_symlink(it->path(), rl).string();
    if (!rl && target.rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

class SnapshotServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::make_unique<TempDir>();
    db_ = *root_ / "writer";
    Cli(db_, "--quiet import " + FirstDump(*root_));
    Cli(db_, "--quiet docs import " + SourceDir() + "/data/kg");
    Cli(db_, "snapshot --publish " + Root() + "/s1");
    Cli(db_, "--quiet import " + SourceDir() + "/data/demo");
    Cli(db_, "snapshot " + Root() + "/s2");
  }
  std::string Root() const { return *root_ / "snaps"; }
  std::unique_ptr<TempDir> root_;
  std::string db_;
};

TEST_F(SnapshotServeTest, SwapsUnderLoadWithoutLosingARequest) {
  ServeProcess server(db_, {"--snapshots", Root(), "--snapshot-check", "0", "--threads", "4"});
  ASSERT_GT(server.port(), 0) << server.log();
  EXPECT_NE(server.log().find("serving snapshot " + fs::canonical(Root() + "/s1").string()),
            std::string::npos)
      << server.log();
  httplib::Client c("127.0.0.1", server.port());
  json h = Health(c);
  ASSERT_FALSE(h.is_null());
  EXPECT_EQ(h["snapshots"]["swaps"], 0);

  std::vector<std::string> paths;
  for (const char* q : kQueries)
    paths.push_back("/api/v1/ask?q=" + httplib::detail::encode_query_param(q));
  paths.push_back("/api/v1/stats");
  std::string first_hit = json::parse(Cli(Root() + "/s1", "ask --json error"))["hits"][0]["issue"];
  paths.push_back("/api/v1/show?ref=" + httplib::detail::encode_query_param(first_hit));

  // The answers of s1, then of s2, from the server itself.
  auto answers = [&]() {
    std::vector<std::string> out;
    for (const std::string& p : paths) {
      auto r = c.Get(p.c_str());
      EXPECT_TRUE(r && r->status == 200) << p;
      out.push_back(r ? r->body : "");
    }
    return out;
  };
  std::vector<std::string> old_answers = answers();
  // They are the CLI's answers on the snapshot.
  EXPECT_EQ(old_answers[0], Cli(Root() + "/s1", "ask --json --limit 5 error"));
  Flip(Root(), "s2");
  ASSERT_EQ(kill(server.pid(), SIGHUP), 0);
  ASSERT_TRUE(WaitHealth(c, [](const json& j) { return j["snapshots"]["swaps"] == 1; }))
      << server.log();
  std::vector<std::string> new_answers = answers();
  EXPECT_EQ(new_answers[0], Cli(Root() + "/s2", "ask --json --limit 5 error"));
  size_t differing = 0;
  for (size_t i = 0; i < paths.size(); ++i) differing += old_answers[i] != new_answers[i];
  ASSERT_GE(differing, 2u) << "the two snapshots must answer differently";

  // Hammer from several threads while the snapshot is swapped back and forth.
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, failed{0}, saw_old{0}, saw_new{0};
  std::vector<std::string> failures;
  std::mutex failures_mu;
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client client("127.0.0.1", server.port());
      for (size_t i = t; !stop.load(); ++i) {
        size_t k = i % paths.size();
        auto r = client.Get(paths[k].c_str());
        bool is_old = r && r->status == 200 && r->body == old_answers[k];
        bool is_new = r && r->status == 200 && r->body == new_answers[k];
        if (is_old || is_new) {
          ++ok;
          if (old_answers[k] != new_answers[k]) ++(is_old ? saw_old : saw_new);
        } else {
          ++failed;
          std::lock_guard<std::mutex> lock(failures_mu);
          if (failures.size() < 5)
            failures.push_back(paths[k] + ": " +
                               (r ? std::to_string(r->status) + " " + r->body.substr(0, 200)
                                  : "no answer (" + httplib::to_string(r.error()) + ")"));
        }
      }
    });
  }
  const int kSwaps = 6;
  for (int n = 0; n < kSwaps; ++n) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    Flip(Root(), n % 2 == 0 ? "s1" : "s2");
    ASSERT_EQ(kill(server.pid(), SIGHUP), 0);
    EXPECT_TRUE(WaitHealth(c, [n](const json& j) { return j["snapshots"]["swaps"] == n + 2; }))
        << server.log();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  stop = true;
  for (auto& t : clients) t.join();
  EXPECT_EQ(failed.load(), 0) << (failures.empty() ? "" : failures[0]);
  std::fprintf(stderr, "requests answered during %d swaps: %d (old %d, new %d)\n", kSwaps,
               ok.load(), saw_old.load(), saw_new.load());
  EXPECT_GT(ok.load(), 50);
  EXPECT_GT(saw_old.load(), 0);
  EXPECT_GT(saw_new.load(), 0);
  // After the last swap (to s2), s1 is closed once no request holds it.
  ASSERT_TRUE(WaitHealth(c, [](const json& j) { return j["snapshots"]["open"] == 1; }))
      << Health(c).dump();
  EXPECT_EQ(Health(c)["snapshots"]["serving"], fs::canonical(Root() + "/s2").string());
  EXPECT_EQ(OpenFilesUnder(server.pid(), Root() + "/s1"), 0);
  EXPECT_GT(OpenFilesUnder(server.pid(), Root() + "/s2"), 0);
  EXPECT_NE(server.log().find("closed snapshot " + fs::canonical(Root() + "/s1").string()),
            std::string::npos)
      << server.log();
  EXPECT_EQ(server.Stop(), 0);
}

TEST_F(SnapshotServeTest, FollowsCurrentByPollingAndKeepsAGoodSnapshot) {
  ServeProcess server(db_, {"--snapshots", Root(), "--snapshot-check", "1"});
  ASSERT_GT(server.port(), 0) << server.log();
  httplib::Client c("127.0.0.1", server.port());
  std::string s1_stats = Cli(Root() + "/s1", "stats --json");
  auto r = c.Get("/api/v1/stats");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, s1_stats);
  // Without a signal: the next look at current swaps.
  Flip(Root(), "s2");
  ASSERT_TRUE(WaitHealth(c, [](const json& j) { return j["snapshots"]["swaps"] == 1; }))
      << server.log();
  r = c.Get("/api/v1/stats");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, Cli(Root() + "/s2", "stats --json"));
  // current names something that is no snapshot: logged, s2 keeps serving.
  fs::create_directories(Root() + "/broken");
  Flip(Root(), "broken");
  for (int i = 0; i < 100 && server.log().find("still serving") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_NE(server.log().find("no fixgraph store"), std::string::npos) << server.log();
  r = c.Get("/api/v1/stats");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, Cli(Root() + "/s2", "stats --json"));
  EXPECT_EQ(Health(c)["snapshots"]["swaps"], 1);
}

TEST_F(SnapshotServeTest, RefusesToStartWithoutASnapshot) {
  TempDir empty;
  std::string out, err;
  int rc = RunFixgraph(db_, "serve --listen 127.0.0.1:0 --snapshots " + empty.path(), &out, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("does not name a snapshot"), std::string::npos) << err;
}

}  // namespace
}  // namespace fixgraph
