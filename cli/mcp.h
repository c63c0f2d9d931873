// The MCP stdio server loop (cli/mcp.cc), callable with any streams. Private to cli/.
#pragma once

#include "fixgraph/query/docs.h"

#include <istream>
#include <ostream>
#include <string>

namespace fixgraph::cli {

// Reads newline-delimited JSON-RPC from `in` until EOF, answers on `out`
// (protocol only), diagnostics on `log`.
// `docs`: the doc sources ask opens (query::OpenDocSources).
void RunMcp(const std::string& db_dir, std::istream& in, std::ostream& out, std::ostream& log,
            const query::DocSourceConfig& docs = {});

}  // namespace fixgraph::cli
