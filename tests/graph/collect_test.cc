// The window rows the linker examines (graph/collect.cc, NearestRows): checked
// against a plain reference (a stable sort of the rows by their distance to
// the close), on hand-made cases and on random merge times with many rows in
// one second.
#include "../../graph/linker_impl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace fixgraph::graph {
namespace {

// All rows in order when they fit; else the `max` nearest `close`, a stable
// sort by distance (rows merged in one second are adjacent and equally near,
// so they stay together and in order; on a tie between the two sides the
// earlier rows have the lower indexes and come first).
std::vector<std::uint32_t> Reference(const std::vector<UnixSeconds>& times, UnixSeconds close,
                                     size_t max) {
  std::vector<std::uint32_t> rows(times.size());
  std::iota(rows.begin(), rows.end(), 0u);
  if (rows.size() <= max) return rows;
  std::stable_sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) {
    auto d = [&](std::uint32_t r) {
      return times[r] < close ? close - times[r] : times[r] - close;
    };
    return d(a) < d(b);
  });
  rows.resize(max);
  return rows;
}

std::vector<std::uint32_t> Nearest(const std::vector<UnixSeconds>& times, UnixSeconds close,
                                   size_t max) {
  std::vector<std::uint32_t> out = {99};  // cleared by NearestRows
  NearestRows(times, close, max, &out);
  return out;
}

TEST(NearestRowsTest, AllRowsInOrderWhenTheyFit) {
  const std::vector<UnixSeconds> times = {10, 20, 30};
  EXPECT_EQ(Nearest(times, 29, 3), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(Nearest(times, 29, 8), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_TRUE(Nearest({}, 5, 4).empty());
}

TEST(NearestRowsTest, NearestFirstEarlierSideOnATie) {
  const std::vector<UnixSeconds> times = {10, 20, 30, 40, 50};
  // 30 is the close itself; 20 and 40 are equally near: the earlier first.
  EXPECT_EQ(Nearest(times, 30, 3), (std::vector<std::uint32_t>{2, 1, 3}));
  // Before every row and after every row.
  EXPECT_EQ(Nearest(times, 0, 2), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(Nearest(times, 99, 2), (std::vector<std::uint32_t>{4, 3}));
}

TEST(NearestRowsTest, RowsOfOneSecondStayTogetherThenTheListIsCut) {
  const std::vector<UnixSeconds> times = {10, 28, 28, 28, 33, 40};
  EXPECT_EQ(Nearest(times, 30, 2), (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(Nearest(times, 30, 4), (std::vector<std::uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ(Nearest(times, 31, 4), (std::vector<std::uint32_t>{4, 1, 2, 3}));
}

TEST(NearestRowsTest, MatchesTheReferenceOnRandomWindows) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 2000; ++round) {
    const size_t n = rng() % 40;
    std::vector<UnixSeconds> times(n);
    // Few distinct seconds, so that runs of one second are common.
    for (UnixSeconds& t : times) t = static_cast<UnixSeconds>(rng() % 25) * 3;
    std::sort(times.begin(), times.end());
    const auto close = static_cast<UnixSeconds>(rng() % 90) - 5;
    const size_t max = rng() % 12;
    ASSERT_EQ(Nearest(times, close, max), Reference(times, close, max))
        << "round " << round << " n " << n << " close " << close << " max " << max;
  }
}

}  // namespace
}  // namespace fixgraph::graph
