#include "prefetch.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>

namespace fixgraph::ingest {

FolderPrefetcher::FolderPrefetcher(int parent_fd, std::vector<std::string> names, size_t window,
                                   long warm_ns)
    : parent_fd_(parent_fd),
      names_(std::move(names)),
      window_(window == 0 ? 1 : window),
      warm_ns_(warm_ns) {
  thread_ = std::thread([this] { Run(); });
}

FolderPrefetcher::~FolderPrefetcher() {
  stop_.store(true, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
  }
  thread_.join();
}

void FolderPrefetcher::Advance(size_t walked) {
  walked_.store(walked, std::memory_order_release);
  // The thread is woken only when it sleeps, and then only once it may go
  // on: a notify per folder would cost the walker a system call each.
  if (walked + window_ / 2 < read_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (waiting_) cv_.notify_one();
}

bool FolderPrefetcher::WaitForWindow(size_t i) {
  if (stop_.load(std::memory_order_acquire)) return false;
  if (i < walked_.load(std::memory_order_acquire) + window_) return true;
  std::unique_lock<std::mutex> lock(mu_);
  waiting_ = true;
  cv_.wait(lock, [&] {
    return stop_.load(std::memory_order_acquire) ||
           i < walked_.load(std::memory_order_acquire) + window_;
  });
  waiting_ = false;
  return !stop_.load(std::memory_order_acquire);
}

void FolderPrefetcher::Run() {
  using Clock = std::chrono::steady_clock;
  size_t i = 0;
  while (i < names_.size()) {
    const size_t end = std::min(names_.size(), i + kProbe);
    Clock::duration spent{};
    size_t probed = 0;
    for (; i < end; ++i) {
      if (!WaitForWindow(i)) return;
      auto t0 = Clock::now();
      ReadFolder(parent_fd_, names_[i]);
      spent += Clock::now() - t0;
      ++probed;
      opened_.fetch_add(1, std::memory_order_release);
      read_.store(i + 1, std::memory_order_release);
    }
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(spent).count();
    if (probed > 0 && ns < warm_ns_ * static_cast<long>(probed)) {
      // Cached: the walker will find the next folders cached too.
      i = std::min(names_.size(), i + kSkip);
      read_.store(i, std::memory_order_release);
    }
  }
}

void FolderPrefetcher::ReadFolder(int parent_fd, const std::string& name) {
  int dir = ::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  alignas(8) char entries[4096];
  for (;;) {
    ssize_t got = ::getdents64(dir, entries, sizeof entries);
    if (got <= 0) break;
    for (ssize_t at = 0; at < got;) {
      const auto* e = reinterpret_cast<const struct dirent64*>(entries + at);
      at += e->d_reclen;
      if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN) continue;
      // O_NONBLOCK: a FIFO must not hold the thread in open().
      int fd = ::openat(dir, e->d_name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
      if (fd < 0) continue;
      // Up to 16 MiB per file: item files are small, and a larger one is
      // read by the walker with the kernel's own read-ahead.
      (void)::readahead(fd, 0, 16 << 20);
      ::close(fd);
    }
  }
  ::close(dir);
}

}  // namespace fixgraph::ingest
