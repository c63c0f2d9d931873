// HttpClient over libcurl: a pool of easy handles (each keeps its connection
// cache, so sequential requests to one host reuse a connection).
//
// libcurl is loaded with dlopen on the first request, not linked: it brings 24
// of the 45 shared libraries a linked fixgraph maps at start (OpenSSL, GnuTLS's
// and Kerberos's dependencies, libssh2, nghttp2, ...), a quarter of the start-up
// of every command, although only `sync` and a remote docs service make
// requests (docs/benchmarks.md, "A whole ask process").
#include "fixgraph/engine/version.h"
#include "fixgraph/ingest/http.h"

#include <curl/curl.h>
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace fixgraph::ingest {
namespace {

// The libcurl functions fixgraph calls, from the dlopen'ed library. Their
// types come from <curl/curl.h> (decltype only: nothing links against them).
struct CurlApi {
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_perform) easy_perform = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
  decltype(&::curl_url) url = nullptr;
  decltype(&::curl_url_set) url_set = nullptr;
  decltype(&::curl_url_get) url_get = nullptr;
  decltype(&::curl_url_cleanup) url_cleanup = nullptr;
  decltype(&::curl_free) free = nullptr;
};

// libcurl.so.4 (Debian's libcurl4, which libcurl4-openssl-dev depends on),
// loaded and initialised once per process and never unloaded; the error, also
// once, when it cannot be.
StatusOr<const CurlApi*> LoadCurl() {
  static const StatusOr<const CurlApi*> loaded = []() -> StatusOr<const CurlApi*> {
    const char* kLibrary = "libcurl.so.4";
    void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      return Status::Unavailable(std::string("cannot load ") + kLibrary +
                                 " (libcurl, needed for HTTP requests; on Debian the package "
                                 "libcurl4): " +
                                 (why != nullptr ? why : "unknown error"));
    }
    static CurlApi api;
    std::string missing;
    auto bind = [&](auto* fn, const char* name) {
      void* sym = dlsym(lib, name);
      if (sym == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
      *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(sym);
    };
    bind(&api.global_init, "curl_global_init");
    bind(&api.easy_init, "curl_easy_init");
    bind(&api.easy_setopt, "curl_easy_setopt");
    bind(&api.easy_perform, "curl_easy_perform");
    bind(&api.easy_getinfo, "curl_easy_getinfo");
    bind(&api.easy_cleanup, "curl_easy_cleanup");
    bind(&api.easy_strerror, "curl_easy_strerror");
    bind(&api.slist_append, "curl_slist_append");
    bind(&api.slist_free_all, "curl_slist_free_all");
    bind(&api.url, "curl_url");
    bind(&api.url_set, "curl_url_set");
    bind(&api.url_get, "curl_url_get");
    bind(&api.url_cleanup, "curl_url_cleanup");
    bind(&api.free, "curl_free");
    if (!missing.empty())
      return Status::Unavailable(std::string(kLibrary) + " lacks " + missing +
                                 " (a libcurl older than the one fixgraph was built with)");
    if (CURLcode rc = api.global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK)
      return Status::Unavailable(std::string("curl_global_init failed: ") + api.easy_strerror(rc));
    return &api;
  }();
  return loaded;
}

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

// What one transfer collects; the callbacks stop it (by returning a short
// count, CURLE_WRITE_ERROR) when a cap is passed.
struct Transfer {
  HttpResponse* response;
  std::size_t max_body;
  std::size_t max_headers;
  std::size_t header_bytes = 0;
  bool body_too_large = false;
  bool headers_too_large = false;
};

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  // Decompressed bytes: the cap holds for a gzip bomb too.
  if (t->response->body.size() + size * n > t->max_body) {
    t->body_too_large = true;
    return 0;
  }
  t->response->body.append(data, size * n);
  return size * n;
}

size_t WriteHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->header_bytes += size * n;
  if (t->header_bytes > t->max_headers) {
    t->headers_too_large = true;
    return 0;
  }
  HttpResponse* r = t->response;
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    r->headers.clear();  // a new response (after 100-continue)
  } else if (size_t colon = line.find(':'); colon != std::string::npos) {
    r->headers[Lower(Trim(line.substr(0, colon)))] = Trim(line.substr(colon + 1));
  }
  return size * n;
}

// scheme://host:port of an absolute URL, lower-cased, the port made explicit;
// "" when curl cannot parse it.
std::string Origin(const CurlApi& curl, const std::string& url) {
  CURLU* u = curl.url();
  std::string out;
  if (curl.url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    char *scheme = nullptr, *host = nullptr, *port = nullptr;
    if (curl.url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl.url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl.url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK)
      out = Lower(scheme) + "://" + Lower(host) + ":" + port;
    curl.free(scheme);
    curl.free(host);
    curl.free(port);
  }
  curl.url_cleanup(u);
  return out;
}

bool IsRedirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

class CurlClient final : public HttpClient {
 public:
  explicit CurlClient(HttpClientOptions options) : options_(std::move(options)) {
    if (options_.user_agent.empty())
      options_.user_agent = std::string("fixgraph/") + kVersion + " (issue-fix linker; sync)";
  }
  ~CurlClient() override {
    for (CURL* h : pool_) curl_->easy_cleanup(h);  // (a handle means curl_ is set)
  }

  // Redirects are followed here, not by curl: curl would send the request's
  // headers (a PRIVATE-TOKEN) to whatever host a Location names. One to the
  // same scheme, host and port is followed as is; one elsewhere only when the
  // request carries no credentials (no extra headers, no token parameter),
  // else it is an error naming the target.
  StatusOr<HttpResponse> Get(const HttpRequest& request) override {
    FG_ASSIGN_OR_RETURN(const CurlApi* curl, LoadCurl());
    const bool credentials = !request.headers.empty() || RedactUrl(request.url) != request.url;
    const std::string origin = Origin(*curl, request.url);
    std::string url = request.url;
    for (int hop = 0;; ++hop) {
      std::string location;
      StatusOr<HttpResponse> r = Perform(*curl, request, url, nullptr, &location);
      if (!r.ok() || !IsRedirect(r->status) || location.empty()) return r;
      if (hop == options_.max_redirects)
        return Status::Unavailable("GET " + RedactUrl(request.url) + ": more than " +
                                   std::to_string(options_.max_redirects) + " redirects");
      std::string target_origin = Origin(*curl, location);
      if (target_origin.empty() || (target_origin != origin && credentials))
        return Status::FailedPrecondition(
            "GET " + RedactUrl(request.url) + ": HTTP " + std::to_string(r->status) +
            " redirects to " + RedactUrl(location) +
            ", another scheme, host or port: not followed, so that the access token is not "
            "sent there (use that address as the API base if it is the right one)");
      url = location;
    }
  }

  // A POST is not repeated elsewhere: a redirect is the response.
  StatusOr<HttpResponse> Post(const HttpRequest& request, const std::string& body) override {
    FG_ASSIGN_OR_RETURN(const CurlApi* curl, LoadCurl());
    std::string location;
    return Perform(*curl, request, request.url, &body, &location);
  }

 private:
  // One request to `url` (no redirect followed): a GET, or a POST of
  // *post_body when it is not null; *location is the absolute target of a
  // redirect response, "" otherwise. The caps of options_ hold for both.
  StatusOr<HttpResponse> Perform(const CurlApi& curl, const HttpRequest& request,
                                 const std::string& url, const std::string* post_body,
                                 std::string* location) {
    CURL* h = Acquire(curl);
    if (h == nullptr)
      return Status::Unavailable((post_body != nullptr ? "POST " : "GET ") + RedactUrl(url) +
                                 ": curl_easy_init failed");
    HttpResponse response;
    Transfer transfer{&response, options_.max_body_bytes, options_.max_header_bytes};
    curl_slist* headers = nullptr;
    if (Origin(curl, url) == Origin(curl, request.url)) {
      for (const auto& [name, value] : request.headers)
        headers = curl.slist_append(headers, (name + ": " + value).c_str());
    }
    bool accept = false;
    for (const auto& header : request.headers) accept = accept || Lower(header.first) == "accept";
    if (!accept) headers = curl.slist_append(headers, "Accept: application/json");
    curl.easy_setopt(h, CURLOPT_URL, url.c_str());
    if (post_body != nullptr) {
      curl.easy_setopt(h, CURLOPT_POST, 1L);
      curl.easy_setopt(h, CURLOPT_POSTFIELDS, post_body->data());
      curl.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
    } else {
      curl.easy_setopt(h, CURLOPT_HTTPGET, 1L);
    }
    curl.easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl.easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl.easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // every encoding curl supports
    curl.easy_setopt(h, CURLOPT_TIMEOUT_MS,
                     request.timeout_ms > 0 ? request.timeout_ms : options_.timeout_ms);
    curl.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     request.timeout_ms > 0
                         ? std::min(request.timeout_ms, options_.connect_timeout_ms)
                         : options_.connect_timeout_ms);
    curl.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE,
                     static_cast<curl_off_t>(options_.max_body_bytes));
    curl.easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl.easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteBody);
    curl.easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
    curl.easy_setopt(h, CURLOPT_HEADERFUNCTION, WriteHeader);
    curl.easy_setopt(h, CURLOPT_HEADERDATA, &transfer);
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode rc = curl.easy_perform(h);
    long status = 0;
    curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    char* redirect = nullptr;
    curl.easy_getinfo(h, CURLINFO_REDIRECT_URL, &redirect);
    location->assign(redirect != nullptr ? redirect : "");
    curl.easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
    curl.easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    curl.easy_setopt(h, CURLOPT_POSTFIELDS, nullptr);
    curl.slist_free_all(headers);
    Release(h);
    const std::string shown = (post_body != nullptr ? "POST " : "GET ") + RedactUrl(url) + ": ";
    if (transfer.body_too_large || rc == CURLE_FILESIZE_EXCEEDED)
      return Status::Unavailable(shown + "response body larger than " +
                                 std::to_string(options_.max_body_bytes) +
                                 " bytes (after decompression); refused");
    if (transfer.headers_too_large)
      return Status::Unavailable(shown + "response headers larger than " +
                                 std::to_string(options_.max_header_bytes) + " bytes; refused");
    if (rc != CURLE_OK) {
      std::string what = errbuf[0] != '\0' ? std::string(errbuf) : curl.easy_strerror(rc);
      // Never echo the URL curl may have put in its message: it can hold a token.
      return Status::Unavailable(shown + RedactUrl(what));
    }
    response.status = static_cast<int>(status);
    return response;
  }

  CURL* Acquire(const CurlApi& curl) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      curl_ = &curl;
      if (!pool_.empty()) {
        CURL* h = pool_.back();
        pool_.pop_back();
        return h;
      }
    }
    return curl.easy_init();
  }
  void Release(CURL* h) {
    std::lock_guard<std::mutex> lock(mu_);
    pool_.push_back(h);
  }

  HttpClientOptions options_;
  std::mutex mu_;
  const CurlApi* curl_ = nullptr;  // set by the first request, under mu_
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
