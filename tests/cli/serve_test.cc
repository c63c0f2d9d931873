// fixgraph serve, end to end: the built binary serves the imported demo on a
// free loopback port; a cpp-httplib client checks that every endpoint returns
// the CLI's bytes, that bad requests get 4xx JSON naming the problem, the
// token, the limits, concurrency, and that writes by another process show up.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "serve_process.h"
#include "testutil/testutil.h"

namespace fixgraph {
namespace {

using fixgraph::testing::BinaryPath;
using fixgraph::testing::ImportDemo;
using fixgraph::testing::RunCommand;
using fixgraph::testing::RunFixgraph;
using fixgraph::testing::ServeProcess;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

std::string Cli(const std::string& db, const std::string& args) {
  std::string out, err;
  int rc = RunFixgraph(db, args, &out, &err);
  EXPECT_EQ(rc, 0) << args << ": " << err;
  return out;
}

// A dump holding some repositories of data/demo ("gitcode/Ascend/FlashGen").
std::string PartialDemo(const TempDir& dir, const std::string& name,
                        const std::vector<std::string>& repos) {
  std::string root = dir / name;
  for (const std::string& r : repos) {
    std::string dst = root + "/" + r;
    EXPECT_EQ(RunCommand("mkdir -p " + dst + " && cp -r " + SourceDir() + "/data/demo/" + r +
                             "/. " + dst,
                         nullptr),
              0);
  }
  return root;
}

// The message of a JSON error answer ("" when the body is not one).
std::string ErrorMessage(const httplib::Result& r) {
  if (!r) return "";
  try {
    json j = json::parse(r->body);
    EXPECT_EQ(j["error"]["status"], r->status) << r->body;
    return j["error"]["message"];
  } catch (const std::exception&) {
    ADD_FAILURE() << "not a JSON error: " << r->body;
    return "";
  }
}

class ServeDemo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new TempDir();
    std::string err;
    ASSERT_EQ(ImportDemo(db_->path(), &err), 0) << err;
    server_ = new ServeProcess(db_->path());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete db_;
  }
  void SetUp() override {
    ASSERT_GT(server_->port(), 0) << server_->log();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(30, 0);
  }
  static std::string Db() { return db_->path(); }

  static TempDir* db_;
  static ServeProcess* server_;
  std::unique_ptr<httplib::Client> client_;
};
TempDir* ServeDemo::db_ = nullptr;
ServeProcess* ServeDemo::server_ = nullptr;

TEST_F(ServeDemo, HealthzAndStatsMatchTheCli) {
  auto r = client_->Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  json h = json::parse(r->body);
  EXPECT_EQ(h["status"], "ok");
  EXPECT_EQ(h["store"], true);

  r = client_->Get("/api/v1/stats");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->get_header_value("Content-Type").find("application/json"), std::string::npos);
  EXPECT_EQ(r->body, Cli(Db(), "stats --json"));
}

TEST_F(ServeDemo, ShowIsByteIdenticalToTheCli) {
  for (const std::string ref : {"gitcode:Ascend/MindSpeed-Ops#69", "gitcode:Ascend/MindSpeed-Ops!166",
                                "gitcode:Ascend/MindSpeed-Ops"}) {
    auto r = client_->Get("/api/v1/show?ref=" + httplib::detail::encode_query_param(ref));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << ref << ": " << r->body;
    EXPECT_EQ(r->body, Cli(Db(), "show --json '" + ref + "'")) << ref;
  }
  // The issue's document carries its links and the explanation.
  auto r = client_->Get("/api/v1/show?ref=gitcode%3AAscend%2FMindSpeed-Ops%2369");
  ASSERT_TRUE(r);
  json doc = json::parse(r->body);
  EXPECT_EQ(doc["kind"], "issue");
  EXPECT_TRUE(doc.contains("links"));
  EXPECT_TRUE(doc.contains("explanation"));
}

TEST_F(ServeDemo, LinksAreTheCliJsonLines) {
  auto r = client_->Get("/api/v1/links");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  std::string all = Cli(Db(), "links --json");
  EXPECT_EQ(r->body, all);
  EXPECT_GT(std::count(all.begin(), all.end(), '\n'), 10);
  r = client_->Get("/api/v1/links?repo=gitcode%3AAscend%2FMindSpeed-Ops");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  std::string one = Cli(Db(), "links --json --repo gitcode:Ascend/MindSpeed-Ops");
  EXPECT_EQ(r->body, one);
  EXPECT_LT(one.size(), all.size());
}

TEST_F(ServeDemo, AskGetAndPostAreTheCliAsk) {
  auto r = client_->Get("/api/v1/ask?q=catlass%20AttributeError%20pytest&limit=3");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->body, Cli(Db(), "ask --json --limit 3 'catlass AttributeError pytest'"));
  json doc = json::parse(r->body);
  ASSERT_FALSE(doc["hits"].empty());
  EXPECT_EQ(doc["hits"][0]["issue"], "gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_LE(doc["hits"].size(), 3u);

  json body{{"q", "catlass AttributeError pytest"}, {"limit", 3}};
  r = client_->Post("/api/v1/ask", body.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body), doc);

  r = client_->Get("/api/v1/ask?q=catlass%20AttributeError&repo=gitcode%3AAscend%2FFlashGen");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  for (const json& h : json::parse(r->body)["hits"])
    EXPECT_EQ(h["issue"].get<std::string>().rfind("gitcode:Ascend/FlashGen#", 0), 0u) << h.dump();

  // Nothing searchable is the client's mistake.
  r = client_->Get("/api/v1/ask?q=%20%21%21");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

TEST_F(ServeDemo, DigestIsWhatTheCliWrites) {
  const std::string query = "repo=gitcode%3AAscend%2FMindSpeed-Ops&until=2026-09-30";
  const std::string args = "digest --repo gitcode:Ascend/MindSpeed-Ops --until 2026-09-30";
  for (const std::string format : {"md", "json", "html"}) {
    auto r = client_->Get("/api/v1/digest?" + query + "&format=" + format);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->body, Cli(Db(), args + " --format " + format)) << format;
  }
  auto r = client_->Get("/api/v1/digest?" + query + "&format=json");
  EXPECT_NE(r->get_header_value("Content-Type").find("application/json"), std::string::npos);
  r = client_->Get("/api/v1/digest?format=pdf");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("pdf"), std::string::npos);
  r = client_->Get("/api/v1/digest?since=yesterday");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("yesterday"), std::string::npos);
  r = client_->Get("/api/v1/digest?repo=gitcode%3ANobody%2FNothing");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST_F(ServeDemo, BadRequestsGetJsonErrorsNamingTheProblem) {
  auto r = client_->Get("/api/v1/show");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("'ref'"), std::string::npos);

  r = client_->Get("/api/v1/show?ref=not-a-ref");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("not-a-ref"), std::string::npos);

  r = client_->Get("/api/v1/show?ref=gitcode%3AAscend%2FMindSpeed-Ops%2399999");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_FALSE(ErrorMessage(r).empty());

  r = client_->Get("/api/v1/stats?verbose=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("'verbose'"), std::string::npos);

  r = client_->Get("/api/v1/links?repo=nonsense");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("nonsense"), std::string::npos);

  r = client_->Get("/api/v1/links?repo=gitcode%3AAscend%2FNoSuchRepo");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);

  r = client_->Get("/api/v1/nothing-here");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(ErrorMessage(r).find("/api/v1/nothing-here"), std::string::npos);

  r = client_->Post("/api/v1/stats", "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_FALSE(ErrorMessage(r).empty());

  for (const std::string q : {"limit=0", "limit=abc", "limit=1000", "limit=-1"}) {
    r = client_->Get("/api/v1/ask?q=x&" + q);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << q;
    EXPECT_NE(ErrorMessage(r).find("limit"), std::string::npos) << q;
  }
  r = client_->Get("/api/v1/ask");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("'q'"), std::string::npos);
  r = client_->Get("/api/v1/ask?q=x&repo=bad");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("bad"), std::string::npos);

  r = client_->Post("/api/v1/ask", "{not json", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("JSON"), std::string::npos);
  r = client_->Post("/api/v1/ask", R"({"limit": 3})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("'q'"), std::string::npos);
  r = client_->Post("/api/v1/ask", R"({"q": "x", "bogus": 1})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("bogus"), std::string::npos);
  r = client_->Post("/api/v1/ask", R"({"q": "x", "limit": "ten"})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(ErrorMessage(r).find("limit"), std::string::npos);
  r = client_->Post("/api/v1/ask", "q=x", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);
}

TEST_F(ServeDemo, RequestSizeLimits) {
  // A body beyond --max-body (1 MiB) is refused before it is read.
  auto r = client_->Post("/api/v1/ask", std::string(2 << 20, 'x'), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  // Query text beyond 64 KiB is refused with a message giving the size.
  json body{{"q", std::string(70000, 'a')}};
  r = client_->Post("/api/v1/ask", body.dump(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(ErrorMessage(r).find("70000"), std::string::npos);
  // A URI beyond 8 KiB.
  r = client_->Get("/api/v1/ask?q=" + std::string(9000, 'a'));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 414);
}

TEST_F(ServeDemo, ManyConcurrentClients) {
  std::string expected = Cli(Db(), "show --json gitcode:Ascend/MindSpeed-Ops#69");
  std::atomic<int> ok{0}, bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", server_->port());
      for (int i = 0; i < 25; ++i) {
        auto r = (i + t) % 2 == 0 ? c.Get("/api/v1/show?ref=gitcode%3AAscend%2FMindSpeed-Ops%2369")
                                  : c.Get("/api/v1/stats");
        if (r && r->status == 200 && ((i + t) % 2 != 0 || r->body == expected)) ++ok;
        else ++bad;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 16 * 25);
  EXPECT_EQ(bad.load(), 0);
}

TEST_F(ServeDemo, ServesTheSearchPage) {
  auto r = client_->Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->get_header_value("Content-Type").find("text/html"), std::string::npos);
  EXPECT_NE(r->body.find("/api/v1/ask"), std::string::npos);
  EXPECT_NE(r->body.find("/api/v1/show"), std::string::npos);
}

TEST(Serve, TokenFromTheEnvironmentGuardsTheApi) {
  TempDir db;
  std::string out, err;
  std::string dump = PartialDemo(db, "dump", {"gitcode/Ascend/MindSpeed-Ops"});
  ASSERT_EQ(RunCommand(BinaryPath() + " --db " + db.path() + " import " + dump, &out, &err), 0)
      << err;
  const std::string token = "s3cret-token-value";
  ServeProcess server(db.path(), {}, {{"FIXGRAPH_SERVE_TOKEN", token}});
  ASSERT_GT(server.port(), 0) << server.log();
  httplib::Client c("127.0.0.1", server.port());
  auto r = c.Get("/api/v1/stats");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_NE(ErrorMessage(r).find("FIXGRAPH_SERVE_TOKEN"), std::string::npos);
  r = c.Get("/api/v1/stats", {{"Authorization", "Bearer wrong"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  r = c.Get("/api/v1/stats", {{"Authorization", "Bearer " + token}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(server.Stop(), 0);
  EXPECT_EQ(server.log().find(token), std::string::npos);
}

TEST(Serve, RefusesBadListenAndMissingStore) {
  TempDir db;
  std::string out, err;
  int rc = RunCommand(BinaryPath() + " --db " + db.path() + " serve --listen 127.0.0.1:99999", &out,
                      &err);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("99999"), std::string::npos) << err;
  rc = RunCommand("env -u FIXGRAPH_SERVE_TOKEN " + BinaryPath() + " --db " + db.path() +
                      " serve --listen 0.0.0.0:0",
                  &out, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("FIXGRAPH_SERVE_TOKEN"), std::string::npos) << err;
  rc = RunCommand(BinaryPath() + " --db " + db.path() + "/none serve --listen 127.0.0.1:0", &out,
                  &err);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("fixgraph: error:"), std::string::npos) << err;
}

// Another process imports while the server runs: the server keeps answering
// and picks the new data up without a restart.
TEST(Serve, SeesWritesOfAnotherProcess) {
  TempDir db;
  std::string out, err;
  std::string first = PartialDemo(db, "a", {"gitcode/Ascend/MindSpeed-Ops"});
  std::string second = PartialDemo(db, "b", {"gitcode/Ascend/FlashGen"});
  ASSERT_EQ(RunCommand(BinaryPath() + " --db " + db.path() + " import " + first, &out, &err), 0)
      << err;
  ServeProcess server(db.path());
  ASSERT_GT(server.port(), 0) << server.log();
  httplib::Client c("127.0.0.1", server.port());
  auto r = c.Get("/api/v1/stats");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["repositories"].size(), 1u);

  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, served{0};
  std::thread reader([&] {
    httplib::Client rc("127.0.0.1", server.port());
    while (!stop.load()) {
      auto rr = rc.Get("/api/v1/show?ref=gitcode%3AAscend%2FMindSpeed-Ops%2369");
      if (!rr || rr->status != 200) ++failures;
      else ++served;
    }
  });
  ASSERT_EQ(RunCommand(BinaryPath() + " --db " + db.path() + " import " + second, &out, &err), 0)
      << err;
  size_t repos = 0;
  for (int i = 0; i < 100 && repos != 2; ++i) {
    r = c.Get("/api/v1/stats");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200);
    repos = json::parse(r->body)["repositories"].size();
    if (repos != 2) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  stop.store(true);
  reader.join();
  EXPECT_EQ(repos, 2u);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(served.load(), 0);
  r = c.Get("/api/v1/show?ref=gitcode%3AAscend%2FFlashGen");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

}  // namespace
}  // namespace fixgraph
