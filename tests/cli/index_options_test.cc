// The cli's index options (cli/refresh.h CliIndexOptions): the library reads
// no environment, the cli takes the rebuild's threads from
// $FIXGRAPH_INDEX_THREADS.
#include "../../cli/refresh.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace fixgraph::cli {
namespace {

// Threads of CliIndexOptions with the variable set to `value` (unset: nullopt).
unsigned ThreadsWith(const std::optional<std::string>& value) {
  if (value) {
    setenv("FIXGRAPH_INDEX_THREADS", value->c_str(), 1);
  } else {
    unsetenv("FIXGRAPH_INDEX_THREADS");
  }
  unsigned threads = CliIndexOptions().threads;
  unsetenv("FIXGRAPH_INDEX_THREADS");
  return threads;
}

TEST(CliIndexOptionsTest, ThreadsComeFromTheEnvironment) {
  EXPECT_EQ(ThreadsWith("3"), 3u);
  EXPECT_EQ(ThreadsWith("1"), 1u);
  EXPECT_EQ(ThreadsWith("99"), 8u);  // at most 8
  // Unset, empty, 0 or not a number: 0, the library's "the machine's".
  EXPECT_EQ(ThreadsWith(std::nullopt), 0u);
  EXPECT_EQ(ThreadsWith(""), 0u);
  EXPECT_EQ(ThreadsWith("0"), 0u);
  EXPECT_EQ(ThreadsWith("many"), 0u);
}

}  // namespace
}  // namespace fixgraph::cli
