// The fixgraph binary: everything lives in the cli library (cli.h).
#include "fixgraph/cli/cli.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return fixgraph::cli::Run(args, std::cout, std::cerr);
}
