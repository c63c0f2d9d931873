// fixgraph_fake_api: serve a recorded dump as a GitCode/Gitee/GitHub API on
// loopback, so `fixgraph sync --api-base` can be tried without a network.
//
//   fixgraph_fake_api --dump DIR [--listen 127.0.0.1:8900 (port 0: any free one)] [--fault
//   KIND[:COUNT[:MATCH]]]...
//                     [--require-token-env VAR]
#include "fake_api.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  std::string dump, listen = "127.0.0.1:8900", token_env;
  std::vector<fixgraph::fakeapi::FakeFault> faults;
  std::vector<fixgraph::fakeapi::FakeQuirk> quirks;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "fixgraph_fake_api: " << name << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--dump") {
      dump = value("--dump");
    } else if (a == "--listen") {
      listen = value("--listen");
    } else if (a == "--require-token-env") {
      token_env = value("--require-token-env");
    } else if (a == "--fault") {
      auto f = fixgraph::fakeapi::ParseFakeFault(value("--fault"));
      if (!f.ok()) {
        std::cerr << "fixgraph_fake_api: " << f.status().message() << "\n";
        return 2;
      }
      faults.push_back(*f);
    } else if (a == "--quirk") {
      auto q = fixgraph::fakeapi::ParseFakeQuirk(value("--quirk"));
      if (!q.ok()) {
        std::cerr << "fixgraph_fake_api: " << q.status().message() << "\n";
        return 2;
      }
      quirks.push_back(*q);
    } else if (a == "--help" || a == "-h") {
      std::cout
          << "usage: fixgraph_fake_api --dump DIR [--listen HOST:PORT] "
             "[--fault KIND[:COUNT[:MATCH]]]... [--quirk QUIRK]... [--require-token-env VAR]\n"
             "  KIND: 429 403rate 418 500 502 503 slow truncate reset html badjson shift "
             "unshift 404\n"
             "  QUIRK: action-only links-object naive-times no-close-time\n"
             "  COUNT: matching requests affected (-1 = all; default 1)\n"
             "  MATCH: substring of PATH?QUERY (default: any request)\n";
      return 0;
    } else {
      std::cerr << "fixgraph_fake_api: unknown argument '" << a << "' (try --help)\n";
      return 2;
    }
  }
  if (dump.empty()) {
    std::cerr << "fixgraph_fake_api: --dump DIR is required\n";
    return 2;
  }
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos) {
    std::cerr << "fixgraph_fake_api: --listen must be HOST:PORT\n";
    return 2;
  }
  std::string host = listen.substr(0, colon);
  int port = std::atoi(listen.c_str() + colon + 1);
  fixgraph::fakeapi::FakeApi api(dump);
  for (const auto& f : faults) api.AddFault(f);
  for (auto q : quirks) api.AddQuirk(q);
  if (!token_env.empty()) {
    const char* t = std::getenv(token_env.c_str());
    if (t == nullptr || *t == '\0') {
      std::cerr << "fixgraph_fake_api: $" << token_env << " is empty\n";
      return 2;
    }
    api.RequireToken(t);
  }
  // Port 0 picks a free port; the line below says which (scripts read it).
  fixgraph::Status s = api.Listen(host, port, [&](int bound) {
    std::cerr << "fixgraph_fake_api: serving " << dump << " at http://" << host << ":" << bound
              << "/api/v5" << std::endl;
  });
  if (!s.ok()) {
    std::cerr << "fixgraph_fake_api: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
