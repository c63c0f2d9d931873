// HttpClient over libcurl: a pool of easy handles (each keeps its connection
// cache, so sequential requests to one host reuse a connection).
#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <vector>

#include "fixgraph/ingest/http.h"

namespace fixgraph::ingest {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t WriteHeader(char* data, size_t size, size_t n, void* user) {
  auto* r = static_cast<HttpResponse*>(user);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    r->headers.clear();  // a new response (after 100-continue or a redirect)
  } else if (size_t colon = line.find(':'); colon != std::string::npos) {
    r->headers[Lower(Trim(line.substr(0, colon)))] = Trim(line.substr(colon + 1));
  }
  return size * n;
}

class CurlClient final : public HttpClient {
 public:
  explicit CurlClient(HttpClientOptions options) : options_(std::move(options)) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    if (options_.user_agent.empty()) options_.user_agent = "fixgraph/0.1.0 (issue-fix linker; sync)";
  }
  ~CurlClient() override {
    for (CURL* h : pool_) curl_easy_cleanup(h);
  }

  StatusOr<HttpResponse> Get(const HttpRequest& request) override {
    CURL* h = Acquire();
    HttpResponse response;
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers)
      headers = curl_slist_append(headers, (name + ": " + value).c_str());
    headers = curl_slist_append(headers, "Accept: application/json");
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // every encoding curl supports
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, options_.timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, WriteHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &response);
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    curl_slist_free_all(headers);
    Release(h);
    if (rc != CURLE_OK) {
      std::string what = errbuf[0] != '\0' ? std::string(errbuf) : curl_easy_strerror(rc);
      // Never echo the URL curl may have put in its message: it can hold a token.
      return Status::Unavailable("GET " + RedactUrl(request.url) + ": " +
                                 RedactUrl(what));
    }
    response.status = static_cast<int>(status);
    return response;
  }

 private:
  CURL* Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!pool_.empty()) {
        CURL* h = pool_.back();
        pool_.pop_back();
        return h;
      }
    }
    return curl_easy_init();
  }
  void Release(CURL* h) {
    std::lock_guard<std::mutex> lock(mu_);
    pool_.push_back(h);
  }

  HttpClientOptions options_;
  std::mutex mu_;
  std::vector<CURL*> pool_;
};

}  // namespace

std::string HttpResponse::Header(const std::string& name) const {
  auto it = headers.find(Lower(name));
  return it == headers.end() ? std::string() : it->second;
}

std::unique_ptr<HttpClient> NewCurlHttpClient(const HttpClientOptions& options) {
  return std::make_unique<CurlClient>(options);
}

std::string RedactUrl(const std::string& url) {
  std::string out = url;
  for (const char* key : {"access_token=", "private_token=", "token="}) {
    size_t pos = 0;
    while ((pos = out.find(key, pos)) != std::string::npos) {
      bool at_param = pos > 0 && (out[pos - 1] == '?' || out[pos - 1] == '&');
      size_t start = pos + std::string(key).size();
      if (!at_param) {
        pos = start;
        continue;
      }
      size_t end = out.find_first_of("&# ", start);
      if (end == std::string::npos) end = out.size();
      out.replace(start, end - start, "REDACTED");
      pos = start + 8;
    }
  }
  return out;
}

std::string UrlEncode(const std::string& value) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace fixgraph::ingest
