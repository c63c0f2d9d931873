// The fixgraph command line, as a library: main() only forwards to Run, and
// tests drive Run in-process with their own streams.
//
//   fixgraph [--db DIR] COMMAND ...     (DIR: $FIXGRAPH_DB, else ./fixgraph-data)
//
// Exit status: 0 success, 1 failure (the message names what and where),
// 2 bad usage (an unknown command or flag, a missing argument).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace fixgraph::cli {

// Runs one command. args[0] is the program name. Normal output goes to `out`,
// errors and progress to `err`.
int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace fixgraph::cli
