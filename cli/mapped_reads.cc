// See mapped_reads.h. This file defines the process's pread and close: it is
// linked into fixgraph-serve (and its own test) only, never into a library.
#include "mapped_reads.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace fixgraph::cli::mapped_reads {
namespace {

// A descriptor's state. kUnknown until its first read, then kPlain (read by
// the kernel) or kMapped; kBusy while one thread decides or unmaps.
enum State : int { kUnknown = 0, kPlain = 1, kMapped = 2, kBusy = 3 };

struct Slot {
  std::atomic<int> state{kUnknown};
  const char* base = nullptr;  // set before state becomes kMapped
  size_t length = 0;
  std::atomic<uint64_t> reads{0};
};

// Descriptors above this are always read by the kernel (a server holds a few
// hundred).
constexpr int kSlots = 1 << 16;
std::array<Slot, kSlots> slots;
std::atomic<uint64_t> files_mapped{0};
std::atomic<uint64_t> retired_reads{0};  // reads of mappings since unmapped
std::atomic<uint64_t> advice_skipped{0};

ssize_t KernelPread(int fd, void* buf, size_t n, off_t offset) {
  return static_cast<ssize_t>(::syscall(SYS_pread64, fd, buf, n, offset));
}

bool Disabled() {
  const char* v = std::getenv("FIXGRAPH_MAPPED_READS");
  return v != nullptr && std::string_view(v) == "0";
}

// Whether `fd` is a glass table file: its path, as /proc/self/fd names it,
// ends in ".glass".
bool IsGlassTable(int fd) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char path[4096];
  const ssize_t len = ::readlink(link, path, sizeof path);
  if (len <= 0 || static_cast<size_t>(len) >= sizeof path) return false;
  return std::string_view(path, static_cast<size_t>(len)).ends_with(".glass");
}

// Decides `fd`'s state at its first read (the caller holds kBusy).
State Decide(int fd, Slot& slot) {
  if (Disabled() || !IsGlassTable(fd)) return kPlain;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return kPlain;
  void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return kPlain;
  slot.base = static_cast<const char*>(p);
  slot.length = static_cast<size_t>(st.st_size);
  files_mapped.fetch_add(1, std::memory_order_relaxed);
  return kMapped;
}

}  // namespace

ssize_t Pread(int fd, void* buf, size_t n, off_t offset) {
  if (fd < 0 || fd >= kSlots || offset < 0) return KernelPread(fd, buf, n, offset);
  Slot& slot = slots[static_cast<size_t>(fd)];
  int state = slot.state.load(std::memory_order_acquire);
  if (state == kUnknown) {
    int expected = kUnknown;
    // Another thread deciding the same descriptor: this read goes to the kernel.
    if (!slot.state.compare_exchange_strong(expected, kBusy, std::memory_order_acquire))
      return KernelPread(fd, buf, n, offset);
    state = Decide(fd, slot);
    slot.state.store(state, std::memory_order_release);
  }
  const auto at = static_cast<size_t>(offset);
  if (state != kMapped || at > slot.length || n > slot.length - at)
    return KernelPread(fd, buf, n, offset);
  std::memcpy(buf, slot.base + at, n);
  slot.reads.fetch_add(1, std::memory_order_relaxed);
  return static_cast<ssize_t>(n);
}

int Fadvise(int fd, off_t offset, off_t length, int advice) {
  // Xapian asks the kernel to read ahead the next block it will want
  // (POSIX_FADV_WILLNEED); a mapped table's reads are copies out of the page
  // cache, so the advice only costs a system call (several per query).
  if (advice == POSIX_FADV_WILLNEED && fd >= 0 && fd < kSlots &&
      slots[static_cast<size_t>(fd)].state.load(std::memory_order_acquire) == kMapped) {
    advice_skipped.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  if (::syscall(SYS_fadvise64, fd, offset, length, advice) == 0) return 0;
  return errno;
}

int Close(int fd) {
  if (fd >= 0 && fd < kSlots) {
    Slot& slot = slots[static_cast<size_t>(fd)];
    const int state = slot.state.exchange(kBusy, std::memory_order_acq_rel);
    if (state == kMapped) {
      ::munmap(const_cast<char*>(slot.base), slot.length);
      slot.base = nullptr;
      slot.length = 0;
    }
    // (A socket's close, the common one, touches no shared counter.)
    if (const uint64_t reads = slot.reads.exchange(0, std::memory_order_relaxed); reads > 0)
      retired_reads.fetch_add(reads, std::memory_order_relaxed);
    slot.state.store(kUnknown, std::memory_order_release);
  }
  return static_cast<int>(::syscall(SYS_close, fd));
}

Counts GetCounts() {
  Counts c;
  c.files_mapped = files_mapped.load(std::memory_order_relaxed);
  c.advice_skipped = advice_skipped.load(std::memory_order_relaxed);
  c.mapped_reads = retired_reads.load(std::memory_order_relaxed);
  for (const Slot& s : slots) c.mapped_reads += s.reads.load(std::memory_order_relaxed);
  return c;
}

}  // namespace fixgraph::cli::mapped_reads

// The hooks. glibc's pread and pread64 are one function on 64-bit targets;
// libxapian calls pread, RocksDB pread64 (read by the kernel, not being glass).
extern "C" ssize_t pread(int fd, void* buf, size_t n, off_t offset) {
  return fixgraph::cli::mapped_reads::Pread(fd, buf, n, offset);
}
extern "C" ssize_t pread64(int fd, void* buf, size_t n, off_t offset) {
  return fixgraph::cli::mapped_reads::Pread(fd, buf, n, offset);
}
extern "C" int close(int fd) { return fixgraph::cli::mapped_reads::Close(fd); }
// posix_fadvise and posix_fadvise64 are one function on 64-bit targets too.
extern "C" int posix_fadvise(int fd, off_t offset, off_t length, int advice) {
  return fixgraph::cli::mapped_reads::Fadvise(fd, offset, length, advice);
}
extern "C" int posix_fadvise64(int fd, off_t offset, off_t length, int advice) {
  return fixgraph::cli::mapped_reads::Fadvise(fd, offset, length, advice);
}
