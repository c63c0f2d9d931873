// The main malloc heap prepared for a whole-store link run: reserved ahead in
// one step and advised for transparent huge pages, so that the ~1 GB the run
// index and the linking allocate at 100k issues fault in 2 MiB at a time
// instead of 4 KiB (what glibc.malloc.hugetlb=1 does, which glibc reads only
// at start-up). Private to graph/.
//
// While a BulkHeap lives: M_TOP_PAD is `reserve` (the heap grows, and is
// trimmed, by that much at a time), M_MMAP_THRESHOLD 32 MiB (blocks below it
// come from the advised heap), and the heap from the current break to the
// reserve's end carries MADV_HUGEPAGE. Update() advises what the heap grew by
// since. On destruction both settings go back to the values it found; so they
// do at once when the break cannot grow by the reserve (strict overcommit, no
// room), and the BulkHeap then does nothing (active() is false). Only the main
// arena (the main thread) is prepared: linking threads use arenas of their own.
//
// "The values it found": glibc has no mallopt getter (mallinfo2 reports usage,
// not settings), so the values in force are those recorded by
// SetMallocOptions below, which every change of these two settings in
// fixgraph goes through; before any change they are glibc's documented
// defaults (128 KiB each). Nested or successive BulkHeaps therefore restore
// each other's settings, not the defaults. Not seen: a setting made by a
// direct mallopt call elsewhere or by GLIBC_TUNABLES at start-up; and glibc's
// mmap threshold, dynamic until first set, stays fixed at the restored value
// (mallopt cannot make it dynamic again).
//
// Thread safety: construct, update and destroy a BulkHeap on one thread;
// SetMallocOptions and CurrentMallocOptions may be called from any thread
// (mallopt itself is safe while other threads allocate). Failures only cost
// speed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fixgraph::graph {

// The two malloc settings a BulkHeap changes, in bytes.
struct MallocOptions {
  std::size_t top_pad = 0;
  std::size_t mmap_threshold = 0;
  bool operator==(const MallocOptions&) const = default;
};

// The settings in force as far as this process set them through
// SetMallocOptions; glibc's defaults (128 KiB, 128 KiB) before the first call.
MallocOptions CurrentMallocOptions();
// Applies `options` with mallopt and records them (both, under one lock).
// False when glibc refused one (then the record keeps what glibc accepted).
bool SetMallocOptions(const MallocOptions& options);

class BulkHeap {
 public:
  explicit BulkHeap(std::size_t reserve = std::size_t{1} << 30);
  ~BulkHeap();
  BulkHeap(const BulkHeap&) = delete;
  BulkHeap& operator=(const BulkHeap&) = delete;

  // Advises the part of the heap added since the last call (cheap when
  // nothing was: one comparison).
  void Update();
  // The end of the advised range (for tests).
  std::uintptr_t advised_end() const { return advised_end_; }

  // False when the heap could not be reserved (the settings were undone).
  bool active() const { return active_; }

 private:
  MallocOptions found_;  // restored on destruction
  std::uintptr_t advised_end_ = 0;
  bool active_ = true;
};

}  // namespace fixgraph::graph
