// docs::HttpClient over ingest's libcurl client: one HTTP client in the
// project, so the KG service gets the same response caps (body size counted
// after decompression, header size) and the same errors as sync's API client.
#include "docs_http.h"

#include "fixgraph/engine/version.h"
#include "fixgraph/ingest/http.h"

namespace fixgraph::query::docs {
namespace {

class CurlHttpClient : public HttpClient {
 public:
  explicit CurlHttpClient(const HttpClientLimits& limits) {
    ingest::HttpClientOptions o;
    o.user_agent = std::string("fixgraph/") + kVersion + " (KG docs)";
    o.max_body_bytes = limits.max_body_bytes;
    o.max_header_bytes = limits.max_header_bytes;
    client_ = ingest::NewCurlHttpClient(o);
  }

  StatusOr<HttpResponse> Post(const std::string& url, const std::vector<std::string>& headers,
                              const std::string& body, double timeout_seconds) override {
    ingest::HttpRequest request;
    request.url = url;
    for (const std::string& h : headers) {
      size_t colon = h.find(':');
      if (colon == std::string::npos) continue;
      size_t v = h.find_first_not_of(' ', colon + 1);
      request.headers.emplace_back(h.substr(0, colon),
                                   v == std::string::npos ? std::string() : h.substr(v));
    }
    long timeout_ms = static_cast<long>(timeout_seconds * 1000);
    request.timeout_ms = timeout_ms <= 0 ? 1 : timeout_ms;
    StatusOr<ingest::HttpResponse> r = client_->Post(request, body);
    if (!r.ok()) return r.status();
    HttpResponse out;
    out.status = r->status;
    out.body = std::move(r->body);
    out.retry_after = r->Header("retry-after");
    return out;
  }

 private:
  std::unique_ptr<ingest::HttpClient> client_;
};

}  // namespace

std::unique_ptr<HttpClient> NewCurlHttpClient(const HttpClientLimits& limits) {
  return std::make_unique<CurlHttpClient>(limits);
}

}  // namespace fixgraph::query::docs
