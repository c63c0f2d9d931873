#include "fixgraph/ingest/dump.h"

#include "testutil/testutil.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

namespace fixgraph::ingest {
namespace {

using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

// Writes a GitCode repository folder with n issues and n PRs (PR i fixes issue i),
// two comments per issue, a commit and a file per PR.
void WriteRepo(const std::string& dump, const std::string& owner, const std::string& name, int n,
               const std::string& title_suffix = "") {
  std::string root = dump + "/gitcode/" + owner + "/" + name;
  json issues = json::array(), pulls = json::array();
  for (int i = 1; i <= n; ++i) {
    std::string num = std::to_string(i);
    issues.push_back(
        {{"id", i},
         {"number", num},
         {"title", "问题 " + num + title_suffix},
         {"body", "报错 EZ9999 at step " + num},
         {"state", i % 2 ? "closed" : "open"},
         {"user", {{"id", "65f2a8e3c1b04d0012ab34cd"}, {"login", "alice"}}},
         {"created_at", "2026-01-01T10:00:00+08:00"},
         {"finished_at", i % 2 ? "2026-01-02T10:00:0" + std::to_string(i % 10) + "+08:00" : ""}});
    pulls.push_back(
        {{"id", 1000 + i},
         {"number", i},
         {"title", "fix 问题 " + num},
         {"body", "fix #" + num},
         {"state", i % 2 ? "merged" : "open"},
         {"merged_at", i % 2 ? "2026-01-02T10:00:0" + std::to_string(i % 10) + "+08:00" : ""},
         {"head", {{"ref", "issue-" + num}}},
         {"base", {{"ref", "master"}}}});
    json comments = json::array(
        {{{"id", i * 10}, {"body", "复现了"}, {"created_at", "2026-01-01T11:00:00+08:00"}},
         {{"id", i * 10 + 1}, {"body", "fixed by !" + num}}});
    WriteFile(root + "/issues/" + num + "/comments.json", comments.dump());
    WriteFile(
        root + "/pulls/" + num + "/commits.json",
        json::array({{{"sha", "sha" + num}, {"commit", {{"message", "fix #" + num}}}}}).dump());
    WriteFile(
        root + "/pulls/" + num + "/files.json",
        json::array({{{"filename", "src/f" + num + ".cc"}, {"additions", "3"}, {"deletions", 1}}})
            .dump());
    WriteFile(root + "/pulls/" + num + "/issues.json", json::array({{{"number", num}}}).dump());
  }
  WriteFile(root + "/repo.json",
            json{{"full_name", owner + "/" + name}, {"description", "demo"}}.dump());
  WriteFile(root + "/issues.json", issues.dump(2));
  WriteFile(root + "/pulls.json", pulls.dump(2));
}

std::unique_ptr<Store> OpenStore(const std::string& dir) {
  auto s = Store::Open(dir, StoreOptions());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

// Writes a good dump of Ascend/`repo` with 3 issues under `dir`/dump, opens the
// store `dir`/db into *store and imports the dump (fatal failure if it fails).
void ImportGoodRepo(const TempDir& dir, const std::string& repo, std::unique_ptr<Store>* store) {
  WriteRepo(dir / "dump", "Ascend", repo, 3);
  *store = OpenStore(dir / "db");
  ASSERT_NE(*store, nullptr);
  ASSERT_TRUE(ImportDump(store->get(), dir / "dump", ImportOptions(), nullptr).ok());
}

RepoStats StatsOf(Store& store, const std::string& owner, const std::string& name) {
  auto st = store.Stats(RepoRef{Platform::kGitCode, owner, name});
  EXPECT_TRUE(st.ok());
  return st.ok() ? *st : RepoStats();
}

TEST(Dump, ListsRepositoriesAndIgnoresTopLevelFiles) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "b", 1);
  WriteRepo(dir / "dump", "Ascend", "a", 1);
  WriteFile(dir / "dump/README.md", "hello");
  WriteFile(dir / "dump/MANIFEST.json", "{}");
  auto repos = ListDumpRepositories(dir / "dump");
  ASSERT_TRUE(repos.ok()) << repos.status().ToString();
  ASSERT_EQ(repos->size(), 2u);
  EXPECT_EQ((*repos)[0].repo.ToString(), "gitcode:Ascend/a");
  EXPECT_EQ((*repos)[1].repo.ToString(), "gitcode:Ascend/b");
}

TEST(Dump, UnknownPlatformFolderIsNamed) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 1);
  WriteFile(dir / "dump/gitlab/x/y/issues.json", "[]");
  auto repos = ListDumpRepositories(dir / "dump");
  ASSERT_FALSE(repos.ok());
  EXPECT_NE(repos.status().message().find("unknown platform folder \"gitlab\""), std::string::npos)
      << repos.status().message();
}

TEST(Dump, MissingPathAndEmptyDump) {
  TempDir dir;
  EXPECT_EQ(ListDumpRepositories(dir / "nope").status().code(), Status::Code::kIOError);
  std::filesystem::create_directories(dir / "empty");
  EXPECT_FALSE(ListDumpRepositories(dir / "empty").ok());
}

TEST(Dump, ImportsEverythingWithExactCounts) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 5);
  auto store = OpenStore(dir / "db");
  ImportCounts c;
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), &c).ok());
  EXPECT_EQ(c.repos, 1);
  EXPECT_EQ(c.issues, 5);
  EXPECT_EQ(c.pulls, 5);
  EXPECT_EQ(c.comments, 10);
  EXPECT_EQ(c.commits, 5);
  EXPECT_EQ(c.files, 5);
  EXPECT_EQ(c.platform_links, 5);
  RepoStats st = StatsOf(*store, "Ascend", "a");
  EXPECT_EQ(st.issues_closed, 3);
  EXPECT_EQ(st.issues_open, 2);
  EXPECT_EQ(st.pulls_merged, 3);
  EXPECT_EQ(st.pulls_open, 2);
  EXPECT_EQ(st.comments, 10);
  EXPECT_EQ(st.commits, 5);
  EXPECT_EQ(st.files, 5);
  EXPECT_EQ(st.platform_links, 5);
  // Mentions from PR body, commit and issue comment all land in the index.
  std::vector<MentionRecord> m;
  ASSERT_TRUE(store->MentionsOf(ParseRef("gitcode:Ascend/a#3").value(), &m).ok());
  EXPECT_EQ(m.size(), 2u);  // PR body "fix #3" and commit "fix #3"
  std::vector<PlatformLink> links;
  ASSERT_TRUE(store->ListPlatformLinks(ParseRef("gitcode:Ascend/a!3").value(), &links).ok());
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].issue.ToString(), "gitcode:Ascend/a#3");
  auto repo = store->GetRepository(RepoRef{Platform::kGitCode, "Ascend", "a"});
  ASSERT_TRUE(repo.ok());
  EXPECT_EQ(repo->description, "demo");
  EXPECT_EQ(c.touched.size(), 10u);  // 5 issues + 5 PRs
}

TEST(Dump, ReimportIsIdempotent) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 4);
  auto store = OpenStore(dir / "db");
  ImportCounts first, second;
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), &first).ok());
  RepoStats before = StatsOf(*store, "Ascend", "a");
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), &second).ok());
  RepoStats after = StatsOf(*store, "Ascend", "a");
  EXPECT_GT(first.changed, 0);
  EXPECT_EQ(second.changed, 0);
  EXPECT_TRUE(second.touched.empty());
  EXPECT_EQ(before.issues_open + before.issues_closed, after.issues_open + after.issues_closed);
  EXPECT_EQ(before.comments, after.comments);
  EXPECT_EQ(before.platform_links, after.platform_links);
  std::vector<MentionRecord> m;
  ASSERT_TRUE(store->MentionsOf(ParseRef("gitcode:Ascend/a#1").value(), &m).ok());
  EXPECT_EQ(m.size(), 2u);
}

// Re-importing a repository the store holds takes two passes; the write pass
// reuses the verify pass's listing of the item folders, and a folder added in
// between is an error, not a silently misread folder.
TEST(Dump, ItemFolderAddedBetweenThePassesIsAnError) {
  TempDir dir;
  std::unique_ptr<Store> store;
  ASSERT_NO_FATAL_FAILURE(ImportGoodRepo(dir, "a", &store));
  WriteRepo(dir / "dump", "Ascend", "a", 3, " v2");
  ImportOptions o;
  o.threads = 1;
  o.batch_records = 1;
  bool added = false;
  o.after_batch = [&](size_t) {
    if (added) return;
    added = true;  // "15" sorts between "1" and "2"
    WriteFile(dir / "dump/gitcode/Ascend/a/issues/15/comments.json",
              json::array({{{"id", 150}, {"body", "late"}}}).dump());
  };
  Status s = ImportDump(store.get(), dir / "dump", o, nullptr);
  ASSERT_TRUE(added);
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find("issues/15: item folders changed during the import"),
            std::string::npos)
      << s.ToString();
  std::vector<std::string> interrupted;
  ASSERT_TRUE(InterruptedImports(*store, &interrupted).ok());
  EXPECT_EQ(interrupted.size(), 1u);  // the marker stays, as after a crash
}

TEST(Dump, UpdatedDumpChangesOnlyWhatChanged) {
  TempDir dir;
  std::unique_ptr<Store> store;
  ASSERT_NO_FATAL_FAILURE(ImportGoodRepo(dir, "a", &store));
  WriteRepo(dir / "dump", "Ascend", "a", 3, " (edited)");
  ImportCounts c;
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), &c).ok());
  EXPECT_EQ(c.changed, 3);  // the three issue titles
  EXPECT_EQ(c.touched.size(), 3u);
  EXPECT_EQ(store->GetIssue(ParseRef("gitcode:Ascend/a#2").value())->title, "问题 2 (edited)");
}

// Parameter: a file of the dump (relative to the repository folder) and the
// bad content written to it. The fixture first imports a good repository.
class BadFileTest : public ::testing::TestWithParam<std::pair<std::string, std::string>> {
 protected:
  // Imports a good dump of `repo` (3 issues, ImportGoodRepo) and returns its stats.
  RepoStats ImportGood(const std::string& repo) {
    ImportGoodRepo(dir, repo, &store);
    if (HasFatalFailure()) return RepoStats{};
    return StatsOf(*store, "Ascend", repo);
  }

  TempDir dir;
  std::unique_ptr<Store> store;
};

// A bad file anywhere in a repository leaves that repository exactly as it was.
class BadInputTest : public BadFileTest {};

TEST_P(BadInputTest, StoreUnchangedAndErrorNamesFile) {
  const auto& [relpath, content] = GetParam();
  RepoStats before;
  ASSERT_NO_FATAL_FAILURE(before = ImportGood("a"));
  WriteRepo(dir / "dump", "Ascend", "a", 6, " v2");                // more and changed records...
  WriteFile(dir / ("dump/gitcode/Ascend/a/" + relpath), content);  // ...and one bad file
  Status s = ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr);
  ASSERT_FALSE(s.ok());
  std::string named = relpath.substr(0, relpath.find("/commits.json"));  // a bad folder is named
  EXPECT_NE(s.message().find(named), std::string::npos) << s.message();
  RepoStats after = StatsOf(*store, "Ascend", "a");
  EXPECT_EQ(before.issues_open + before.issues_closed, after.issues_open + after.issues_closed);
  EXPECT_EQ(before.pulls_merged + before.pulls_open, after.pulls_merged + after.pulls_open);
  EXPECT_EQ(before.comments, after.comments);
  EXPECT_EQ(store->GetIssue(ParseRef("gitcode:Ascend/a#1").value())->title, "问题 1");
  std::vector<std::string> interrupted;
  ASSERT_TRUE(InterruptedImports(*store, &interrupted).ok());
  EXPECT_TRUE(interrupted.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Files, BadInputTest,
    ::testing::Values(
        std::make_pair("issues.json", R"([{"number": "1", "title": "x"}, {"number": )"),
        std::make_pair("pulls.json", R"([{"number": 1, "title": ["not", "a", "string"]}])"),
        std::make_pair("issues/2/comments.json", R"([{"id": 1, "created_at": "yesterday"}])"),
        std::make_pair("pulls/3/files.json", R"({"filename": "not an array"})"),
        std::make_pair("repo.json", R"({"description": 5})"),
        std::make_pair("pulls/x1/commits.json", "[]")));

// A repository the store does not hold is imported in one pass; bad input
// found after some of it was written is undone: no record, payload, index row
// or platform link of it stays (mentions of another repository included),
// the other repository is untouched, and no import marker is left.
// Run with the records written on a second thread (ImportOptions::pipeline)
// and on the reading thread.
class BadNewRepositoryTest : public BadFileTest {
 protected:
  void NothingOfItStays(ImportOptions::Pipeline pipeline);
};

TEST_P(BadNewRepositoryTest, NothingOfItStaysWithWriterThread) {
  NothingOfItStays(ImportOptions::Pipeline::kOn);
}

TEST_P(BadNewRepositoryTest, NothingOfItStaysWithOneThread) {
  NothingOfItStays(ImportOptions::Pipeline::kOff);
}

void BadNewRepositoryTest::NothingOfItStays(ImportOptions::Pipeline pipeline) {
  const auto& [relpath, content] = GetParam();
  RepoStats b_before;
  ASSERT_NO_FATAL_FAILURE(b_before = ImportGood("b"));
  std::vector<MentionRecord> b1_before;
  ASSERT_TRUE(store->MentionsOf(ParseRef("gitcode:Ascend/b#1").value(), &b1_before).ok());

  WriteRepo(dir / "dump2", "Ascend", "a", 40);
  // A mention of b's issue from a, and an operate-log link (kept back until the end).
  WriteFile(dir / "dump2/gitcode/Ascend/a/issues/7/comments.json",
            json::array({{{"id", 70}, {"body", "same as Ascend/b#1"}}}).dump());
  WriteFile(dir / "dump2/gitcode/Ascend/a/pulls/8/operate_logs.json",
            json::array({{{"id", 80},
                          {"action_type", "add_pr_issue_link"},
                          {"content", "#5"},
                          {"created_at", "2026-01-03T10:00:00+08:00"}}})
                .dump());
  WriteFile(dir / ("dump2/gitcode/Ascend/a/" + relpath), content);
  ImportOptions o;
  o.batch_records = 7;   // several batches are written before the bad file
  o.bulk_run_bytes = 1;  // and each is spilled into table files (dropped again)
  o.threads = 1;
  o.pipeline = pipeline;
  size_t batches = 0;
  o.after_batch = [&](size_t n) { batches = n; };
  Status s = ImportDump(store.get(), dir / "dump2", o, nullptr);
  ASSERT_FALSE(s.ok());
  std::string named = relpath.substr(0, relpath.find("/commits.json"));
  EXPECT_NE(s.message().find(named), std::string::npos) << s.message();
  if (relpath != "repo.json") {
    EXPECT_GT(batches, 1u);  // the undo had work to do
  }

  RepoStats a = StatsOf(*store, "Ascend", "a");
  EXPECT_EQ(a.issues_open + a.issues_closed + a.pulls_open + a.pulls_merged + a.pulls_closed +
                a.comments + a.commits + a.files + a.operate_logs + a.platform_links,
            0);
  EXPECT_TRUE(
      store->GetRepository(RepoRef{Platform::kGitCode, "Ascend", "a"}).status().IsNotFound());
  EXPECT_TRUE(store->GetRaw(ParseRef("gitcode:Ascend/a#1").value()).status().IsNotFound());
  std::vector<MentionRecord> m;
  ASSERT_TRUE(store->MentionsOf(ParseRef("gitcode:Ascend/a#1").value(), &m).ok());
  EXPECT_TRUE(m.empty());
  std::vector<MentionRecord> b1_after;
  ASSERT_TRUE(store->MentionsOf(ParseRef("gitcode:Ascend/b#1").value(), &b1_after).ok());
  EXPECT_EQ(b1_after.size(), b1_before.size());
  RepoStats b = StatsOf(*store, "Ascend", "b");
  EXPECT_EQ(b.issues_open + b.issues_closed, b_before.issues_open + b_before.issues_closed);
  EXPECT_EQ(b.comments, b_before.comments);
  EXPECT_EQ(b.platform_links, b_before.platform_links);
  std::vector<PlatformLink> links;
  ASSERT_TRUE(store->ListPlatformLinks(ParseRef("gitcode:Ascend/b#1").value(), &links).ok());
  EXPECT_EQ(static_cast<std::int64_t>(links.size()), 1);  // b's own pull_issues link only
  std::vector<std::string> interrupted;
  ASSERT_TRUE(InterruptedImports(*store, &interrupted).ok());
  EXPECT_TRUE(interrupted.empty());

  // Fixed, the same dump imports completely.
  WriteRepo(dir / "dump2", "Ascend", "a", 40);
  if (relpath.rfind("pulls/x1", 0) == 0)
    std::filesystem::remove_all(dir / "dump2/gitcode/Ascend/a/pulls/x1");
  ImportCounts c;
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump2", ImportOptions(), &c).ok());
  a = StatsOf(*store, "Ascend", "a");
  EXPECT_EQ(a.issues_open + a.issues_closed, 40);
  EXPECT_EQ(a.comments, 80);
  EXPECT_EQ(a.platform_links, 41);  // 40 pull_issues links and the operate-log one
}

INSTANTIATE_TEST_SUITE_P(
    Files, BadNewRepositoryTest,
    ::testing::Values(
        std::make_pair("pulls.json", R"([{"number": 1, "title": ["not", "a", "string"]}])"),
        std::make_pair("issues/2/comments.json", R"([{"id": 1, "created_at": "yesterday"}])"),
        std::make_pair("pulls/39/files.json", R"({"filename": "not an array"})"),
        std::make_pair("pulls/40/issues.json", R"([{"number": )"),
        std::make_pair("repo.json", R"({"description": 5})"),
        std::make_pair("pulls/x1/commits.json", "[]")));

// What a store holds after an import, as text: stats, items with their raw
// payloads, comments, commits, files, platform links and mention rows.
std::string StoreText(const Store& store, const RepoRef& repo) {
  std::string out;
  auto st = store.Stats(repo);
  EXPECT_TRUE(st.ok());
  if (!st.ok()) return out;
  out += std::to_string(st->issues_open) + " " + std::to_string(st->issues_closed) + " " +
         std::to_string(st->pulls_open) + " " + std::to_string(st->pulls_merged) + " " +
         std::to_string(st->comments) + " " + std::to_string(st->commits) + " " +
         std::to_string(st->files) + " " + std::to_string(st->operate_logs) + " " +
         std::to_string(st->platform_links) + "\n";
  for (int i = 1; i <= 60; ++i) {
    for (Ref item : {Ref::Issue(repo, std::to_string(i)), Ref::Pull(repo, i)}) {
      auto raw = store.GetRaw(item);
      out += item.ToString() + " " + (raw.ok() ? *raw : raw.status().ToString()) + "\n";
    }
  }
  EXPECT_TRUE(store
                  .ForEachComment(&repo,
                                  [&](const Comment& c) {
                                    out += "comment " + c.parent_number + " " + c.id + " " +
                                           c.body + "\n";
                                    return true;
                                  })
                  .ok());
  EXPECT_TRUE(store
                  .ForEachFile(&repo,
                               [&](const FileChange& f) {
                                 out += "file " + f.filename + "\n";
                                 return true;
                               })
                  .ok());
  EXPECT_TRUE(store
                  .ForEachPlatformLink(&repo,
                                       [&](const PlatformLink& l) {
                                         out += "link " + l.issue.ToString() + " " +
                                                l.pull.ToString() + " " + l.source + "\n";
                                         return true;
                                       })
                  .ok());
  EXPECT_TRUE(store
                  .ForEachMention([&](const MentionRecord& m) {
                    out += "mention " + m.target.ToString() + " " + m.source_item.ToString() + " " +
                           m.source_id + " " + m.text + "\n";
                    return true;
                  })
                  .ok());
  return out;
}

// The writer thread stores exactly what one thread stores, with the same counts.
TEST(Dump, WriterThreadStoresWhatOneThreadStores) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 50);
  WriteFile(dir / "dump/gitcode/Ascend/a/issues/7/comments.json",
            json::array({{{"id", 70}, {"body", "same as #9 and Ascend/a!3"}}}).dump());
  WriteFile(dir / "dump/gitcode/Ascend/a/pulls/8/operate_logs.json",
            json::array({{{"id", 80},
                          {"action_type", "add_pr_issue_link"},
                          {"content", "#5"},
                          {"created_at", "2026-01-03T10:00:00+08:00"}}})
                .dump());
  std::string text[2];
  ImportCounts counts[2];
  const ImportOptions::Pipeline modes[2] = {ImportOptions::Pipeline::kOn,
                                            ImportOptions::Pipeline::kOff};
  for (int k = 0; k < 2; ++k) {
    auto store = OpenStore(dir / ("db" + std::to_string(k)));
    ASSERT_NE(store, nullptr);
    ImportOptions o;
    o.batch_records = 13;  // many batches, and blocks of slots that end mid-batch
    o.pipeline = modes[k];
    ASSERT_TRUE(ImportDump(store.get(), dir / "dump", o, &counts[k]).ok());
    text[k] = StoreText(*store, RepoRef{Platform::kGitCode, "Ascend", "a"});
    ImportCounts again;
    ASSERT_TRUE(ImportDump(store.get(), dir / "dump", o, &again).ok());
    EXPECT_EQ(again.changed, 0);
  }
  EXPECT_NE(text[0].find("comment 7 70 same as #9"), std::string::npos);
  EXPECT_NE(text[0].find("operate_log"), std::string::npos);
  EXPECT_EQ(text[0], text[1]);
  EXPECT_EQ(counts[0].records(), counts[1].records());
  EXPECT_EQ(counts[0].records(), 50 + 50 + 99 + 50 + 50 + 1 + 51);  // issue 7: one comment
  EXPECT_EQ(counts[0].changed, counts[1].changed);
  EXPECT_EQ(counts[0].touched.size(), counts[1].touched.size());
}

TEST(Dump, ParallelImportKeepsGoodRepositoriesAndReportsTheBadOne) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 3);
  WriteRepo(dir / "dump", "Ascend", "b", 3);
  WriteFile(dir / "dump/gitcode/Ascend/a/pulls.json", "[{\"number\": true}]");
  auto store = OpenStore(dir / "db");
  ImportOptions o;
  o.threads = 2;
  Status s = ImportDump(store.get(), dir / "dump", o, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Ascend/a/pulls.json"), std::string::npos) << s.message();
  EXPECT_EQ(StatsOf(*store, "Ascend", "a").issues_closed, 0);
  EXPECT_EQ(StatsOf(*store, "Ascend", "b").issues_closed, 2);
}

// The stored payload is nlohmann's compact dump() of the element, whatever the
// file's member order, whitespace and escapes (sync compares against dump()).
TEST(Dump, RawPayloadIsTheCompactDumpOfTheElement) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 2);
  const std::vector<std::string> issues = {
      // API member order, pretty-printed: rewritten in dump()'s order from the bytes.
      "{\n  \"number\": \"1\",\n  \"title\": \"t \\\"q\\\" \\n 五\",\n  \"id\": 7,\n"
      "  \"user\": {\"login\": \"bob\", \"id\": \"x\"}, \"labels\": [ {\"name\": \"b\"} ]\n}",
      // Escapes and a float dump() writes differently: parsed and dumped.
      R"({"number": "2", "title": "\u00e9\/x", "score": 1.50, "z": -0})"};
  WriteFile(dir / "dump/gitcode/Ascend/a/issues.json", "[" + issues[0] + ",\n" + issues[1] + "]");
  auto store = OpenStore(dir / "db");
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr).ok());
  for (int i = 0; i < 2; ++i) {
    auto raw = store->GetRaw(ParseRef("gitcode:Ascend/a#" + std::to_string(i + 1)).value());
    ASSERT_TRUE(raw.ok()) << raw.status().ToString();
    EXPECT_EQ(*raw, json::parse(issues[i]).dump());
  }
  EXPECT_EQ(store->GetIssue(ParseRef("gitcode:Ascend/a#1").value())->title, "t \"q\" \n 五");
  EXPECT_EQ(store->GetIssue(ParseRef("gitcode:Ascend/a#2").value())->title, "é/x");
  ImportCounts again;
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), &again).ok());
  EXPECT_EQ(again.changed, 0);
}

TEST(Dump, CountsJsonOffsetOfSyntaxError) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 1);
  WriteFile(dir / "dump/gitcode/Ascend/a/issues.json", "[{\"number\": \"1\"},\n {oops}]");
  auto store = OpenStore(dir / "db");
  Status s = ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr);
  EXPECT_NE(s.message().find("issues.json: byte 21"), std::string::npos) << s.message();
}

// Everything a store holds of gitcode:Ascend/<name> (n issues and PRs), as text.
std::string Contents(Store& store, const std::string& name, int n) {
  RepoRef repo{Platform::kGitCode, "Ascend", name};
  RepoStats st = StatsOf(store, "Ascend", name);
  std::string out = std::to_string(st.issues_open) + " " + std::to_string(st.issues_closed) + " " +
                    std::to_string(st.pulls_open) + " " + std::to_string(st.pulls_merged) + " " +
                    std::to_string(st.comments) + " " + std::to_string(st.commits) + " " +
                    std::to_string(st.files) + " " + std::to_string(st.platform_links) + "\n";
  for (int i = 1; i <= n; ++i) {
    for (const Ref& r : {Ref::Issue(repo, std::to_string(i)), Ref::Pull(repo, i)}) {
      std::vector<MentionRecord> m;
      EXPECT_TRUE(store.MentionsOf(r, &m).ok());
      out += r.ToString() + ":";
      for (const MentionRecord& x : m) {
        out += ' ';
        out += x.source_item.ToString();
        out += '/';
        out += x.source_id;
      }
      auto raw = store.GetRaw(r);
      out += ' ';
      out += raw.ok() ? *raw : std::string("-");
      std::vector<Comment> c;
      EXPECT_TRUE(store.ListComments(r, &c).ok());
      for (const Comment& x : c) {
        out += " c";
        out += x.id;
        out += '=';
        out += x.body;
      }
      std::vector<PlatformLink> l;
      EXPECT_TRUE(store.ListPlatformLinks(r, &l).ok());
      out += " links " + std::to_string(l.size()) + "\n";
    }
  }
  std::vector<std::pair<UnixSeconds, Ref>> closed, merged;
  EXPECT_TRUE(store.IssuesClosedBetween(repo, 0, 4102444800, &closed).ok());
  EXPECT_TRUE(store.PullsMergedBetween(repo, 0, 4102444800, &merged).ok());
  return out + std::to_string(closed.size()) + " " + std::to_string(merged.size());
}

// A new repository bulk-loaded in many runs (table files of one batch each)
// ends as one loaded in one run; a second import changes nothing.
TEST(Dump, BulkLoadInManyRunsEqualsOneRun) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 40);
  WriteRepo(dir / "dump", "Ascend", "b", 12);
  auto one = OpenStore(dir / "one");
  ASSERT_TRUE(ImportDump(one.get(), dir / "dump", ImportOptions(), nullptr).ok());
  auto many = OpenStore(dir / "many");
  for (ImportOptions::Pipeline p : {ImportOptions::Pipeline::kOff, ImportOptions::Pipeline::kOn}) {
    many.reset();
    std::filesystem::remove_all(dir / "many");
    many = OpenStore(dir / "many");
    ImportOptions o;
    o.batch_records = 9;
    o.bulk_run_bytes = 1;
    o.pipeline = p;
    ImportCounts c;
    ASSERT_TRUE(ImportDump(many.get(), dir / "dump", o, &c).ok());
    EXPECT_EQ(c.issues, 52);
    EXPECT_EQ(Contents(*many, "a", 40), Contents(*one, "a", 40));
    EXPECT_EQ(Contents(*many, "b", 12), Contents(*one, "b", 12));
  }
  ImportCounts again;
  ASSERT_TRUE(ImportDump(many.get(), dir / "dump", ImportOptions(), &again).ok());
  EXPECT_EQ(again.changed, 0);
  for (const auto& e : std::filesystem::directory_iterator(dir / "many"))
    EXPECT_NE(e.path().filename().string().rfind("bulkload.", 0), 0u) << e.path();
}

// kill -9 in the middle of the write pass, then a rerun: exact counts. With one
// import thread and with two (repositories written at the same time).
class KillTest : public ::testing::TestWithParam<size_t> {};

TEST_P(KillTest, KillDuringImportThenRerunGivesExactCounts) {
  const size_t threads = GetParam();
  TempDir dir;
  const int n = 300;
  WriteRepo(dir / "dump", "Ascend", "a", n);
  WriteRepo(dir / "dump", "Ascend", "b", 50);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto store = Store::Open(dir / "db", StoreOptions());
    if (!store.ok()) _exit(3);
    ImportOptions o;
    o.batch_records = 100;
    o.threads = threads;
    if (threads == 1) o.pipeline = ImportOptions::Pipeline::kOn;  // killed in the writer thread
    o.after_batch = [](size_t batches) {
      if (batches == 3) raise(SIGKILL);
    };
    Status s = ImportDump(store->get(), dir / "dump", o, nullptr);
    _exit(s.ok() ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(WTERMSIG(status), SIGKILL);

  auto store = OpenStore(dir / "db");
  std::vector<std::string> interrupted;
  ASSERT_TRUE(InterruptedImports(*store, &interrupted).ok());
  if (threads == 1) {
    ASSERT_EQ(interrupted, std::vector<std::string>{"gitcode:Ascend/a"});
    RepoStats partial = StatsOf(*store, "Ascend", "a");
    EXPECT_LT(partial.issues_open + partial.issues_closed + partial.comments, 3 * n);
  } else {
    ASSERT_FALSE(interrupted.empty());
  }

  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr).ok());
  interrupted.clear();
  ASSERT_TRUE(InterruptedImports(*store, &interrupted).ok());
  EXPECT_TRUE(interrupted.empty());
  RepoStats a = StatsOf(*store, "Ascend", "a");
  EXPECT_EQ(a.issues_open + a.issues_closed, n);
  EXPECT_EQ(a.pulls_merged + a.pulls_open, n);
  EXPECT_EQ(a.comments, 2 * n);
  EXPECT_EQ(a.commits, n);
  EXPECT_EQ(a.files, n);
  EXPECT_EQ(a.platform_links, n);
  RepoStats b = StatsOf(*store, "Ascend", "b");
  EXPECT_EQ(b.issues_open + b.issues_closed, 50);
  std::vector<MentionRecord> m;
  ASSERT_TRUE(store->MentionsOf(ParseRef("gitcode:Ascend/a#7").value(), &m).ok());
  EXPECT_EQ(m.size(), 2u);  // no duplicated index rows after the rerun
}

INSTANTIATE_TEST_SUITE_P(Threads, KillTest, ::testing::Values(1, 2));

TEST(Dump, ProgressReportsRecordTotals) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 20);
  auto store = OpenStore(dir / "db");
  ImportOptions o;
  o.batch_records = 10;
  std::vector<ImportProgress> seen;
  o.on_progress = [&](const ImportProgress& p) { seen.push_back(p); };
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", o, nullptr).ok());
  ASSERT_GT(seen.size(), 5u);
  EXPECT_EQ(seen.back().records_total, 20 + 20 + 40 + 20 + 20 + 20);
  EXPECT_EQ(seen.back().records_done, seen.back().records_total + 1);  // + the repository record
  EXPECT_EQ(seen.back().repo_count, 1u);
}

// A new repository is read once, so its record total comes only at the end;
// its item folders are listed first and counted as they are walked.
TEST(Dump, ProgressCountsTheItemFoldersOfANewRepository) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 20);
  std::int64_t folders = 0;
  for (const char* kind : {"issues", "pulls"}) {
    std::filesystem::path d = std::filesystem::path(dir / "dump/gitcode/Ascend/a") / kind;
    if (std::filesystem::is_directory(d))
      for (const auto& e : std::filesystem::directory_iterator(d))
        folders += e.is_directory() ? 1 : 0;
  }
  ASSERT_GT(folders, 0);
  auto store = OpenStore(dir / "db");
  ImportOptions o;
  o.batch_records = 10;
  o.pipeline = ImportOptions::Pipeline::kOff;  // counts and flushes on one thread
  std::vector<ImportProgress> seen;
  o.on_progress = [&](const ImportProgress& p) { seen.push_back(p); };
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", o, nullptr).ok());
  ASSERT_GT(seen.size(), 5u);
  bool midway = false;
  for (size_t i = 0; i + 1 < seen.size(); ++i) {
    EXPECT_EQ(seen[i].records_total, 0);  // not known before the end
    EXPECT_EQ(seen[i].items_total, folders);
    EXPECT_LE(seen[i].items_done, seen[i].items_total);
    if (i > 0) {
      EXPECT_GE(seen[i].items_done, seen[i - 1].items_done);
    }
    midway |= seen[i].items_done > 0 && seen[i].items_done < folders;
  }
  EXPECT_TRUE(midway);
  EXPECT_EQ(seen.back().items_done, folders);

  // A re-import verifies first: the record total is known from the start.
  seen.clear();
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", o, nullptr).ok());
  ASSERT_FALSE(seen.empty());
  EXPECT_GT(seen.front().records_total, 0);
}

}  // namespace
}  // namespace fixgraph::ingest

namespace fixgraph::ingest {
namespace {

// ---- Hostile dumps (issue 21): special files and odd folder names.

// Regression: a dangling issues.json symlink imported the repository with 0
// issues and reported success.
TEST(DumpHostile, DanglingSymlinkIsAnErrorNamingIt) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 3);
  std::string issues = dir / "dump/gitcode/Ascend/a/issues.json";
  std::filesystem::remove(issues);
  ASSERT_EQ(::symlink((dir / "nowhere.json").c_str(), issues.c_str()), 0);
  auto store = OpenStore(dir / "db");
  Status s = ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(issues + ": symbolic link to a missing file"), std::string::npos)
      << s.message();
  EXPECT_EQ(StatsOf(*store, "Ascend", "a").issues_closed, 0);
  // A link to a regular file is read through.
  std::filesystem::remove(issues);
  WriteRepo(dir / "other", "Ascend", "a", 3);
  ASSERT_EQ(::symlink((dir / "other/gitcode/Ascend/a/issues.json").c_str(), issues.c_str()), 0);
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr).ok());
  EXPECT_EQ(StatsOf(*store, "Ascend", "a").issues_closed, 2);
}

// Regression: a FIFO as issues.json (or as an item file) hung the import in
// open(). A watchdog opens the writing end after 10 s, which would let a
// hung reader go on, and records that it had to.
TEST(DumpHostile, FifoIsRefusedWithoutWaiting) {
  for (const char* file : {"issues.json", "issues/2/comments.json", "repo.json"}) {
    TempDir dir;
    WriteRepo(dir / "dump", "Ascend", "a", 3);
    std::string path = dir / ("dump/gitcode/Ascend/a/" + std::string(file));
    std::filesystem::remove(path);
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    auto store = OpenStore(dir / "db");
    std::atomic<bool> done{false}, unblocked{false};
    std::thread watchdog([&] {
      for (int i = 0; i < 100 && !done; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (done) return;
      unblocked = true;
      int fd = ::open(path.c_str(), O_WRONLY);
      if (fd >= 0) ::close(fd);
    });
    Status s = ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr);
    done = true;
    watchdog.join();
    EXPECT_FALSE(unblocked) << file << ": the import waited on the FIFO";
    ASSERT_FALSE(s.ok()) << file;
    EXPECT_NE(s.message().find(path + ": not a regular file"), std::string::npos) << s.message();
  }
}

// Regression: one repository folder with an odd name refused every
// repository of the dump. Now it is refused alone and named.
TEST(DumpHostile, OddRepositoryFolderNameIsRefusedAlone) {
  for (const char* odd : {"with space", "a:b", "a#1", "new\nline"}) {
    TempDir dir;
    WriteRepo(dir / "dump", "Ascend", "a", 3);
    WriteRepo(dir / "dump", "Ascend", "b", 3);
    WriteRepo(dir / "dump", "Ascend", odd, 1);
    auto store = OpenStore(dir / "db");
    Status s = ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr);
    ASSERT_FALSE(s.ok()) << odd;
    EXPECT_NE(s.message().find("not a valid OWNER/REPO folder"), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
    EXPECT_EQ(StatsOf(*store, "Ascend", "a").issues_closed, 2) << odd;
    EXPECT_EQ(StatsOf(*store, "Ascend", "b").issues_closed, 2) << odd;
    // Listing alone still refuses the dump, naming the folder.
    EXPECT_FALSE(ListDumpRepositories(dir / "dump").ok());
  }
}

// Regression: 1e400 anywhere in a dump aborted import (exit 134). Now it is an
// error naming the file and byte, and the repository is left as it was.
TEST(DumpHostile, OutOfRangeNumberIsAnErrorAndImportsNothing) {
  for (const char* file : {"issues.json", "issues/1/comments.json", "pulls/2/files.json"}) {
    TempDir dir;
    WriteRepo(dir / "dump", "Ascend", "a", 3);
    std::string path = dir / ("dump/gitcode/Ascend/a/" + std::string(file));
    std::string text = fixgraph::testing::ReadFile(path);
    text.insert(text.rfind(']'), ", {\"id\": 1e400}");
    WriteFile(path, text);
    auto store = OpenStore(dir / "db");
    Status s = ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr);
    ASSERT_FALSE(s.ok()) << file;
    EXPECT_NE(s.message().find(path + ": byte "), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("number out of range: 1e400"), std::string::npos) << s.message();
    EXPECT_EQ(StatsOf(*store, "Ascend", "a").issues_closed, 0);
  }
}

// A UTF-8 byte order mark at the start of a dump file is skipped.
TEST(DumpHostile, ByteOrderMarkIsSkipped) {
  TempDir dir;
  WriteRepo(dir / "dump", "Ascend", "a", 3);
  for (const char* file : {"issues.json", "repo.json", "issues/1/comments.json"}) {
    std::string path = dir / ("dump/gitcode/Ascend/a/" + std::string(file));
    WriteFile(path, "\xEF\xBB\xBF" + fixgraph::testing::ReadFile(path));
  }
  auto store = OpenStore(dir / "db");
  Status s = ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(StatsOf(*store, "Ascend", "a").issues_closed, 2);
}

// A link the PR's log adds and the issue's log removes later is gone after
// the import; so is a link an earlier import stored when a later dump brings
// the unlink. The issue and the PR are left pending a relink.
TEST(ImportDump, UnlinkInTheOtherItemsLogRemovesTheLink) {
  TempDir dir;
  std::string root = dir / "dump/gitcode/sytest/paopao";
  WriteFile(root + "/repo.json", R"({"full_name": "sytest/paopao"})");
  WriteFile(root + "/issues.json", R"([{"number": "3", "title": "doc link broken", "state": "open",
    "created_at": "2024-04-20T10:00:00+08:00"}])");
  WriteFile(root + "/pulls.json", R"([{"number": 6, "title": "update doc links", "state": "opened",
    "created_at": "2024-04-21T10:00:00+08:00"}])");
  WriteFile(root + "/pulls/6/operate_logs.json", R"([{"id": 280001, "action": "add_mr_issue_link",
    "action_type": "add_mr_issue_link", "content": "Create mr issue link: **doc link broken** #3",
    "created_at": "2024-04-24T10:00:00+08:00"}])");
  auto store = OpenStore(dir / "db");
  const Ref issue = ParseRef("gitcode:sytest/paopao#3").value();
  const Ref pull = ParseRef("gitcode:sytest/paopao!6").value();
  auto links_of = [&](const Ref& r) {
    std::vector<PlatformLink> l;
    EXPECT_TRUE(store->ListPlatformLinks(r, &l).ok());
    return l.size();
  };
  ImportCounts c;
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), &c).ok());
  EXPECT_EQ(links_of(issue), 1u);
  // The issue's log now says the link was removed a day later.
  WriteFile(root + "/issues/3/operate_logs.json",
            R"([{"id": 380002, "action_type": "delete_issue_mr_link",
    "content": "Delete issue mr links: **update doc links** #6", "created_at": "2024-04-25T10:00:00+08:00"}])");
  ImportCounts c2;
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), &c2).ok());
  EXPECT_EQ(links_of(issue), 0u);
  EXPECT_EQ(links_of(pull), 0u);
  EXPECT_NE(std::find(c2.touched.begin(), c2.touched.end(), pull), c2.touched.end());
  // Linked again after the unlink: the link stands.
  WriteFile(root + "/pulls/6/operate_logs.json",
            R"([{"id": 280003, "action_type": "add_mr_issue_link",
    "content": "Create mr issue link: **doc link broken** #3", "created_at": "2024-04-26T10:00:00+08:00"},
    {"id": 280001, "action_type": "add_mr_issue_link", "content": "Create mr issue link: **doc link broken** #3",
    "created_at": "2024-04-24T10:00:00+08:00"}])");
  ASSERT_TRUE(ImportDump(store.get(), dir / "dump", ImportOptions(), nullptr).ok());
  EXPECT_EQ(links_of(issue), 1u);
  // The same three logs in a fresh store give the same link.
  auto fresh = OpenStore(dir / "db2");
  ASSERT_TRUE(ImportDump(fresh.get(), dir / "dump", ImportOptions(), nullptr).ok());
  std::vector<PlatformLink> l;
  ASSERT_TRUE(fresh->ListPlatformLinks(issue, &l).ok());
  EXPECT_EQ(l.size(), 1u);
}

}  // namespace
}  // namespace fixgraph::ingest
