// The libcurl client (ingest/http_curl.cc) on its own, against a loopback
// server: what it sends and how it reports responses and failures. (Caps and
// redirects: http_hostile_test.cc.)
#include "fixgraph/engine/version.h"
#include "fixgraph/ingest/http.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>

namespace fixgraph::ingest {
namespace {

class Loopback {
 public:
  Loopback() {
    server_.Get("/ok", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.set_header("X-Total-Count", "42");
      res.set_header("Link", "<http://x/?page=2>; rel=\"next\"");
      res.set_content("[1,2,3]", "application/json");
    });
    server_.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_content("{\"message\":\"Not Found\"}", "application/json");
    });
    server_.Post("/echo", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.set_content(req.body, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Loopback() {
    server_.stop();
    thread_.join();
  }
  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  httplib::Request Last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  void Record(const httplib::Request& req) {
    std::lock_guard<std::mutex> lock(mu_);
    last_ = req;
  }
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  httplib::Request last_;
};

TEST(HttpCurl, GetReturnsStatusBodyAndLowerCasedHeaders) {
  Loopback server;
  auto client = NewCurlHttpClient(HttpClientOptions{});
  HttpRequest req;
  req.url = server.Url("/ok");
  req.headers = {{"PRIVATE-TOKEN", "t0k"}};
  auto r = client->Get(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "[1,2,3]");
  EXPECT_EQ(r->headers.at("x-total-count"), "42");
  EXPECT_EQ(r->Header("X-Total-Count"), "42");
  EXPECT_NE(r->Header("link").find("rel=\"next\""), std::string::npos);
  EXPECT_EQ(r->Header("absent"), "");
  httplib::Request seen = server.Last();
  EXPECT_EQ(seen.get_header_value("PRIVATE-TOKEN"), "t0k");
  EXPECT_EQ(seen.get_header_value("User-Agent").rfind(std::string("fixgraph/") + kVersion, 0), 0u)
      << seen.get_header_value("User-Agent");
}

TEST(HttpCurl, HttpErrorsAreResponsesNotFailures) {
  Loopback server;
  auto client = NewCurlHttpClient(HttpClientOptions{});
  HttpRequest req;
  req.url = server.Url("/missing");
  auto r = client->Get(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find("Not Found"), std::string::npos);
}

TEST(HttpCurl, PostSendsTheBodyAndItsHeaders) {
  Loopback server;
  auto client = NewCurlHttpClient(HttpClientOptions{});
  HttpRequest req;
  req.url = server.Url("/echo");
  req.headers = {{"Content-Type", "application/json"}};
  auto r = client->Post(req, "{\"query\":\"HCCL\"}");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "{\"query\":\"HCCL\"}");
  EXPECT_EQ(server.Last().get_header_value("Content-Type"), "application/json");
}

TEST(HttpCurl, RefusedConnectionNamesTheUrlWithoutItsToken) {
  int port;
  {
    Loopback closed;  // a port that was just free: nothing listens on it after this
    std::string u = closed.Url("");
    port = std::stoi(u.substr(u.rfind(':') + 1));
  }
  auto client = NewCurlHttpClient(HttpClientOptions{});
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/api/v5/repos?access_token=SECRET123";
  auto r = client->Get(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("SECRET123"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("127.0.0.1"), std::string::npos) << r.status().ToString();
}

TEST(HttpCurl, RedactAndEncode) {
  EXPECT_EQ(RedactUrl("https://gitee.com/api/v5/x?access_token=abc&page=2"),
            "https://gitee.com/api/v5/x?access_token=REDACTED&page=2");
  EXPECT_EQ(RedactUrl("https://h/x?page=1&private_token=zz"),
            "https://h/x?page=1&private_token=REDACTED");
  EXPECT_EQ(RedactUrl("https://h/x?page=1"), "https://h/x?page=1");
  EXPECT_EQ(UrlEncode("a b/中"), "a%20b%2F%E4%B8%AD");
  EXPECT_EQ(UrlEncode("A-z_0.9~"), "A-z_0.9~");
}

}  // namespace
}  // namespace fixgraph::ingest
