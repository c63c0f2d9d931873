#include "bulk_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>

namespace fixgraph::graph {
namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
constexpr int kDefaultPad = 128 * 1024;  // glibc's M_TOP_PAD and M_MMAP_THRESHOLD defaults
constexpr int kMmapThreshold = 32 << 20;

std::uintptr_t Break() { return reinterpret_cast<std::uintptr_t>(::sbrk(0)); }

}  // namespace

BulkHeap::BulkHeap(std::size_t reserve) {
  ::mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  ::mallopt(M_TOP_PAD, static_cast<int>(reserve));
  // Advise from the first whole huge page above the current break: the pages
  // below it are in use already.
  advised_end_ = (Break() + kHugePage - 1) & ~(kHugePage - 1);
  // Grow the heap now, by the reserve (a block larger than any free top
  // makes malloc extend the break by the block and the pad; freeing it keeps
  // the pad), then advise it before anything touches it.
  // (Through a volatile pointer: the compiler may drop a malloc whose block
  // is only freed.)
  const std::uintptr_t before = Break();
  void* volatile p = std::malloc(kMmapThreshold / 2);
  std::free(p);
  if (Break() < before + reserve / 2) {
    // The break did not move (no room, strict overcommit, a heap that is not
    // contiguous): glibc's defaults again, nothing advised.
    Restore();
    active_ = false;
    return;
  }
  Update();
}

BulkHeap::~BulkHeap() {
  if (active_) Restore();
}

void BulkHeap::Restore() {
  ::mallopt(M_TOP_PAD, kDefaultPad);
  ::mallopt(M_MMAP_THRESHOLD, kDefaultPad);
}

void BulkHeap::Update() {
  if (!active_) return;
  std::uintptr_t end = Break() & ~(kHugePage - 1);
  if (end <= advised_end_) return;
  // A hint: failure (no THP in this kernel) only costs speed.
  ::madvise(reinterpret_cast<void*>(advised_end_), end - advised_end_, MADV_HUGEPAGE);
  advised_end_ = end;
}

}  // namespace fixgraph::graph
