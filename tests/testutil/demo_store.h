// Stores built in-process for the suites of query/ and above: what
// `fixgraph --db DB import DUMP` does (ingest::ImportDump, then
// query::FinishPendingWork: the links and the ask index), without starting
// the binary. Test-only; the CLI's own tests (tests/cli/) still run the
// command.
#pragma once

#include "fixgraph/engine/status.h"

#include <string>

namespace fixgraph::testing {

// Imports the dump folder `dump_dir` (DUMP/<platform>/<owner>/<repo>/) into
// the store under `db_dir` (created when missing) and links and indexes the
// changed issues, as `fixgraph --db DB_DIR import DUMP_DIR` does with its
// default options. The store is closed again on return.
Status ImportAndRefresh(const std::string& db_dir, const std::string& dump_dir);

// A store of data/demo, imported (ImportAndRefresh) on the first call of the
// process into a temporary directory that is removed at exit; later calls
// return the same directory, or the same error. Shared by the tests of the
// process: read it only (Searcher::Open, a read-only Store::Open); a test
// that writes works on a copy (CopyTree).
StatusOr<std::string> DemoDb();

// Copies the directory tree `from` to `to` (which must not exist); for a
// store no process holds open for writing.
Status CopyTree(const std::string& from, const std::string& to);

}  // namespace fixgraph::testing
