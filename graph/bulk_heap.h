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
// since. On destruction the two settings go back to glibc's defaults (128 KiB;
// the mmap threshold then stays fixed); so they do at once when the break
// cannot grow by the reserve (strict overcommit, no room), and the BulkHeap
// then does nothing (active() is false). Only the main arena (the main
// thread) is prepared: linking threads use arenas of their own.
//
// Thread safety: construct, update and destroy on one thread; mallopt itself
// is safe while other threads allocate. Failures only cost speed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fixgraph::graph {

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
  static void Restore();
  std::uintptr_t advised_end_ = 0;
  bool active_ = true;
};

}  // namespace fixgraph::graph
