// The HTTP client and sync against hostile loopback servers (issue 21): a
// redirect to another host must not carry the token; endless, oversized,
// gzip-bomb and 100,000-deep bodies are errors, not a crash or unbounded
// memory. Two servers on two loopback ports stand for two hosts.
#include "testutil/testutil.h"

#include "fixgraph/engine/store.h"
#include "fixgraph/ingest/http.h"
#include "fixgraph/ingest/sync.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph::ingest {
namespace {

using fixgraph::testing::TempDir;

struct Seen {
  std::string path;
  std::string private_token;
  std::string authorization;
  std::string query;
};

// One loopback server on its own port, recording what arrives.
class Host {
 public:
  Host() {
    server_.set_logger([this](const httplib::Request& req, const httplib::Response&) {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back({req.path, req.get_header_value("PRIVATE-TOKEN"),
                       req.get_header_value("Authorization"), req.params.empty() ? "" : "q"});
      for (const auto& [k, v] : req.params)
        if (k == "access_token") seen_.back().query = v;
    });
  }
  ~Host() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  httplib::Server& server() { return server_; }
  void Start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::string Base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // What arrived (the logger runs after the response is sent: waits up to 2 s
  // for at least `want` requests).
  std::vector<Seen> Requests(std::size_t want = 0) {
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (seen_.size() >= want) return seen_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<Seen> seen_;
};

std::unique_ptr<HttpClient> Client(std::size_t max_body = std::size_t{64} << 20) {
  HttpClientOptions o;
  o.timeout_ms = 10000;
  o.max_body_bytes = max_body;
  return NewCurlHttpClient(o);
}

// Regression: curl followed a 301 to another host with the PRIVATE-TOKEN header.
TEST(HttpHostile, RedirectToAnotherHostDoesNotCarryTheToken) {
  Host a, b;
  b.server().Get("/steal", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("[]", "application/json");
  });
  b.Start();
  std::string b_base = b.Base();
  a.server().Get("/away", [&](const httplib::Request&, httplib::Response& res) {
    res.set_redirect(b_base + "/steal", 301);
  });
  a.server().Get("/here", [&](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("/final", 302);
  });
  a.server().Get("/final", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"ok\": true}", "application/json");
  });
  a.Start();
  auto client = Client();

  // With a token header: refused, and host B sees nothing.
  HttpRequest req{a.Base() + "/away", {{"PRIVATE-TOKEN", "sekrit-42"}}};
  auto r = client->Get(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kFailedPrecondition) << r.status().ToString();
  EXPECT_NE(r.status().message().find("redirects to " + b_base + "/steal"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(r.status().message().find("sekrit-42"), std::string::npos);
  // With the token in the query (Gitee's access_token): refused too.
  r = client->Get(HttpRequest{a.Base() + "/away?access_token=sekrit-43", {}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("sekrit-43"), std::string::npos) << r.status().message();
  EXPECT_TRUE(b.Requests().empty());

  // Without credentials the redirect is harmless and followed.
  r = client->Get(HttpRequest{a.Base() + "/away", {}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  ASSERT_EQ(b.Requests(1).size(), 1u);
  EXPECT_EQ(b.Requests()[0].private_token, "");

  // A redirect on the same host keeps the token.
  r = client->Get(HttpRequest{a.Base() + "/here", {{"PRIVATE-TOKEN", "sekrit-42"}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, "{\"ok\": true}");
  auto seen = a.Requests(5);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().path, "/final");
  EXPECT_EQ(seen.back().private_token, "sekrit-42");
}

TEST(HttpHostile, RedirectLoopStops) {
  Host a;
  a.server().Get("/loop", [](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("/loop", 302);
  });
  a.Start();
  auto r = Client()->Get(HttpRequest{a.Base() + "/loop", {}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than 5 redirects"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(a.Requests(6).size(), 6u);
}

std::string Gzip(const std::string& data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Regression: no cap on the body: an endless body or a gzip bomb grew memory
// to gigabytes. Now each stops at max_body_bytes with a clear error.
TEST(HttpHostile, BodyCapsHoldForLargeEndlessAndCompressedBodies) {
  // Declared before the server: its worker may still be in the endless
  // provider when the test body ends, and the server is stopped first.
  std::atomic<std::size_t> endless_sent{0};
  Host a;
  a.server().Get("/big", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(3 << 20, ' ') + "[]", "application/json");
  });
  a.server().Get("/endless", [&](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [&](size_t, httplib::DataSink& sink) {
      static const std::string chunk(64 << 10, ' ');
      endless_sent += chunk.size();
      return sink.write(chunk.data(), chunk.size());
    });
  });
  // 256 MiB of spaces gzip to about 250 KB.
  static const std::string bomb = Gzip(std::string(256 << 20, ' '));
  a.server().Get("/bomb", [&](const httplib::Request&, httplib::Response& res) {
    res.set_header("Content-Encoding", "gzip");
    res.set_content(bomb, "application/octet-stream");  // not compressed again
  });
  a.Start();
  auto client = Client(1 << 20);
  for (const char* path : {"/big", "/endless", "/bomb"}) {
    auto r = client->Get(HttpRequest{a.Base() + path, {}});
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.status().code(), Status::Code::kUnavailable) << path;
    EXPECT_NE(r.status().message().find("response body larger than 1048576 bytes"),
              std::string::npos)
        << path << ": " << r.status().message();
  }
  // The endless body was cut off near the cap, not read on.
  EXPECT_LT(endless_sent.load(), std::size_t{64} << 20);
  // Under the cap all is well.
  auto r = Client(4 << 20)->Get(HttpRequest{a.Base() + "/big", {}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body.size(), (3u << 20) + 2);
}

SyncOptions Options(const std::string& base) {
  SyncOptions o;
  o.api_base = base;
  o.requests_per_minute = 0;
  o.backoff_ms = 5;
  o.max_backoff_ms = 20;
  o.max_attempts = 2;
  o.timeout_ms = 10000;
  o.token_source = [](const std::string& n) {
    return n == "GITCODE_TOKEN" ? std::string("sekrit-token-7") : std::string();
  };
  return o;
}

// Regression: sync reported success after the API base redirected to another
// host, which received the PRIVATE-TOKEN header on every request.
TEST(HttpHostile, SyncRefusesARedirectToAnotherHost) {
  Host a, b;
  b.server().Get(".*", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{}", "application/json");
  });
  b.Start();
  std::string b_base = b.Base();
  a.server().Get(".*", [&](const httplib::Request& req, httplib::Response& res) {
    res.set_redirect(b_base + req.path, 301);
  });
  a.Start();
  TempDir dir;
  auto store = Store::Open(dir / "db", StoreOptions());
  ASSERT_TRUE(store.ok());
  Status s = SyncRepository(store->get(), RepoRef{Platform::kGitCode, "Ascend", "a"},
                            Options(a.Base()), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("redirects to"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("sekrit-token-7"), std::string::npos) << s.message();
  EXPECT_TRUE(b.Requests().empty());
  EXPECT_EQ(a.Requests(1).size(), 1u);  // not retried
}

// Regression: a 100,000-deep JSON body crashed sync (SIGSEGV); a body with
// 1e400 is refused the same way.
TEST(HttpHostile, SyncRefusesDeepAndOutOfRangeBodies) {
  for (std::string body : {std::string(100000, '[') + std::string(100000, ']'),
                           std::string(R"({"id": 1e400, "full_name": "Ascend/a"})")}) {
    Host a;
    a.server().Get(".*", [&](const httplib::Request&, httplib::Response& res) {
      res.set_content(body, "application/json");
    });
    a.Start();
    TempDir dir;
    auto store = Store::Open(dir / "db", StoreOptions());
    ASSERT_TRUE(store.ok());
    Status s = SyncRepository(store->get(), RepoRef{Platform::kGitCode, "Ascend", "a"},
                              Options(a.Base()), nullptr);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("not valid JSON"), std::string::npos) << s.message();
    EXPECT_TRUE(s.message().find("nest too deep") != std::string::npos ||
                s.message().find("number out of range") != std::string::npos)
        << s.message();
  }
}

}  // namespace
}  // namespace fixgraph::ingest
