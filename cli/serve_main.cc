// fixgraph-serve: the fixgraph command line with the HTTP server linked.
// `fixgraph serve` executes it in place (cli/serve.h), so the other commands
// start without loading cpp-httplib and OpenSSL.
#include "serve.h"

#include "fixgraph/cli/cli.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  fixgraph::cli::SetServeRunner(fixgraph::cli::RunServe);
  std::vector<std::string> args(argv, argv + argc);
  return fixgraph::cli::Run(args, std::cout, std::cerr);
}
