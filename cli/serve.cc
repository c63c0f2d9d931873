// fixgraph serve [--listen HOST:PORT]: the HTTP JSON API (docs/design.md s8) and
// the search page.
//
// Every /api/v1 endpoint answers with the document the CLI prints for the
// same question (cli/documents.h, Backend::Ask), followed by a newline, so
// `curl .../api/v1/show?ref=X` and `fixgraph show X --json` are byte-identical.
// Errors are JSON too: {"error": {"status", "code", "message"}} with a 4xx
// status naming the bad parameter, or 5xx when the server cannot answer.
//
// Limits: request bodies up to --max-body bytes (413), query text up to
// kMaxQueryBytes (413), URIs up to 8 KiB (414, cpp-httplib), request line and
// headers up to 64 KiB (431). Connections (cli/serve_http.h): --timeout
// seconds to send a whole request (408) and to receive a whole answer,
// keep-alive connections idle out after 5 s, pipelined requests are answered
// in order, --max-connections waiting for a request (beyond, the longest
// waiting one is closed with 503), --threads workers, and --max-queue whole
// requests waiting for one (beyond, 503 with Retry-After).
// Auth: when $FIXGRAPH_SERVE_TOKEN is set, /api/ requests need
// "Authorization: Bearer <token>" (compared in constant time; never logged).
// Binding an address that does not resolve to loopback requires the token.
#include "serve.h"

#include "commands.h"
#include "documents.h"
#include "serve_backend.h"
#include "serve_endpoints.h"
#include "serve_http.h"

#include "fixgraph/query/digest.h"
#include "fixgraph/query/docs.h"

#include <httplib.h>
#include <sys/resource.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

namespace fixgraph::cli {

extern const char kWebPage[];
extern const std::size_t kWebPage_size;

namespace {

using nlohmann::json;

constexpr size_t kMaxQueryBytes = size_t{64} * 1024;
constexpr int kMaxLimit = 100;

bool ConstantTimeEqual(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::string& longer = a.size() >= b.size() ? a : b;
  for (size_t i = 0; i < longer.size(); ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

// Parses a limit in [1, kMaxLimit]; `text` comes from the query or the body.
bool ParseLimit(const std::string& text, size_t* out, std::string* error) {
  if (text.empty() || text.size() > 6 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    *error = "limit \"" + text.substr(0, 20) + "\": expected a whole number from 1 to " +
             std::to_string(kMaxLimit);
    return false;
  }
  long v = std::strtol(text.c_str(), nullptr, 10);
  if (v < 1 || v > kMaxLimit) {
    *error = "limit " + text + ": expected a whole number from 1 to " + std::to_string(kMaxLimit);
    return false;
  }
  *out = static_cast<size_t>(v);
  return true;
}

// The endpoints and the methods each answers (HEAD with every GET).
struct Route {
  const char* path;
  bool post;  // POST besides GET
};
constexpr Route kRoutes[] = {{"/", false},
                             {"/healthz", false},
                             {"/api/v1/show", false},
                             {"/api/v1/links", false},
                             {"/api/v1/stats", false},
                             {"/api/v1/digest", false},
                             {"/api/v1/ask", true},
                             {"/api/v1/home", false}};

const Route* FindRoute(const std::string& path) {
  for (const Route& r : kRoutes)
    if (path == r.path) return &r;
  return nullptr;
}

// A strong entity tag over the exact bytes of a body: two independent 64-bit
// FNV-1a hashes and the length, so a changed answer gets a different tag.
std::string EntityTag(const std::string& body) {
  std::uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
  for (unsigned char c : body) {
    a = (a ^ c) * 0x100000001b3ULL;
    b = (b ^ static_cast<unsigned char>(c + 0x5b)) * 0x100000001b3ULL;
    b ^= b >> 29;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "\"%016llx%016llx-%zx\"", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b), body.size());
  return buf;
}

// If-None-Match holds `etag` (or "*"); weak tags compare by their opaque part (RFC 9110 13.1.2).
bool NoneMatchHits(const std::string& header, const std::string& etag) {
  size_t i = 0;
  while (i < header.size()) {
    while (i < header.size() && (header[i] == ' ' || header[i] == '\t' || header[i] == ',')) ++i;
    if (i >= header.size()) break;
    if (header[i] == '*') return true;
    if (header.compare(i, 2, "W/") == 0) i += 2;
    if (i >= header.size() || header[i] != '"') return false;  // malformed: no match
    size_t close = header.find('"', i + 1);
    if (close == std::string::npos) return false;
    if (header.compare(i, close - i + 1, etag) == 0) return true;
    i = close + 1;
  }
  return false;
}

// What changes when `docs import` writes the doc index: the modification
// time and size of Xapian's version file ("" when there is no index).
std::string DocIndexSignature(const std::string& db_dir) {
  std::error_code ec;
  std::filesystem::path v = std::filesystem::path(query::DocIndexDir(db_dir)) / "iamglass";
  auto size = std::filesystem::file_size(v, ec);
  if (ec) return "";
  auto when = std::filesystem::last_write_time(v, ec);
  if (ec) return "";
  return std::to_string(size) + "@" + std::to_string(when.time_since_epoch().count());
}

class Server {
 public:
  Server(BackendSource& source, const ServeOptions& options, std::ostream& log)
      : options_(options), source_(source), log_(log), svr_(Limits(options)) {}

  // Binds, prints the address, serves until Stop(). An error when binding fails
  // or the listening socket stops accepting (HardenedServer::Serve).
  Status Run(const std::function<void(int port)>& on_listening) {
    svr_.set_payload_max_length(options_.max_body);
    svr_.set_tcp_nodelay(true);  // small JSON answers: no Nagle/delayed-ACK stalls
    svr_.set_pre_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) { return PreRoute(req, res); });
    svr_.set_post_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) { PostRoute(req, res); });
    svr_.set_error_handler(httplib::Server::HandlerWithResponse(
        [this](const httplib::Request& req, httplib::Response& res) {
          if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
          // A known endpoint with a method it does not answer is 405, also when
          // the request failed before routing (a POST without a body).
          if ((res.status == 400 || res.status == 404) && WrongMethod(req, res))
            return httplib::Server::HandlerResponse::Handled;
          std::string msg;
          switch (res.status) {
            case 404:
              msg = "no such endpoint: " + req.method + " " + req.path;
              break;
            case 413:
              msg = "request body too large";
              break;
            case 414:
              msg = "request URI too long";
              break;
            case 400:
              msg = "malformed HTTP request";
              break;
            default:
              msg = "request failed";
          }
          SendError(res, res.status, msg);
          return httplib::Server::HandlerResponse::Handled;
        }));
    svr_.set_exception_handler(
        [this](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
          std::string what = "unknown exception";
          try {
            std::rethrow_exception(std::move(ep));
          } catch (const std::exception& e) {
            what = e.what();
          } catch (...) {
          }
          Log("error: " + req.method + " " + req.path + ": " + what);
          SendError(res, 500, "internal error while answering " + req.path);
        });
    Routes();
    int port = svr_.Bind(options_.host, options_.port);
    if (port < 0)
      return Status::IOError("cannot listen on " + options_.host + ":" +
                             std::to_string(options_.port) + " (address in use or not available)");
    on_listening(port);
    return svr_.Serve([this](const std::string& why) { Log("error: " + why); });
  }

  void Stop() { svr_.StopListening(); }

  void Log(const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mu_);
    log_ << "fixgraph serve: " << line << "\n" << std::flush;
  }

  // With --snapshots: looks at <root>/current again (on SIGHUP, or every
  // --snapshot-check seconds) and swaps to the snapshot it names; then
  // closes the replaced snapshots no request uses any more. A failure is
  // logged (once per message unless `always_log`) and the current snapshot
  // keeps serving.
  void RefreshSnapshot(bool due, bool always_log) {
    if (due) {
      std::string was = source_.serving();
      auto swapped = source_.Refresh();
      if (!swapped.ok()) {
        if (always_log || swapped.status().message() != last_refresh_error_)
          Log("error: " + swapped.status().message() + "; still serving " + was);
        last_refresh_error_ = swapped.status().message();
      } else {
        last_refresh_error_.clear();
        if (*swapped) Log("serving snapshot " + source_.serving() + " (was " + was + ")");
      }
    }
    for (const std::string& dir : source_.ReleaseUnused()) Log("closed snapshot " + dir);
  }

 private:
  static ConnectionLimits Limits(const ServeOptions& o) {
    ConnectionLimits l;
    l.threads = std::max<size_t>(1, o.threads);
    l.max_queue = static_cast<size_t>(o.max_queue);
    l.max_connections = static_cast<size_t>(std::max(1, o.max_connections));
    l.timeout_s = o.timeout_s;
    return l;
  }

  std::string AllowHeader(const Route& r) const {
    return std::string(r.post ? "GET, HEAD, POST" : "GET, HEAD") +
           (options_.cors_origin.empty() ? "" : ", OPTIONS");
  }

  // 405 with Allow when `req` names an endpoint with a method it does not answer.
  bool WrongMethod(const httplib::Request& req, httplib::Response& res) const {
    const Route* route = FindRoute(req.path);
    if (route == nullptr) return false;
    const std::string& m = req.method;
    if (m == "GET" || m == "HEAD" || (m == "POST" && route->post) ||
        (m == "OPTIONS" && !options_.cors_origin.empty()))
      return false;
    res.set_header("Allow", AllowHeader(*route));
    SendError(res, 405,
              "method " + m.substr(0, 16) + " not allowed for " + req.path +
                  " (allowed: " + AllowHeader(*route) + ")");
    return true;
  }

  bool CorsOriginMatches(const httplib::Request& req) const {
    return !options_.cors_origin.empty() && req.get_header_value("Origin") == options_.cors_origin;
  }

  httplib::Server::HandlerResponse PreRoute(const httplib::Request& req, httplib::Response& res) {
    if (WrongMethod(req, res)) return httplib::Server::HandlerResponse::Handled;
    if (req.method == "OPTIONS") {
      // A CORS preflight (only with --cors; WrongMethod answered 405 otherwise):
      // never authenticated, as browsers send it without credentials.
      const Route* route = FindRoute(req.path);
      if (route == nullptr) return httplib::Server::HandlerResponse::Unhandled;  // 404
      res.status = 204;
      res.set_header("Allow", AllowHeader(*route));
      if (CorsOriginMatches(req)) {
        res.set_header("Access-Control-Allow-Methods", AllowHeader(*route));
        res.set_header("Access-Control-Allow-Headers",
                       "Authorization, Content-Type, If-None-Match");
        res.set_header("Access-Control-Max-Age", "600");
      }
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!options_.token.empty() && req.path.rfind("/api/", 0) == 0) {
      std::string auth = req.get_header_value("Authorization");
      const std::string prefix = "Bearer ";
      bool ok = auth.size() > prefix.size() && auth.compare(0, prefix.size(), prefix) == 0 &&
                ConstantTimeEqual(auth.substr(prefix.size()), options_.token);
      if (!ok) {
        res.set_header("WWW-Authenticate", "Bearer realm=\"fixgraph\"");
        SendError(res, 401,
                  auth.empty() ? "missing Authorization: Bearer token (this server requires "
                                 "the token set in FIXGRAPH_SERVE_TOKEN)"
                               : "invalid bearer token");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    return httplib::Server::HandlerResponse::Unhandled;
  }

  // On every answer: the CORS header for the --cors origin; on a successful
  // GET or HEAD of the API or the page, a strong ETag over the body,
  // Cache-Control: no-cache (reuse only after revalidating: the store may have
  // changed), and 304 without a body when If-None-Match holds the tag.
  // Errors are never stored (no-store).
  void PostRoute(const httplib::Request& req, httplib::Response& res) {
    if (!options_.cors_origin.empty()) {
      res.set_header("Vary", "Origin");
      if (CorsOriginMatches(req)) {
        res.set_header("Access-Control-Allow-Origin", options_.cors_origin);
        res.set_header("Access-Control-Expose-Headers",
                       "ETag, Link, Retry-After, WWW-Authenticate");
      }
    }
    if (res.status >= 400) {
      res.set_header("Cache-Control", "no-store");
      return;
    }
    bool cacheable = (req.method == "GET" || req.method == "HEAD") && res.status == 200 &&
                     (req.path == "/" || req.path.rfind("/api/v1/", 0) == 0);
    if (!cacheable) {
      if (req.path == "/healthz") res.set_header("Cache-Control", "no-store");
      return;
    }
    std::string etag = EntityTag(res.body);
    res.set_header("ETag", etag);
    if (!res.has_header("Cache-Control")) res.set_header("Cache-Control", "no-cache");
    if (req.has_header("If-None-Match") &&
        NoneMatchHits(req.get_header_value("If-None-Match"), etag)) {
      res.status = 304;
      // No body and no Content-Length: clients that read a body by its length
      // (cpp-httplib does, even for 304) would wait for one.
      res.body.clear();
      res.headers.erase("Content-Type");
      res.headers.erase("Content-Length");
    }
  }

  // Wraps a handler: the store is acquired first; failures become JSON.
  using StoreHandler =
      std::function<void(const Store&, const httplib::Request&, httplib::Response&)>;
  httplib::Server::Handler WithStore(StoreHandler h) {
    return [this, h = std::move(h)](const httplib::Request& req, httplib::Response& res) {
      auto store = source_.Current()->Acquire();
      if (!store.ok()) return SendStatus(res, store.status());
      h(**store, req, res);
    };
  }

  void Routes() {
    svr_.Get("/", [](const httplib::Request& req, httplib::Response& res) {
      (void)req;
      res.set_content(std::string(kWebPage, kWebPage_size), "text/html; charset=utf-8");
      res.set_header("Cache-Control", "no-cache");
      res.set_header("Content-Security-Policy",
                     "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                     "img-src 'self' data:; connect-src 'self'");
    });
    svr_.Get("/healthz", [this](const httplib::Request& req, httplib::Response& res) {
      if (!CheckParams(req, res, {})) return;
      std::shared_ptr<Backend> backend = source_.Current();
      auto store = backend->Acquire();
      json doc{{"status", store.ok() ? "ok" : "degraded"},
               {"store", store.ok()},
               {"ask", backend->AskAvailable()},
               {"store_opens", backend->opens()}};
      if (source_.follows_snapshots())
        doc["snapshots"] = {
            {"serving", backend->db_dir()}, {"swaps", source_.swaps()}, {"open", source_.open()}};
      HardenedServer::Counters c = svr_.counters();
      doc["connections"] = {{"accepted", c.accepted},
                            {"timed_out", c.timed_out},
                            {"evicted", c.evicted},
                            {"shed", c.shed},
                            {"lingered", c.lingered}};
      if (!store.ok()) doc["message"] = store.status().message();
      SendJson(res, store.ok() ? 200 : 503, doc);
    });
    svr_.Get("/api/v1/show", WithStore(AnswerShow));
    svr_.Get("/api/v1/links", WithStore(AnswerLinks));
    svr_.Get("/api/v1/stats", WithStore(AnswerStats));
    // The search page's home: store counts and example questions (query/digest.h).
    // It reads every stored link, so it is built once per store instance and
    // doc index (see Home).
    svr_.Get("/api/v1/home", [this](const httplib::Request& req, httplib::Response& res) {
      if (!CheckParams(req, res, {})) return;
      auto doc = Home();
      if (!doc.ok()) return SendStatus(res, doc.status());
      SendJson(res, 200, *doc);
    });
    AskFn ask = [this](const std::string& q, const std::string& limit, const std::string& repo,
                       httplib::Response& res,
                       double min_score) { Ask(q, limit, repo, res, min_score); };
    svr_.Get("/api/v1/ask", [ask](const httplib::Request& req, httplib::Response& res) {
      AnswerAskQuery(req, res, ask);
    });
    svr_.Post("/api/v1/ask", [ask](const httplib::Request& req, httplib::Response& res) {
      AnswerAskBody(req, res, ask);
    });
    svr_.Get("/api/v1/digest", WithStore(AnswerDigest));
  }

  void Ask(const std::string& q, const std::string& limit_text, const std::string& repo_text,
           httplib::Response& res, double min_score) {
    if (q.size() > kMaxQueryBytes)
      return SendError(res, 413,
                       "query text is " + std::to_string(q.size()) + " bytes; at most " +
                           std::to_string(kMaxQueryBytes) + " are accepted");
    size_t limit = 5;
    std::string error;
    if (!ParseLimit(limit_text, &limit, &error)) return SendError(res, 400, error);
    RepoRef repo;
    bool has_repo = false;
    if (Status s = ParseRepoFilter(repo_text, "repo", &repo, &has_repo); !s.ok())
      return SendStatus(res, s);
    std::shared_ptr<Backend> backend = source_.Current();  // one snapshot for the whole answer
    if (has_repo) {  // an unknown repository is 404, as for links and digest
      auto store = backend->Acquire();
      if (!store.ok()) return SendStatus(res, store.status());
      if (Status s = RequireRepository(**store, repo); !s.ok()) return SendStatus(res, s);
    }
    auto text = backend->AskText(q, limit, has_repo ? repo.ToString() : std::string(), min_score);
    if (!text.ok()) return SendStatus(res, text.status());
    res.status = 200;
    res.set_content(*text + "\n", "application/json; charset=utf-8");
  }

  // The home document of the current store, rebuilt only when the backend
  // has reopened the store (a writer changed it) or `docs import` has
  // rewritten the doc index since it was built.
  StatusOr<json> Home() {
    std::shared_ptr<Backend> backend = source_.Current();
    auto store = backend->Acquire();
    if (!store.ok()) return store.status();
    std::string docs = DocIndexSignature(backend->db_dir());
    {
      std::lock_guard<std::mutex> lock(home_mu_);
      if (home_ && home_store_.lock() == *store && home_docs_ == docs) return *home_;
    }
    auto overview = query::BuildStoreOverview(**store, backend->db_dir(), 8);
    if (!overview.ok()) return overview.status();
    json doc = query::ToJson(*overview);
    std::lock_guard<std::mutex> lock(home_mu_);
    home_ = doc;
    home_store_ = *store;
    home_docs_ = std::move(docs);
    return doc;
  }

  ServeOptions options_;
  BackendSource& source_;
  std::string last_refresh_error_;  // the waiter thread's alone
  std::mutex home_mu_;
  std::optional<json> home_;
  std::weak_ptr<const Store> home_store_;
  std::string home_docs_;
  std::ostream& log_;
  std::mutex log_mu_;
  HardenedServer svr_;
};

// Each connection is a descriptor: make room for the connection cap, the
// queue and the workers besides the store's files, within the hard limit.
void RaiseOpenFileLimit(const ServeOptions& o) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  rlim_t want = static_cast<rlim_t>(o.max_connections) + static_cast<rlim_t>(o.max_queue) +
                static_cast<rlim_t>(o.threads) + 1024;
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < want) {
    lim.rlim_cur = lim.rlim_max == RLIM_INFINITY ? want : std::min(want, lim.rlim_max);
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace

void RunServe(Context& ctx, const std::string& listen, ServeOptions options) {
  auto hp = ParseListen(listen);
  if (!hp.ok()) {
    *ctx.err << "fixgraph: usage error: " << hp.status().message() << "\n";
    ctx.exit_code = 2;
    return;
  }
  options.host = hp->first;
  options.port = hp->second;
  if (const char* t = std::getenv("FIXGRAPH_SERVE_TOKEN"); t != nullptr) options.token = t;
  options.docs = ctx.env.docs;
  // The address that will be bound decides, not the spelling of the name
  // (127.0.0.1.example may resolve anywhere).
  auto resolved = ResolveListenHost(options.host);
  if (!resolved.ok()) return ctx.Fail(resolved.status());
  if (!resolved->loopback && options.token.empty())
    return ctx.Fail(Status::InvalidArgument(
        "--listen " + listen + ": " +
        (resolved->address == options.host
             ? std::string("")
             : options.host + " resolves to " + resolved->address + ", ") +
        "not a loopback address; refusing to serve without a token; set FIXGRAPH_SERVE_TOKEN"));
  options.host = resolved->address;
  if (!options.cors_origin.empty()) {
    if (Status s = CheckCorsOrigin(options.cors_origin); !s.ok()) Context::UsageError(s.message());
  }
  RaiseOpenFileLimit(options);

  // SIGINT/SIGTERM stop the server cleanly: block them before any thread
  // exists (RocksDB starts background threads when the store opens; threads
  // inherit the mask) and wait for them on a dedicated thread. With
  // --snapshots, SIGHUP makes that thread look at <root>/current at once.
  const bool follow = !options.snapshots.empty();
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  if (follow) sigaddset(&sigs, SIGHUP);
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &sigs, &old);
  auto restore = [&old] { pthread_sigmask(SIG_SETMASK, &old, nullptr); };

  // Open the store (the snapshot) now, so a wrong --db or --snapshots fails at once.
  std::unique_ptr<BackendSource> source;
  if (follow) {
    auto opened = BackendSource::ForSnapshots(options.snapshots, options.docs);
    if (!opened.ok()) {
      restore();
      return ctx.Fail(opened.status());
    }
    source = std::move(*opened);
  } else {
    source = std::make_unique<BackendSource>(ctx.db_dir, options.docs);
    Backend probe(ctx.db_dir);
    auto store = probe.Acquire();
    if (!store.ok()) {
      restore();
      return ctx.Fail(store.status());
    }
  }
  Server server(*source, options, *ctx.err);

  std::atomic<bool> done{false};
  std::thread waiter([&] {
    int sig = 0;
    auto checked = std::chrono::steady_clock::now();
    const auto every = std::chrono::seconds(options.snapshot_check_s);
    while (!done.load()) {
      timespec ts{0, 200'000'000};
      sig = sigtimedwait(&sigs, nullptr, &ts);
      if (sig == SIGINT || sig == SIGTERM) {
        server.Stop();
        return;
      }
      if (!follow) continue;
      auto now = std::chrono::steady_clock::now();
      bool due = sig == SIGHUP || (every.count() > 0 && now - checked >= every);
      if (due) checked = now;
      server.RefreshSnapshot(due, sig == SIGHUP);
    }
  });
  Status s = server.Run([&](int port) {
    std::string shown =
        options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host;
    *ctx.err << "fixgraph serve: listening on http://" << shown << ":" << port << "/"
             << (options.token.empty() ? "" : " (bearer token required for /api/)")
             << (follow ? " serving snapshot " + source->serving() : std::string()) << "\n"
             << std::flush;
  });
  done.store(true);
  waiter.join();
  restore();
  if (!s.ok()) return ctx.Fail(s);
  *ctx.err << "fixgraph serve: stopped\n";
}

}  // namespace fixgraph::cli
