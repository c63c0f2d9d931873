// The cli's index and linker options (cli/refresh.h): the library reads no
// environment, the cli takes the rebuild's threads from
// $FIXGRAPH_INDEX_THREADS and the linker's from $FIXGRAPH_LINK_THREADS and
// $FIXGRAPH_LINK_BATCH (read once, cli/environment.h).
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
  unsigned threads = CliIndexOptions(ReadEnvironment(nullptr)).threads;
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

TEST(CliLinkerOptionsTest, ThreadsAndBatchComeFromTheEnvironment) {
  const graph::LinkerOptions defaults;
  unsetenv("FIXGRAPH_LINK_THREADS");
  unsetenv("FIXGRAPH_LINK_BATCH");
  graph::LinkerOptions o = CliLinkerOptions(ReadEnvironment(nullptr));
  EXPECT_EQ(o.threads, defaults.threads);
  EXPECT_EQ(o.batch_issues, defaults.batch_issues);
  setenv("FIXGRAPH_LINK_THREADS", "1", 1);
  setenv("FIXGRAPH_LINK_BATCH", "4", 1);
  o = CliLinkerOptions(ReadEnvironment(nullptr));
  EXPECT_EQ(o.threads, 1u);
  EXPECT_EQ(o.batch_issues, 4u);
  setenv("FIXGRAPH_LINK_BATCH", "0", 1);  // at least one issue per block
  EXPECT_EQ(CliLinkerOptions(ReadEnvironment(nullptr)).batch_issues, 1u);
  unsetenv("FIXGRAPH_LINK_THREADS");
  unsetenv("FIXGRAPH_LINK_BATCH");
}

}  // namespace
}  // namespace fixgraph::cli
