// ParallelFor (see fixgraph/engine/parallel.h).
#include "fixgraph/engine/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fixgraph {
namespace {

// The state one ParallelFor call shares between its workers.
class Loop {
 public:
  Loop(size_t n, const std::function<void(size_t, size_t)>& fn) : n_(n), fn_(fn) {}

  // Started threads wait here until every one of them exists; false: the
  // loop was called off (a thread could not be started).
  bool AwaitStart() {
    gate_.wait(kClosed, std::memory_order_acquire);
    return gate_.load(std::memory_order_acquire) == kGo;
  }
  void Open(bool go) {
    gate_.store(go ? kGo : kCalledOff, std::memory_order_release);
    gate_.notify_all();
  }

  // Takes indices until there are none left or some index threw.
  void Run(size_t worker) {
    while (!stop_.load(std::memory_order_relaxed)) {
      const size_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= n_) return;
      try {
        fn_(i, worker);
      } catch (...) {
        Record(i, std::current_exception());
      }
    }
  }

  // After every worker stopped: the exception of the lowest index that threw.
  void Rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static constexpr int kClosed = 0, kGo = 1, kCalledOff = 2;

  void Record(size_t index, std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_ || index < error_index_) {
      error_ = std::move(e);
      error_index_ = index;
    }
    stop_.store(true, std::memory_order_relaxed);
  }

  const size_t n_;
  const std::function<void(size_t, size_t)>& fn_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> gate_{kClosed};
  std::mutex mu_;  // guards the two below
  std::exception_ptr error_;
  size_t error_index_ = 0;
};

}  // namespace

size_t HardwareThreads() { return std::max<size_t>(1, std::thread::hardware_concurrency()); }

void ParallelFor(size_t n, size_t threads,
                 const std::function<void(size_t index, size_t worker)>& fn) {
  const size_t workers = std::min(std::max<size_t>(threads, 1), n);
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i, 0);
    return;
  }
  Loop loop(n, fn);
  std::vector<std::thread> started;
  started.reserve(workers - 1);
  try {
    for (size_t w = 1; w < workers; ++w)
      started.emplace_back([&loop, w] {
        if (loop.AwaitStart()) loop.Run(w);
      });
  } catch (...) {
    loop.Open(false);
    for (std::thread& t : started) t.join();
    throw;
  }
  loop.Open(true);
  loop.Run(0);
  for (std::thread& t : started) t.join();
  loop.Rethrow();
}

}  // namespace fixgraph
