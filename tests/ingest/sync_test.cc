// Live sync against the loopback fake API (tests/fakeapi).
#include "fixgraph/ingest/sync.h"

#include "fake_api.h"
#include "testutil/testutil.h"

#include "fixgraph/engine/model_json.h"
#include "fixgraph/ingest/dump.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace fixgraph::ingest {
namespace {

namespace fs = std::filesystem;
using fakeapi::FakeApi;
using fakeapi::FakeFault;
using fakeapi::FakeRequest;
using fixgraph::testing::ReadFile;
using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

std::string Two(int v) {
  std::string out = std::to_string(v);
  if (v < 10) out.insert(out.begin(), '0');
  return out;
}

// A day-of-January time with distinct seconds per i: created in reverse order
// of number for half the items, so created order differs from number order.
std::string TimeAt(int day, int i) {
  return "2026-01-" + Two(day) + "T" + Two(i / 60 % 24) + ":" + Two(i % 60) + ":00+08:00";
}

// A repository folder with n issues and n PRs: two comments per issue, a
// commit, a file and a linked issue per PR.
void WriteRepo(const std::string& dump, const std::string& platform, const std::string& owner,
               const std::string& name, int n) {
  std::string root = dump + "/" + platform + "/" + owner + "/" + name;
  json issues = json::array(), pulls = json::array();
  const bool gitee = platform == "gitee", github = platform == "github";
  for (int i = 1; i <= n; ++i) {
    std::string num = gitee ? "IA" + std::to_string(1000 + i) : std::to_string(i);
    json user = github || gitee ? json{{"id", 7}, {"login", "alice"}}
                                : json{{"id", "65f2a8e3c1b04d0012ab34cd"}, {"login", "alice"}};
    json issue = {{"id", i},
                  {"number", github ? json(i) : json(num)},
                  {"title", "问题 " + num},
                  {"body", "报错 EZ9999 at step " + num},
                  {"state", i % 2 ? "closed" : "open"},
                  {"user", user},
                  {"created_at", TimeAt(1 + (i * 7) % 20, i)},
                  {"updated_at", TimeAt(21, i)}};
    if (github) {
      issue["closed_at"] = i % 2 ? json("2026-01-22T10:00:00Z") : json(nullptr);
    } else {
      issue["finished_at"] =
          i % 2 ? json("2026-01-22T10:00:00+08:00") : json(gitee ? json(nullptr) : json(""));
    }
    issues.push_back(issue);
    json pull = {{"id", 1000 + i},
                 {"number", i},
                 {"title", "fix 问题 " + num},
                 {"body", "fix #" + num},
                 {"user", user},
                 {"state", github ? (i % 2 ? "closed" : "open") : (i % 2 ? "merged" : "open")},
                 {"merged_at", i % 2 ? json("2026-01-22T10:00:00+08:00") : json(nullptr)},
                 {"created_at", TimeAt(1 + (i * 3) % 20, i)},
                 {"updated_at", TimeAt(22, i)},
                 {"head", {{"ref", "issue-" + num}}},
                 {"base", {{"ref", "master"}}}};
    pulls.push_back(pull);
    json comments = json::array(
        {{{"id", i * 10},
          {"body", "复现了"},
          {"user", user},
          {"created_at", "2026-01-01T11:00:00+08:00"}},
         {{"id", i * 10 + 1}, {"body", "fixed by !" + std::to_string(i)}, {"user", user}}});
    WriteFile(root + "/issues/" + num + "/comments.json", comments.dump());
    WriteFile(
        root + "/pulls/" + std::to_string(i) + "/commits.json",
        json::array({{{"sha", "sha" + num}, {"commit", {{"message", "fix #" + num}}}}}).dump());
    json file = {{"filename", "src/f" + num + ".cc"},
                 {"additions", github ? json(3) : json("3")},
                 {"deletions", 1},
                 {"status", "modified"}};
    WriteFile(root + "/pulls/" + std::to_string(i) + "/files.json", json::array({file}).dump());
    if (!github)
      WriteFile(root + "/pulls/" + std::to_string(i) + "/issues.json",
                json::array({{{"number", num}}}).dump());
  }
  WriteFile(root + "/repo.json", json{{"full_name", owner + "/" + name},
                                      {"name", name},
                                      {"path", name},
                                      {"description", "test"}}
                                     .dump());
  WriteFile(root + "/issues.json", issues.dump(1));
  WriteFile(root + "/pulls.json", pulls.dump(1));
}

std::unique_ptr<Store> OpenStore(const std::string& dir) {
  auto s = Store::Open(dir, StoreOptions());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

// Everything the store holds about its repositories, as one JSON document.
json Digest(const Store& store) {
  json out = json::object();
  std::vector<Repository> repos;
  EXPECT_TRUE(store.ListRepositories(&repos).ok());
  auto lists = [&](const Ref& ref, bool pull) {
    json j;
    std::vector<Comment> comments;
    std::vector<OperateLogEvent> ops;
    std::vector<PlatformLink> links;
    EXPECT_TRUE(store.ListComments(ref, &comments).ok());
    EXPECT_TRUE(store.ListOperateLog(ref, &ops).ok());
    EXPECT_TRUE(store.ListPlatformLinks(ref, &links).ok());
    for (auto& c : comments) j["comments"].push_back(ToJson(c));
    for (auto& o : ops) j["ops"].push_back(ToJson(o));
    for (auto& l : links) j["links"].push_back(ToJson(l));
    if (pull) {
      std::vector<Commit> commits;
      std::vector<FileChange> files;
      EXPECT_TRUE(store.ListCommits(ref, &commits).ok());
      EXPECT_TRUE(store.ListFiles(ref, &files).ok());
      for (auto& c : commits) j["commits"].push_back(ToJson(c));
      for (auto& f : files) j["files"].push_back(ToJson(f));
    }
    auto raw = store.GetRaw(ref);
    j["raw"] = raw.ok() ? *raw : "";
    return j;
  };
  for (const Repository& r : repos) {
    json rj;
    rj["repo"] = ToJson(r);
    auto raw = store.GetRaw(Ref::Repo(r.ref));
    rj["raw"] = raw.ok() ? *raw : "";
    EXPECT_TRUE(store
                    .ForEachIssue(&r.ref,
                                  [&](const Issue& i) {
                                    json j = lists(i.ref(), false);
                                    j["item"] = ToJson(i);
                                    rj["issues"].push_back(j);
                                    return true;
                                  })
                    .ok());
    EXPECT_TRUE(store
                    .ForEachPull(&r.ref,
                                 [&](const PullRequest& p) {
                                   json j = lists(p.ref(), true);
                                   j["item"] = ToJson(p);
                                   rj["pulls"].push_back(j);
                                   return true;
                                 })
                    .ok());
    out[r.ref.ToString()] = rj;
  }
  return out;
}

SyncOptions FastOptions(const FakeApi& api) {
  SyncOptions o;
  o.api_base = api.BaseUrl();
  o.requests_per_minute = 0;
  o.backoff_ms = 5;
  o.max_backoff_ms = 50;
  o.timeout_ms = 5000;
  o.token_source = [](const std::string&) { return std::string(); };
  // Every detail endpoint, so that stores compare whole with an import; the
  // tests of the default (only what can change a link) set it back.
  o.all_details = true;
  return o;
}

Status SyncAll(Store* store, const std::string& dump, const SyncOptions& o, SyncCounts* c) {
  auto repos = ListDumpRepositories(dump);
  if (!repos.ok()) return repos.status();
  for (const DumpRepo& r : *repos) FG_RETURN_IF_ERROR(SyncRepository(store, r.repo, o, c));
  return Status::OK();
}

// Requests whose path ends with `suffix`.
int CountPath(const std::vector<FakeRequest>& log, const std::string& suffix) {
  int n = 0;
  for (const auto& r : log)
    if (r.path.size() >= suffix.size() &&
        r.path.compare(r.path.size() - suffix.size(), suffix.size(), suffix) == 0)
      ++n;
  return n;
}

RepoRef Repo(Platform p, const std::string& owner, const std::string& name) {
  return RepoRef{p, owner, name};
}

TEST(Sync, DemoThroughFakeEqualsImportAndRecordRoundTrips) {
  TempDir dir;
  const std::string demo = SourceDir() + "/data/demo";
  FakeApi api(demo);
  ASSERT_TRUE(api.Start().ok());
  auto synced = OpenStore(dir / "synced");
  SyncOptions o = FastOptions(api);
  o.record_dir = dir / "record";
  o.all_details = true;  // everything the dump holds, to compare whole stores
  SyncCounts c;
  Status s = SyncAll(synced.get(), demo, o, &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GT(c.issues, 50);
  EXPECT_GT(c.comments, 10);

  auto imported = OpenStore(dir / "imported");
  ASSERT_TRUE(ImportDump(imported.get(), demo, ImportOptions(), nullptr).ok());
  json a = Digest(*synced), b = Digest(*imported);
  EXPECT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b) << "sync and import differ";

  auto replayed = OpenStore(dir / "replayed");
  Status r = ImportDump(replayed.get(), dir / "record", ImportOptions(), nullptr);
  ASSERT_TRUE(r.ok()) << r.ToString();
  EXPECT_TRUE(Digest(*replayed) == a) << "importing the recorded dump differs from the sync";
}

TEST(Sync, SecondSyncOfUnchangedRepoMakesOneRequestPerList) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 250);
  FakeApi api(dir / "dump");
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  SyncOptions o = FastOptions(api);
  SyncCounts first;
  ASSERT_TRUE(SyncRepository(store.get(), Repo(Platform::kGitCode, "Ascend", "a"), o, &first).ok());
  EXPECT_EQ(first.issues, 250);
  EXPECT_EQ(first.detailed, 500);
  EXPECT_GE(CountPath(api.Requests(), "/issues"), 3);  // 3 pages of 100
  api.ClearRequests();

  SyncCounts second;
  ASSERT_TRUE(
      SyncRepository(store.get(), Repo(Platform::kGitCode, "Ascend", "a"), o, &second).ok());
  auto log = api.Requests();
  EXPECT_EQ(CountPath(log, "/Ascend/a/issues"), 1);
  EXPECT_EQ(CountPath(log, "/Ascend/a/pulls"), 1);
  EXPECT_EQ(second.detailed, 0);
  EXPECT_EQ(second.changed, 0);
  EXPECT_EQ(log.size(), 3u) << "repository + one page per list";
  for (const auto& r : log) {
    if (r.path.find("/issues") != std::string::npos) {
      EXPECT_NE(r.query.find("since="), std::string::npos) << r.query;
    }
  }
}

TEST(Sync, IncrementalFetchesDetailsOnlyForChangedItems) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 30);
  FakeApi api(dir / "dump");
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  SyncOptions o = FastOptions(api);
  RepoRef repo = Repo(Platform::kGitCode, "Ascend", "a");
  ASSERT_TRUE(SyncRepository(store.get(), repo, o, nullptr).ok());

  // Issue 7 gets a new title and a new comment; updated later than everything.
  std::string root = dir / "dump/gitcode/Ascend/a";
  json issues = json::parse(ReadFile(root + "/issues.json"));
  issues[6]["title"] = "renamed";
  issues[6]["updated_at"] = "2026-02-01T00:00:00+08:00";
  WriteFile(root + "/issues.json", issues.dump());
  json comments = json::parse(ReadFile(root + "/issues/7/comments.json"));
  comments.push_back({{"id", 999}, {"body", "still broken"}});
  WriteFile(root + "/issues/7/comments.json", comments.dump());
  api.Reload();
  api.ClearRequests();

  SyncCounts c;
  ASSERT_TRUE(SyncRepository(store.get(), repo, o, &c).ok());
  EXPECT_EQ(c.detailed, 1);
  auto log = api.Requests();
  EXPECT_EQ(CountPath(log, "/issues/7/comments"), 1);
  EXPECT_EQ(CountPath(log, "/issues/8/comments"), 0);
  auto issue = store->GetIssue(Ref::Issue(repo, "7"));
  ASSERT_TRUE(issue.ok());
  EXPECT_EQ(issue->title, "renamed");
  std::vector<Comment> got;
  ASSERT_TRUE(store->ListComments(Ref::Issue(repo, "7"), &got).ok());
  EXPECT_EQ(got.size(), 3u);
  ASSERT_EQ(c.touched.size(), 1u);
  EXPECT_EQ(c.touched[0].ToString(), "gitcode:Ascend/a#7");
}

TEST(Sync, PaginatesEveryPlatformAndSendsEachPlatformsAuth) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 23);
  WriteRepo(dir / "dump", "gitee", "mindspore", "b", 23);
  WriteRepo(dir / "dump", "github", "vllm", "c", 23);
  FakeApi api(dir / "dump");
  api.RequireToken("tok-123456");
  ASSERT_TRUE(api.Start().ok());
  auto synced = OpenStore(dir / "synced");
  SyncOptions o = FastOptions(api);
  o.per_page = 5;
  std::map<std::string, std::string> env = {{"GITCODE_TOKEN", "tok-123456"},
                                            {"GITEE_TOKEN", "tok-123456"},
                                            {"GITHUB_TOKEN", "tok-123456"}};
  o.token_source = [&](const std::string& name) { return env[name]; };
  Status s = SyncAll(synced.get(), dir / "dump", o, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto imported = OpenStore(dir / "imported");
  ASSERT_TRUE(ImportDump(imported.get(), dir / "dump", ImportOptions(), nullptr).ok());
  EXPECT_TRUE(Digest(*synced) == Digest(*imported));
  auto log = api.Requests();
  EXPECT_EQ(CountPath(log, "/Ascend/a/issues"), 5);  // 23 items, 5 per page
  EXPECT_EQ(CountPath(log, "/mindspore/b/pulls"), 5);
  EXPECT_EQ(CountPath(log, "/vllm/c/issues"), 5);  // Link rel="next"
  for (const auto& r : log) {
    EXPECT_EQ(r.status, 200) << r.path;
    EXPECT_FALSE(r.user_agent.empty());
    if (r.path.find("/Ascend/") != std::string::npos) {
      EXPECT_EQ(r.private_token, "tok-123456");
    }
    if (r.path.find("/mindspore/") != std::string::npos) {
      EXPECT_EQ(r.access_token, "tok-123456");
    }
    if (r.path.find("/vllm/") != std::string::npos) {
      EXPECT_EQ(r.authorization, "Bearer tok-123456");
    }
  }
}

TEST(Sync, RetriesTransientFaultsAndHonoursRetryAfter) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 12);
  FakeApi api(dir / "dump");
  for (const char* spec :
       {"429:1:/issues?", "500:2:/pulls?", "418:1:/issues/3/comments", "403rate:1:/pulls/2/files",
        "truncate:1:/pulls/4/commits", "reset:1:/issues/5/comments", "html:1:/pulls/6/comments",
        "badjson:1:/issues/8/comments", "503:1:/Ascend/a?"}) {
    auto f = fakeapi::ParseFakeFault(spec);
    ASSERT_TRUE(f.ok()) << spec;
    api.AddFault(*f);
  }
  ASSERT_TRUE(api.Start().ok());
  auto synced = OpenStore(dir / "synced");
  SyncOptions o = FastOptions(api);
  SyncCounts c;
  auto t0 = std::chrono::steady_clock::now();
  Status s = SyncRepository(synced.get(), Repo(Platform::kGitCode, "Ascend", "a"), o, &c);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GE(secs, 0.9) << "Retry-After: 1 was not honoured";
  int faults = 0;
  for (const auto& r : api.Requests()) {
    if (r.fault.empty()) continue;
    ++faults;
  }
  EXPECT_EQ(faults, 10);
  EXPECT_EQ(c.retries, 10);
  EXPECT_GE(c.rate_limit_waits, 2);
  auto imported = OpenStore(dir / "imported");
  ASSERT_TRUE(ImportDump(imported.get(), dir / "dump", ImportOptions(), nullptr).ok());
  EXPECT_TRUE(Digest(*synced) == Digest(*imported));
}

TEST(Sync, TimeoutIsRetried) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 3);
  FakeApi api(dir / "dump");
  FakeFault slow;
  slow.kind = "slow";
  slow.slow_ms = 1200;
  slow.match = "/issues?";
  api.AddFault(slow);
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  SyncOptions o = FastOptions(api);
  o.timeout_ms = 400;
  SyncCounts c;
  Status s = SyncRepository(store.get(), Repo(Platform::kGitCode, "Ascend", "a"), o, &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.retries, 1);
  EXPECT_EQ(c.issues, 3);
}

TEST(Sync, PersistentFaultIsReportedWithTheUrlAndNoToken) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitee", "mindspore", "b", 3);
  FakeApi api(dir / "dump");
  api.RequireToken("sekrit-token-42");
  auto f = fakeapi::ParseFakeFault("html:-1:/pulls?");
  ASSERT_TRUE(f.ok());
  api.AddFault(*f);
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  SyncOptions o = FastOptions(api);
  o.max_attempts = 3;
  o.record_dir = dir / "record";
  o.token_source = [](const std::string& n) {
    return n == "GITEE_TOKEN" ? std::string("sekrit-token-42") : std::string();
  };
  Status s = SyncRepository(store.get(), Repo(Platform::kGitee, "mindspore", "b"), o, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/repos/mindspore/b/pulls?"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("HTML"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("3 attempts"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("access_token"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("sekrit-token-42"), std::string::npos) << s.message();
  // The issues were committed before the failure; no file holds the token.
  EXPECT_EQ(store->Stats(Repo(Platform::kGitee, "mindspore", "b"))->issues_closed, 2);
  store.reset();
  for (const auto& root : {dir / "db", dir / "record"}) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it); ++it) {
      if (!it->is_regular_file()) continue;
      EXPECT_EQ(ReadFile(it->path().string()).find("sekrit-token-42"), std::string::npos)
          << it->path();
    }
  }
}

TEST(Sync, UnauthorizedAndNotFoundFailFast) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 3);
  FakeApi api(dir / "dump");
  api.RequireToken("right");
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  SyncOptions o = FastOptions(api);
  o.token_source = [](const std::string&) { return std::string("wrong-token"); };
  Status s = SyncRepository(store.get(), Repo(Platform::kGitCode, "Ascend", "a"), o, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("401"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("GITCODE_TOKEN"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("wrong-token"), std::string::npos);
  EXPECT_EQ(api.Requests().size(), 1u);
  api.ClearRequests();
  o.token_source = [](const std::string&) { return std::string("right"); };
  s = SyncRepository(store.get(), Repo(Platform::kGitCode, "Ascend", "nope"), o, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.message().find("check the owner and repository"), std::string::npos) << s.message();
  EXPECT_EQ(api.Requests().size(), 1u);
}

// Items appearing or disappearing at the front of the list while it is read
// shift the later pages; nothing present throughout may be lost or doubled.
TEST(Sync, ShiftingPagesLoseAndDuplicateNothing) {
  for (const char* kind : {"shift", "unshift"}) {
    TempDir dir;
    WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 17);
    json before = json::parse(ReadFile(dir / "dump/gitcode/Ascend/a/issues.json"));
    FakeApi api(dir / "dump");
    auto f = fakeapi::ParseFakeFault(std::string(kind) + ":1:/Ascend/a/issues?");
    ASSERT_TRUE(f.ok());
    api.AddFault(*f);
    ASSERT_TRUE(api.Start().ok());
    auto store = OpenStore(dir / "db");
    SyncOptions o = FastOptions(api);
    o.per_page = 5;
    o.record_dir = dir / "record";
    SyncCounts c;
    ASSERT_TRUE(SyncRepository(store.get(), Repo(Platform::kGitCode, "Ascend", "a"), o, &c).ok());
    auto st = store->Stats(Repo(Platform::kGitCode, "Ascend", "a"));
    ASSERT_TRUE(st.ok());
    int expect = std::string(kind) == "shift" ? 18 : 17;
    EXPECT_EQ(st->issues_open + st->issues_closed, expect) << kind;
    for (const json& j : before) {
      EXPECT_TRUE(store
                      ->GetIssue(Ref::Issue(Repo(Platform::kGitCode, "Ascend", "a"),
                                            j["number"].get<std::string>()))
                      .ok())
          << kind << " lost " << j["number"];
    }
    json recorded = json::parse(ReadFile(dir / "record/gitcode/Ascend/a/issues.json"));
    std::set<std::string> numbers;
    for (const json& j : recorded) numbers.insert(j["number"].get<std::string>());
    EXPECT_EQ(numbers.size(), recorded.size()) << kind << ": duplicates in the record";
  }
}

TEST(Sync, OrganisationListsItsRepositories) {
  const std::string demo = SourceDir() + "/data/demo";
  FakeApi api(demo);
  ASSERT_TRUE(api.Start().ok());
  SyncOptions o = FastOptions(api);
  auto repos = ListOrgRepositories(Platform::kGitCode, "mindspore", o, nullptr);
  ASSERT_TRUE(repos.ok()) << repos.status().ToString();
  std::vector<std::string> names;
  for (const RepoRef& r : *repos) names.push_back(r.ToString());
  std::vector<std::string> want;
  for (const auto& e : fs::directory_iterator(demo + "/gitcode/mindspore"))
    want.push_back("gitcode:mindspore/" + e.path().filename().string());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(names, want);
}

TEST(Sync, ParseTargets) {
  RepoRef r;
  std::string org;
  ASSERT_TRUE(ParseSyncTarget("gitcode:Ascend/MindSpeed-Ops", &r, &org).ok());
  EXPECT_EQ(r.ToString(), "gitcode:Ascend/MindSpeed-Ops");
  EXPECT_TRUE(org.empty());
  ASSERT_TRUE(ParseSyncTarget("org:gitee:mindspore", &r, &org).ok());
  EXPECT_EQ(org, "mindspore");
  EXPECT_EQ(r.platform, Platform::kGitee);
  EXPECT_FALSE(ParseSyncTarget("org:gitlab:x", &r, &org).ok());
  EXPECT_FALSE(ParseSyncTarget("Ascend/x", &r, &org).ok());
  EXPECT_FALSE(ParseSyncTarget("gitcode:Ascend/x#3", &r, &org).ok());
}

TEST(Sync, RedactsTokensInUrls) {
  EXPECT_EQ(RedactUrl("http://h/x?access_token=abc&page=2"),
            "http://h/x?access_token=REDACTED&page=2");
  EXPECT_EQ(RedactUrl("http://h/x?page=1&private_token=abc"),
            "http://h/x?page=1&private_token=REDACTED");
  EXPECT_EQ(RedactUrl("http://h/x?mytoken=abc"), "http://h/x?mytoken=abc");
}

TEST(Sync, ClientSideLimiterSpacesRequests) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 1);
  FakeApi api(dir / "dump");
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  SyncOptions o = FastOptions(api);
  o.requests_per_minute = 600;  // one per 100 ms
  o.endpoints = {"comments"};
  SyncCounts c;
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(SyncRepository(store.get(), Repo(Platform::kGitCode, "Ascend", "a"), o, &c).ok());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // repo, issues, issue 1 comments, pulls, PR 1 comments: 5 requests, 4 gaps.
  EXPECT_EQ(c.requests, 5);
  EXPECT_GE(secs, 0.38);
  EXPECT_GE(c.rate_limit_waits, 3);
}

// kill -9 after the n-th committed batch, then a rerun: the same store as an
// uninterrupted sync.
TEST(Sync, KillDuringSyncThenRerunEqualsUninterrupted) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 60);
  FakeApi api(dir / "dump");
  ASSERT_TRUE(api.Start().ok());
  SyncOptions o = FastOptions(api);
  o.per_page = 10;
  RepoRef repo = Repo(Platform::kGitCode, "Ascend", "a");
  {
    auto clean = OpenStore(dir / "clean");
    ASSERT_TRUE(SyncRepository(clean.get(), repo, o, nullptr).ok());
  }
  for (size_t kill_at : {1u, 4u, 8u, 13u}) {
    std::string db = dir / ("killed" + std::to_string(kill_at));
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto store = Store::Open(db, StoreOptions());
      if (!store.ok()) _exit(3);
      SyncOptions child = o;
      child.after_batch = [kill_at](size_t batches) {
        if (batches == kill_at) raise(SIGKILL);
      };
      Status s = SyncRepository(store->get(), repo, child, nullptr);
      _exit(s.ok() ? 0 : 4);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "kill_at " << kill_at;
    auto store = OpenStore(db);
    SyncCounts rerun;
    ASSERT_TRUE(SyncRepository(store.get(), repo, o, &rerun).ok());
    auto clean = Store::Open(dir / "clean", StoreOptions{false, true});
    ASSERT_TRUE(clean.ok());
    EXPECT_TRUE(Digest(*store) == Digest(**clean)) << "kill_at " << kill_at;
    EXPECT_EQ(*store->GetMeta(SyncCursorKey(repo)), *(*clean)->GetMeta(SyncCursorKey(repo)));
  }
}

// ---- Issue 23: real platform shapes, partial syncs, fewer requests.

// Every platform link of the store, as sorted strings.
std::vector<std::string> Links(const Store& store) {
  std::vector<std::string> out;
  EXPECT_TRUE(store
                  .ForEachPlatformLink(nullptr,
                                       [&](PlatformLink& l) {
                                         out.push_back(l.issue.ToString() + " <-> " +
                                                       l.pull.ToString() + " (" + l.source + ")");
                                         return true;
                                       })
                  .ok());
  std::sort(out.begin(), out.end());
  return out;
}

// Links without their source: the same evidence whichever endpoint gave it.
std::set<std::string> Pairs(const Store& store) {
  std::set<std::string> out;
  for (const std::string& l : Links(store)) out.insert(l.substr(0, l.find(" (")));
  return out;
}

const char* kShapes = "/tests/data/platform-shapes";

TEST(Sync, RealShapesGiveTheSameLinksThroughSyncAndImport) {
  TempDir dir;
  const std::string dump = SourceDir() + kShapes;
  auto imported = OpenStore(dir / "imported");
  Status is = ImportDump(imported.get(), dump, ImportOptions(), nullptr);
  ASSERT_TRUE(is.ok()) << is.ToString();
  std::set<std::string> want = {
      "gitcode:sytest/other#1 <-> gitcode:sytest/paopao!4",   // url names another repository
      "gitcode:sytest/paopao#2 <-> gitcode:sytest/paopao!5",  // pull_requests.json: one object
      "gitcode:sytest/paopao#6 <-> gitcode:sytest/paopao!3",  // type only in "action"
      "gitee:kit101/drone-yml-test#I4CE7W <-> gitee:kit101/drone-yml-test!6",
      "gitee:other-org/lib#I4CD5P <-> gitee:kit101/drone-yml-test!6"};  // html_url: another
                                                                        // repository
  EXPECT_EQ(Pairs(*imported), want);  // #3 and !6 were linked, then unlinked

  FakeApi api(dump);
  ASSERT_TRUE(api.Start().ok());
  for (bool all : {false, true}) {
    auto synced = OpenStore(dir / (all ? "all" : "some"));
    SyncOptions o = FastOptions(api);
    o.all_details = all;
    o.record_dir = dir / (all ? "rec-all" : "rec-some");
    SyncCounts c;
    Status s = SyncAll(synced.get(), dump, o, &c);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(c.skipped.empty());
    // With every endpoint: the same link records; by default: the same
    // links, found by fewer endpoints.
    if (all) {
      EXPECT_EQ(Links(*synced), Links(*imported));
    }
    EXPECT_EQ(Pairs(*synced), want) << "all_details " << all;
    // The recorded dump imports to the same links.
    auto replayed = OpenStore(dir / (all ? "replay-all" : "replay-some"));
    ASSERT_TRUE(
        ImportDump(replayed.get(), dir / (all ? "rec-all" : "rec-some"), ImportOptions(), nullptr)
            .ok());
    EXPECT_EQ(Links(*replayed), Links(*synced));
  }
  auto synced = OpenStore(dir / "all");
  json da = Digest(*synced), db = Digest(*imported);
  EXPECT_TRUE(da == db) << "sync and import differ:\n" << json::diff(da, db).dump(1);

  RepoRef paopao = Repo(Platform::kGitCode, "sytest", "paopao");
  for (Store* st : {imported.get(), synced.get()}) {
    // "2024-04-24 22:27:49" is China time: the same second as the merge.
    auto i2 = st->GetIssue(Ref::Issue(paopao, "2"));
    auto p5 = st->GetPull(Ref::Pull(paopao, 5));
    ASSERT_TRUE(i2.ok() && p5.ok());
    ASSERT_TRUE(i2->closed_at && p5->merged_at);
    EXPECT_EQ(*i2->closed_at, *p5->merged_at);
    // Closed without finished_at: the last close of its operate log.
    auto i5 = st->GetIssue(Ref::Issue(paopao, "5"));
    ASSERT_TRUE(i5.ok());
    ASSERT_TRUE(i5->closed_at.has_value());
    EXPECT_EQ(FormatUtc(*i5->closed_at), "2024-05-02T02:00:05Z");
    // A review comment and its two nested replies.
    std::vector<Comment> comments;
    ASSERT_TRUE(st->ListComments(Ref::Pull(paopao, 5), &comments).ok());
    EXPECT_EQ(comments.size(), 3u);
    // The issue's related branch is kept as an operate-log event.
    std::vector<OperateLogEvent> log;
    ASSERT_TRUE(st->ListOperateLog(Ref::Issue(paopao, "4"), &log).ok());
    EXPECT_TRUE(std::any_of(log.begin(), log.end(), [](const OperateLogEvent& e) {
      return e.action_type == "related_branch" && e.content == "hotfix/cache-timeout";
    }));
  }
}

// A link stored by one sync and removed on a later one, by an unlink in the
// other item's operate log (the PR's log still shows only the link): the
// stored link goes, and an import of the same dump agrees.
TEST(Sync, UnlinkInTheOtherItemsLogOnALaterSyncRemovesTheStoredLink) {
  TempDir dir;
  const fs::path dump = dir / "dump";
  fs::copy(SourceDir() + kShapes, dump, fs::copy_options::recursive);
  const fs::path repo = dump / "gitcode/sytest/paopao";
  auto keep = [](const fs::path& p,
                 const std::string& prefix) {  // drops the log's events of other kinds
    json log = json::parse(std::ifstream(p));
    json out = json::array();
    for (const json& e : log)
      if (e.value("action_type", e.value("action", "")).starts_with(prefix)) out.push_back(e);
    std::ofstream(p) << out.dump(1);
  };
  const fs::path issue_log = repo / "issues/3/operate_logs.json";
  const std::string unlinked_log = json::parse(std::ifstream(issue_log)).dump(1);
  keep(repo / "pulls/6/operate_logs.json", "add_");
  keep(issue_log, "add_");
  const std::string pair = "gitcode:sytest/paopao#3 <-> gitcode:sytest/paopao!6";

  FakeApi api(dump.string());
  ASSERT_TRUE(api.Start().ok());
  auto synced = OpenStore(dir / "synced");
  SyncOptions o = FastOptions(api);
  o.all_details = false;  // the default: details only where they can change a link
  ASSERT_TRUE(SyncAll(synced.get(), dump.string(), o, nullptr).ok());
  ASSERT_TRUE(Pairs(*synced).count(pair)) << "the first sync stores the link";

  // The issue's log gains the unlink, and the issue a newer updated_at.
  std::ofstream(issue_log) << unlinked_log;
  json issues = json::parse(std::ifstream(repo / "issues.json"));
  for (json& i : issues)
    if (i.value("number", json()).dump() == "\"3\"" || i.value("number", json()) == 3)
      i["updated_at"] = "2024-06-01T09:00:00+08:00";
  std::ofstream(repo / "issues.json") << issues.dump(1);
  api.Reload();
  api.ClearRequests();
  ASSERT_TRUE(SyncAll(synced.get(), dump.string(), o, nullptr).ok());
  std::vector<FakeRequest> reqs = api.Requests();
  EXPECT_TRUE(std::any_of(reqs.begin(), reqs.end(), [](const FakeRequest& r) {
    return r.path.ends_with("/issues/3/operate_logs");
  })) << "the changed issue's log is read again";
  EXPECT_FALSE(Pairs(*synced).count(pair)) << "the later sync removes it";

  auto imported = OpenStore(dir / "imported");
  ASSERT_TRUE(ImportDump(imported.get(), dump.string(), ImportOptions(), nullptr).ok());
  EXPECT_EQ(Pairs(*synced), Pairs(*imported));
}

// Each quirk switch of the fake serves data/demo in a shape the platforms
// also send; sync must end with the links an import of data/demo gives.
TEST(Sync, QuirkSwitchesKeepTheLinks) {
  TempDir dir;
  const std::string demo = SourceDir() + "/data/demo";
  auto imported = OpenStore(dir / "imported");
  ASSERT_TRUE(ImportDump(imported.get(), demo, ImportOptions(), nullptr).ok());
  std::set<std::string> want = Pairs(*imported);
  ASSERT_FALSE(want.empty());
  for (const char* q : {"action-only", "links-object", "naive-times", "no-close-time"}) {
    FakeApi api(demo);
    auto quirk = fakeapi::ParseFakeQuirk(q);
    ASSERT_TRUE(quirk.ok());
    api.AddQuirk(*quirk);
    ASSERT_TRUE(api.Start().ok());
    auto synced = OpenStore(dir / q);
    SyncOptions o = FastOptions(api);
    o.all_details = true;  // every endpoint, so that each quirk is met
    Status s = SyncAll(synced.get(), demo, o, nullptr);
    ASSERT_TRUE(s.ok()) << q << ": " << s.ToString();
    EXPECT_EQ(Pairs(*synced), want) << q;
    if (std::string(q) == "naive-times") {
      // Times read back as the same instants.
      RepoRef r = Repo(Platform::kGitCode, "Ascend", "agent-skills");
      EXPECT_TRUE(synced
                      ->ForEachIssue(&r,
                                     [&](const Issue& i) {
                                       auto other = imported->GetIssue(i.ref());
                                       EXPECT_TRUE(other.ok());
                                       if (other.ok()) {
                                         EXPECT_EQ(i.created_at, other->created_at)
                                             << i.ref().ToString();
                                         EXPECT_EQ(i.closed_at, other->closed_at)
                                             << i.ref().ToString();
                                       }
                                       return true;
                                     })
                      .ok());
    }
  }
  EXPECT_FALSE(fakeapi::ParseFakeQuirk("bogus").ok());
}

TEST(Sync, NotFoundOnOneDetailEndpointSkipsOnlyThatAndIsRetriedLater) {
  TempDir dir;
  const std::string dump = SourceDir() + kShapes;
  FakeApi api(dump);
  auto f = fakeapi::ParseFakeFault("404:1:/pulls/4/issues");
  ASSERT_TRUE(f.ok());
  api.AddFault(*f);
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  SyncOptions o = FastOptions(api);
  RepoRef paopao = Repo(Platform::kGitCode, "sytest", "paopao");
  SyncCounts c;
  Status s = SyncRepository(store.get(), paopao, o, &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(c.skipped.size(), 1u);
  EXPECT_EQ(c.skipped[0].item, "gitcode:sytest/paopao!4");
  EXPECT_EQ(c.skipped[0].endpoint, "issues.json");
  EXPECT_NE(c.skipped[0].url.find("/repos/sytest/paopao/pulls/4/issues"), std::string::npos);
  EXPECT_NE(c.skipped[0].reason.find("404"), std::string::npos) << c.skipped[0].reason;
  EXPECT_EQ(c.skipped[0].reason.find("token"), std::string::npos) << c.skipped[0].reason;
  // Everything else is there: the PRs, the other links.
  EXPECT_EQ(c.pulls, 6);
  EXPECT_TRUE(store->GetPull(Ref::Pull(paopao, 8)).ok());
  EXPECT_EQ(Pairs(*store).count("gitcode:sytest/paopao#2 <-> gitcode:sytest/paopao!5"), 1u);
  EXPECT_EQ(Pairs(*store).count("gitcode:sytest/other#1 <-> gitcode:sytest/paopao!4"), 0u);
  auto meta = store->GetMeta(SyncSkippedKey(paopao));
  ASSERT_TRUE(meta.ok());
  EXPECT_NE(meta->find("pulls/4/issues"), std::string::npos) << *meta;

  // The next sync asks for it again (the list is unchanged) and completes.
  api.ClearRequests();
  SyncCounts again;
  s = SyncRepository(store.get(), paopao, o, &again);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(again.skipped.empty());
  EXPECT_EQ(CountPath(api.Requests(), "/pulls/4/issues"), 1);
  EXPECT_EQ(Pairs(*store).count("gitcode:sytest/other#1 <-> gitcode:sytest/paopao!4"), 1u);
  EXPECT_TRUE(store->GetMeta(SyncSkippedKey(paopao)).status().IsNotFound());
}

// A stored cursor or list of skipped endpoints with fields of the wrong type
// (an older or damaged store) is read as far as it makes sense: the sync
// runs, as it does when the cursor is not JSON at all (value() threw
// json::type_error out of the sync).
TEST(Sync, StoredCursorAndSkipsOfTheWrongTypeAreIgnored) {
  TempDir dir;
  WriteRepo(dir / "dump", "gitcode", "Ascend", "a", 3);
  FakeApi api(dir / "dump");
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  RepoRef repo = Repo(Platform::kGitCode, "Ascend", "a");
  auto put = [&](const std::string& key, const std::string& value) {
    auto b = store->NewBatch();
    ASSERT_TRUE(b->PutMeta(key, value).ok());
    ASSERT_TRUE(store->Write(b.get()).ok());
  };
  put(SyncCursorKey(repo), R"({"issues/all": {"page": "2", "since": "x"}, "pulls/all": 5})");
  SyncCounts c;
  Status s = Status::Internal("not run");
  EXPECT_NO_THROW(s = SyncRepository(store.get(), repo, FastOptions(api), &c));
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.issues, 3);
  EXPECT_EQ(c.pulls, 3);

  put(SyncSkippedKey(repo),
      json::array({1, "x", {{"item", 5}}, {{"item", "gitcode:Ascend/a!1"}, {"endpoint", 7}}})
          .dump());
  s = Status::Internal("not run");
  EXPECT_NO_THROW(s = SyncRepository(store.get(), repo, FastOptions(api), &c));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// A GitHub issue list names pull requests too; one whose "url" is not a
// string is still recorded (value() threw json::type_error).
TEST(Sync, GitHubPullInTheIssueListWithoutAStringUrlIsRecorded) {
  TempDir dir;
  WriteRepo(dir / "dump", "github", "vllm", "c", 2);
  const std::string list = dir / "dump/github/vllm/c/issues.json";
  json issues = json::parse(ReadFile(list));
  for (int n : {101, 102}) {
    json pr = issues[0];
    pr["number"] = n;
    pr["id"] = n;
    pr["pull_request"] = json::object();
    pr["url"] = nullptr;
    issues.push_back(pr);
  }
  WriteFile(list, issues.dump());
  FakeApi api(dir / "dump");
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  SyncOptions o = FastOptions(api);
  o.record_dir = dir / "record";
  SyncCounts c;
  Status s = Status::Internal("not run");
  EXPECT_NO_THROW(s = SyncRepository(store.get(), Repo(Platform::kGitHub, "vllm", "c"), o, &c));
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.issues, 2);
  json recorded = json::parse(ReadFile(dir / "record/github/vllm/c/issues.json"));
  EXPECT_EQ(recorded.size(), 4u) << "each pull request of the list kept, not one in place of both";
}

TEST(Sync, RepeatedFailureOnADetailEndpointIsSkippedAndOtherRepositoriesSync) {
  TempDir dir;
  const std::string dump = SourceDir() + kShapes;
  FakeApi api(dump);
  auto f = fakeapi::ParseFakeFault("503:-1:/pulls/5/comments");
  ASSERT_TRUE(f.ok());
  api.AddFault(*f);
  ASSERT_TRUE(api.Start().ok());
  auto store = OpenStore(dir / "db");
  SyncOptions o = FastOptions(api);
  o.max_attempts = 2;
  SyncCounts c;
  Status s = SyncAll(store.get(), dump, o, &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(c.skipped.size(), 1u);
  EXPECT_NE(c.skipped[0].reason.find("503"), std::string::npos) << c.skipped[0].reason;
  EXPECT_EQ(c.repos, 2);
  EXPECT_TRUE(
      store->GetPull(Ref::Pull(Repo(Platform::kGitee, "kit101", "drone-yml-test"), 6)).ok());
}

TEST(Sync, ConnectionRefusedFailsFastAndLeavesNoTrace) {
  TempDir dir;
  int port = 0;
  {
    FakeApi probe(dir.path());
    auto p = probe.Start();
    ASSERT_TRUE(p.ok());
    port = *p;
  }  // stopped: nothing listens there now
  auto store = OpenStore(dir / "db");
  std::map<std::string, std::string> meta_before;
  ASSERT_TRUE(store->ListMeta("", &meta_before).ok());
  SyncOptions o;
  o.api_base = "http://127.0.0.1:" + std::to_string(port) + "/api/v5";
  o.requests_per_minute = 0;
  o.token_source = [](const std::string&) { return std::string(); };
  auto start = std::chrono::steady_clock::now();
  SyncCounts c;
  Status s = SyncRepository(store.get(), Repo(Platform::kGitCode, "Ascend", "a"), o, &c);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.ToString();
  EXPECT_NE(s.message().find("cannot reach"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("127.0.0.1"), std::string::npos) << s.message();
  EXPECT_TRUE(c.stop);
  EXPECT_LT(secs, 3.0);
  EXPECT_EQ(c.requests, 1);
  std::vector<Repository> repos;
  ASSERT_TRUE(store->ListRepositories(&repos).ok());
  EXPECT_TRUE(repos.empty());
  std::map<std::string, std::string> meta;
  ASSERT_TRUE(store->ListMeta("", &meta).ok());
  EXPECT_EQ(meta, meta_before) << "no cursor, no record of skips";
}

// A first sync asks for details only where they can change a link or an
// answer: at least 30% fewer requests per item on data/demo, same links.
TEST(Sync, FirstSyncAsksForFewerDetails) {
  TempDir dir;
  const std::string demo = SourceDir() + "/data/demo";
  FakeApi api(demo);
  ASSERT_TRUE(api.Start().ok());
  SyncCounts all, some;
  auto full = OpenStore(dir / "full");
  SyncOptions o = FastOptions(api);
  o.all_details = true;
  ASSERT_TRUE(SyncAll(full.get(), demo, o, &all).ok());
  auto lean = OpenStore(dir / "lean");
  o.all_details = false;  // the default
  ASSERT_TRUE(SyncAll(lean.get(), demo, o, &some).ok());
  double items = static_cast<double>(all.issues + all.pulls);
  ASSERT_EQ(items, static_cast<double>(some.issues + some.pulls));
  double before = all.requests / items, after = some.requests / items;
  std::cout << "requests per item on data/demo: " << before << " (all details) -> " << after << " ("
            << all.requests << " -> " << some.requests << " requests, " << items << " items)\n";
  EXPECT_LE(after, 0.7 * before);
  // The same issue-PR pairs (fewer endpoints report each); the linker's
  // links are compared in SyncCli.LeanFirstSyncLinksLikeAFullImport.
  EXPECT_EQ(Pairs(*lean), Pairs(*full));
  EXPECT_FALSE(Pairs(*lean).empty());
}

}  // namespace
}  // namespace fixgraph::ingest
