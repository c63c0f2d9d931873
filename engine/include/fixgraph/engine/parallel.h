// ParallelFor: the one way fixgraph runs a loop on several threads (linking
// blocks, PR features of a link run, ask index shards, digest repositories
// and rendering, import of several repositories, sync's detail requests,
// bulk-load groups). Threads are started for the call and joined before it
// returns: no thread outlives a loop, and nothing is shared between loops.
//
// Contract of ParallelFor(n, threads, fn):
// - fn(index, worker) runs once for every index in [0, n), unless fn throws
//   (below).
// - Workers: min(threads, n), at least 1. Worker 0 is the calling thread; the
//   others are threads started for this call. With one worker (threads <= 1
//   or n <= 1) the indices run inline on the caller in order 0, 1, ..., n-1
//   and no thread is started. `worker` < max(threads, 1), so per-worker state
//   (a cache per worker) can live in a vector of `threads` slots; one
//   worker's calls never overlap, so that state needs no lock.
// - Scheduling is dynamic: each worker takes the next index from a shared
//   counter when it is done with the one before. Indices are therefore taken
//   in increasing order (every index below one that started has started too)
//   but finish in any order; output that must not depend on timing is
//   written by fn into the slot of its index (a vector of n results) and
//   combined by the caller after the call, in index order.
// - Concurrency: every worker thread is started before any index runs, so
//   the workers do run at the same time and an index may wait for another
//   one (a producer at index 0 feeding consumers at the other indices), as
//   long as no index waits for more indices than there are other workers.
//   If a thread cannot be started, no index runs and the std::system_error
//   is rethrown once the threads already started have ended.
// - Errors are values: fn reports them in its index's slot (e.g. a
//   std::vector<Status> of n entries) and the caller picks the one that wins
//   (usually the lowest index), as it would in a serial loop. ParallelFor has
//   no result of its own.
// - Exceptions: once fn throws, no worker takes a new index (those running
//   finish); when every worker has stopped, the exception of the lowest index
//   that threw is rethrown on the calling thread. Because indices are taken
//   in order, that is the exception a serial loop would have met first when
//   whether fn throws depends only on its index.
// - Memory: everything fn wrote is visible to the caller when ParallelFor
//   returns (or throws).
//
// Thread safety: ParallelFor may be called from any thread, also from inside
// another ParallelFor's fn (each call starts threads of its own).
#pragma once

#include <cstddef>
#include <functional>

namespace fixgraph {

// The machine's hardware threads (std::thread::hardware_concurrency), at
// least 1: what the callers use when no thread count was asked for.
size_t HardwareThreads();

void ParallelFor(size_t n, size_t threads,
                 const std::function<void(size_t index, size_t worker)>& fn);

}  // namespace fixgraph
