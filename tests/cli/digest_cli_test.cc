// `fixgraph digest` as a command, on the demo store: -o writes the file, bad
// flag values and rules files are refused with the right exit status, and
// --config reaches the selection. The digest itself (facts, rendering,
// golden files) is tested in-process in tests/query/digest_test.cc.
#include "cli_run.h"
#include "testutil/testutil.h"

#include "fixgraph/cli/cli.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace fixgraph::cli {
namespace {

using fixgraph::testing::ReadFile;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

using Result = testing::CliResult;

class DigestCli : public testing::DemoStoreCli<DigestCli> {};

TEST_F(DigestCli, WritesFileAndRejectsBadInput) {
  TempDir out_dir;
  std::string file = out_dir / "d.md";
  Result r = Run({"digest", "--repo", "gitcode:Ascend/FlashGen", "-o", file});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string md = ReadFile(file);
  EXPECT_NE(md.find("Ascend/FlashGen"), std::string::npos);
  EXPECT_EQ(md.find("Ascend/MindSpeed-Ops"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));

  // Bad flag values are usage errors (exit 2, docs/cli.md "Exit status").
  r = Run({"digest", "--lang", "fr"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fixgraph: usage error:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fr"), std::string::npos) << r.err;
  EXPECT_EQ(Run({"digest", "--format", "pdf"}).code, 2);
  EXPECT_EQ(Run({"digest", "--min-tier", "E"}).code, 2);
  r = Run({"digest", "--since", "yesterday"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--since"), std::string::npos) << r.err;
  EXPECT_EQ(Run({"digest", "--repo", "gitcode:nobody/nothing"}).code, 1);
  std::string bad = out_dir / "bad.json";
  WriteFile(bad, "{\"min_tier\": \"Z\"}");
  r = Run({"digest", "--config", bad});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("min_tier"), std::string::npos) << r.err;
  // A config that only keeps fixed issues.
  std::string only_fixed = out_dir / "fixed.json";
  WriteFile(only_fixed, "{\"include_resolutions\": [\"fixed\"]}");
  r = Run({"digest", "--format", "json", "--config", only_fixed});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  size_t cases = 0;
  for (const json& repo : j["repos"])
    for (const json& c : repo["cases"]) {
      ++cases;
      EXPECT_TRUE(c["resolution"] == "fixed" || c["resolution"] == "duplicate") << c["issue"];
    }
  EXPECT_GT(cases, 0u);
}

// What the command prints is the golden digest of the demo (the query
// suite compares the library's renders with the same files).
TEST_F(DigestCli, StdoutIsTheGoldenDigest) {
  setenv("FIXGRAPH_TZ", "+08:00", 1);
  const std::string golden = SourceDir() + "/tests/golden/digest/";
  Result r = Run({"digest"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out == ReadFile(golden + "demo.md")) << "digest differs from demo.md";
  r = Run({"digest", "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out == ReadFile(golden + "demo.json")) << "digest --format json differs";
  r = Run({"digest", "--lang", "en"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out == ReadFile(golden + "demo.en.md")) << "digest --lang en differs";
  unsetenv("FIXGRAPH_TZ");
}

}  // namespace
}  // namespace fixgraph::cli
