// The command line run in-process (cli::Run), for the tests of tests/cli/:
// what `fixgraph ARGS...` would print and return, without a process.
#pragma once

#include "testutil/testutil.h"

#include "fixgraph/cli/cli.h"

#include <gtest/gtest.h>

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

// A test suite sharing one demo store: data/demo imported through the CLI
// (and data/kg with kWithDocs) once per suite, removed after it. Suite is the
// deriving fixture, so that each suite has a store of its own.
template <typename Suite, bool kWithDocs = false>
class DemoStoreCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new fixgraph::testing::TempDir();
    CliResult r = Run({"import", fixgraph::testing::SourceDir() + "/data/demo"});
    ASSERT_EQ(r.code, 0) << r.err;
    if (kWithDocs) {
      r = Run({"docs", "import", fixgraph::testing::SourceDir() + "/data/kg"});
      ASSERT_EQ(r.code, 0) << r.err;
    }
  }
  static void TearDownTestSuite() {
    delete db_;
    db_ = nullptr;
  }
  // fixgraph --db <the suite's demo store> ARGS..., in-process.
  static CliResult Run(std::vector<std::string> args) {
    return RunCliOn(db_->path(), std::move(args));
  }
  static inline fixgraph::testing::TempDir* db_ = nullptr;
};

}  // namespace fixgraph::cli::testing
