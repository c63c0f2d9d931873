// BulkHeap (graph/bulk_heap.h, private to graph/: tested white-box).
#include "../../graph/bulk_heap.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
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

// A block size of at least `at_least` that no free chunk of the heap can
// hold (the top trimmed first), so malloc must take it from the system: from
// the break below the mmap threshold, as a mapping of its own above it. Zero
// when the heap holds more free memory than `below` allows (earlier tests in
// this process left it fragmented; ctest runs each test in a process of its own).
std::size_t FreshSize(std::size_t at_least, std::size_t below) {
  ::malloc_trim(0);
  std::size_t size = std::max(at_least, ::mallinfo2().fordblks + (std::size_t{1} << 20));
  return size < below ? size : 0;
}

// True when a block of `size` bytes comes from the main heap (below the break).
bool FromHeap(std::size_t size) {
  ::malloc_trim(0);
  void* volatile p = std::malloc(size);
  auto at = reinterpret_cast<std::uintptr_t>(p);
  bool below = at + size <= Break();
  std::free(p);
  return below;
}

constexpr std::size_t kDefault = 128 * 1024;  // glibc's defaults of both settings

TEST(BulkHeap, RestoresTheSettingsItFoundWhenNested) {
  ASSERT_EQ(CurrentMallocOptions(), (MallocOptions{kDefault, kDefault}));
  {
    BulkHeap outer(std::size_t{16} << 20);
    if (!outer.active()) GTEST_SKIP() << "the heap cannot grow here";
    const MallocOptions during = CurrentMallocOptions();
    EXPECT_EQ(during.top_pad, std::size_t{16} << 20);
    EXPECT_EQ(during.mmap_threshold, std::size_t{32} << 20);
    {
      ::malloc_trim(0);  // no free top: the inner heap grows the break (active)
      BulkHeap inner(std::size_t{64} << 20);
      ASSERT_TRUE(inner.active());
      EXPECT_EQ(CurrentMallocOptions().top_pad, std::size_t{64} << 20);
    }
    // The outer heap's settings again, not glibc's defaults: 4 MiB blocks
    // still come from the heap (at 128 KiB they would be mapped), and a free
    // at the top keeps the outer's pad (at 128 KiB the heap would shrink).
    EXPECT_EQ(CurrentMallocOptions(), during);
    const std::size_t size = FreshSize(std::size_t{4} << 20, std::size_t{32} << 20);
    if (size == 0) GTEST_SKIP() << "the heap is too fragmented to observe the threshold";
    EXPECT_TRUE(FromHeap(size));
    EXPECT_GE(::mallinfo2().keepcost, std::size_t{15} << 20);  // the free left the pad
  }
  EXPECT_EQ(CurrentMallocOptions(), (MallocOptions{kDefault, kDefault}));
  const std::size_t size = FreshSize(std::size_t{4} << 20, std::size_t{32} << 20);
  if (size != 0) {
    EXPECT_FALSE(FromHeap(size));
  }
}

TEST(BulkHeap, RestoresSettingsMadeBeforeIt) {
  // A threshold of 8 MiB set before the heap (through SetMallocOptions, the
  // record glibc lacks a getter for) is in force again after it.
  ASSERT_TRUE(SetMallocOptions({kDefault, std::size_t{8} << 20}));
  { BulkHeap heap(std::size_t{32} << 20); }
  EXPECT_EQ(CurrentMallocOptions(), (MallocOptions{kDefault, std::size_t{8} << 20}));
  const std::size_t size = FreshSize(std::size_t{4} << 20, std::size_t{8} << 20);
  if (size != 0) {
    EXPECT_TRUE(FromHeap(size));
  }
  ASSERT_TRUE(SetMallocOptions({kDefault, kDefault}));
  if (size == 0) GTEST_SKIP() << "the heap is too fragmented to observe the threshold";
  EXPECT_FALSE(FromHeap(size));
}

}  // namespace
}  // namespace fixgraph::graph
