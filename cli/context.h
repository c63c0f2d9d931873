// State shared by the commands of one Run. Private to cli/.
#pragma once

#include "environment.h"
#include "progress.h"

#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace fixgraph::cli {

// Exit status of every command (docs/cli.md, "Exit status").
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // the command ran and failed; the message says what and where
constexpr int kExitUsage = 2;    // unknown command or flag, bad flag value, missing argument
constexpr int kExitPartial = 3;  // sync stored only part; ask answered without some shards

struct Context {
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  std::string db_dir;  // --db, $FIXGRAPH_DB or ./fixgraph-data
  Environment env;     // the other variables, read once (environment.h)
  bool err_is_terminal = false;
  ProgressMode progress = ProgressMode::kAuto;  // --quiet, --progress (progress.h)
  int exit_code = 0;
  std::vector<std::string> args;  // Run's arguments, args[0] the program (serve.h re-executes them)

  std::string StoreDir() const { return db_dir + "/store"; }
  // Read-only; warns on stderr about pending derived work (Store::ListPending)
  // unless `report_pending` is false (stats shows it itself).
  StatusOr<std::unique_ptr<Store>> OpenForRead(bool report_pending = true) const;
  // For writing; first finishes the pending derived work an earlier run left
  // (cli/refresh.h FinishPendingWork) unless `finish_pending` is false.
  StatusOr<std::unique_ptr<Store>> OpenForWrite(bool finish_pending = true) const;

  // A progress line on stderr as the flags and the terminal say (progress.h).
  std::unique_ptr<Progress> NewProgress(const std::string& label) const {
    return std::make_unique<Progress>(err, err_is_terminal, progress, label);
  }

  // Prints "fixgraph: error: <message>" and sets exit code 1.
  void Fail(const Status& s);
  // A bad flag value found while running: thrown out of a command's callback,
  // it is reported as a usage error (exit 2) like one CLI11 finds itself.
  // `message` names the flag ("--time-offset: ...").
  [[noreturn]] static void UsageError(const std::string& message) {
    throw CLI::ValidationError(message);
  }
};

}  // namespace fixgraph::cli
