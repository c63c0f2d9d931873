#include "serve_http.h"

#include "serve_backend.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

namespace fixgraph::cli {
namespace {

using Clock = std::chrono::steady_clock;

// The poller waits for a body it can hold cheaply; a longer one is read by
// the worker (under the same deadline).
constexpr size_t kMaxPolledBody = size_t{64} * 1024;
// Requests answered in a row by one worker from one connection's pipeline
// before the connection goes back to the queue.
constexpr int kMaxInARow = 16;
// An answer larger than this is sent as httplib writes it (ConnStream).
constexpr size_t kFlushAt = size_t{256} * 1024;

// One client connection and the bytes it sent that no request consumed yet.
struct Conn {
  explicit Conn(int f) : fd(f), since(Clock::now()) {}
  ~Conn() { ::close(fd); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  size_t Available() const { return buf.size() - pos; }
  std::string_view Pending() const { return std::string_view(buf).substr(pos); }
  void Compact() {
    if (pos == buf.size()) {
      buf.clear();
      pos = 0;
    } else if (pos > 0 && pos >= buf.size() / 2) {
      buf.erase(0, pos);
      pos = 0;
    }
  }

  int fd;
  std::string buf;
  size_t pos = 0;
  Clock::time_point since;  // waiting for the current request (or its first byte) since
  bool started = false;     // a byte of the current request has arrived
  size_t served = 0;        // requests answered
  // The two ends' addresses, asked of the kernel once a connection (httplib
  // asks for them at every request).
  std::string remote_ip, local_ip;
  int remote_port = -1, local_port = -1;
};

enum class Ready { kNo, kYes, kTooLarge };

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool HeaderNameIs(std::string_view name, std::string_view want) {
  if (name.size() != want.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (Lower(name[i]) != want[i]) return false;
  return true;
}

// Whether the pending bytes hold a request a worker can answer without
// waiting for the client: the headers, and a body of known length up to
// kMaxPolledBody. Anything httplib must judge (odd Content-Length, chunked
// bodies, Expect: 100-continue, bodies too large) goes to the worker as soon
// as the headers are complete.
Ready RequestReady(const Conn& c, size_t max_header) {
  std::string_view data = c.Pending();
  size_t end = data.find("\r\n\r\n");
  if (end == std::string_view::npos)
    return data.size() > max_header ? Ready::kTooLarge : Ready::kNo;
  if (end + 4 > max_header) return Ready::kTooLarge;
  std::string_view head = data.substr(0, end + 2);
  size_t length = 0;
  size_t at = head.find("\r\n") + 2;
  while (at < head.size()) {
    size_t eol = head.find("\r\n", at);
    std::string_view line = head.substr(at, eol - at);
    at = eol + 2;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (HeaderNameIs(name, "transfer-encoding") || HeaderNameIs(name, "expect")) return Ready::kYes;
    if (HeaderNameIs(name, "content-length")) {
      if (value.empty() || value.size() > 15 ||
          value.find_first_not_of("0123456789") != std::string_view::npos)
        return Ready::kYes;
      length = std::stoull(std::string(value));
    }
  }
  if (length > kMaxPolledBody) return Ready::kYes;
  return data.size() >= end + 4 + length ? Ready::kYes : Ready::kNo;
}

// Waits until fd is ready for `events` or the deadline passes.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() < 0) return false;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1'000'000)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

void AddressOf(const sockaddr_storage& addr, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

// What httplib reads a request from and writes the answer to: the
// connection's buffered bytes first, then the socket, under deadlines.
class ConnStream : public httplib::Stream {
 public:
  ConnStream(Conn& c, int timeout_s) : c_(c), timeout_(std::chrono::seconds(timeout_s)) {}

  // A new request: the client has timeout_s to send what is still missing,
  // the answer is sent within timeout_s of its first byte.
  void Begin() {
    read_deadline_ = Clock::now() + timeout_;
    write_deadline_.reset();
  }

  bool is_readable() const override {
    return c_.Available() > 0 || WaitFor(c_.fd, POLLIN, read_deadline_);
  }
  bool is_writable() const override {
    return WaitFor(c_.fd, POLLOUT, write_deadline_ ? *write_deadline_ : Clock::now() + timeout_);
  }
  ssize_t read(char* ptr, size_t size) override {
    if (c_.Available() == 0) {
      c_.buf.clear();
      c_.pos = 0;
      char tmp[16384];
      while (true) {
        ssize_t n = ::recv(c_.fd, tmp, sizeof tmp, 0);
        if (n > 0) {
          c_.buf.append(tmp, static_cast<size_t>(n));
          break;
        }
        if (n == 0) return 0;
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
        if (!WaitFor(c_.fd, POLLIN, read_deadline_)) return -1;
      }
    }
    size_t n = std::min(size, c_.Available());
    std::memcpy(ptr, c_.buf.data() + c_.pos, n);
    c_.pos += n;
    c_.Compact();
    return static_cast<ssize_t>(n);
  }
  // The answer is gathered and sent in one piece by Flush (httplib writes
  // the status line and headers, then the body: two segments, and two
  // wake-ups of the client, otherwise); past kFlushAt bytes it goes out as it
  // comes.
  ssize_t write(const char* ptr, size_t size) override {
    if (!write_deadline_) write_deadline_ = Clock::now() + timeout_;
    out_.append(ptr, size);
    if (out_.size() >= kFlushAt && !Flush()) return -1;
    return static_cast<ssize_t>(size);
  }
  // Sends what write gathered. False when the connection failed or the
  // answer could not be sent within timeout_s of its first byte.
  bool Flush() {
    size_t at = 0;
    while (at < out_.size()) {
      ssize_t n = ::send(c_.fd, out_.data() + at, out_.size() - at, MSG_NOSIGNAL);
      if (n >= 0) {
        at += static_cast<size_t>(n);
        continue;
      }
      if (errno == EINTR) continue;
      if ((errno != EAGAIN && errno != EWOULDBLOCK) || !WaitFor(c_.fd, POLLOUT, *write_deadline_)) {
        out_.clear();
        return false;
      }
    }
    out_.clear();
    return true;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    Address(::getpeername, c_.remote_ip, c_.remote_port, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    Address(::getsockname, c_.local_ip, c_.local_port, ip, port);
  }
  socket_t socket() const override { return c_.fd; }

 private:
  using NameOf = int (*)(int, sockaddr*, socklen_t*);
  // One end's address (getpeername or getsockname), asked once a connection.
  void Address(NameOf name_of, std::string& known_ip, int& known_port, std::string& ip,
               int& port) const {
    if (known_port < 0) {
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      known_port = 0;
      if (name_of(c_.fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        AddressOf(addr, known_ip, known_port);
    }
    ip = known_ip;
    port = known_port;
  }

  Conn& c_;
  std::chrono::seconds timeout_;
  Clock::time_point read_deadline_{};
  std::optional<Clock::time_point> write_deadline_;
  std::string out_;
};

// An answer the poller gives itself, best effort, before closing.
void Refuse(const Conn& c, int status, const std::string& message) {
  const char* reason = status == 408   ? "Request Timeout"
                       : status == 431 ? "Request Header Fields Too Large"
                                       : "Service Unavailable";
  std::string body = ErrorDocument(status, message).dump() + "\n";
  std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                       "\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\nConnection: close\r\n" +
                       (status == 503 ? "Retry-After: 1\r\n" : "") + "\r\n" + body;
  (void)!::send(c.fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(c.fd, SHUT_WR);
}

}  // namespace

// The task queue httplib's accept loop hands sockets to: a poller thread for
// connections waiting for a request, and the worker pool for whole requests.
class HardenedServer::Front : public httplib::TaskQueue {
 public:
  explicit Front(HardenedServer* server)
      : server_(server),
        limits_(server->limits_),
        pool_size_(std::max<size_t>(1, limits_.threads)),
        pool_(pool_size_) {
    wake_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    poller_ = std::thread([this] { Poll(); });
  }
  ~Front() override {
    shutdown();
    if (wake_ >= 0) ::close(wake_);
    server_->front_.store(nullptr);
  }

  // Called by the accept loop with process_and_close_socket(sock).
  void enqueue(std::function<void()> fn) override { fn(); }

  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (down_) return;
      down_ = true;
      stopping_.store(true);
    }
    Wake();
    if (poller_.joinable()) poller_.join();
    // Requests already queued are answered (with Connection: close).
    pool_.shutdown();
    std::lock_guard<std::mutex> lock(mu_);
    incoming_.clear();
  }

  void Adopt(int fd) {
    server_->accepted_.fetch_add(1);
    int flags = ::fcntl(fd, F_GETFL, 0);
    ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Hand(std::make_unique<Conn>(fd));
  }

 private:
  // Gives a connection to the poller (new, or back from a worker).
  void Hand(std::unique_ptr<Conn> c) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_.load()) return;  // closes it
      incoming_.push_back(std::move(c));
    }
    Wake();
  }

  void Wake() {
    std::uint64_t one = 1;
    if (wake_ >= 0) (void)!::write(wake_, &one, sizeof one);
  }

  Clock::time_point Deadline(const Conn& c) const {
    int seconds = c.started || c.served == 0 ? limits_.timeout_s : limits_.keep_alive_s;
    return c.since + std::chrono::seconds(seconds);
  }

  // Reads what the socket has (up to the header and polled-body bounds).
  // False when the client closed or the connection failed.
  bool Receive(Conn& c) {
    char tmp[16384];
    const size_t cap = limits_.max_header_bytes + kMaxPolledBody + sizeof tmp;
    while (c.Available() < cap) {
      ssize_t n = ::recv(c.fd, tmp, sizeof tmp, 0);
      if (n > 0) {
        c.Compact();
        c.buf.append(tmp, static_cast<size_t>(n));
        // Less than asked for: the socket held no more (a next read would
        // say EAGAIN; what arrives later, poll reports).
        if (static_cast<size_t>(n) < sizeof tmp) return true;
        continue;
      }
      if (n == 0) return false;
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    return true;
  }

  // Receive, then whether a whole request is there: the first bytes of a
  // request start its clock (`now`); headers over the bound are answered 431
  // (kTooLarge: the connection is done). `open` is Receive's answer.
  Ready ReceiveRequest(Conn& c, Clock::time_point now, bool& open) {
    const size_t before = c.Available();
    open = Receive(c);
    if (!c.started && c.Available() > before) {
      c.started = true;
      c.since = now;
    }
    const Ready r = RequestReady(c, limits_.max_header_bytes);
    if (r == Ready::kTooLarge)
      Refuse(c, 431,
             "request line and headers larger than " + std::to_string(limits_.max_header_bytes) +
                 " bytes");
    return r;
  }

  void Dispatch(std::unique_ptr<Conn> c) {
    // Requests that would wait: those queued beyond the idle workers.
    size_t pending = queued_.load() + busy_.load();
    size_t waiting = pending > pool_size_ ? pending - pool_size_ : 0;
    if (waiting >= limits_.max_queue) {
      server_->shed_.fetch_add(1);
      Refuse(*c, 503,
             "server busy: more than " + std::to_string(limits_.max_queue) +
                 " requests waiting for a worker; retry shortly");
      return;
    }
    queued_.fetch_add(1);
    Conn* raw = c.release();
    pool_.enqueue([this, raw] {
      busy_.fetch_add(1);
      queued_.fetch_sub(1);
      Serve(std::unique_ptr<Conn>(raw));
      busy_.fetch_sub(1);
    });
  }

  // Worker: answers the buffered request and those pipelined behind it.
  void Serve(std::unique_ptr<Conn> c) {
    ConnStream strm(*c, limits_.timeout_s);
    for (int in_a_row = 1;; ++in_a_row) {
      bool close_now = stopping_.load() || c->served + 1 >= limits_.keep_alive_max;
      strm.Begin();
      bool closed = false;
      bool ok = server_->Answer(strm, close_now, closed);
      const bool sent = strm.Flush();
      ++c->served;
      if (!ok || !sent || closed || close_now) return;
      c->since = Clock::now();
      c->started = c->Available() > 0;
      if (in_a_row < kMaxInARow) {
        if (c->started && RequestReady(*c, limits_.max_header_bytes) == Ready::kYes) continue;
        if (!c->started) {
          const Next next = Linger(*c);
          if (next == Next::kAnswer) continue;
          if (next == Next::kClose) return;
        }
      }
      return Hand(std::move(c));
    }
  }

  enum class Next { kAnswer, kHand, kClose };

  // After an answer, with no request behind it: while some worker is idle,
  // waits up to `linger_us` for the client's next request on this worker
  // (kAnswer when it is whole), which spares the hand-over to the poller and
  // back (two thread wake-ups and a poll over every waiting connection).
  // kHand: the poller waits for it; kClose: the client closed, or sent
  // headers too large (answered 431).
  Next Linger(Conn& c) {
    if (limits_.linger_us <= 0 || queued_.load() + busy_.load() >= pool_size_) return Next::kHand;
    pollfd p{c.fd, POLLIN, 0};
    const timespec wait{0, static_cast<long>(std::min(limits_.linger_us, 999'999)) * 1000};
    if (::ppoll(&p, 1, &wait, nullptr) <= 0) return Next::kHand;
    bool open = true;
    const Ready r = ReceiveRequest(c, Clock::now(), open);
    if (r == Ready::kYes) {
      server_->lingered_.fetch_add(1);
      return Next::kAnswer;
    }
    return r == Ready::kNo && open ? Next::kHand : Next::kClose;
  }

  // Closes the waiting connection that has waited longest.
  void Evict(std::vector<std::unique_ptr<Conn>>& conns) {
    auto oldest = std::min_element(conns.begin(), conns.end(), [](const auto& a, const auto& b) {
      return a->since < b->since;
    });
    server_->evicted_.fetch_add(1);
    Refuse(**oldest, 503,
           "server busy: " + std::to_string(limits_.max_connections) +
               " connections waiting for requests; this one waited longest");
    conns.erase(oldest);
  }

  void Poll() {
    std::vector<std::unique_ptr<Conn>> conns, keep, fresh;
    std::vector<pollfd> fds;
    while (!stopping_.load()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        fresh.swap(incoming_);
      }
      for (auto& c : fresh) {
        if (c->Available() > 0) {
          Ready r = RequestReady(*c, limits_.max_header_bytes);
          if (r == Ready::kYes) {
            Dispatch(std::move(c));
            continue;
          }
        }
        if (conns.size() >= limits_.max_connections) Evict(conns);
        conns.push_back(std::move(c));
      }
      fresh.clear();

      fds.clear();
      fds.push_back({wake_, POLLIN, 0});
      auto now = Clock::now();
      auto next = now + std::chrono::seconds(1);
      for (const auto& c : conns) {
        fds.push_back({c->fd, POLLIN, 0});
        next = std::min(next, Deadline(*c));
      }
      auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
      int n = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(0, wait)));
      if (n < 0 && errno != EINTR) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (n > 0 && fds[0].revents != 0) {
        std::uint64_t drained;
        (void)!::read(wake_, &drained, sizeof drained);
      }

      now = Clock::now();
      keep.clear();
      for (size_t i = 0; i < conns.size(); ++i) {
        std::unique_ptr<Conn>& c = conns[i];
        if (n > 0 && fds[i + 1].revents != 0) {
          bool open = true;
          const Ready r = ReceiveRequest(*c, now, open);
          if (r == Ready::kYes) {
            Dispatch(std::move(c));
            continue;
          }
          if (r == Ready::kTooLarge) continue;  // answered 431
          if (!open) continue;                  // closed before sending a whole request
        }
        if (now >= Deadline(*c)) {
          if (c->started) {
            server_->timed_out_.fetch_add(1);
            Refuse(*c, 408,
                   "request not received within " + std::to_string(limits_.timeout_s) + " s");
          }
          continue;  // an idle connection closes quietly
        }
        keep.push_back(std::move(c));
      }
      conns.swap(keep);
    }
  }

  HardenedServer* server_;
  ConnectionLimits limits_;
  size_t pool_size_;
  httplib::ThreadPool pool_;
  int wake_ = -1;
  std::thread poller_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Conn>> incoming_;
  std::atomic<bool> stopping_{false};
  bool down_ = false;
  std::atomic<size_t> queued_{0};  // enqueued, not started
  std::atomic<size_t> busy_{0};    // workers answering
};

HardenedServer::HardenedServer(const ConnectionLimits& limits) : limits_(limits) {
  // What httplib announces in Keep-Alive answers.
  set_keep_alive_max_count(limits_.keep_alive_max);
  set_keep_alive_timeout(limits_.keep_alive_s);
  set_read_timeout(limits_.timeout_s, 0);
  set_write_timeout(limits_.timeout_s, 0);
  new_task_queue = [this] {
    auto* front = new Front(this);
    front_.store(front);
    return front;
  };
}

HardenedServer::~HardenedServer() {
  if (int fd = listener_.load(); fd >= 0) ::close(fd);
}

int HardenedServer::Bind(const std::string& host, int port) {
  int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
  if (bound < 0) return -1;
  // httplib listens with a backlog of 5; listen() again sets ours.
  if (::listen(svr_sock_.load(), kListenBacklog) != 0) return -1;
  bound_ = svr_sock_.load();
  int listener = ::fcntl(bound_, F_DUPFD_CLOEXEC, 0);
  if (listener < 0) return -1;
  if (int was = listener_.exchange(listener); was >= 0) ::close(was);
  return bound;
}

namespace {

// Whether `fd` is a socket that still accepts connections.
bool StillListening(int fd) {
  int listening = 0;
  socklen_t len = sizeof listening;
  return ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening != 0;
}

}  // namespace

Status HardenedServer::Serve(const std::function<void(const std::string& why)>& on_restart) {
  if (listener_ < 0) return Status::IOError("serve: no bound socket");
  Status result;
  auto last_restart = Clock::now() - std::chrono::hours(1);
  int quick_restarts = 0;
  // The descriptor httplib's loop accepts on. Who closes it: httplib when its
  // loop fails (it reads svr_sock_ and closes that), this function when
  // StopListening took it from svr_sock_ (httplib then returns true).
  int current = bound_;
  for (;;) {
    bool stopped = stopping_.load() || listen_after_bind();
    int error = errno;
    if (stopped) {
      ::close(current);
      break;
    }
    int closed = current;  // by httplib
    svr_sock_.compare_exchange_strong(closed, INVALID_SOCKET);
    if (stopping_.load()) break;
    if (!StillListening(listener_)) {
      result = Status::IOError(std::string("the listening socket stopped accepting connections (") +
                               std::strerror(error) + ")");
      break;
    }
    auto now = Clock::now();
    quick_restarts =
        now - last_restart < std::chrono::seconds(1) ? std::min(quick_restarts + 1, 7) : 0;
    last_restart = now;
    on_restart(std::string("accept() failed (") + std::strerror(error) +
               "); accepting again on the same socket");
    if (quick_restarts > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(100, 1 << quick_restarts)));
    current = ::fcntl(listener_, F_DUPFD_CLOEXEC, 0);
    if (current < 0) {
      result = Status::IOError(std::string("cannot accept again: ") + std::strerror(errno));
      break;
    }
    // A StopListening() from here on shuts the socket: the next loop ends at once.
    svr_sock_.store(current);
  }
  return result;
}

void HardenedServer::StopListening() {
  stopping_.store(true);
  svr_sock_.store(INVALID_SOCKET);  // httplib's loop then ends without closing it
  if (int fd = listener_.load(); fd >= 0) ::shutdown(fd, SHUT_RDWR);  // wakes a blocked accept()
}

HardenedServer::Counters HardenedServer::counters() const {
  Counters c;
  c.accepted = accepted_.load();
  c.timed_out = timed_out_.load();
  c.evicted = evicted_.load();
  c.shed = shed_.load();
  c.lingered = lingered_.load();
  return c;
}

bool HardenedServer::process_and_close_socket(socket_t sock) {
  Front* front = front_.load();
  if (front == nullptr) {
    ::close(sock);
    return false;
  }
  front->Adopt(sock);
  return true;
}

bool HardenedServer::Answer(httplib::Stream& strm, bool close_connection, bool& connection_closed) {
  return process_request(strm, close_connection, connection_closed, nullptr);
}

}  // namespace fixgraph::cli
