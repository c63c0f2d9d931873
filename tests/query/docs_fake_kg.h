// A loopback fake of the Ascend KG service (reference/ascend-kg.md) for the
// remote doc source tests: POST /search with X-API-Key, RFC 7807 errors, 422
// on unknown body fields, 429 with Retry-After, `degraded` answers and
// string scores. Plain POSIX sockets, one connection at a time, HTTP/1.1 with
// "Connection: close". Test-only.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph::testing {

struct FakeRequest {
  std::string method, path;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  std::string Header(const std::string& name) const {
    for (const auto& [k, v] : headers)
      if (k == name) return v;
    return "";
  }
};

struct FakeResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int delay_ms = 0;
};

class FakeKgServer {
 public:
  struct Node {
    std::string id, title, snippet, source_file;
    std::vector<std::string> words;  // a result matches when the query holds one
    double score = 0.92;
    std::vector<std::string> products;  // sent as "products" when not empty
  };

  // Behaviour knobs (set before requests arrive).
  std::string api_key = "kg-secret-key-123";
  std::vector<Node> nodes;
  int rate_limit_first = 0;         // answer 429 to this many /search calls first
  std::string retry_after = "0";    // Retry-After value sent with 429 ("" = none)
  bool degraded = false;            // embedding down: keyword results, score 0.0
  bool string_scores = false;       // send scores as strings
  int delay_ms = 0;                 // delay every answer
  bool echo_key_in_errors = false;  // a careless server quoting the key back

  FakeKgServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 16);
    thread_ = std::thread([this] { Loop(); });
  }
  ~FakeKgServer() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  FakeKgServer(const FakeKgServer&) = delete;
  FakeKgServer& operator=(const FakeKgServer&) = delete;

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<FakeRequest> Requests() {
    std::lock_guard<std::mutex> l(mu_);
    return requests_;
  }

 private:
  static FakeResponse Problem(int status, const std::string& code, const std::string& title,
                              const std::string& detail) {
    FakeResponse r;
    r.status = status;
    r.content_type = "application/problem+json";
    r.body = nlohmann::json{{"type", "about:blank"},   {"title", title},
                            {"status", status},        {"code", code},
                            {"detail", detail},        {"instance", "/search"},
                            {"request_id", "req-0001"}}
                 .dump();
    return r;
  }

  FakeResponse Handle(const FakeRequest& req) {
    if (req.method == "GET" && req.path == "/health") {
      FakeResponse r;
      r.body = R"({"status":"ok","neo4j":"ok","embedding":"ok"})";
      return r;
    }
    if (req.path != "/search" || req.method != "POST")
      return Problem(404, "NOT_FOUND", "Not Found", "no route " + req.method + " " + req.path);
    if (req.Header("x-api-key") != api_key) {
      std::string d = "invalid or missing X-API-Key";
      if (echo_key_in_errors) d += " (got '" + req.Header("x-api-key") + "')";
      return Problem(401, "UNAUTHORIZED", "Unauthorized", d);
    }
    if (search_calls_++ < rate_limit_first) {
      FakeResponse r = Problem(429, "RATE_LIMITED", "Too Many Requests",
                               "standard tier allows 5 requests/s" +
                                   (echo_key_in_errors ? " for key " + api_key : std::string()));
      if (!retry_after.empty()) r.headers.emplace_back("Retry-After", retry_after);
      return r;
    }
    nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    if (!body.is_object())
      return Problem(422, "VALIDATION_ERROR", "Unprocessable Entity", "body is not a JSON object");
    for (auto it = body.begin(); it != body.end(); ++it) {
      static const std::vector<std::string> kAllowed = {"query", "top_k", "file_type",
                                                        "source_repo", "with_neighbors"};
      if (std::find(kAllowed.begin(), kAllowed.end(), it.key()) == kAllowed.end())
        return Problem(422, "VALIDATION_ERROR", "Unprocessable Entity",
                       "extra field not permitted: " + it.key());
    }
    if (!body.contains("query") || !body["query"].is_string())
      return Problem(422, "VALIDATION_ERROR", "Unprocessable Entity", "query: field required");
    int top_k = body.value("top_k", 10);
    if (top_k < 1 || top_k > 200)
      return Problem(422, "VALIDATION_ERROR", "Unprocessable Entity",
                     "top_k: ensure this value is between 1 and 200");
    if (body.contains("file_type") && !body["file_type"].is_null()) {
      static const std::vector<std::string> kTypes = {"md", "py", "cpp", "h", "yaml", "json"};
      if (!body["file_type"].is_string() ||
          std::find(kTypes.begin(), kTypes.end(), body["file_type"].get<std::string>()) ==
              kTypes.end())
        return Problem(422, "VALIDATION_ERROR", "Unprocessable Entity",
                       "file_type: must be one of md, py, cpp, h, yaml, json");
    }
    std::string q = body["query"].get<std::string>();
    nlohmann::json results = nlohmann::json::array();
    for (const Node& n : nodes) {
      bool match = false;
      for (const std::string& w : n.words) match = match || q.find(w) != std::string::npos;
      if (!match) continue;
      double score = degraded ? 0.0 : n.score;
      nlohmann::json s =
          string_scores ? nlohmann::json(std::to_string(score)) : nlohmann::json(score);
      results.push_back({{"id", n.id},
                         {"label", "Section"},
                         {"title", n.title},
                         {"file_type", "md"},
                         {"source_file", n.source_file},
                         {"source_repo", "cann/docs"},
                         {"community", 7},
                         {"score", s},
                         {"snippet", n.snippet},
                         {"neighbors", nlohmann::json::array()}});
      if (!n.products.empty()) results.back()["products"] = n.products;
      if (static_cast<int>(results.size()) >= top_k) break;
    }
    FakeResponse r;
    r.body = nlohmann::json{{"query", q},
                            {"results", results},
                            {"total", results.size()},
                            {"elapsed_ms", 12},
                            {"degraded", degraded}}
                 .dump();
    return r;
  }

  void Loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      Serve(c);
      close(c);
    }
  }

  void Serve(int c) {
    std::string buf;
    char tmp[4096];
    size_t head_end = std::string::npos;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (head_end == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{c, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      ssize_t n = recv(c, tmp, sizeof tmp, 0);
      if (n <= 0) return;
      buf.append(tmp, static_cast<size_t>(n));
      head_end = buf.find("\r\n\r\n");
    }
    if (head_end == std::string::npos) return;
    FakeRequest req;
    std::string head = buf.substr(0, head_end);
    size_t line_end = head.find("\r\n");
    std::string first = head.substr(0, line_end);
    size_t sp1 = first.find(' '), sp2 = first.rfind(' ');
    req.method = first.substr(0, sp1);
    req.path = first.substr(sp1 + 1, sp2 - sp1 - 1);
    size_t content_length = 0;
    for (size_t pos = line_end + 2; pos < head.size();) {
      size_t e = head.find("\r\n", pos);
      if (e == std::string::npos) e = head.size();
      std::string line = head.substr(pos, e - pos);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string k = line.substr(0, colon);
        for (char& ch : k) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(' '));
        if (k == "content-length") content_length = std::stoul(v);
        req.headers.emplace_back(k, v);
      }
      pos = e + 2;
    }
    req.body = buf.substr(head_end + 4);
    while (req.body.size() < content_length && std::chrono::steady_clock::now() < deadline) {
      pollfd p{c, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      ssize_t n = recv(c, tmp, sizeof tmp, 0);
      if (n <= 0) break;
      req.body.append(tmp, static_cast<size_t>(n));
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      requests_.push_back(req);
    }
    FakeResponse r = Handle(req);
    int wait = std::max(r.delay_ms, delay_ms);
    if (wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait));
    std::string reason = r.status == 200 ? "OK" : "Error";
    std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason + "\r\n";
    out += "Content-Type: " + r.content_type + "\r\n";
    for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
    out += "Content-Length: " + std::to_string(r.body.size()) + "\r\nConnection: close\r\n\r\n";
    out += r.body;
    size_t sent = 0;
    while (sent < out.size()) {
      ssize_t n = send(c, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<FakeRequest> requests_;
  int search_calls_ = 0;
};

}  // namespace fixgraph::testing
