// The small HTTP interface the remote KG source talks through, so libcurl
// stays in one file. Private to query/.
//
// Thread safety: a client may be used from several threads at once.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fixgraph/engine/status.h"

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
  // a response, not an error; errors are transport failures (refused,
  // timed out after `timeout_seconds`, bad URL). Error messages never include
  // header values.
  virtual StatusOr<HttpResponse> Post(const std::string& url,
                                      const std::vector<std::string>& headers,
                                      const std::string& body, double timeout_seconds) = 0;
};

std::unique_ptr<HttpClient> NewCurlHttpClient();

}  // namespace fixgraph::query::docs
