#include "sync_fetch.h"

#include "fixgraph/ingest/json_reader.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <thread>

namespace fixgraph::ingest {

using nlohmann::json;

PlatformApi ApiFor(Platform p) {
  switch (p) {
    case Platform::kGitCode:
      return {p,   "https://api.gitcode.com/api/v5", "GITCODE_TOKEN", 50, true, true, true, true,
              true};
    case Platform::kGitee:
      return {p, "https://gitee.com/api/v5", "GITEE_TOKEN", 0, false, true, false, true, false};
    default:
      return {p, "https://api.github.com", "GITHUB_TOKEN", 0, false, false, false, false, false};
  }
}

std::string ErrorMessageOf(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_object()) return "";
  for (const char* k : {"message", "error_message", "error"}) {
    auto it = j.find(k);
    if (it != j.end() && it->is_string() && !it->get<std::string>().empty())
      return it->get<std::string>();
  }
  return "";
}

Fetcher::Fetcher(Platform platform, const SyncOptions& options)
    : api_(ApiFor(platform)),
      options_(options),
      limiter_(options.requests_per_minute < 0 ? api_.default_rpm : options.requests_per_minute),
      rng_(std::random_device{}()) {
  base_ = options.api_base.empty() ? api_.default_base : options.api_base;
  while (!base_.empty() && base_.back() == '/') base_.pop_back();
  if (options.token_source) token_ = options.token_source(api_.token_env);
  backoff_ms_ = options.backoff_ms;
  if (options.client) {
    client_ = options.client;
  } else {
    HttpClientOptions ho;
    ho.timeout_ms = options.timeout_ms;
    ho.connect_timeout_ms = options.connect_timeout_ms;
    owned_ = NewCurlHttpClient(ho);
    client_ = owned_.get();
  }
}

std::string Fetcher::Scrub(std::string s) const {
  s = RedactUrl(s);
  if (token_.size() >= 4) {
    for (size_t p; (p = s.find(token_)) != std::string::npos;)
      s.replace(p, token_.size(), "REDACTED");
  }
  return s;
}

StatusOr<Fetched> Fetcher::Get(const std::string& path_query, const std::string& not_found) {
  HttpRequest req;
  req.url = base_ + path_query;
  std::string shown = Scrub(req.url);
  if (!token_.empty()) {
    if (api_.platform == Platform::kGitCode) {
      req.headers.emplace_back("PRIVATE-TOKEN", token_);
    } else if (api_.platform == Platform::kGitee) {
      req.url += (req.url.find('?') == std::string::npos ? "?" : "&") +
                 std::string("access_token=") + UrlEncode(token_);
    } else {
      req.headers.emplace_back("Authorization", "Bearer " + token_);
    }
  }
  Status last;
  const int attempts = std::max(1, options_.max_attempts);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (limiter_.Acquire()) ++waits_;
    ++requests_;
    StatusOr<HttpResponse> r = client_->Get(req);
    long wait_ms = -1;  // from the server
    bool rate_limited = false;
    if (!r.ok() && r.status().code() == Status::Code::kFailedPrecondition) {
      // Not transient (a redirect to another host refused): no retry.
      return Status::FailedPrecondition(Scrub(r.status().message()));
    } else if (!r.ok()) {
      std::string m = Scrub(r.status().message());
      // Nothing listens there, or the name does not resolve: retrying
      // will not help, and every later request would fail the same way.
      if (m.find("Connection refused") != std::string::npos ||
          m.find("Couldn't connect to server") != std::string::npos ||
          m.find("resolve host") != std::string::npos ||
          m.find("Could not resolve") != std::string::npos ||
          m.find("resolve proxy") != std::string::npos)
        return Status::IOError(m +
                               ": cannot reach the server (connection refused or unknown "
                               "host); check --api-base and the network");
      last = Status::Unavailable(m);
    } else {
      HttpResponse& resp = *r;
      const int code = resp.status;
      std::string msg = Scrub(ErrorMessageOf(resp.body));
      std::string what =
          "GET " + shown + ": HTTP " + std::to_string(code) + (msg.empty() ? "" : " (" + msg + ")");
      if (code >= 200 && code < 300) {
        // Bounded: a hostile body (100,000 levels deep, 1e400) is an error,
        // not a stack overflow in the code that walks the value.
        json j;
        Status parsed = ParseJsonLimited(resp.body, &j);
        if (parsed.ok()) {
          Fetched f;
          f.body = std::move(j);
          resp.body.clear();
          f.response = std::move(resp);
          return f;
        }
        bool html = resp.body.find("<html") != std::string::npos ||
                    resp.body.find("<!DOCTYPE") != std::string::npos ||
                    resp.Header("content-type").find("html") != std::string::npos;
        last = Status::Corruption(
            "GET " + shown + ": " +
            (html ? "got an HTML page instead of JSON"
                  : "response body is not valid JSON (" + parsed.message() + ")") +
            " (" + std::to_string(resp.body.size()) + " bytes)");
      } else if (code == 401) {
        return Status::FailedPrecondition(what + ": check that $" + api_.token_env +
                                          " holds a valid, unexpired token for " +
                                          PlatformName(api_.platform));
      } else if (code == 404) {
        if (!not_found.empty()) return Status::NotFound(what + ": " + not_found);
        return Status::NotFound(what +
                                ": check the owner and repository names, that it exists on " +
                                PlatformName(api_.platform) + ", and that $" + api_.token_env +
                                " can see it (private repositories need a token)");
      } else if (code == 403 && !IsRateLimit(resp, msg)) {
        return Status::FailedPrecondition(what + ": access denied; check the permissions of $" +
                                          api_.token_env);
      } else if (code == 429 || code == 403 || code == 418 || code >= 500) {
        rate_limited = code == 429 || code == 403;
        last = Status::Unavailable(what +
                                   (code == 418 ? " (rejected by the platform's firewall)" : ""));
        wait_ms = ServerWaitMs(resp);
      } else {
        return Status::InvalidArgument(what);
      }
    }
    if (attempt + 1 == attempts) break;
    long delay = Backoff(attempt);
    if (wait_ms >= 0) {
      if (wait_ms > static_cast<long>(options_.max_wait_s) * 1000)
        return last.WithContext("the server asks to wait " + std::to_string(wait_ms / 1000) +
                                " s, more than the allowed " + std::to_string(options_.max_wait_s) +
                                " s");
      delay = std::max(delay, wait_ms);
    }
    if (rate_limited) ++waits_;
    ++retries_;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
  }
  return last.WithContext("gave up after " + std::to_string(attempts) + " attempts");
}

StatusOr<json> Fetcher::GetAll(const std::string& path, const std::string& query, bool paged,
                               const std::string& not_found, bool object_ok) {
  json all = json::array();
  if (!paged) {
    FG_ASSIGN_OR_RETURN(Fetched f, Get(path + (query.empty() ? "" : "?" + query), not_found));
    if (object_ok && f.body.is_object()) return json::array({std::move(f.body)});
    if (!f.body.is_array())
      return Status::Corruption("GET " + Scrub(base_ + path) + ": expected a JSON array");
    return std::move(f.body);
  }
  json previous;
  for (int page = 1; page <= kMaxPages; ++page) {
    std::string pq = path + "?" + (query.empty() ? "" : query + "&") +
                     "page=" + std::to_string(page) + "&per_page=100";
    FG_ASSIGN_OR_RETURN(Fetched f, Get(pq, not_found));
    if (object_ok && f.body.is_object()) f.body = json::array({std::move(f.body)});
    if (!f.body.is_array())
      return Status::Corruption("GET " + Scrub(base_ + pq) + ": expected a JSON array");
    if (page > 1 && f.body == previous) break;  // the server ignores `page`
    size_t n = f.body.size();
    for (auto& e : f.body) all.push_back(e);
    if (!HasNextPage(f.response, page, n, 100)) break;
    previous = std::move(f.body);
  }
  return all;
}

bool Fetcher::HasNextPage(const HttpResponse& r, int page, size_t got, int per_page) {
  std::string link = r.Header("link");
  if (!link.empty()) return link.find("rel=\"next\"") != std::string::npos;
  if (got < static_cast<size_t>(per_page)) return false;
  std::string tp = r.Header("total_page");
  if (!tp.empty()) {
    char* end = nullptr;
    long total = std::strtol(tp.c_str(), &end, 10);
    if (end != tp.c_str() && page >= total) return false;
  }
  return true;
}

bool Fetcher::IsRateLimit(const HttpResponse& r, const std::string& msg) {
  if (r.Header("x-ratelimit-remaining") == "0") return true;
  if (!r.Header("retry-after").empty()) return true;
  std::string m = msg;
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return std::tolower(c); });
  return m.find("rate limit") != std::string::npos || m.find("too many") != std::string::npos ||
         m.find("exceed") != std::string::npos;
}

long Fetcher::ServerWaitMs(const HttpResponse& r) {
  std::string ra = r.Header("retry-after");
  if (!ra.empty()) {
    char* end = nullptr;
    double secs = std::strtod(ra.c_str(), &end);
    if (end != ra.c_str() && *end == '\0') return static_cast<long>(secs * 1000);
    struct tm tm {};
    if (strptime(ra.c_str(), "%a, %d %b %Y %H:%M:%S", &tm) != nullptr) {
      long at = static_cast<long>(timegm(&tm));
      return std::max(0L, (at - static_cast<long>(std::time(nullptr))) * 1000);
    }
  }
  std::string reset = r.Header("x-ratelimit-reset");
  if (!reset.empty() && r.Header("x-ratelimit-remaining") == "0") {
    long at = std::atol(reset.c_str());
    long now = static_cast<long>(std::time(nullptr));
    // Epoch seconds, or (some servers) seconds from now.
    if (at > 1000000000L) return std::max(0L, (at - now) * 1000);
    return at * 1000;
  }
  return -1;
}

long Fetcher::Backoff(int attempt) {
  double full = std::min<double>(
      options_.max_backoff_ms,
      static_cast<double>(backoff_ms_) * static_cast<double>(1L << std::min(attempt, 20)));
  std::lock_guard<std::mutex> lock(rng_mu_);
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return static_cast<long>(full * jitter(rng_));
}

}  // namespace fixgraph::ingest
