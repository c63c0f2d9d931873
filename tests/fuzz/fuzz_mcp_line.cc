// libFuzzer harness: the MCP server's line handler (cli/mcp.cc RunMcp) on the
// demo store. The input is the session's stdin: any bytes, split into lines
// as `fixgraph mcp` reads them. Beyond "no crash, no sanitizer report": every
// line answered is one JSON-RPC 2.0 object, and no message reaches the loop's
// last guard (-32603 "internal error": an exception Handle let through).
#include "fuzz_store.h"
#include "mcp.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)fixgraph::fuzz::DemoStore();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out, log;
  fixgraph::cli::RunMcp(fixgraph::fuzz::DemoStore(), in, out, log);
  std::istringstream answers(out.str());
  std::string line;
  while (std::getline(answers, line)) {
    nlohmann::json msg = nlohmann::json::parse(line, nullptr, false);
    if (!msg.is_object() || msg.value("jsonrpc", "") != "2.0") {
      std::fprintf(stderr, "fuzz_mcp_line: an answer is not a JSON-RPC object: %.300s\n",
                   line.c_str());
      __builtin_trap();
    }
    if (msg.contains("error") && msg["error"].is_object() &&
        msg["error"].value("code", 0) == -32603) {
      std::fprintf(stderr, "fuzz_mcp_line: internal error: %.300s\n", line.c_str());
      __builtin_trap();
    }
  }
  return 0;
}
