// Reading a dump's item folders ahead of the walk that parses them (dump.cc).
// Private to ingest/.
//
// A dump holds one folder per issue and per pull request, with a few small
// JSON files in each: millions of files at a million items. When the dump is
// larger than the page cache, each of them is read cold, and the kernel's
// work for it (directory lookups, inode reads, the block read) was most of an
// import's time, all of it on the walking thread, while the writing thread
// waited. A FolderPrefetcher opens the folders a little ahead of the walker on
// a thread of its own and reads their files into the page cache (readahead(2),
// no copy), so that the cold reads overlap the parsing. It only reads: what
// it cannot open it skips, and the walker reports it when it gets there.
//
// A dump in the page cache gains nothing from this and would pay the opens
// twice (15% of a warm import's time on this machine). So the thread reads in
// probes of kProbe folders and times them; when a probe took less than
// `warm_ns` per folder, the files are cached, and it passes the next kSkip
// folders without opening them, then probes again.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph::ingest {

class FolderPrefetcher {
 public:
  // Reads the regular files of the folders `names` (entries of the folder
  // open as `parent_fd`, which must stay open until the prefetcher is
  // destroyed), in order, never more than `window` folders ahead of the last
  // Advance().
  static constexpr size_t kProbe = 32;
  static constexpr size_t kSkip = 1024;
  // Per folder, below which a probe found the files cached: a cached item
  // folder takes 5-15 microseconds here, a cold one hundreds.
  static constexpr long kWarmNs = 40'000;

  FolderPrefetcher(int parent_fd, std::vector<std::string> names, size_t window = 256,
                   long warm_ns = kWarmNs);
  // Stops the thread (it finishes the folder it is reading) and joins it.
  ~FolderPrefetcher();
  FolderPrefetcher(const FolderPrefetcher&) = delete;
  FolderPrefetcher& operator=(const FolderPrefetcher&) = delete;

  // The walker has finished the first `walked` folders.
  void Advance(size_t walked);

  // Folders the thread has read or passed so far, and those it opened.
  size_t folders_passed() const { return read_.load(std::memory_order_acquire); }
  size_t folders_opened() const { return opened_.load(std::memory_order_acquire); }

 private:
  void Run();
  // Waits until folder `i` is within the window; false when stopped.
  bool WaitForWindow(size_t i);
  static void ReadFolder(int parent_fd, const std::string& name);

  const int parent_fd_;
  const std::vector<std::string> names_;
  const size_t window_;
  const long warm_ns_;
  std::atomic<size_t> walked_{0};
  std::atomic<size_t> read_{0};
  std::atomic<size_t> opened_{0};
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool waiting_ = false;  // guarded by mu_: the thread sleeps for Advance
  std::thread thread_;
};

}  // namespace fixgraph::ingest
