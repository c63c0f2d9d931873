// Reading a dump's item folders ahead of the walk that parses them (dump.cc).
// Private to ingest/.
//
// A dump holds one folder per issue and per pull request, with a few small
// JSON files in each: millions of files at a million items. When the dump is
// larger than the page cache, each of them is read cold, and the kernel's
// work for it (directory lookups, inode reads, the block read) was most of an
// import's time, all of it on the walking thread, while the writing thread
// waited. A FolderPrefetcher opens the folders a little ahead of the walker on
// threads of its own (two: the folder lookups block on the disk one at a time,
// and a second reader keeps another request in flight) and reads their files
// into the page cache (readahead(2), no copy), so that the cold reads overlap
// the parsing. It only reads: what it cannot open it skips, and the walker
// reports it when it gets there.
//
// A dump in the page cache gains nothing from this and would pay the opens
// twice (15% of a warm import's time on this machine). So each thread reads
// in probes of kProbe of its folders and times them; when a probe took less
// than `warm_ns` per folder, the files are cached, and it passes its next
// kSkip folders without opening them, then probes again.
#pragma once

#include <dirent.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph::ingest {

// Calls fn(const dirent64&) for each entry of the folder open as `fd`, listed
// with getdents64 itself (fdopendir would add an fstat and an fcntl per
// folder: one per item of a dump). Returns 0, or the errno of a failed read.
template <typename Fn>
int ForEachDirEntry(int fd, Fn fn) {
  alignas(8) char entries[4096];
  for (;;) {
    ssize_t got = ::getdents64(fd, entries, sizeof entries);
    if (got < 0) return errno;
    if (got == 0) return 0;
    for (ssize_t at = 0; at < got;) {
      const auto* e = reinterpret_cast<const struct dirent64*>(entries + at);
      at += e->d_reclen;
      fn(*e);
    }
  }
}

class FolderPrefetcher {
 public:
  static constexpr size_t kProbe = 32;
  static constexpr size_t kSkip = 1024;
  // Per folder, below which a probe found the files cached: a cached item
  // folder takes 5-15 microseconds here, a cold one hundreds.
  static constexpr long kWarmNs = 40'000;
  static constexpr size_t kThreads = 2;

  // Reads the regular files of the folders `names` (entries of the folder
  // open as `parent_fd`, which must stay open until the prefetcher is
  // destroyed), in order, never more than `window` folders ahead of the last
  // Advance(); thread t of `threads` takes the folders i with i % threads == t.
  // When a thread cannot be started, the prefetcher runs with those that
  // could (none: it reads nothing; the import is only slower).
  FolderPrefetcher(int parent_fd, std::vector<std::string> names, size_t window = 256,
                   long warm_ns = kWarmNs, size_t threads = kThreads);
  // Stops the threads (each finishes the folder it is reading) and joins them.
  ~FolderPrefetcher();
  FolderPrefetcher(const FolderPrefetcher&) = delete;
  FolderPrefetcher& operator=(const FolderPrefetcher&) = delete;

  // The walker has finished the first `walked` folders.
  void Advance(size_t walked);

  // The first folders every thread has read or passed, and the folders
  // opened so far.
  size_t folders_passed() const;
  size_t folders_opened() const { return opened_.load(std::memory_order_acquire); }

 private:
  void Run(size_t t);
  // Waits until folder `i` is within the window; false when stopped.
  bool WaitForWindow(size_t i);
  static void ReadFolder(int parent_fd, const std::string& name);

  const int parent_fd_;
  const std::vector<std::string> names_;
  const size_t window_;
  const long warm_ns_;
  const size_t n_threads_;
  std::atomic<size_t> walked_{0};
  // Per thread: the folders before this index are read or passed.
  std::unique_ptr<std::atomic<size_t>[]> passed_;
  std::atomic<size_t> opened_{0};
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  size_t waiting_ = 0;  // guarded by mu_: threads asleep for Advance
  std::vector<std::thread> threads_;
};

}  // namespace fixgraph::ingest
