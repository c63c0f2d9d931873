// HTTP GET for the live sync (design.md s8), and POST for the KG service: a small client interface
// with a libcurl implementation underneath, so sync can be tested against a loopback fake or a
// scripted client.
//
// An HttpClient performs one request: no retries, no pagination, no auth
// policy (sync.h adds those). A transport failure (connection refused, reset,
// timeout, a body shorter than its Content-Length) is a Status of code
// kUnavailable whose message names the URL with tokens redacted; any HTTP
// status, 4xx and 5xx included, is a successful HttpResponse. A body or
// header block larger than its cap (HttpClientOptions) is kUnavailable too.
//
// Redirects: one to the same scheme, host and port is followed with the
// request's headers; one to another scheme, host or port only when the
// request carries no credentials (no extra headers and no token parameter in
// the URL), else it is an error of code kFailedPrecondition naming the target
// (a token is never sent to a host the caller did not name).
//
// Thread safety: Get may be called from several threads at once. The curl
// client keeps a pool of handles so that connections are reused (keep-alive)
// across requests to the same host.
#pragma once

#include "fixgraph/engine/status.h"

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fixgraph::ingest {

struct HttpRequest {
  std::string url;
  // Extra request headers, e.g. {"PRIVATE-TOKEN", "..."}.
  std::vector<std::pair<std::string, std::string>> headers;
  // Whole-request timeout for this request (the connect timeout is at most
  // this too); 0: HttpClientOptions::timeout_ms.
  long timeout_ms = 0;
};

struct HttpResponse {
  int status = 0;
  // Header names lower-cased; the last value wins for repeated names.
  std::map<std::string, std::string> headers;
  std::string body;

  // The value of a header by any-case name, or "" when absent.
  std::string Header(const std::string& name) const;
};

struct HttpClientOptions {
  // Whole-request timeout. Default: 60 s.
  long timeout_ms = 60000;
  // Connect timeout. Default: 10 s.
  long connect_timeout_ms = 10000;
  // User-Agent sent with every request. Default: "fixgraph/<version> (+sync)".
  std::string user_agent;
  // Largest response body, counted after decompression (so a gzip bomb stops
  // here too); a larger one is an error, not a truncated body. Default: 64 MiB.
  std::size_t max_body_bytes = std::size_t{64} << 20;
  // Largest total size of the response's header lines. Default: 1 MiB.
  std::size_t max_header_bytes = std::size_t{1} << 20;
  // Redirects followed per request. Default: 5.
  int max_redirects = 5;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual StatusOr<HttpResponse> Get(const HttpRequest& request) = 0;
  // POSTs `body` (send a Content-Type header with it) with the same caps and
  // errors as Get; a redirect is not followed but returned as the response.
  // The KG service client (query/docs_http.cc) goes through it.
  virtual StatusOr<HttpResponse> Post(const HttpRequest& request, const std::string& body) = 0;
};

// The libcurl client (gzip/deflate accepted, keep-alive, HTTP/1.1).
std::unique_ptr<HttpClient> NewCurlHttpClient(const HttpClientOptions& options);

// `url` with the values of token-bearing query parameters (access_token,
// private_token, token) replaced by "REDACTED". Use it for every URL that is
// printed, logged or put into an error message.
std::string RedactUrl(const std::string& url);

// Percent-encodes a query value (RFC 3986 unreserved characters kept).
std::string UrlEncode(const std::string& value);

}  // namespace fixgraph::ingest
