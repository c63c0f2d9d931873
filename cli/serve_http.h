// The connection handling of `fixgraph serve` (cli/serve.cc) around
// cpp-httplib. Private to cli/.
//
// cpp-httplib 0.11 gives every accepted connection to a worker thread that
// then blocks reading it: a client sending one header line every few seconds
// holds a worker for as long as it likes (each read has its own timeout), a
// few such clients stop the server, the listen backlog is 5, and bytes of a
// second pipelined request read along with the first are lost.
//
// HardenedServer keeps httplib's request parsing, routing and answers
// (process_request) and replaces what is around them:
// - one poller thread reads every connection that has not yet sent a whole
//   request (its headers, and its body when Content-Length announces at most
//   64 KiB); no worker waits for a slow client: after an answer, while
//   another worker is idle, a worker waits at most `linger_us` for its
//   connection's next request and answers it if it came whole, else hands
//   the connection to the poller (a client's back-to-back requests then
//   cost no hand-over: one thread wake-up a request instead of three; a
//   client farther away than `linger_us` costs one wake-up more, the wait's
//   end, on a worker that was idle);
// - an answer is sent in one piece (httplib writes its head and its body
//   apart), up to 256 KiB;
// - a connection gets `timeout_s` seconds to send a whole request (408 and
//   closed otherwise, counted from its first byte), and `keep_alive_s` idle
//   seconds between requests; the worker that reads a body the poller did not
//   wait for, and that writes the answer, has `timeout_s` for each in total;
// - at most `max_connections` connections wait in the poller; a new one
//   beyond that closes the one that has waited longest (503), so new clients
//   (a /healthz probe) are still answered when slow ones pile up;
// - at most `max_queue` whole requests wait for a worker (beyond those the
//   idle workers take at once); beyond that the poller answers 503 with
//   Retry-After itself;
// - the bytes a connection sent after its request stay with the connection:
//   pipelined requests are answered in order;
// - the listen backlog is kListenBacklog (the kernel may clamp it to
//   net.core.somaxconn);
// - the accept loop survives what accept(2) asks servers to retry (see Serve).
#pragma once

#include "fixgraph/engine/status.h"

#include <httplib.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace fixgraph::cli {

struct ConnectionLimits {
  size_t threads = 16;            // workers, each answering one request at a time
  size_t max_connections = 1024;  // connections waiting for (the rest of) a request
  size_t max_queue = 1024;        // whole requests waiting for a worker
  int timeout_s = 10;             // to receive a whole request; to send a whole answer
  int keep_alive_s = 5;           // idle seconds between two requests of a connection
  size_t keep_alive_max = 1000;   // requests answered on one connection
  size_t max_header_bytes = size_t{64} * 1024;  // request line and headers (431 beyond)
  // After an answer, a worker waits this long on the connection for the next
  // request while other workers are idle, before the poller takes it over
  // (0: never).
  int linger_us = 1000;
};

constexpr int kListenBacklog = 1024;

class HardenedServer : public httplib::Server {
 public:
  explicit HardenedServer(const ConnectionLimits& limits);
  ~HardenedServer() override;

  // Binds host:port (port 0: any free port) and sets the backlog. Returns
  // the port, or -1 when binding failed.
  int Bind(const std::string& host, int port);

  // Accepts connections on the bound socket until StopListening(); OK then.
  // cpp-httplib 0.11 ends its accept loop, closing the socket, on any
  // accept() error but EMFILE and EINTR, where accept(2) asks a server to
  // retry: a connection aborted before it was taken (ECONNABORTED, EPROTO,
  // ENETDOWN...), ENFILE, ENOBUFS, ENOMEM. Serve runs the loop again on the
  // same socket (a duplicate descriptor keeps it open, with its backlog) while
  // the socket still listens, after `on_restart(why)`; connections the old
  // loop held waiting for a request are closed. Quick repeats back off, up
  // to 100 ms. An error when the socket no longer listens.
  Status Serve(const std::function<void(const std::string& why)>& on_restart);

  // Makes Serve return: shuts the listening socket. Any thread, any time,
  // also before Serve starts.
  void StopListening();

  struct Counters {
    std::int64_t accepted = 0;
    std::int64_t timed_out = 0;  // 408: the request did not arrive in time
    std::int64_t evicted = 0;    // 503: closed to make room under max_connections
    std::int64_t shed = 0;       // 503: more than max_queue requests waiting
    std::int64_t lingered = 0;   // requests a worker waited for after its answer (linger_us)
  };
  Counters counters() const;

 private:
  class Front;
  friend class Front;
  bool process_and_close_socket(socket_t sock) override;
  bool Answer(httplib::Stream& strm, bool close_connection, bool& connection_closed);

  ConnectionLimits limits_;
  int bound_ = -1;                 // the socket Bind() made
  std::atomic<int> listener_{-1};  // a duplicate of it, closed by the destructor
  std::atomic<bool> stopping_{false};
  std::atomic<Front*> front_{nullptr};
  std::atomic<std::int64_t> accepted_{0}, timed_out_{0}, evicted_{0}, shed_{0}, lingered_{0};
};

}  // namespace fixgraph::cli
