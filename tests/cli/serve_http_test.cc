// HardenedServer's accept loop (cli/serve_http.h) keeps accepting through
// what accept(2) asks a server to retry, and stops when told to; its workers
// send each answer in one piece and wait briefly for a connection's next
// request.
//
// accept() is interposed: this executable's definition comes before libc's
// (and a sanitizer's) for cpp-httplib's calls, and passes every call through
// unless a test asks it to abort the next connections, as the kernel reports
// a connection reset before it was taken (ECONNABORTED). send() is
// interposed too, to count the server's calls (the tests' own clients write
// with write()).
#include "../../cli/serve_http.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<int> g_abort_accepts{0};
std::atomic<int> g_sends{0};

}  // namespace

extern "C" ssize_t send(int fd, const void* buf, size_t n, int flags) {
  using Send = ssize_t (*)(int, const void*, size_t, int);
  static const auto real = reinterpret_cast<Send>(dlsym(RTLD_NEXT, "send"));
  g_sends.fetch_add(1);
  return real(fd, buf, n, flags);
}

extern "C" int accept(int fd, sockaddr* addr, socklen_t* len) {
  using Accept = int (*)(int, sockaddr*, socklen_t*);
  static const auto real = reinterpret_cast<Accept>(dlsym(RTLD_NEXT, "accept"));
  int got = real(fd, addr, len);
  if (got >= 0 && g_abort_accepts.load() > 0 && g_abort_accepts.fetch_sub(1) > 0) {
    ::close(got);
    errno = ECONNABORTED;
    return -1;
  }
  return got;
}

namespace fixgraph::cli {
namespace {

class AcceptLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    port_ = server_.Bind("127.0.0.1", 0);
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] {
      result_ = server_.Serve([this](const std::string& why) {
        std::lock_guard<std::mutex> lock(mu_);
        restarts_.push_back(why);
      });
    });
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!Healthy() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(Healthy());
  }

  void TearDown() override {
    g_abort_accepts.store(0);
    server_.StopListening();
    if (thread_.joinable()) thread_.join();
  }

  bool Healthy() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(2);
    client.set_read_timeout(5);
    auto r = client.Get("/healthz");
    return r && r->status == 200 && r->body == "ok";
  }

  std::vector<std::string> Restarts() {
    std::lock_guard<std::mutex> lock(mu_);
    return restarts_;
  }

  Status Stop() {
    server_.StopListening();
    thread_.join();
    return result_;
  }

  // What the server thread writes, declared before the server and the thread.
  std::mutex mu_;
  std::vector<std::string> restarts_;
  Status result_ = Status::IOError("Serve did not return");
  int port_ = -1;
  HardenedServer server_{ConnectionLimits{.threads = 2}};
  std::thread thread_;
};

TEST_F(AcceptLoop, AbortedConnectionsDoNotEndIt) {
  g_abort_accepts.store(3);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (g_abort_accepts.load() > 0 && std::chrono::steady_clock::now() < until)
    (void)Healthy();  // each is taken and aborted until none is left to abort
  ASSERT_LE(g_abort_accepts.load(), 0);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(Healthy()) << "request " << i;
  std::vector<std::string> restarts = Restarts();
  ASSERT_EQ(restarts.size(), 3u);
  for (const std::string& why : restarts)
    EXPECT_NE(why.find(std::strerror(ECONNABORTED)), std::string::npos) << why;
  EXPECT_TRUE(Stop().ok()) << result_.ToString();
}

// The listening descriptors of this process bound to `port`.
std::vector<int> ListeningOn(int port) {
  std::vector<int> fds;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    int fd = std::stoi(entry.path().filename().string());
    sockaddr_in a{};
    socklen_t len = sizeof a;
    int listening = 0;
    socklen_t optlen = sizeof listening;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0 && a.sin_family == AF_INET &&
        ntohs(a.sin_port) == port &&
        getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) == 0 && listening != 0)
      fds.push_back(fd);
  }
  return fds;
}

TEST_F(AcceptLoop, ASocketThatStopsListeningEndsItWithAnError) {
  std::vector<int> fds = ListeningOn(port_);
  ASSERT_FALSE(fds.empty());
  ::shutdown(fds.front(), SHUT_RD);  // the socket leaves the listening state
  thread_.join();
  EXPECT_FALSE(result_.ok());
  EXPECT_NE(result_.message().find("stopped accepting"), std::string::npos) << result_.ToString();
  EXPECT_TRUE(Restarts().empty());
}

TEST(AcceptLoopStop, BeforeServeEndsItAtOnce) {
  HardenedServer server(ConnectionLimits{.threads = 1});
  ASSERT_GT(server.Bind("127.0.0.1", 0), 0);
  server.StopListening();
  EXPECT_TRUE(server.Serve([](const std::string&) {}).ok());
}

// A stop that came while the server was still starting (a SIGTERM before it
// bound) is not lost.
TEST(AcceptLoopStop, BeforeBindEndsItAtOnce) {
  HardenedServer server(ConnectionLimits{.threads = 1});
  server.StopListening();
  ASSERT_GT(server.Bind("127.0.0.1", 0), 0);
  EXPECT_TRUE(server.Serve([](const std::string&) {}).ok());
}

// A server on a free loopback port, serving until destroyed: /who answers
// the client's address as the request saw it, /big 1 MiB.
class Running {
 public:
  explicit Running(ConnectionLimits limits) : server_(limits) {
    server_.Get("/who", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.remote_addr + ":" + std::to_string(req.remote_port), "text/plain");
    });
    server_.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      std::string body(size_t{1} << 20, 'b');
      for (size_t i = 0; i < body.size(); i += 997) body[i] = static_cast<char>('a' + i % 26);
      res.set_content(body, "text/plain");
    });
    port_ = server_.Bind("127.0.0.1", 0);
    thread_ = std::thread([this] { (void)server_.Serve([](const std::string&) {}); });
  }
  ~Running() {
    server_.StopListening();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  HardenedServer::Counters counters() const { return server_.counters(); }

 private:
  HardenedServer server_;
  int port_ = -1;
  std::thread thread_;
};

// A client connection written with write(2) (not counted as the server's sends).
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  // The client's own address, as the server sees it.
  std::string Address() const {
    sockaddr_in a{};
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    return "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  }
  bool Write(const std::string& bytes) {
    return ::write(fd_, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  }
  // One answer's body ("" when it did not come whole).
  std::string ReadAnswer() {
    std::string got;
    char tmp[65536];
    for (;;) {
      const size_t end = got.find("\r\n\r\n");
      if (end != std::string::npos) {
        const size_t at = got.find("Content-Length: ");
        if (at == std::string::npos || at > end) return "";
        const size_t length = std::stoul(got.substr(at + 16));
        if (got.size() >= end + 4 + length) return got.substr(end + 4, length);
      }
      const ssize_t n = ::read(fd_, tmp, sizeof tmp);
      if (n <= 0) return "";
      got.append(tmp, static_cast<size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

std::string Get(const std::string& path) {
  return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
}

// `n` requests for /who, one after another, each answered with the client's address.
void AskWho(RawClient& client, int n) {
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(client.Write(Get("/who")));
    EXPECT_EQ(client.ReadAnswer(), client.Address()) << "request " << i;
  }
}

// httplib writes the status line and headers, then the body: the worker
// gathers them and sends the answer at once (one segment, one wake-up of
// the client); an answer of more than 256 KiB goes out as it is written.
TEST(Answers, GoOutInOneSendAndLargeOnesWhole) {
  Running server(ConnectionLimits{.threads = 2});
  RawClient client(server.port());
  ASSERT_TRUE(client.connected());
  const int before = g_sends.load();
  ASSERT_TRUE(client.Write(Get("/who")));
  EXPECT_EQ(client.ReadAnswer(), client.Address());
  EXPECT_EQ(g_sends.load(), before + 1);
  ASSERT_TRUE(client.Write(Get("/big")));
  const std::string big = client.ReadAnswer();
  ASSERT_EQ(big.size(), size_t{1} << 20);
  EXPECT_EQ(big[997 * 3], 'a' + (997 * 3) % 26);
  EXPECT_EQ(big[1], 'b');
}

// The requests a worker waited for (`lingered`) when one connection asks
// `requests` times in a row, each after the answer to the one before; the
// address every request saw must be the client's.
std::int64_t LingeredOver(size_t threads, int linger_us, int requests) {
  Running server(ConnectionLimits{.threads = threads, .linger_us = linger_us});
  RawClient client(server.port());
  EXPECT_TRUE(client.connected());
  if (!client.connected()) return -1;
  AskWho(client, requests);
  return server.counters().lingered;
}

// After an answer, while another worker is idle, the worker waits on the
// connection (linger_us) and answers the next request itself.
TEST(Linger, TheWorkerAnswersTheConnectionsNextRequest) {
  EXPECT_EQ(LingeredOver(2, 500'000, 3), 2);
}

TEST(Linger, ZeroLeavesTheNextRequestToThePoller) { EXPECT_EQ(LingeredOver(2, 0, 3), 0); }

// The only worker does not wait: other connections would wait behind it.
TEST(Linger, NotWhenNoOtherWorkerIsIdle) { EXPECT_EQ(LingeredOver(1, 500'000, 2), 0); }

// A request that arrives in pieces while the worker waits goes to the
// poller, which answers it once it is whole.
TEST(Linger, ARequestInPiecesGoesToThePoller) {
  Running server(ConnectionLimits{.threads = 2, .linger_us = 500'000});
  RawClient client(server.port());
  ASSERT_TRUE(client.connected());
  AskWho(client, 1);
  ASSERT_TRUE(client.Write("GET /who HTTP/1.1\r\n"));
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  ASSERT_TRUE(client.Write("Host: 127.0.0.1\r\n\r\n"));
  EXPECT_EQ(client.ReadAnswer(), client.Address());
  EXPECT_EQ(server.counters().lingered, 0);
}

}  // namespace
}  // namespace fixgraph::cli
