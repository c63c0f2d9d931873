#include "stage_arena.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace fixgraph::store_internal {

StageArena::Block StageArena::Block::Map(std::size_t size) {
  Block b;
  std::size_t length = size + kHugePage;
  void* m = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {  // fall back to the heap
    b.base = ::operator new(size);
    b.data = static_cast<char*>(b.base);
    return b;
  }
  b.base = m;
  b.length = length;
  // The first huge-page boundary in the mapping (length leaves room for the skip).
  const std::size_t skip =
      (kHugePage - reinterpret_cast<std::uintptr_t>(m) % kHugePage) % kHugePage;
  b.data = static_cast<char*>(m) + skip;
  ::madvise(b.data, size, MADV_HUGEPAGE);  // a hint: failure only costs speed
  return b;
}

void StageArena::Block::Release() {
  if (length != 0)
    ::munmap(base, length);
  else
    ::operator delete(base);
}

}  // namespace fixgraph::store_internal
