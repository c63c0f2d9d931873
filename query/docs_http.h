// The small HTTP interface the remote KG source talks through, so libcurl
// stays in one file. Private to query/.
//
// Thread safety: a client may be used from several threads at once.
#pragma once

#include "fixgraph/engine/status.h"

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fixgraph::query::docs {

struct HttpResponse {
  long status = 0;
  std::string body;
  std::string retry_after;  // the Retry-After header, "" when absent
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // POSTs `body` to `url` with `headers` ("Name: value"). A non-2xx status is
  // a response, not an error (a redirect too: it is not followed); errors,
  // all of code kUnavailable, are transport failures (refused, timed out
  // after `timeout_seconds`, bad URL) and a response larger than its cap
  // (HttpClientLimits): "POST URL: response body larger than N bytes (after
  // decompression); refused". Error messages never include header values.
  virtual StatusOr<HttpResponse> Post(const std::string& url,
                                      const std::vector<std::string>& headers,
                                      const std::string& body, double timeout_seconds) = 0;
};

// Caps on what the KG service may send (ingest::HttpClientOptions holds them
// for sync's API client; the same code enforces both).
struct HttpClientLimits {
  std::size_t max_body_bytes = std::size_t{16} << 20;  // after decompression
  std::size_t max_header_bytes = std::size_t{1} << 20;
};

// The libcurl client (ingest's, gzip/deflate accepted).
std::unique_ptr<HttpClient> NewCurlHttpClient(const HttpClientLimits& limits = {});

}  // namespace fixgraph::query::docs
