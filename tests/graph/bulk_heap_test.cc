// BulkHeap (graph/bulk_heap.h, private to graph/: tested white-box).
#include "../../graph/bulk_heap.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fixgraph::graph {
namespace {

std::uintptr_t Break() { return reinterpret_cast<std::uintptr_t>(::sbrk(0)); }

// True when a mapping of /proc/self/smaps overlapping [lo, hi) carries the
// huge-page advice ("hg" in VmFlags).
bool AdvisedHuge(std::uintptr_t lo, std::uintptr_t hi) {
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool overlaps = false;
  while (std::getline(in, line)) {
    std::uintptr_t a = 0, b = 0;
    char dash = 0;
    std::istringstream head(line);
    if (line.find("VmFlags:") == 0) {
      if (overlaps && (line + " ").find(" hg ") != std::string::npos) return true;
      continue;
    }
    if (head >> std::hex >> a >> dash >> b && dash == '-') overlaps = a < hi && b > lo;
  }
  return false;
}

TEST(BulkHeap, ReservesTheHeapAheadAndAdvisesHugePages) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "no transparent huge pages in this kernel";
  const std::uintptr_t before = Break();
  // What the top of the heap has free already (earlier tests in this process
  // may have left some): the reserve needs that much less growth.
  const std::uintptr_t top_free = ::mallinfo2().keepcost;
  {
    BulkHeap heap(std::size_t{64} << 20);
    ASSERT_TRUE(heap.active());
    const std::uintptr_t after = Break();
    // Grown by the reserve at once (less what the top of the heap had free).
    EXPECT_GE(after - before + top_free, std::uintptr_t{63} << 20);
    ASSERT_GT(heap.advised_end(), before);
    EXPECT_TRUE(AdvisedHuge(before, heap.advised_end()));
    // Blocks of a few MiB come from the heap, not from mmap.
    void* volatile p = std::malloc(std::size_t{4} << 20);
    auto at = reinterpret_cast<std::uintptr_t>(p);
    EXPECT_LT(at + (std::uintptr_t{4} << 20), Break());  // below the break: the heap's
    std::free(p);
    heap.Update();  // nothing new: no change
    EXPECT_LE(heap.advised_end(), Break());
  }
  // glibc's defaults again: the next free gives the reserve back.
  void* volatile q = std::malloc(std::size_t{256} << 10);  // from the top, not a cache
  std::free(q);
  EXPECT_LT(Break(), before + (std::uintptr_t{8} << 20));
}

}  // namespace
}  // namespace fixgraph::graph
