// libcurl behind docs::HttpClient.
#include <curl/curl.h>

#include <cctype>
#include <mutex>

#include "docs_http.h"

namespace fixgraph::query::docs {
namespace {

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  std::string line(data, size * n);
  constexpr std::string_view kName = "retry-after:";
  if (line.size() > kName.size()) {
    std::string head = line.substr(0, kName.size());
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (head == kName) {
      std::string v = line.substr(kName.size());
      size_t b = v.find_first_not_of(" \t");
      size_t e = v.find_last_not_of(" \t\r\n");
      *static_cast<std::string*>(user) = b == std::string::npos ? "" : v.substr(b, e - b + 1);
    }
  }
  return size * n;
}

class CurlHttpClient : public HttpClient {
 public:
  CurlHttpClient() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  StatusOr<HttpResponse> Post(const std::string& url, const std::vector<std::string>& headers,
                              const std::string& body, double timeout_seconds) override {
    CURL* curl = curl_easy_init();
    if (curl == nullptr) return Status::Internal("cannot start an HTTP request");
    struct curl_slist* list = nullptr;
    for (const std::string& h : headers) list = curl_slist_append(list, h.c_str());
    HttpResponse resp;
    char errbuf[CURL_ERROR_SIZE] = {0};
    long timeout_ms = static_cast<long>(timeout_seconds * 1000);
    if (timeout_ms <= 0) timeout_ms = 1;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &resp.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &resp.retry_after);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode rc = curl_easy_perform(curl);
    if (rc == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp.status);
    curl_easy_cleanup(curl);
    curl_slist_free_all(list);
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      return Status::Unavailable("timed out after " + std::to_string(timeout_ms) + " ms");
    }
    if (rc != CURLE_OK) {
      std::string msg = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
      if (rc == CURLE_URL_MALFORMAT || rc == CURLE_UNSUPPORTED_PROTOCOL)
        return Status::InvalidArgument(msg);
      return Status::Unavailable(msg);
    }
    return resp;
  }
};

}  // namespace

std::unique_ptr<HttpClient> NewCurlHttpClient() { return std::make_unique<CurlHttpClient>(); }

}  // namespace fixgraph::query::docs
