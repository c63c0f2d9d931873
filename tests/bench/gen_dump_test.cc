// fixgraph_gen_dump's parts (bench/gen_dump_*.h): a dump is a function of its options only,
// has the layout and counts it claims, plans agree with each other, and the bytes for a given
// seed stay what they were (benchmarks compare runs on dumps made at different times).

#include "gen_dump_options.h"
#include "gen_dump_plan.h"
#include "gen_dump_repo.h"
#include "gen_dump_text.h"
#include "gen_dump_vocab.h"
#include "testutil/testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gen_dump {
namespace {

using fixgraph::testing::TempDir;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every regular file under root by relative path, with its bytes.
std::map<std::string, std::string> Tree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) {
      files[fs::relative(entry.path(), root).generic_string()] = Slurp(entry.path());
    }
  }
  return files;
}

// FNV-1a over each file's path, a NUL, its bytes and a NUL, in path order.
uint64_t TreeHash(const std::map<std::string, std::string>& files) {
  uint64_t h = 0xcbf29ce484222325ULL;
  const auto feed = [&h](std::string_view bytes) {
    for (const char c : bytes) {
      h ^= static_cast<unsigned char>(c);
      h *= 0x100000001b3ULL;
    }
    h ^= 0;
    h *= 0x100000001b3ULL;
  };
  for (const auto& [path, bytes] : files) {
    feed(path);
    feed(bytes);
  }
  return h;
}

Options Small(const fs::path& out, uint64_t seed, Platform platform = Platform::kGitCode) {
  Options o;
  o.out = out;
  o.repos = 2;
  o.issues = 40;
  o.prs = 30;
  o.prs_given = true;
  o.seed = seed;
  o.platform = platform;
  o.truth = out / "truth.jsonl";
  return o;
}

TEST(GenDump, SameSeedWritesTheSameBytes) {
  TempDir tmp;
  const Stats a = WriteDump(Small(tmp / "a", 7));
  const Stats b = WriteDump(Small(tmp / "b", 7));
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.files, b.files);
  const auto tree_a = Tree(tmp / "a");
  ASSERT_FALSE(tree_a.empty());
  EXPECT_TRUE(tree_a == Tree(tmp / "b"));

  // Writing over an earlier dump replaces it with the same bytes.
  WriteDump(Small(tmp / "a", 7));
  EXPECT_TRUE(tree_a == Tree(tmp / "a"));
}

TEST(GenDump, AnotherSeedWritesOtherContent) {
  TempDir tmp;
  WriteDump(Small(tmp / "a", 7));
  WriteDump(Small(tmp / "b", 8));
  const std::string issues = "gitcode/synth/repo-1/issues.json";
  const auto tree_a = Tree(tmp / "a");
  const auto tree_b = Tree(tmp / "b");
  ASSERT_TRUE(tree_a.count(issues) && tree_b.count(issues));
  EXPECT_NE(tree_a.at(issues), tree_b.at(issues));
}

// The bytes of small dumps, pinned: the hashes are those of the generator before it was split
// into parts (bench/gen_dump.cc at 3f5b34f). A change to the workload on purpose updates them.
TEST(GenDump, OutputForASeedIsPinned) {
  struct Case {
    Platform platform;
    uint64_t seed;
    uint64_t hash;
  };
  const Case cases[] = {{Platform::kGitCode, 7, 0x5d1e225507cba285ULL},
                        {Platform::kGitee, 3, 0x089f3aab43ca8068ULL},
                        {Platform::kGitHub, 11, 0x665244034107c7d6ULL}};
  for (const Case& c : cases) {
    TempDir tmp;
    WriteDump(Small(tmp.path(), c.seed, c.platform));
    EXPECT_EQ(TreeHash(Tree(tmp.path())), c.hash) << PlatformName(c.platform) << " seed " << c.seed;
  }
}

TEST(GenDump, LayoutAndCountsMatchTheOptions) {
  TempDir tmp;
  const Options o = Small(tmp.path(), 5);
  const Stats stats = WriteDump(o);
  EXPECT_EQ(stats.repos, 2u);
  EXPECT_EQ(stats.issues, 80u);
  EXPECT_EQ(stats.prs, 60u);

  uint64_t files = 0, bytes = 0, comments = 0;
  for (const auto& [path, text] : Tree(tmp.path())) {
    if (path == "truth.jsonl") continue;
    ++files;
    bytes += text.size();
    ASSERT_EQ(text.back(), '\n') << path;
    const auto json = nlohmann::json::parse(text);  // every file is one JSON document
    if (path.ends_with("/comments.json")) comments += json.size();
  }
  EXPECT_EQ(stats.files, files);
  EXPECT_EQ(stats.bytes, bytes);
  EXPECT_EQ(stats.comments, comments);

  for (const std::string repo : {"repo-1", "repo-2"}) {
    const fs::path dir = tmp / ("gitcode/synth/" + repo);
    EXPECT_EQ(nlohmann::json::parse(Slurp(dir / "repo.json"))["full_name"], "synth/" + repo);
    const auto issues = nlohmann::json::parse(Slurp(dir / "issues.json"));
    const auto pulls = nlohmann::json::parse(Slurp(dir / "pulls.json"));
    ASSERT_EQ(issues.size(), o.issues);
    ASSERT_EQ(pulls.size(), o.prs);
    std::set<std::string> numbers;
    for (size_t k = 0; k < issues.size(); ++k) {
      const std::string number = issues[k]["number"];
      numbers.insert(number);
      // Newest first; every issue has its comments file, with the count the issue gives.
      if (k > 0) {
        EXPECT_GT(issues[k - 1]["created_at"], issues[k]["created_at"]);
      }
      const auto thread = nlohmann::json::parse(Slurp(dir / "issues" / number / "comments.json"));
      EXPECT_EQ(thread.size(), issues[k]["comments"].get<size_t>());
    }
    EXPECT_EQ(numbers.size(), issues.size());
    for (const auto& pr : pulls) {
      const fs::path pr_dir = dir / "pulls" / std::to_string(pr["number"].get<int64_t>());
      const bool merged = pr["state"] == "merged";
      EXPECT_EQ(fs::exists(pr_dir / "commits.json"), merged);
      EXPECT_EQ(fs::exists(pr_dir / "files.json"), merged);
    }
  }
}

// The answer key agrees with itself: a fixed issue's PR lists it among its fixes.
TEST(GenDump, AnswerKeyIsConsistent) {
  TempDir tmp;
  WriteDump(Small(tmp.path(), 9));
  std::ifstream in(tmp / "truth.jsonl");
  std::map<std::pair<std::string, uint64_t>, nlohmann::json> prs;
  std::vector<nlohmann::json> issues;
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("pr"))
      prs[{j["repo"], j["pr"].get<uint64_t>()}] = j;
    else
      issues.push_back(j);
  }
  EXPECT_EQ(issues.size(), 80u);
  EXPECT_EQ(prs.size(), 60u);
  int fixed = 0;
  for (const auto& issue : issues) {
    if (issue["outcome"] != "fixed") continue;
    ++fixed;
    ASSERT_TRUE(issue.contains("fix_pr")) << issue.dump();
    const auto& pr = prs.at({issue["repo"], issue["fix_pr"].get<uint64_t>()});
    EXPECT_EQ(pr["state"], "merged");
    const auto& fixes = pr["fixes"];
    EXPECT_NE(std::find(fixes.begin(), fixes.end(), issue["issue"]), fixes.end()) << issue.dump();
  }
  EXPECT_GT(fixed, 0);
}

// A PR finds its issues by recomputing their fates: it must find exactly those that name it.
TEST(GenDumpPlan, FixesOfAgreesWithFate) {
  Options o;
  o.issues = 400;
  o.prs = 350;
  o.seed = 21;
  const Planner planner(o, 0);
  std::map<uint64_t, std::vector<uint64_t>> expected;
  for (uint64_t i = 0; i < o.issues; ++i) {
    const IssueFate fate = planner.Fate(i);
    if (fate.fix_pr != kNone) expected[fate.fix_pr].push_back(i);
  }
  ASSERT_FALSE(expected.empty());
  std::vector<uint64_t> found;
  for (uint64_t j = 0; j < o.prs; ++j) {
    planner.FixesOf(j, found);
    EXPECT_EQ(found, expected[j]) << "PR " << j;
  }
}

TEST(GenDumpText, ExpandFillsEveryPlaceholder) {
  PlanRng plan(1);
  const Topic topic = DrawTopic(plan);
  const TextCtx ctx{topic, kTimelineStart + 1000, "#12", "!34", "https://gitcode.com/o/r/pulls/34"};
  TextRng rng(2);
  for (const Pool pool : {Pool(kIssueTitlesEn), Pool(kIssueTitlesZh), Pool(kIssueSentencesEn),
                          Pool(kIssueSentencesZh), Pool(kFixSentencesEn), Pool(kAnalysisZh)}) {
    for (const std::string_view tmpl : pool) {
      std::string out;
      Expand(tmpl, ctx, rng, out);
      EXPECT_EQ(out.find('{'), std::string::npos) << tmpl << " -> " << out;
    }
  }
  std::string out;
  EXPECT_THROW(Expand("a {nonsense} b", ctx, rng, out), std::logic_error);

  std::string title;
  Expand("Short", ctx, rng, title);
  FitTitle(title, false, ctx, rng);
  EXPECT_GE(CodePoints(title), kTitleMin);
  EXPECT_LE(CodePoints(title), kTitleMax);
  title = std::string(200, 'x');
  FitTitle(title, false, ctx, rng);
  EXPECT_EQ(CodePoints(title), kTitleMax);
}

std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return argv;
}

TEST(GenDumpOptions, ParsesAndRejectsByName) {
  std::vector<std::string> args = {"gen", "--out", "d", "--issues", "12", "--platform", "gitee"};
  auto argv = Argv(args);
  const Options o = ParseOptions(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(o.out, fs::path("d"));
  EXPECT_EQ(o.issues, 12u);
  EXPECT_EQ(o.prs, 12u);  // defaults to the issue count
  EXPECT_EQ(o.platform, Platform::kGitee);

  const auto error = [](std::vector<std::string> a) {
    auto v = Argv(a);
    try {
      ParseOptions(static_cast<int>(v.size()), v.data());
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error({"gen", "--issues", "5"}), "--out is required");
  EXPECT_NE(error({"gen", "--out", "d", "--repos", "501"}).find("--repos"), std::string::npos);
  EXPECT_NE(error({"gen", "--out", "d", "--comments", "x"}).find("--comments"), std::string::npos);
  EXPECT_NE(error({"gen", "--out", "d", "--owner", "../x"}).find("--owner"), std::string::npos);
  EXPECT_NE(error({"gen", "--out", "d", "--bogus", "1"}).find("--bogus"), std::string::npos);
}

TEST(GenDump, RefusesToReplaceADirectoryThatIsNotADump) {
  TempDir tmp;
  fixgraph::testing::WriteFile(tmp / "gitcode/synth/repo-1/notes.txt", "mine\n");
  EXPECT_THROW(WriteDump(Small(tmp.path(), 1)), std::runtime_error);
  EXPECT_EQ(Slurp(tmp / "gitcode/synth/repo-1/notes.txt"), "mine\n");
}

}  // namespace
}  // namespace gen_dump
