#include "bulk_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <mutex>

namespace fixgraph::graph {
namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
constexpr std::size_t kDefaultPad =
    std::size_t{128} * 1024;  // glibc's M_TOP_PAD and M_MMAP_THRESHOLD defaults
constexpr std::size_t kMmapThreshold = std::size_t{32} << 20;

std::uintptr_t Break() { return reinterpret_cast<std::uintptr_t>(::sbrk(0)); }

// What SetMallocOptions applied last (glibc has no getter).
std::mutex settings_mu;
MallocOptions settings{kDefaultPad, kDefaultPad};

int AsInt(std::size_t v) {
  return static_cast<int>(std::min<std::size_t>(v, std::numeric_limits<int>::max()));
}

}  // namespace

MallocOptions CurrentMallocOptions() {
  std::lock_guard<std::mutex> lock(settings_mu);
  return settings;
}

bool SetMallocOptions(const MallocOptions& options) {
  std::lock_guard<std::mutex> lock(settings_mu);
  bool ok = true;
  if (::mallopt(M_MMAP_THRESHOLD, AsInt(options.mmap_threshold)) == 1)
    settings.mmap_threshold = options.mmap_threshold;
  else
    ok = false;
  if (::mallopt(M_TOP_PAD, AsInt(options.top_pad)) == 1)
    settings.top_pad = options.top_pad;
  else
    ok = false;
  return ok;
}

BulkHeap::BulkHeap(std::size_t reserve) : found_(CurrentMallocOptions()) {
  SetMallocOptions({reserve, kMmapThreshold});
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
    // contiguous): the settings found again, nothing advised.
    SetMallocOptions(found_);
    active_ = false;
    return;
  }
  Update();
}

BulkHeap::~BulkHeap() {
  if (active_) SetMallocOptions(found_);
}

void BulkHeap::Update() {
  if (!active_) return;
  std::uintptr_t end = Break() & ~(kHugePage - 1);
  if (end <= advised_end_) return;
  // A hint: failure (no THP in this kernel) only costs speed.
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an sbrk address kept as an integer, to madvise
  ::madvise(reinterpret_cast<void*>(advised_end_), end - advised_end_, MADV_HUGEPAGE);
  advised_end_ = end;
}

}  // namespace fixgraph::graph
