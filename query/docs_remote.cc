// The remote KG service behind DocSource: POST <url>/search
// (reference/ascend-kg.md), with retries on 429/503 and errors as values.
#include "docs_fields.h"
#include "docs_http.h"
#include "docs_node.h"

#include "fixgraph/ingest/json_reader.h"
#include "fixgraph/query/docs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

namespace fixgraph::query {
namespace {

// The base URL for display: no user info, query or fragment, no trailing '/'.
std::string DisplayUrl(const std::string& url) {
  std::string u = url;
  size_t cut = u.find_first_of("?#");
  if (cut != std::string::npos) u.erase(cut);
  size_t scheme = u.find("://");
  size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  size_t slash = u.find('/', host);
  size_t at = u.rfind('@', slash == std::string::npos ? u.size() : slash);
  if (at != std::string::npos && at >= host) u.erase(host, at + 1 - host);
  while (!u.empty() && u.back() == '/') u.pop_back();
  return u;
}

// Score as a number in [0,1]: numbers, numeric strings ("0.91"); else 0.
double ParseScore(const nlohmann::json& v) {
  double d = 0;
  if (v.is_number()) {
    d = v.get<double>();
  } else if (v.is_string()) {
    const std::string s = v.get<std::string>();
    char* end = nullptr;
    d = std::strtod(s.c_str(), &end);
    if (end == s.c_str()) d = 0;
  }
  if (!std::isfinite(d)) d = 0;
  return std::clamp(d, 0.0, 1.0);
}

std::string Str(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return it->dump();
  return "";
}

// The human part of an error body: RFC 7807 "detail" (string, or FastAPI's
// list of {msg}), else "title", else the raw text, trimmed.
// Bodies are parsed with ingest::ParseJsonLimited (depth and numbers checked
// first): a hostile body is text here, never a stack overflow in dump().
std::string ErrorDetail(const std::string& body) {
  nlohmann::json j;
  if (!ingest::ParseJsonLimited(body, &j).ok()) j = nullptr;
  std::string out;
  if (j.is_object()) {
    auto d = j.find("detail");
    if (d != j.end() && d->is_string()) {
      out = d->get<std::string>();
    } else if (d != j.end() && d->is_array()) {
      for (const auto& e : *d) {
        std::string m = e.is_object() ? Str(e, "msg") : (e.is_string() ? e.get<std::string>() : "");
        if (e.is_object() && e.contains("loc") && e["loc"].is_array()) {
          std::string loc;
          for (const auto& l : e["loc"])
            loc += (loc.empty() ? "" : ".") + (l.is_string() ? l.get<std::string>() : l.dump());
          if (!loc.empty()) m = loc + ": " + m;
        }
        if (!m.empty()) out += (out.empty() ? "" : "; ") + m;
      }
    }
    if (out.empty()) out = Str(j, "title");
    std::string code = Str(j, "code");
    if (!code.empty()) out = code + (out.empty() ? "" : ": " + out);
  } else {
    out = body;
  }
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return docs::Utf8Truncate(out, 240);
}

class RemoteDocSource : public DocSource {
 public:
  RemoteDocSource(RemoteDocOptions o, std::unique_ptr<docs::HttpClient> http)
      : opt_(std::move(o)), http_(std::move(http)), name_(DisplayUrl(opt_.url)) {}

  std::string Name() const override { return name_; }

  StatusOr<std::vector<DocHit>> Search(std::string_view text, size_t limit) override {
    auto r = SearchRaw(text, limit);
    if (!r.ok()) return Status(Redact(r.status()));
    docs::MarkAskedProducts(docs::ReadIntent(text), &*r);
    return r;
  }

 private:
  // Removes the key from a message, however a server or library echoed it.
  Status Redact(const Status& s) const {
    if (opt_.api_key.empty()) return s;
    std::string m = s.message();
    for (size_t p = m.find(opt_.api_key); p != std::string::npos; p = m.find(opt_.api_key, p))
      m.replace(p, opt_.api_key.size(), "***");
    switch (s.code()) {
      case Status::Code::kNotFound:
        return Status::NotFound(m);
      case Status::Code::kInvalidArgument:
        return Status::InvalidArgument(m);
      case Status::Code::kCorruption:
        return Status::Corruption(m);
      case Status::Code::kIOError:
        return Status::IOError(m);
      case Status::Code::kFailedPrecondition:
        return Status::FailedPrecondition(m);
      case Status::Code::kUnavailable:
        return Status::Unavailable(m);
      default:
        return Status::Internal(m);
    }
  }

  StatusOr<std::vector<DocHit>> SearchRaw(std::string_view text, size_t limit) {
    std::vector<DocHit> hits;
    std::string query(text);
    if (query.find_first_not_of(" \t\r\n") == std::string::npos || limit == 0) return hits;
    nlohmann::json req{{"query", query},
                       {"top_k", static_cast<int>(std::clamp<size_t>(limit, 1, 200))},
                       {"with_neighbors", false}};
    if (!opt_.file_type.empty()) req["file_type"] = opt_.file_type;
    if (!opt_.source_repo.empty()) req["source_repo"] = opt_.source_repo;
    std::vector<std::string> headers{"Content-Type: application/json", "Accept: application/json"};
    if (!opt_.api_key.empty()) headers.push_back("X-API-Key: " + opt_.api_key);
    const std::string url = name_ + "/search";
    const std::string who = "KG service " + name_;
    std::string body = req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    for (int attempt = 0;; ++attempt) {
      auto resp = http_->Post(url, headers, body, opt_.timeout_seconds);
      if (!resp.ok()) return resp.status().WithContext(who);
      const long st = resp->status;
      if (st == 429 || st == 503) {
        if (attempt >= opt_.max_retries) {
          return Status::Unavailable(
              who + ": " + (st == 429 ? "rate limited (HTTP 429)" : "unavailable (HTTP 503)") +
              " after " + std::to_string(attempt + 1) + " attempts");
        }
        double wait = 0.5 * std::pow(2.0, attempt);
        if (!resp->retry_after.empty()) {
          char* end = nullptr;
          double ra = std::strtod(resp->retry_after.c_str(), &end);
          if (end != resp->retry_after.c_str() && std::isfinite(ra) && ra >= 0) wait = ra;
        }
        wait = std::min(wait, opt_.max_backoff_seconds);
        std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(wait * 1000)));
        continue;
      }
      if (st == 401 || st == 403)
        return Status::FailedPrecondition(
            who + " rejected the API key (HTTP " + std::to_string(st) +
            "; set $FIXGRAPH_KG_API_KEY): " + ErrorDetail(resp->body));
      if (st == 404) return Status::NotFound(who + ": HTTP 404: " + ErrorDetail(resp->body));
      if (st == 422 || st == 400)
        return Status::InvalidArgument(who + " refused the request (HTTP " + std::to_string(st) +
                                       "): " + ErrorDetail(resp->body));
      if (st < 200 || st >= 300)
        return Status::Unavailable(who + ": HTTP " + std::to_string(st) + ": " +
                                   ErrorDetail(resp->body));
      return ParseAnswer(resp->body, limit, who);
    }
  }

  StatusOr<std::vector<DocHit>> ParseAnswer(const std::string& body, size_t limit,
                                            const std::string& who) {
    nlohmann::json j;
    if (Status s = ingest::ParseJsonLimited(body, &j); !s.ok())
      return Status::Corruption(who + ": /search answer is not valid JSON (" + s.message() + ")");
    if (!j.is_object()) return Status::Corruption(who + ": /search answer is not a JSON object");
    auto res = j.find("results");
    if (res == j.end() || !res->is_array())
      return Status::Corruption(who + ": /search answer has no \"results\" array");
    std::vector<DocHit> hits;
    for (const auto& r : *res) {
      if (!r.is_object()) return Status::Corruption(who + ": a /search result is not an object");
      DocHit h;
      h.id = Str(r, "id");
      if (h.id.empty()) return Status::Corruption(who + ": a /search result has no \"id\"");
      h.title = Str(r, "title");
      if (h.title.empty()) h.title = Str(r, "label");
      h.source = name_;
      h.score = r.contains("score") ? ParseScore(r["score"]) : 0.0;
      h.snippet = docs::Utf8Truncate(Str(r, "snippet"), 320);
      h.url = Str(r, "url");
      if (auto p = r.find("products"); p != r.end() && p->is_array()) {
        for (const auto& x : *p)
          if (x.is_string())
            for (std::string& t : docs::ProductTags(x.get<std::string>())) h.products.push_back(t);
        std::sort(h.products.begin(), h.products.end());
        h.products.erase(std::unique(h.products.begin(), h.products.end()), h.products.end());
      }
      hits.push_back(std::move(h));
    }
    std::stable_sort(hits.begin(), hits.end(),
                     [](const DocHit& a, const DocHit& b) { return a.score > b.score; });
    if (hits.size() > limit) hits.resize(limit);
    return hits;
  }

  RemoteDocOptions opt_;
  std::unique_ptr<docs::HttpClient> http_;
  std::string name_;
};

}  // namespace

StatusOr<std::unique_ptr<DocSource>> OpenRemoteDocSource(const RemoteDocOptions& options) {
  const std::string& u = options.url;
  if (u.rfind("http://", 0) != 0 && u.rfind("https://", 0) != 0)
    return Status::InvalidArgument("KG service URL must start with http:// or https:// (got \"" +
                                   DisplayUrl(u) + "\")");
  if (!(options.timeout_seconds > 0))
    return Status::InvalidArgument("KG service timeout must be positive");
  RemoteDocOptions o = options;
  o.max_retries = std::max(0, o.max_retries);
  o.max_backoff_seconds = std::max(0.0, o.max_backoff_seconds);
  return std::unique_ptr<DocSource>(new RemoteDocSource(std::move(o), docs::NewCurlHttpClient()));
}

}  // namespace fixgraph::query
