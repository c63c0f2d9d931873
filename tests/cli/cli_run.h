// The command line run in-process (cli::Run), for the tests of tests/cli/:
// what `fixgraph ARGS...` would print and return, without a process.
#pragma once

#include "fixgraph/cli/cli.h"

#include <sstream>
#include <string>
#include <vector>

namespace fixgraph::cli::testing {

struct CliResult {
  int code;
  std::string out, err;
};

// fixgraph ARGS...
inline CliResult RunCli(std::vector<std::string> args) {
  args.insert(args.begin(), "fixgraph");
  std::ostringstream out, err;
  const int code = Run(args, out, err);
  return {code, out.str(), err.str()};
}

// fixgraph --db DB ARGS...
inline CliResult RunCliOn(const std::string& db, std::vector<std::string> args) {
  args.insert(args.begin(), {"--db", db});
  return RunCli(std::move(args));
}

}  // namespace fixgraph::cli::testing
