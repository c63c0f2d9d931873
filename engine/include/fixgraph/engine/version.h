// fixgraph's version, from project(VERSION) in the top CMakeLists.txt (the
// only place it is written): `--version`, the MCP server's serverInfo and the
// HTTP clients' User-Agent all read it here.
#pragma once

#ifndef FIXGRAPH_VERSION_STRING
#error "FIXGRAPH_VERSION_STRING comes from CMakeLists.txt (add_compile_definitions)"
#endif

namespace fixgraph {

inline constexpr const char* kVersion = FIXGRAPH_VERSION_STRING;

}  // namespace fixgraph
