// Options of `fixgraph serve` (cli/serve.cc). Private to cli/.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "fixgraph/engine/status.h"

namespace fixgraph::cli {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  size_t threads = 16;            // worker threads, one connection each at a time
  int max_queue = 256;            // connections waiting for a worker before 503
  size_t max_body = 1 << 20;      // bytes
  int timeout_s = 10;             // socket read/write timeout
  std::string token;              // from $FIXGRAPH_SERVE_TOKEN only
};

// "127.0.0.1:8080", "[::1]:0", ":9000" (loopback), "8080" -> (host, port).
StatusOr<std::pair<std::string, int>> ParseListen(const std::string& text);

}  // namespace fixgraph::cli
