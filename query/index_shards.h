// Indexes split into shards (docs/deploy.md, "Shards"). Private to query/.
//
// Where the issue index (<db_dir>/index-issues) or the doc index
// (<db_dir>/index-docs) is expected there may be a Xapian stub database file
// instead of a directory: a text file, one shard per line, in shard order:
//   remote HOST:PORT   a shard served by `xapian-tcpsrv --port PORT`
//   auto PATH          a shard on disk (also glass PATH; relative to the stub's folder)
// Blank lines and lines starting with '#' are skipped. The same file opens
// with Xapian itself (Xapian::Database(path)); fixgraph reads it line by line
// instead, to bound every remote call with kRemoteTimeoutMs and to name the
// shard that cannot be reached.
//
// The shards are written by SplitIndexes (fixgraph index split): the
// document with docid D of the single index is document (D-1)/N+1 of shard
// (D-1)%N, which is where Xapian's combined database of the N shards puts
// docid D; so the combined database has the single index's docids, term
// statistics and metadata (every shard holds a copy of the metadata, and
// get_metadata on a combined database reads the first shard). A shard that
// cannot be opened is replaced by an empty in-memory database holding the
// metadata of the first shard that opened: docids and metadata stay those of
// the whole index, and the answer comes from the shards that are up.
#pragma once

#include "fixgraph/engine/status.h"

#include <xapian.h>

#include <string>
#include <vector>

namespace fixgraph::query {

// Bounds each remote call (the reply of one message) and each connection to a
// shard server, so a shard that is down or hung delays an answer by at most
// about kRemoteTimeoutMs, never forever.
inline constexpr unsigned kRemoteTimeoutMs = 3000;
inline constexpr unsigned kRemoteConnectTimeoutMs = 1000;

struct ShardLine {
  size_t line = 0;  // 1-based line of the stub
  bool remote = false;
  std::string host;  // remote
  unsigned port = 0;
  std::string path;  // local: absolute or relative to the stub's folder, resolved
  // "shard 1 (remote 127.0.0.1:9001)": how messages name it (0-based index).
  std::string name;
};

// True when `path` is a regular file (a stub), not an index directory.
bool IsStubFile(const std::string& path);

// The shards a stub lists; InvalidArgument naming the file and line for a
// line of another form (and for a stub listing no shard).
StatusOr<std::vector<ShardLine>> ReadStub(const std::string& path);

struct OpenedIndex {
  Xapian::Database db;
  bool sharded = false;                // opened from a stub
  size_t shards = 0;                   // the stub's shards (1 for a directory)
  std::vector<std::string> missing;    // "shard 1 (remote 127.0.0.1:9001): <why>", stub order
  std::vector<size_t> missing_shards;  // their indexes
};

// Opens the index at `path`: a directory as it is, a stub shard by shard.
// `what` names the index in messages ("issue index"). Unavailable, naming
// every shard, when no shard opens; IOError for a directory that does not open.
// `skip`: shards known to be down (OpenedIndex::missing_shards of a moment
// ago), taken as missing without waiting for them again.
StatusOr<OpenedIndex> OpenIndex(const std::string& path, const std::string& what,
                                const std::vector<size_t>& skip = {});

}  // namespace fixgraph::query
