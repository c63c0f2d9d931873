// Options of `fixgraph serve` (cli/serve.cc). Private to cli/.
#pragma once

#include "context.h"

#include "fixgraph/engine/status.h"
#include "fixgraph/query/docs.h"

#include <cstddef>
#include <string>
#include <utility>

namespace fixgraph::cli {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  size_t threads = 16;          // worker threads, one request each at a time
  int max_queue = 1024;         // whole requests waiting for a worker before 503
  int max_connections = 1024;   // connections waiting for a request (cli/serve_http.h)
  size_t max_body = 1 << 20;    // bytes
  int timeout_s = 10;           // to receive a whole request / send a whole answer
  std::string token;            // from $FIXGRAPH_SERVE_TOKEN only
  std::string cors_origin;      // --cors: the one origin allowed to read answers ("" = none)
  query::DocSourceConfig docs;  // the doc sources ask opens (from the environment)
  std::string snapshots;        // --snapshots: serve <dir>/current, swapped while serving
  int snapshot_check_s = 5;  // --snapshot-check: seconds between looks at current (0: SIGHUP only)
};

// How `fixgraph serve` runs once its flags are parsed. The fixgraph binary
// does not link the server (cpp-httplib's shared library initializes OpenSSL
// at load, about 3 ms of every command's start): its runner executes
// ServeBinaryPath() with the same arguments, in place. fixgraph-serve
// (cli/serve_main.cc) and the in-process serve fuzzer install RunServe.
using ServeRunner = void (*)(Context& ctx, const std::string& listen, ServeOptions options);
void SetServeRunner(ServeRunner runner);

// The server: resolves and checks --listen and the token, opens the store
// and serves until SIGINT or SIGTERM (cli/serve.cc; links cpp-httplib).
void RunServe(Context& ctx, const std::string& listen, ServeOptions options);

// The server binary's name, and its path: beside the running executable.
inline constexpr const char kServeBinary[] = "fixgraph-serve";
std::string ServeBinaryPath();

// "--cors" values: an origin as browsers send it (http://host[:port] or
// https://...), without path, query or trailing slash; "*" is refused.
Status CheckCorsOrigin(const std::string& origin);

// "127.0.0.1:8080", "[::1]:0", ":9000" (loopback), "8080" -> (host, port).
StatusOr<std::pair<std::string, int>> ParseListen(const std::string& text);

// The --listen host resolved to the numeric address serve binds, and whether
// that address is loopback (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104): the
// token check looks at this, never at how the name is spelled.
struct ListenHost {
  std::string address;
  bool loopback = false;
};
StatusOr<ListenHost> ResolveListenHost(const std::string& host);

}  // namespace fixgraph::cli
