// libFuzzer harness: the HTTP request path of `fixgraph serve` (cli/serve.cc,
// cli/serve_http.h: the poller, httplib's parsing, routing, the token check,
// query parameters, JSON bodies, the handlers) on the demo store. One server
// runs for the whole process, on a free loopback port, with a bearer token
// (FIXGRAPH_SERVE_TOKEN=fuzz-token; seeds carry it, so both sides of the check
// are reached). Each input is sent as the bytes of one connection, followed by
// a request with "Connection: close", and the connection is half-closed; the
// answers are read to the end. Beyond "no crash, no sanitizer report": no
// answer is a 500 (the exception handler's "internal error"), and the server
// answers or closes every connection within 10 s.
#include "fuzz_store.h"
#include "serve.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>

namespace {

int g_port = 0;

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    std::abort();
  close(fd);
  return ntohs(a.sin_port);
}

// A connection to the server, or -1. libFuzzer's -timeout alarm (SIGALRM,
// its handler without SA_RESTART) can interrupt connect(): the attempt then
// goes on in the background and is waited for.
int Connect() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(g_port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
  if (errno == EINTR) {
    pollfd p{fd, POLLOUT, 0};
    int so_error = 0;
    socklen_t len = sizeof so_error;
    int ready = -1;
    while (ready < 0) {
      ready = poll(&p, 1, 10000);
      if (ready < 0 && errno != EINTR) break;
    }
    if (ready == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) == 0 && so_error == 0)
      return fd;
    if (ready == 1 && so_error != 0) errno = so_error;
  }
  int failed = errno;  // for the caller's message
  close(fd);
  errno = failed;
  return -1;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string db = fixgraph::fuzz::DemoStore();
  setenv("FIXGRAPH_SERVE_TOKEN", "fuzz-token", 1);
  g_port = FreePort();
  fixgraph::cli::SetServeRunner(fixgraph::cli::RunServe);  // in this process, not fixgraph-serve
  std::thread([db] {
    // Never destroyed: the server thread outlives main() (libFuzzer exits with it running).
    auto* out = new std::ostringstream;
    auto* log = new std::ostream(nullptr);  // the server's log lines are dropped
    int rc = fixgraph::cli::Run(
        {"fixgraph", "--db", db, "serve", "--listen", "127.0.0.1:" + std::to_string(g_port),
         "--threads", "2", "--timeout", "5"},
        *out, *log);
    std::fprintf(stderr, "fuzz_http_request: serve ended (exit %d)\n", rc);
    std::abort();
  }).detach();
  for (int i = 0; i < 600; ++i) {  // up to 60 s for the server to listen
    int fd = Connect();
    if (fd >= 0) {
      close(fd);
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::fprintf(stderr, "fuzz_http_request: the server did not start\n");
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int fd = Connect();
  if (fd < 0) {
    std::fprintf(stderr, "fuzz_http_request: cannot connect to the server: %s\n",
                 std::strerror(errno));
    __builtin_trap();
  }
  // The input, then an end of headers and a last request that asks the server to
  // close: an input that stops inside a request is answered at once, not when
  // the server notices the half-closed connection (its poller's next tick, up
  // to a second later).
  std::string bytes(reinterpret_cast<const char*>(data), size);
  bytes += "\r\n\r\nGET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n";
  for (size_t sent = 0; sent < bytes.size();) {
    ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may close early (431, 413, 400)
    sent += static_cast<size_t>(n);
  }
  shutdown(fd, SHUT_WR);
  // Read until the server closes, or until 50 ms pass without a byte once
  // the answers have begun (the server notices a half-closed connection only
  // at its poller's next tick, up to a second later: waiting for that would
  // make every input take a second). A connection neither answered nor closed
  // within 10 s is a hang.
  std::string answer;
  char buf[65536];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool done = false;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, answer.empty() ? 100 : 50);
    if (ready == 0) {
      done = !answer.empty();
      continue;
    }
    if (ready < 0) continue;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0)
      done = true;
    else if (answer.size() < (1u << 20))
      answer.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (!done) {
    std::fprintf(stderr, "fuzz_http_request: no answer and no close in 10 s\n");
    __builtin_trap();
  }
  for (size_t p = answer.find("HTTP/1.1 500"); p != std::string::npos;
       p = answer.find("HTTP/1.1 500", p + 1)) {
    std::fprintf(stderr, "fuzz_http_request: a 500 answer: %.400s\n", answer.c_str() + p);
    __builtin_trap();
  }
  return 0;
}
