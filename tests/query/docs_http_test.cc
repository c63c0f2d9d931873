// The KG service client against a hostile loopback server: response body
// caps (a body over the cap, an endless body) and JSON depth and number caps,
// the same as sync's API client (docs/reliability.md, "Hostile input").
#include "fixgraph/query/docs.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace fixgraph::query {
namespace {

// Answers every connection with Write(fd) after reading the request (head and
// Content-Length body), then closes it. One connection at a time.
class HostileServer {
 public:
  explicit HostileServer(std::function<void(int)> write) : write_(std::move(write)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 8);
    thread_ = std::thread([this] { Loop(); });
  }
  ~HostileServer() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Sends all of `data`; false once the peer has gone.
  static bool Send(int c, const std::string& data) {
    for (size_t sent = 0; sent < data.size();) {
      ssize_t n = send(c, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

 private:
  void Loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      std::string req;
      char buf[4096];
      size_t need = std::string::npos;
      while (need == std::string::npos || req.size() < need) {
        pollfd q{c, POLLIN, 0};
        if (poll(&q, 1, 2000) <= 0) break;
        ssize_t n = recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
        size_t head = req.find("\r\n\r\n");
        if (head != std::string::npos && need == std::string::npos) {
          size_t cl = req.find("Content-Length: ");
          need = head + 4 +
                 (cl != std::string::npos && cl < head ? std::stoul(req.substr(cl + 16)) : 0);
        }
      }
      write_(c);
      close(c);
    }
  }

  std::function<void(int)> write_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::string Head(int status, size_t length) {
  return "HTTP/1.1 " + std::to_string(status) +
         " X\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(length) +
         "\r\nConnection: close\r\n\r\n";
}

// A server that answers `status` with `body`.
std::function<void(int)> Answer(int status, std::string body) {
  return [status, body](int c) { HostileServer::Send(c, Head(status, body.size()) + body); };
}

StatusOr<std::vector<DocHit>> SearchAt(const HostileServer& server) {
  RemoteDocOptions o;
  o.url = server.Url();
  o.timeout_seconds = 20;
  o.max_retries = 0;
  auto src = OpenRemoteDocSource(o);
  if (!src.ok()) return src.status();
  return (*src)->Search("HCCL_BUFFSIZE", 3);
}

std::string Nested(size_t depth, const std::string& inner) {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

TEST(DocsHttpHostile, BodyOverTheCapIsRefused) {
  // 17 MiB of a valid answer: one result with a long snippet (the cap is 16 MiB).
  std::string body = R"({"results":[{"id":"a","title":"t","score":0.5,"snippet":")" +
                     std::string(size_t{17} << 20, 'x') + R"("}]})";
  HostileServer server(Answer(200, body));
  auto r = SearchAt(server);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(r.status().message().find("response body larger than 16777216 bytes"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("KG service " + server.Url()), std::string::npos)
      << r.status().message();
}

TEST(DocsHttpHostile, EndlessBodyStopsAtTheCap) {
  // No Content-Length: the body ends when the server closes, which it never does on its own.
  HostileServer server([](int c) {
    if (!HostileServer::Send(c,
                             "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             "Connection: close\r\n\r\n["))
      return;
    const std::string chunk(1 << 16, ' ');
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < until && HostileServer::Send(c, chunk)) {
    }
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = SearchAt(server);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("response body larger than"), std::string::npos)
      << r.status().message();
  EXPECT_LT(secs, 15);
}

TEST(DocsHttpHostile, DeeplyNestedAnswerIsAnError) {
  HostileServer server(Answer(200, R"({"results":)" + Nested(100000, "") + "}"));
  auto r = SearchAt(server);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kCorruption);
  EXPECT_NE(r.status().message().find("answer is not valid JSON (byte "), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("nest too deep"), std::string::npos) << r.status().message();
}

TEST(DocsHttpHostile, DeeplyNestedErrorDetailDoesNotCrash) {
  // FastAPI's error shape with a 100,000-deep "loc": the detail is read without
  // walking it (before: a stack overflow in dump()).
  HostileServer server(
      Answer(422, R"({"detail":[{"loc":[)" + Nested(100000, "1") + R"(],"msg":"bad"}]})"));
  auto r = SearchAt(server);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("refused the request (HTTP 422)"), std::string::npos)
      << r.status().message().substr(0, 300);
}

TEST(DocsHttpHostile, OutOfRangeNumberIsAnErrorNamingIt) {
  HostileServer server(Answer(200, R"({"results":[{"id":"a","title":"t","score":1e400}]})"));
  auto r = SearchAt(server);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("number out of range"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace fixgraph::query
