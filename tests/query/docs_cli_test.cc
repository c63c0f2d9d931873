// `fixgraph docs import` / `fixgraph docs search` end to end, including the
// API key never reaching output.
#include "docs_fake_kg.h"
#include "testutil/testutil.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace fixgraph::query {
namespace {

using fixgraph::testing::BinaryPath;
using fixgraph::testing::RunCommand;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;

std::string Fg(const TempDir& dir) {
  return "env -u FIXGRAPH_KG_URL -u FIXGRAPH_KG_API_KEY -u FIXGRAPH_KG_MODE '" + BinaryPath() +
         "' --db '" + dir.path() + "/db' ";
}

TEST(DocsCli, ImportThenSearchJson) {
  TempDir dir;
  std::string out, err;
  ASSERT_EQ(RunCommand(Fg(dir) + "docs import '" + SourceDir() + "/data/kg'", &out, &err), 0)
      << err;
  EXPECT_NE(out.find("doc nodes"), std::string::npos) << out;
  ASSERT_EQ(
      RunCommand(Fg(dir) + "docs search 'HCCL_SOCKET_IFNAME 多网卡' --json --limit 2", &out, &err),
      0)
      << err;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["query"], "HCCL_SOCKET_IFNAME 多网卡");
  ASSERT_EQ(j["docs"].size(), 2u);
  const auto& d = j["docs"][0];
  for (const char* f : {"id", "title", "source", "score", "snippet", "products", "url"})
    EXPECT_TRUE(d.contains(f)) << f;
  EXPECT_EQ(d["id"], "fixgraph-kg/hccl/socket-ifname");
  EXPECT_GT(d["score"].get<double>(), 0.83);
  ASSERT_EQ(RunCommand(Fg(dir) + "docs search 'HCCL_SOCKET_IFNAME'", &out, &err), 0) << err;
  EXPECT_NE(out.find(" hit "), std::string::npos) << out;
}

TEST(DocsCli, MalformedJsonlFailsNamingFileAndLine) {
  TempDir dir;
  WriteFile(dir / "in/a.jsonl",
            "{\"id\":\"x\",\"title\":\"zebra\",\"text\":\"zebra\"}\nnot json\n");
  std::string out, err;
  EXPECT_EQ(RunCommand(Fg(dir) + "docs import '" + dir.path() + "/in'", &out, &err), 1);
  EXPECT_NE(err.find("fixgraph: error: "), std::string::npos) << err;
  EXPECT_NE(err.find("a.jsonl:2: "), std::string::npos) << err;
  ASSERT_EQ(RunCommand(Fg(dir) + "docs search zebra --json", &out, &err), 0) << err;
  EXPECT_TRUE(nlohmann::json::parse(out)["docs"].empty());
}

// Regression (issue 21, found by fuzz_docs_parse): one ill-formed UTF-8 byte
// in a Markdown page aborted `docs import` (exit 134, an exception from
// nlohmann's dump()). It is imported, the byte read as U+FFFD.
TEST(DocsCli, IllFormedUtf8InAPageIsImported) {
  TempDir dir;
  WriteFile(dir / "in/page.md", "# Zebra page\n\nzebra \x83 stripes\n");
  std::string out, err;
  ASSERT_EQ(RunCommand(Fg(dir) + "docs import '" + dir.path() + "/in'", &out, &err), 0) << err;
  ASSERT_EQ(RunCommand(Fg(dir) + "docs search zebra --json", &out, &err), 0) << err;
  auto docs = nlohmann::json::parse(out)["docs"];
  ASSERT_EQ(docs.size(), 1u) << out;
  EXPECT_EQ(docs[0]["title"], "Zebra page");
}

TEST(DocsCli, UsageErrors) {
  TempDir dir;
  std::string out, err;
  EXPECT_EQ(RunCommand(Fg(dir) + "docs", &out, &err), 2);
  EXPECT_EQ(RunCommand(Fg(dir) + "docs import", &out, &err), 2);
  EXPECT_EQ(RunCommand(Fg(dir) + "docs search x --limit 0", &out, &err), 2);
}

// A query with nothing to search for fails as in `ask` (exit 1); a search with
// no doc source at all says so on stderr (the answer stays an empty list).
TEST(DocsCli, EmptyQueryFailsAndAMissingSourceIsNamed) {
  TempDir dir;
  std::string out, err;
  for (const char* q : {"''", "'  ?? '", "'the 的'"}) {
    EXPECT_EQ(RunCommand(Fg(dir) + "docs search " + q, &out, &err), 1) << q;
    EXPECT_NE(err.find("nothing to search for in the query"), std::string::npos) << err;
  }
  ASSERT_EQ(RunCommand(Fg(dir) + "docs search zebra --json", &out, &err), 0) << err;
  EXPECT_TRUE(nlohmann::json::parse(out)["docs"].empty());
  EXPECT_NE(err.find("no doc source"), std::string::npos) << err;
  WriteFile(dir / "in/a.md", "# Zebra page\n\nzebra stripes\n");
  ASSERT_EQ(RunCommand(Fg(dir) + "docs import '" + dir.path() + "/in'", &out, &err), 0) << err;
  ASSERT_EQ(RunCommand(Fg(dir) + "docs search zebra --json", &out, &err), 0) << err;
  EXPECT_EQ(err.find("no doc source"), std::string::npos) << err;
}

// `docs eval --split NAME` scores (and lists the misses of) one split only, so
// the dev misses can be read without seeing the test split's.
TEST(DocsCli, EvalOfOneSplit) {
  TempDir dir;
  WriteFile(dir / "in/zebra.md", "# Zebra page\n\nzebra stripes\n");
  WriteFile(dir / "in/lion.md", "# Lion page\n\nlion mane\n");
  WriteFile(dir / "q.json",
            R"({"questions": [{"id": 1, "split": "dev", "question": "zebra stripes",
                               "pages": ["zebra.md"]},
                              {"id": 2, "split": "test", "question": "lion mane",
                               "pages": ["zebra.md"]},
                              {"id": 3, "split": "fresh", "question": "zebra",
                               "pages": ["zebra.md"]}]})");
  std::string out, err;
  ASSERT_EQ(RunCommand(Fg(dir) + "docs import '" + dir.path() + "/in'", &out, &err), 0) << err;
  const std::string eval = "docs eval --json --misses '" + dir.path() + "/q.json'";
  ASSERT_EQ(RunCommand(Fg(dir) + eval, &out, &err), 0) << err;
  auto all = nlohmann::json::parse(out);
  EXPECT_EQ(all["splits"]["all"]["questions"], 3);
  EXPECT_EQ(all["splits"]["fresh"]["questions"], 1);
  EXPECT_EQ(all["misses"].size(), 1u);
  ASSERT_EQ(RunCommand(Fg(dir) + eval + " --split dev", &out, &err), 0) << err;
  auto dev = nlohmann::json::parse(out);
  EXPECT_EQ(dev["splits"]["all"]["questions"], 1);
  EXPECT_FALSE(dev["splits"].contains("test"));
  EXPECT_TRUE(dev["misses"].empty());
  // Any split the file names; one it does not name is an error that says so.
  ASSERT_EQ(RunCommand(Fg(dir) + eval + " --split fresh", &out, &err), 0) << err;
  EXPECT_EQ(nlohmann::json::parse(out)["splits"]["all"]["questions"], 1);
  EXPECT_NE(RunCommand(Fg(dir) + eval + " --split train", &out, &err), 0);
  EXPECT_NE(err.find("no question of split train"), std::string::npos) << err;
}

TEST(DocsCli, RemoteFailureNeverPrintsTheKey) {
  TempDir dir;
  fixgraph::testing::FakeKgServer kg;
  kg.echo_key_in_errors = true;
  kg.api_key = "right-key";
  const std::string secret = "sk-live-0123456789abcdef";
  std::string out, err;
  std::string cmd = "FIXGRAPH_KG_URL='" + kg.Url() + "' FIXGRAPH_KG_API_KEY='" + secret +
                    "' FIXGRAPH_KG_MODE=remote '" + BinaryPath() + "' --db '" + dir.path() +
                    "/db' docs search 'HCCL' --json";
  EXPECT_EQ(RunCommand(cmd, &out, &err), 1);
  EXPECT_NE(err.find("401"), std::string::npos) << err;
  EXPECT_EQ(err.find(secret), std::string::npos) << err;
  EXPECT_EQ(out.find(secret), std::string::npos) << out;
  // It did reach the server with the key.
  ASSERT_FALSE(kg.Requests().empty());
  EXPECT_EQ(kg.Requests()[0].Header("x-api-key"), secret);
}

// $FIXGRAPH_KG_DEBUG and $FIXGRAPH_KG_TUNE reach the doc search through the
// cli (cli/environment.h): the debug lines on stderr, the tuning bounding the
// candidates (max(candidates, 3 * limit)); the answer on stdout unchanged.
TEST(DocsCli, KgDebugAndTuneFromTheEnvironment) {
  TempDir dir;
  std::string out, err;
  ASSERT_EQ(RunCommand(Fg(dir) + "docs import '" + SourceDir() + "/data/kg'", &out, &err), 0)
      << err;
  const std::string search = "docs search 'HCCL_SOCKET_IFNAME 多网卡' --limit 1 --json";
  std::string plain;
  ASSERT_EQ(
      RunCommand("env -u FIXGRAPH_KG_DEBUG -u FIXGRAPH_KG_TUNE " + Fg(dir) + search, &plain, &err),
      0)
      << err;
  EXPECT_EQ(err.find("cand "), std::string::npos) << err;
  auto cands = [](const std::string& text) {
    size_t n = 0;
    for (size_t at = 0; (at = text.find("cand ", at)) != std::string::npos; ++at)
      if (at == 0 || text[at - 1] == '\n') ++n;
    return n;
  };
  ASSERT_EQ(
      RunCommand("env -u FIXGRAPH_KG_TUNE FIXGRAPH_KG_DEBUG=1 " + Fg(dir) + search, &out, &err), 0)
      << err;
  EXPECT_NE(err.find("group hccl_socket_ifname"), std::string::npos) << err;
  EXPECT_GT(cands(err), 3u) << err;
  EXPECT_EQ(out, plain);
  ASSERT_EQ(RunCommand("FIXGRAPH_KG_TUNE=candidates=1 FIXGRAPH_KG_DEBUG= " + Fg(dir) + search, &out,
                       &err),
            0)
      << err;
  EXPECT_EQ(cands(err), 3u) << err;  // set but empty still means debug, as before
}

}  // namespace
}  // namespace fixgraph::query
