// Writing a command's output file (`digest -o PATH`): atomically, and never
// over something that is not a regular file.
#pragma once

#include "fixgraph/engine/status.h"

#include <functional>
#include <string>
#include <string_view>

namespace fixgraph::cli {

// Writes `text` to `path` through a temporary file in the same directory
// (flushed to disk, then renamed over `path`), so that a reader sees the old
// file or the new one, never a part, and a failure leaves the old one.
// A `path` that exists and is not a regular file (a symbolic link, FIFO,
// device, directory or socket) is refused with InvalidArgument naming it: it
// would be replaced by a regular file ("-o -" writes to stdout; the caller
// handles that). An existing file keeps its permission bits; a new one gets
// 0666 less the umask. Errors: IOError naming the path and the cause.
Status WriteOutputFile(const std::string& path, std::string_view text);
// The same for an output written in pieces: `produce` is called once with a
// sink that writes each piece to the temporary file; its error (or the
// sink's) leaves `path` as it was.
using PieceSink = std::function<Status(std::string_view piece)>;
Status WriteOutputFileFrom(const std::string& path,
                           const std::function<Status(const PieceSink& sink)>& produce);

}  // namespace fixgraph::cli
