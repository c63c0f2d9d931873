#include "fixgraph/engine/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph {
namespace {

using namespace std::chrono_literals;

// Waits (at most 20 s, so a broken pool fails instead of hanging) until
// `pred` holds; returns whether it did.
template <typename Pred>
bool WaitFor(std::mutex& mu, std::condition_variable& cv, Pred pred) {
  std::unique_lock<std::mutex> lock(mu);
  return cv.wait_for(lock, 20s, pred);
}

TEST(ParallelForTest, RunsEveryIndexExactlyOnce) {
  for (size_t threads : {1, 2, 3, 8}) {
    for (size_t n : {1, 2, 7, 1000}) {
      std::vector<std::atomic<int>> runs(n);
      std::atomic<size_t> bad_worker{0};
      ParallelFor(n, threads, [&](size_t i, size_t worker) {
        runs[i].fetch_add(1);
        if (worker >= threads) bad_worker.fetch_add(1);
      });
      for (size_t i = 0; i < n; ++i)
        EXPECT_EQ(runs[i].load(), 1)
            << "index " << i << " of " << n << ", " << threads << " threads";
      EXPECT_EQ(bad_worker.load(), 0u) << n << " items, " << threads << " threads";
    }
  }
}

TEST(ParallelForTest, OneThreadRunsInlineInIndexOrder) {
  const std::thread::id caller = std::this_thread::get_id();
  for (size_t threads : {0, 1}) {
    std::vector<size_t> order;
    bool elsewhere = false;
    ParallelFor(50, threads, [&](size_t i, size_t worker) {
      order.push_back(i);  // unguarded: only correct when everything runs on the caller
      if (std::this_thread::get_id() != caller || worker != 0) elsewhere = true;
    });
    ASSERT_EQ(order.size(), 50u);
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);
    EXPECT_FALSE(elsewhere) << threads << " threads";
  }
  // One item needs no thread either, whatever was asked for.
  std::thread::id ran_on;
  ParallelFor(1, 8, [&](size_t, size_t) { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, caller);
}

TEST(ParallelForTest, ZeroItemsRunNothing) {
  for (size_t threads : {0, 1, 4}) {
    bool called = false;
    ParallelFor(0, threads, [&](size_t, size_t) { called = true; });
    EXPECT_FALSE(called) << threads << " threads";
  }
}

TEST(ParallelForTest, CallerIsWorkerZeroAndTakesPart) {
  const std::thread::id caller = std::this_thread::get_id();
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::thread::id> others;
  bool caller_ran = false, mismatch = false;
  // Each index waits until both workers took one, so both take part.
  int arrived = 0;
  ParallelFor(2, 2, [&](size_t, size_t worker) {
    std::unique_lock<std::mutex> lock(mu);
    const bool on_caller = std::this_thread::get_id() == caller;
    if (on_caller != (worker == 0)) mismatch = true;
    if (on_caller) caller_ran = true;
    if (!on_caller) others.insert(std::this_thread::get_id());
    ++arrived;
    cv.notify_all();
    cv.wait_for(lock, 20s, [&] { return arrived == 2; });
  });
  EXPECT_TRUE(caller_ran);
  EXPECT_EQ(others.size(), 1u);
  EXPECT_FALSE(mismatch);
}

TEST(ParallelForTest, MoreThreadsThanItemsStartsOnlyOnePerItem) {
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::set<size_t> workers;
  ParallelFor(3, 16, [&](size_t, size_t worker) {
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
    workers.insert(worker);
  });
  EXPECT_LE(ids.size(), 3u);
  EXPECT_LE(workers.size(), 3u);
  for (size_t w : workers) EXPECT_LT(w, 3u);
}

TEST(ParallelForTest, WorkersRunAtTheSameTime) {
  // Every index waits for all the others to have started: only true
  // concurrency (every worker running before any index ends) passes.
  constexpr size_t kWorkers = 4;
  std::mutex mu;
  std::condition_variable cv;
  size_t started = 0;
  std::atomic<int> timed_out{0};
  ParallelFor(kWorkers, kWorkers, [&](size_t, size_t) {
    std::unique_lock<std::mutex> lock(mu);
    ++started;
    cv.notify_all();
    if (!cv.wait_for(lock, 20s, [&] { return started == kWorkers; })) timed_out.fetch_add(1);
  });
  EXPECT_EQ(timed_out.load(), 0);
}

TEST(ParallelForTest, AProducerCanFeedConsumersOfTheSameLoop) {
  // Index 0 produces into a queue of one slot; the other indices consume.
  constexpr int kItems = 200;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<int> queue;
  bool closed = false;
  std::atomic<long> sum{0};
  std::atomic<int> stuck{0};
  ParallelFor(3, 3, [&](size_t index, size_t) {
    if (index == 0) {
      for (int v = 1; v <= kItems; ++v) {
        std::unique_lock<std::mutex> lock(mu);
        if (!cv.wait_for(lock, 20s, [&] { return queue.empty(); })) {
          stuck.fetch_add(1);
          break;
        }
        queue.push_back(v);
        cv.notify_all();
      }
      std::lock_guard<std::mutex> lock(mu);
      closed = true;
      cv.notify_all();
      return;
    }
    for (;;) {
      std::unique_lock<std::mutex> lock(mu);
      if (!cv.wait_for(lock, 20s, [&] { return !queue.empty() || closed; })) {
        stuck.fetch_add(1);
        return;
      }
      if (queue.empty()) return;
      sum += queue.front();
      queue.pop_front();
      cv.notify_all();
    }
  });
  EXPECT_EQ(stuck.load(), 0);
  EXPECT_EQ(sum.load(), kItems * (kItems + 1) / 2);
}

TEST(ParallelForTest, SchedulingIsDynamic) {
  // Index 0 holds its worker until every other index is done: with indices
  // handed out in advance (a stride per worker) it would wait for its own.
  constexpr size_t kItems = 40;
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0;
  bool waited_out = false;
  ParallelFor(kItems, 2, [&](size_t i, size_t) {
    if (i == 0) {
      waited_out = !WaitFor(mu, cv, [&] { return done == kItems - 1; });
      return;
    }
    std::lock_guard<std::mutex> lock(mu);
    ++done;
    cv.notify_all();
  });
  EXPECT_FALSE(waited_out);
  EXPECT_EQ(done, kItems - 1);
}

TEST(ParallelForTest, ResultsWrittenPerIndexAreSeenByTheCaller) {
  std::vector<size_t> squares(5000);
  ParallelFor(squares.size(), 4, [&](size_t i, size_t) { squares[i] = i * i; });
  for (size_t i = 0; i < squares.size(); ++i) ASSERT_EQ(squares[i], i * i);
}

TEST(ParallelForTest, PerWorkerStateNeedsNoLock) {
  // One counter per worker, unguarded: calls on one worker never overlap.
  constexpr size_t kThreads = 3, kItems = 3000;
  std::vector<size_t> per_worker(kThreads);
  ParallelFor(kItems, kThreads, [&](size_t, size_t worker) { ++per_worker[worker]; });
  size_t total = 0;
  for (size_t c : per_worker) total += c;
  EXPECT_EQ(total, kItems);
}

TEST(ParallelForTest, LowestThrowingIndexWins) {
  // Whatever the timing, the exception rethrown is the lowest index's, and
  // every index below it ran.
  for (size_t threads : {1, 2, 4}) {
    for (int round = 0; round < 20; ++round) {
      constexpr size_t kItems = 400;
      std::vector<std::atomic<int>> runs(kItems);
      std::string caught;
      try {
        ParallelFor(kItems, threads, [&](size_t i, size_t) {
          runs[i].fetch_add(1);
          if (i == 250 || i == 120 || i == 390)
            throw std::runtime_error("index " + std::to_string(i));
          if (i % 7 == 0) std::this_thread::yield();
        });
      } catch (const std::runtime_error& e) {
        caught = e.what();
      }
      ASSERT_EQ(caught, "index 120") << threads << " threads, round " << round;
      for (size_t i = 0; i <= 120; ++i) ASSERT_EQ(runs[i].load(), 1) << i;
      for (size_t i = 0; i < kItems; ++i) ASSERT_LE(runs[i].load(), 1) << i;
      if (threads == 1) {
        // A serial loop stops at the first throw.
        for (size_t i = 121; i < kItems; ++i) ASSERT_EQ(runs[i].load(), 0) << i;
      }
    }
  }
}

TEST(ParallelForTest, AThrowStopsNewIndices) {
  // Index 0 throws at once; the other worker is held on index 1 until then,
  // so after it no index may start: at most indices 0..2 ran (2 may have
  // been taken by the caller's worker just before the throw was recorded).
  std::atomic<bool> thrown{false};
  std::atomic<size_t> ran{0};
  EXPECT_THROW(ParallelFor(1000, 2,
                           [&](size_t i, size_t) {
                             ran.fetch_add(1);
                             if (i == 0) {
                               thrown = true;
                               throw std::logic_error("stop");
                             }
                             if (i == 1) {
                               while (!thrown) std::this_thread::yield();
                               std::this_thread::sleep_for(10ms);
                             }
                           }),
               std::logic_error);
  EXPECT_LE(ran.load(), 3u);
}

TEST(ParallelForTest, NestedLoopsWork) {
  std::vector<std::vector<int>> grid(6, std::vector<int>(50));
  ParallelFor(grid.size(), 3, [&](size_t r, size_t) {
    ParallelFor(grid[r].size(), 2,
                [&](size_t c, size_t) { grid[r][c] = static_cast<int>(r * 100 + c); });
  });
  for (size_t r = 0; r < grid.size(); ++r)
    for (size_t c = 0; c < grid[r].size(); ++c)
      ASSERT_EQ(grid[r][c], static_cast<int>(r * 100 + c));
}

TEST(ParallelForTest, HardwareThreadsIsAtLeastOne) { EXPECT_GE(HardwareThreads(), 1u); }

}  // namespace
}  // namespace fixgraph
