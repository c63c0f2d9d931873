// `fixgraph serve`: its flags, the checks of --listen and --cors, and how the
// server is started. The server itself (cli/serve.cc) links cpp-httplib, whose
// shared library initializes OpenSSL when it is loaded: about 3 ms of every
// process start. So the fixgraph binary leaves it out, and its `serve`
// executes fixgraph-serve, the same command line with the server linked,
// built beside it (serve.h, SetServeRunner).
#include "commands.h"
#include "serve.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

namespace fixgraph::cli {

namespace {

// Runs fixgraph-serve with this process's arguments, in its place (the same
// process id, environment and descriptors). Returns only when it cannot.
// NOLINTNEXTLINE(performance-unnecessary-value-param): a ServeRunner, like RunServe
void ExecServeBinary(Context& ctx, const std::string& /*listen*/, ServeOptions /*options*/) {
  std::string path = ServeBinaryPath();
  std::vector<char*> argv;
  argv.push_back(path.data());
  for (size_t i = 1; i < ctx.args.size(); ++i) argv.push_back(ctx.args[i].data());
  argv.push_back(nullptr);
  ctx.out->flush();
  ctx.err->flush();
  std::cout.flush();
  std::cerr.flush();
  execv(path.c_str(), argv.data());
  const int error = errno;
  ctx.Fail(Status::IOError("cannot run the HTTP server " + path + ": " + std::strerror(error) +
                           " (it is built beside fixgraph, as the fixgraph-serve target)"));
}

ServeRunner g_runner = ExecServeBinary;

}  // namespace

void SetServeRunner(ServeRunner runner) { g_runner = runner; }

std::string ServeBinaryPath() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return kServeBinary;  // looked up nowhere else: execv reports it missing
  return (self.parent_path() / kServeBinary).string();
}

StatusOr<std::pair<std::string, int>> ParseListen(const std::string& text) {
  std::string host, port;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return Status::InvalidArgument("--listen \"" + text + "\": expected [IPV6]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos) {
      host = "127.0.0.1";
      port = text;
    } else {
      host = text.substr(0, colon);
      port = text.substr(colon + 1);
      if (host.empty()) host = "127.0.0.1";
    }
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535)
    return Status::InvalidArgument("--listen \"" + text +
                                   "\": expected HOST:PORT with a port from 0 to 65535");
  return std::make_pair(host, std::stoi(port));
}

Status CheckCorsOrigin(const std::string& origin) {
  auto bad = [&origin](const std::string& why) {
    return Status::InvalidArgument(
        "--cors \"" + origin + "\": " + why +
        " (expected an origin such as https://tools.example.com or http://localhost:3000)");
  };
  if (origin == "*")
    return bad("any origin is not allowed; name the one origin whose pages may read the API");
  size_t scheme = origin.find("://");
  if (scheme == std::string::npos ||
      (origin.compare(0, scheme, "http") != 0 && origin.compare(0, scheme, "https") != 0))
    return bad("the scheme must be http or https");
  std::string rest = origin.substr(scheme + 3);
  if (rest.empty()) return bad("no host");
  if (rest.find_first_of("/?#@ \t") != std::string::npos)
    return bad("an origin has no path, query, user or spaces");
  return Status::OK();
}

StatusOr<ListenHost> ResolveListenHost(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr)
    return Status::InvalidArgument("--listen host \"" + host + "\": cannot resolve it (" +
                                   gai_strerror(rc) + ")");
  ListenHost out;
  char text[INET6_ADDRSTRLEN] = "";
  if (found->ai_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    out.loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
  } else if (found->ai_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(found->ai_addr);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    const uint8_t* b = a->sin6_addr.s6_addr;
    out.loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) ||
                   (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) && b[12] == 127);
  }
  freeaddrinfo(found);
  if (text[0] == '\0')
    return Status::InvalidArgument("--listen host \"" + host + "\": not an IPv4 or IPv6 address");
  out.address = text;
  return out;
}

void AddServeCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("serve", "HTTP JSON API and a search page (loopback by default)");
  auto listen = std::make_shared<std::string>("127.0.0.1:8080");
  auto options = std::make_shared<ServeOptions>();
  cmd->add_option("--listen", *listen,
                  "HOST:PORT to listen on (default 127.0.0.1:8080; port 0 picks a free one)");
  cmd->add_option("--threads", options->threads, "worker threads (default 16)")
      ->check(WholeNumber(1, 1024));
  cmd->add_option(
         "--max-queue", options->max_queue,
         "whole requests allowed to wait for a worker before requests get 503 (default 1024)")
      ->check(WholeNumber(0, 1000000));
  cmd->add_option(
         "--max-connections", options->max_connections,
         "connections waiting for a request; beyond, the longest waiting is closed (default 1024)")
      ->check(WholeNumber(1, 100000));
  cmd->add_option("--max-body", options->max_body, "largest request body in bytes (default 1 MiB)")
      ->check(WholeNumber(1024, 64LL * 1024 * 1024));
  cmd->add_option("--timeout", options->timeout_s,
                  "seconds a client has to send a whole request, and the server to send a whole "
                  "answer (default 10)")
      ->check(WholeNumber(1, 3600));
  cmd->add_option("--cors", options->cors_origin,
                  "let pages of this one origin (https://host[:port]) read the API from a browser "
                  "(default: none)");
  cmd->add_option("--snapshots", options->snapshots,
                  "serve the snapshot ROOT/current names instead of --db, and swap to a newer one "
                  "while serving (`fixgraph snapshot --publish`; docs/deploy.md)");
  cmd->add_option("--snapshot-check", options->snapshot_check_s,
                  "with --snapshots: seconds between looks at ROOT/current (default 5; 0: only on "
                  "SIGHUP)")
      ->check(WholeNumber(0, 86400));
  cmd->callback([&ctx, listen, options] { g_runner(ctx, *listen, *options); });
}

}  // namespace fixgraph::cli
