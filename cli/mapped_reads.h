// Reads of Xapian index files out of shared read-only mappings, for the
// server binary (fixgraph-serve) only.
//
// Xapian's glass backend reads each B-tree block with pread(2) into a buffer
// of its own. Serving the query mix at a million issues, a pasted log line
// reads about 1,700 blocks of 8 KiB, and the kernel's side of those reads
// (the system call and the copy out of the page cache) was about a quarter
// of the server's CPU (docs/benchmarks.md, "Index reads out of a mapping").
// Xapian 1.4 has no hook for its reads, so the server binary defines pread,
// posix_fadvise and close itself: an executable's definitions come first in
// the dynamic linker's search, before libc's, as an LD_PRELOAD library's
// would, so libxapian's calls land here.
//
// The contract of the two hooks (mapped_reads.cc):
// - pread(fd, ...) of a file whose path ends in ".glass" (a glass table) is
//   a copy out of a PROT_READ, MAP_SHARED mapping of the whole file, made at
//   the descriptor's first read. The mapping and pread read the same page
//   cache, so the bytes are the same, writes of another process included.
// - A read past the mapped length (the file grew since: a writer added
//   blocks) and every read of any other file (RocksDB's, the tar reader's)
//   goes to the kernel's pread. Which files are glass tables is decided once
//   a descriptor, from /proc/self/fd; without /proc nothing is mapped.
// - posix_fadvise(fd, ..., POSIX_FADV_WILLNEED) of a mapped descriptor does
//   nothing (Xapian's read-ahead of the next block; the reads are copies out
//   of the mapping); any other advice, or descriptor, goes to the kernel.
// - close(fd) unmaps the descriptor's mapping before the descriptor is
//   closed, so a descriptor number used again starts afresh. Descriptors
//   closed another way (dup2 onto one, close_range) would keep a stale
//   mapping: nothing in the server closes a glass table so.
// - A glass table is never shortened in place (Xapian writes a compacted or
//   rebuilt database to new files, and fixgraph swaps whole directories), so
//   a mapped page never lies past the end of its file.
// - FIXGRAPH_MAPPED_READS=0 in the environment (read whenever a descriptor is
//   first read) turns the mappings off: every read goes to the kernel.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace fixgraph::cli::mapped_reads {

// The hooks' work, callable by name (the hooks are pread, close and
// posix_fadvise).
ssize_t Pread(int fd, void* buf, size_t n, off_t offset);
int Close(int fd);
int Fadvise(int fd, off_t offset, off_t length, int advice);

struct Counts {
  uint64_t files_mapped = 0;    // mappings made
  uint64_t mapped_reads = 0;    // reads served from a mapping
  uint64_t advice_skipped = 0;  // read-ahead advice on mapped tables, not passed on
};
// Since the process started (relaxed counters: for tests and diagnostics).
Counts GetCounts();

}  // namespace fixgraph::cli::mapped_reads
