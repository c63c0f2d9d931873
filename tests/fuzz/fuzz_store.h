// A demo store for the harnesses that need one (MCP, HTTP): data/demo and
// data/kg imported once per process into a temporary directory, removed at
// exit. Test-only.
#pragma once

#include "fixgraph/cli/cli.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

namespace fixgraph::fuzz {

inline const std::string& DemoStore() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/fixgraph-fuzz-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) std::abort();
    std::string db = std::string(tmpl) + "/db";
    std::ostringstream out, err;
    const std::string src = FIXGRAPH_SOURCE_DIR;
    if (cli::Run({"fixgraph", "--db", db, "import", src + "/data/demo"}, out, err) != 0 ||
        cli::Run({"fixgraph", "--db", db, "docs", "import", src + "/data/kg"}, out, err) != 0) {
      std::fprintf(stderr, "fuzz: cannot make the demo store: %s\n", err.str().c_str());
      std::abort();
    }
    static std::string root = tmpl;
    std::atexit([] { std::filesystem::remove_all(root); });
    return db;
  }();
  return dir;
}

}  // namespace fixgraph::fuzz
