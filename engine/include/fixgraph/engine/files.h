// Durable files: what the writers that publish a directory (the ask index
// rebuild, `snapshot`) need to know their bytes reached the disk.
//
// SyncPath(path) opens `path` read-only (a file or a directory) and fsyncs
// it; a directory's fsync makes the names created in it durable. Errors are
// IOError values naming the path and the failing step ("opening P: ...",
// "syncing P: ..."). Thread safety: none needed (no shared state).
#pragma once

#include "fixgraph/engine/status.h"

#include <string>

namespace fixgraph {

Status SyncPath(const std::string& path);

}  // namespace fixgraph
