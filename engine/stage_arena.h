// StageArena: the byte store behind Store::Batch's staged writes. Private to engine/.
//
// Contract: Copy(s) returns a view of a copy of `s` that stays valid (and
// unmoved) until Reset() or destruction; an empty `s` gives an empty view
// with a non-null pointer. Reset() makes every earlier view invalid and keeps
// the mapped blocks for reuse (the large copies are freed). Not thread-safe:
// one arena per batch.
//
// Blocks of 4 MiB are mapped directly, 2 MiB-aligned and advised for
// transparent huge pages (MADV_HUGEPAGE, a hint): a bulk load stages hundreds
// of MiB, and faulting them in 4 KiB pages (each fault costly in a virtual
// machine) took more time than the copies themselves. They are not zeroed by
// hand (the kernel's pages are). A failed mmap falls back to the heap.
// Strings over a quarter block get an allocation of their own.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace fixgraph::store_internal {

class StageArena {
 public:
  StageArena() = default;
  StageArena(const StageArena&) = delete;
  StageArena& operator=(const StageArena&) = delete;
  ~StageArena() {
    for (Block& b : blocks_) b.Release();
  }
  std::string_view Copy(std::string_view s) {
    if (s.empty()) return std::string_view("");  // never a null pointer
    char* p;
    if (s.size() > kBlock / 4) {  // large: a block of its own, freed by Reset
      large_.push_back(std::make_unique_for_overwrite<char[]>(s.size()));
      p = large_.back().get();
    } else {
      if (blocks_.empty() || used_ + s.size() > kBlock) {
        if (blocks_.empty() || cur_ + 1 == blocks_.size()) {
          blocks_.push_back(Block::Map(kBlock));
          cur_ = blocks_.size() - 1;
        } else {
          ++cur_;
        }
        used_ = 0;
      }
      p = blocks_[cur_].data + used_;
      used_ += s.size();
    }
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }
  void Reset() {
    cur_ = 0;
    used_ = 0;
    large_.clear();
  }

 private:
  static constexpr std::size_t kBlock = std::size_t{4} << 20;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  struct Block {
    void* base = nullptr;    // the mapping (munmap), or the allocation (free)
    std::size_t length = 0;  // 0: allocated by malloc
    char* data = nullptr;
    static Block Map(std::size_t size);  // stage_arena.cc
    void Release();
  };
  std::vector<Block> blocks_;
  std::vector<std::unique_ptr<char[]>> large_;
  std::size_t cur_ = 0;   // block being filled
  std::size_t used_ = 0;  // bytes used in it
};

}  // namespace fixgraph::store_internal
