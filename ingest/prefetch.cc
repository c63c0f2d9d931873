#include "prefetch.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <system_error>
#include <utility>

namespace fixgraph::ingest {

FolderPrefetcher::FolderPrefetcher(int parent_fd, std::vector<std::string> names, size_t window,
                                   long warm_ns, size_t threads)
    : parent_fd_(parent_fd),
      names_(std::move(names)),
      window_(window == 0 ? 1 : window),
      warm_ns_(warm_ns),
      n_threads_(threads == 0 ? 1 : threads),
      passed_(new std::atomic<size_t>[n_threads_]) {
  for (size_t t = 0; t < n_threads_; ++t) passed_[t].store(t, std::memory_order_relaxed);
  threads_.reserve(n_threads_);
  for (size_t t = 0; t < n_threads_; ++t) {
    try {
      threads_.emplace_back([this, t] { Run(t); });
    } catch (const std::system_error&) {
      // Out of threads: this one's folders count as passed.
      passed_[t].store(names_.size(), std::memory_order_release);
    }
  }
}

FolderPrefetcher::~FolderPrefetcher() {
  stop_.store(true, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
  }
  for (std::thread& t : threads_) t.join();
}

size_t FolderPrefetcher::folders_passed() const {
  size_t least = names_.size();
  for (size_t t = 0; t < n_threads_; ++t)
    least = std::min(least, passed_[t].load(std::memory_order_acquire));
  return least;
}

void FolderPrefetcher::Advance(size_t walked) {
  walked_.store(walked, std::memory_order_release);
  // The threads are woken only when one sleeps, and then only once it may go
  // on: a notify per folder would cost the walker a system call each.
  if (walked + window_ / 2 < folders_passed()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (waiting_ > 0) cv_.notify_all();
}

bool FolderPrefetcher::WaitForWindow(size_t i) {
  if (stop_.load(std::memory_order_acquire)) return false;
  if (i < walked_.load(std::memory_order_acquire) + window_) return true;
  std::unique_lock<std::mutex> lock(mu_);
  ++waiting_;
  cv_.wait(lock, [&] {
    return stop_.load(std::memory_order_acquire) ||
           i < walked_.load(std::memory_order_acquire) + window_;
  });
  --waiting_;
  return !stop_.load(std::memory_order_acquire);
}

void FolderPrefetcher::Run(size_t t) {
  using Clock = std::chrono::steady_clock;
  const size_t n = names_.size(), step = n_threads_;
  std::atomic<size_t>& passed = passed_[t];
  size_t i = t;
  while (i < n) {
    Clock::duration spent{};
    size_t probed = 0;
    for (; i < n && probed < kProbe; i += step) {
      if (!WaitForWindow(i)) return;
      auto t0 = Clock::now();
      ReadFolder(parent_fd_, names_[i]);
      spent += Clock::now() - t0;
      ++probed;
      opened_.fetch_add(1, std::memory_order_release);
      passed.store(std::min(i + step, n), std::memory_order_release);
    }
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(spent).count();
    // Cached: the walker will find this thread's next folders cached too.
    if (probed > 0 && ns < warm_ns_ * static_cast<long>(probed)) i += kSkip * step;
    passed.store(std::min(i, n), std::memory_order_release);
  }
  passed.store(n, std::memory_order_release);
}

void FolderPrefetcher::ReadFolder(int parent_fd, const std::string& name) {
  int dir = ::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  (void)ForEachDirEntry(dir, [dir](const struct dirent64& e) {
    if (e.d_type != DT_REG && e.d_type != DT_UNKNOWN) return;
    // O_NONBLOCK: a FIFO must not hold the thread in open().
    int fd = ::openat(dir, e.d_name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return;
    // Up to 16 MiB per file: item files are small, and a larger one is
    // read by the walker with the kernel's own read-ahead.
    (void)::readahead(fd, 0, 16 << 20);
    ::close(fd);
  });
  ::close(dir);
}

}  // namespace fixgraph::ingest
