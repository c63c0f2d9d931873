// HardenedServer's accept loop (cli/serve_http.h) keeps accepting through
// what accept(2) asks a server to retry, and stops when told to.
//
// accept() is interposed: this executable's definition comes before libc's
// (and a sanitizer's) for cpp-httplib's calls, and passes every call through
// unless a test asks it to abort the next connections, as the kernel reports
// a connection reset before it was taken (ECONNABORTED).
#include "../../cli/serve_http.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<int> g_abort_accepts{0};

}  // namespace

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

}  // namespace
}  // namespace fixgraph::cli
