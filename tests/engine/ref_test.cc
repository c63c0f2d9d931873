#include "fixgraph/engine/ref.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace fixgraph {
namespace {

RepoRef Repo(Platform p, std::string owner, std::string name) {
  RepoRef r;
  r.platform = p;
  r.owner = std::move(owner);
  r.name = std::move(name);
  return r;
}

Ref MustParse(const std::string& text) {
  auto r = ParseRef(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : Ref{};
}

TEST(PlatformTest, NamesAndParsing) {
  EXPECT_STREQ(PlatformName(Platform::kGitCode), "gitcode");
  EXPECT_STREQ(PlatformName(Platform::kGitee), "gitee");
  EXPECT_STREQ(PlatformName(Platform::kGitHub), "github");
  EXPECT_EQ(static_cast<int>(Platform::kGitCode), 1);
  EXPECT_EQ(static_cast<int>(Platform::kGitee), 2);
  EXPECT_EQ(static_cast<int>(Platform::kGitHub), 3);
  EXPECT_EQ(*ParsePlatform("gitcode"), Platform::kGitCode);
  EXPECT_EQ(*ParsePlatform("GitCode"), Platform::kGitCode);
  EXPECT_EQ(*ParsePlatform("GITEE"), Platform::kGitee);
  EXPECT_EQ(*ParsePlatform("github"), Platform::kGitHub);
  auto bad = ParsePlatform("gitlab");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("\"gitlab\""), std::string::npos);
  EXPECT_STREQ(PlatformWebBase(Platform::kGitCode), "https://gitcode.com");
  EXPECT_STREQ(PlatformWebBase(Platform::kGitee), "https://gitee.com");
  EXPECT_STREQ(PlatformWebBase(Platform::kGitHub), "https://github.com");
}

TEST(RefTest, ParseRepo) {
  Ref r = MustParse("gitcode:Ascend/MindSpeed-Ops");
  EXPECT_EQ(r.kind, RefKind::kRepo);
  EXPECT_EQ(r.repo.platform, Platform::kGitCode);
  EXPECT_EQ(r.repo.owner, "Ascend");
  EXPECT_EQ(r.repo.name, "MindSpeed-Ops");
  EXPECT_EQ(r.repo.FullName(), "Ascend/MindSpeed-Ops");
  EXPECT_EQ(r.repo.ToString(), "gitcode:Ascend/MindSpeed-Ops");
  EXPECT_EQ(r.ToString(), "gitcode:Ascend/MindSpeed-Ops");
  EXPECT_TRUE(r.number.empty());
  EXPECT_FALSE(r.repo.empty());
}

TEST(RefTest, ParseIssue) {
  Ref r = MustParse("gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_EQ(r.kind, RefKind::kIssue);
  EXPECT_EQ(r.repo, Repo(Platform::kGitCode, "Ascend", "MindSpeed-Ops"));
  EXPECT_EQ(r.number, "69");
  EXPECT_EQ(r.ToString(), "gitcode:Ascend/MindSpeed-Ops#69");
}

TEST(RefTest, ParseGiteeAlphanumericIssue) {
  Ref r = MustParse("gitee:mindspore/mindformers#I8XK2P");
  EXPECT_EQ(r.kind, RefKind::kIssue);
  EXPECT_EQ(r.repo.platform, Platform::kGitee);
  EXPECT_EQ(r.repo.FullName(), "mindspore/mindformers");
  EXPECT_EQ(r.number, "I8XK2P");
  EXPECT_EQ(r.ToString(), "gitee:mindspore/mindformers#I8XK2P");
  // Case-sensitive: a different number.
  EXPECT_NE(MustParse("gitee:mindspore/mindformers#i8xk2p"), r);
}

TEST(RefTest, ParsePull) {
  Ref r = MustParse("github:vllm-project/vllm-ascend!11337");
  EXPECT_EQ(r.kind, RefKind::kPull);
  EXPECT_EQ(r.repo.platform, Platform::kGitHub);
  EXPECT_EQ(r.number, "11337");
  EXPECT_EQ(r.pull_number(), 11337);
  EXPECT_EQ(r.ToString(), "github:vllm-project/vllm-ascend!11337");
  EXPECT_EQ(MustParse("gitcode:Ascend/MindSpeed-Ops!166").pull_number(), 166);
  // Leading zeros are normalised away.
  EXPECT_EQ(MustParse("gitcode:a/b!007").ToString(), "gitcode:a/b!7");
}

TEST(RefTest, ParseDoc) {
  Ref r = MustParse("doc:torch_npu/env/TORCH_TRANSFER_TO_NPU");
  EXPECT_EQ(r.kind, RefKind::kDoc);
  EXPECT_EQ(r.number, "torch_npu/env/TORCH_TRANSFER_TO_NPU");
  EXPECT_EQ(r.ToString(), "doc:torch_npu/env/TORCH_TRANSFER_TO_NPU");
  EXPECT_EQ(WebUrl(r), "");
}

TEST(RefTest, ParseOwnerWithSubgroup) {
  Ref r = MustParse("gitcode:group/sub/repo#12");
  EXPECT_EQ(r.kind, RefKind::kIssue);
  EXPECT_EQ(r.repo.owner, "group/sub");
  EXPECT_EQ(r.repo.name, "repo");
  EXPECT_EQ(r.ToString(), "gitcode:group/sub/repo#12");
  Ref p = MustParse("gitcode:a/b/c/d!3");
  EXPECT_EQ(p.repo.owner, "a/b/c");
  EXPECT_EQ(p.repo.name, "d");
  EXPECT_EQ(WebUrl(p), "https://gitcode.com/a/b/c/d/merge_requests/3");
}

TEST(RefTest, ParseIsCaseInsensitiveForPlatformAndTrimsBlanks) {
  EXPECT_EQ(MustParse("  GitCode:Ascend/MindSpeed-Ops#69\n").ToString(),
            "gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_EQ(MustParse("GITHUB:a/b!1").repo.platform, Platform::kGitHub);
  EXPECT_EQ(MustParse("DOC:x").kind, RefKind::kDoc);
}

TEST(RefTest, ParseAcceptsWebUrls) {
  Ref r = MustParse("https://gitcode.com/Ascend/MindSpeed-Ops/issues/69");
  EXPECT_EQ(r, MustParse("gitcode:Ascend/MindSpeed-Ops#69"));
  EXPECT_EQ(MustParse("https://gitee.com/mindspore/mindformers/pulls/12").ToString(),
            "gitee:mindspore/mindformers!12");
  auto bad = ParseRef("https://example.com/a/b/issues/1");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("https://example.com/a/b/issues/1"), std::string::npos);
}

TEST(RefTest, RoundTripsEveryForm) {
  for (const char* text : {"gitcode:Ascend/MindSpeed-Ops", "gitcode:Ascend/MindSpeed-Ops#69",
                           "gitee:mindspore/mindformers#I8XK2P", "gitcode:Ascend/MindSpeed-Ops!166",
                           "github:vllm-project/vllm-ascend!11337", "doc:torch_npu/env/X",
                           "gitcode:g/s/r#1", "gitee:o.x/r_y-z.v2", "github:a/b#0"}) {
    Ref r = MustParse(text);
    EXPECT_EQ(r.ToString(), text);
    EXPECT_EQ(MustParse(r.ToString()), r);
  }
}

TEST(RefTest, RejectsWithMessageNamingText) {
  for (const std::string& text : std::vector<std::string>{
           "",                                     // empty
           "   ",                                  // blank
           "Ascend/MindSpeed-Ops#69",              // missing platform
           "gitlab:a/b#1",                         // unknown platform
           ":a/b",                                 // empty platform
           "gitcode:",                             // no repo
           "gitcode:ab",                           // no slash
           "gitcode:/b",                           // empty owner
           "gitcode:a/",                           // empty name
           "gitcode:a//b",                         // empty subgroup
           "gitcode:a b/c",                        // space
           "gitcode:a/b c",                        // space in name
           "gitcode:a/b$#1",                       // bad char
           "gitcode:a/..",                         // dot-dot
           "gitcode:a/b#",                         // empty issue number
           "gitcode:a/b#1-2",                      // bad issue char
           "gitcode:a/b#" + std::string(33, '1'),  // too long
           "gitcode:a/b!",                         // empty PR number
           "gitcode:a/b!12a",                      // PR number with letters
           "gitcode:a/b!I8XK2P",                   // Gitee ids are issues, never PRs
           "gitcode:a/b!-3",                       // negative
           "doc:",                                 // empty doc id
           "doc:a b",                              // space in doc id
       }) {
    SCOPED_TRACE(text);
    auto r = ParseRef(text);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find("\"" + text + "\""), std::string::npos)
        << r.status().message();
  }
}

TEST(RefTest, UnknownPlatformMessageListsTheKnownOnes) {
  auto r = ParseRef("gitlab:a/b#1");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gitcode"), std::string::npos);
  EXPECT_NE(r.status().message().find("gitee"), std::string::npos);
}

TEST(RefTest, ValidityHelpers) {
  EXPECT_TRUE(IsValidIssueNumber("69"));
  EXPECT_TRUE(IsValidIssueNumber("I8XK2P"));
  EXPECT_TRUE(IsValidIssueNumber(std::string(32, '9')));
  EXPECT_FALSE(IsValidIssueNumber(std::string(33, '9')));
  EXPECT_FALSE(IsValidIssueNumber(""));
  EXPECT_FALSE(IsValidIssueNumber("1.2"));
  EXPECT_FALSE(IsValidIssueNumber("a_b"));
  EXPECT_TRUE(IsValidRepoSegment("MindSpeed-Ops"));
  EXPECT_TRUE(IsValidRepoSegment("a.b_c-d"));
  EXPECT_FALSE(IsValidRepoSegment(""));
  EXPECT_FALSE(IsValidRepoSegment("."));
  EXPECT_FALSE(IsValidRepoSegment(".."));
  EXPECT_FALSE(IsValidRepoSegment("a/b"));
  EXPECT_FALSE(IsValidRepoSegment("a b"));
  EXPECT_FALSE(IsValidRepoSegment(std::string(201, 'a')));
  EXPECT_TRUE(IsValidOwner("Ascend"));
  EXPECT_TRUE(IsValidOwner("group/sub.group"));
  for (const char* bad : {"", "/a", "a/", "a//b", "a/../b", "a b", "a/\xff"})
    EXPECT_FALSE(IsValidOwner(bad)) << bad;
}

TEST(RefTest, Factories) {
  RepoRef repo = Repo(Platform::kGitCode, "Ascend", "MindSpeed-Ops");
  EXPECT_EQ(Ref::Repo(repo).ToString(), "gitcode:Ascend/MindSpeed-Ops");
  EXPECT_EQ(Ref::Issue(repo, "69").ToString(), "gitcode:Ascend/MindSpeed-Ops#69");
  EXPECT_EQ(Ref::Pull(repo, 166).ToString(), "gitcode:Ascend/MindSpeed-Ops!166");
  EXPECT_EQ(Ref::Pull(repo, 166).pull_number(), 166);
  EXPECT_EQ(Ref::Doc("x/y").ToString(), "doc:x/y");
  EXPECT_TRUE(RepoRef{}.empty());
}

// ---- ParseWebUrl

struct UrlCase {
  const char* url;
  const char* want;  // canonical ref text
  bool mirror;
};

TEST(ParseWebUrlTest, RecognisedForms) {
  const std::vector<UrlCase> cases = {
      // GitCode
      {"https://gitcode.com/Ascend/MindSpeed-Ops/issues/69", "gitcode:Ascend/MindSpeed-Ops#69",
       false},
      {"https://gitcode.com/Ascend/MindSpeed-Ops/merge_requests/166",
       "gitcode:Ascend/MindSpeed-Ops!166", false},
      {"https://gitcode.com/Ascend/MindSpeed-Ops/pulls/166", "gitcode:Ascend/MindSpeed-Ops!166",
       false},
      {"https://gitcode.com/Ascend/MindSpeed-Ops/pull/166", "gitcode:Ascend/MindSpeed-Ops!166",
       false},
      {"https://gitcode.com/Ascend/MindSpeed-Ops", "gitcode:Ascend/MindSpeed-Ops", false},
      {"http://gitcode.com/Ascend/MindSpeed-Ops/issues/69", "gitcode:Ascend/MindSpeed-Ops#69",
       false},
      {"https://www.gitcode.com/Ascend/MindSpeed-Ops/issues/69", "gitcode:Ascend/MindSpeed-Ops#69",
       false},
      {"https://GitCode.com/Ascend/MindSpeed-Ops/issues/69", "gitcode:Ascend/MindSpeed-Ops#69",
       false},
      {"https://gitcode.com/group/sub/repo/-/merge_requests/3", "gitcode:group/sub/repo!3", false},
      {"https://gitcode.com/group/sub/repo/issues/4", "gitcode:group/sub/repo#4", false},
      // AtomGit: GitCode's mirror brand
      {"https://atomgit.com/Ascend/MindSpeed-Ops/issues/69", "gitcode:Ascend/MindSpeed-Ops#69",
       true},
      {"https://atomgit.com/Ascend/MindSpeed-Ops/merge_requests/7",
       "gitcode:Ascend/MindSpeed-Ops!7", true},
      // Gitee
      {"https://gitee.com/mindspore/mindformers/issues/I8XK2P",
       "gitee:mindspore/mindformers#I8XK2P", false},
      {"https://gitee.com/mindspore/mindformers/pulls/12", "gitee:mindspore/mindformers!12", false},
      {"https://gitee.com/mindspore/mindformers", "gitee:mindspore/mindformers", false},
      // GitHub
      {"https://github.com/vllm-project/vllm-ascend/issues/5", "github:vllm-project/vllm-ascend#5",
       false},
      {"https://github.com/vllm-project/vllm-ascend/pull/11337",
       "github:vllm-project/vllm-ascend!11337", false},
      // API forms
      {"https://api.gitcode.com/api/v5/repos/Ascend/MindSpeed-Ops/issues/69",
       "gitcode:Ascend/MindSpeed-Ops#69", false},
      {"https://api.gitcode.com/api/v5/repos/Ascend/MindSpeed-Ops/pulls/166",
       "gitcode:Ascend/MindSpeed-Ops!166", false},
      {"https://gitee.com/api/v5/repos/mindspore/mindformers/issues/I8XK2P",
       "gitee:mindspore/mindformers#I8XK2P", false},
      {"https://gitee.com/api/v5/repos/mindspore/mindformers/pulls/9",
       "gitee:mindspore/mindformers!9", false},
      {"https://api.github.com/repos/vllm-project/vllm-ascend/issues/5",
       "github:vllm-project/vllm-ascend#5", false},
      {"https://api.github.com/repos/vllm-project/vllm-ascend/pulls/6",
       "github:vllm-project/vllm-ascend!6", false},
      // Trailing anchors, queries, slashes and .git
      {"https://gitcode.com/Ascend/MindSpeed-Ops/merge_requests/166#note_1",
       "gitcode:Ascend/MindSpeed-Ops!166", false},
      {"https://gitcode.com/Ascend/MindSpeed-Ops/issues/69?from=project_issue",
       "gitcode:Ascend/MindSpeed-Ops#69", false},
      {"https://github.com/a/b/pull/5#issuecomment-123", "github:a/b!5", false},
      {"https://github.com/a/b/pull/5/files", "github:a/b!5", false},
      {"https://gitee.com/a/b/issues/I8XK2P/", "gitee:a/b#I8XK2P", false},
      {"https://gitcode.com/Ascend/MindSpeed-Ops.git", "gitcode:Ascend/MindSpeed-Ops", false},
      {"https://github.com/a/b.git?x=1", "github:a/b", false},
  };
  for (const UrlCase& c : cases) {
    SCOPED_TRACE(c.url);
    auto u = ParseWebUrl(c.url);
    ASSERT_TRUE(u.has_value());
    EXPECT_EQ(u->ref.ToString(), c.want);
    EXPECT_EQ(u->mirror, c.mirror);
  }
}

TEST(ParseWebUrlTest, KindAndHost) {
  auto u = ParseWebUrl("https://atomgit.com/Ascend/MindSpeed-Ops/issues/69");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->ref.kind, RefKind::kIssue);
  EXPECT_EQ(u->host, "atomgit.com");
  EXPECT_TRUE(u->mirror);
  EXPECT_EQ(u->ref.repo.platform, Platform::kGitCode);

  auto p = ParseWebUrl("https://GITHUB.com/a/b/pull/0012");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ref.kind, RefKind::kPull);
  EXPECT_EQ(p->host, "github.com");
  EXPECT_EQ(p->ref.number, "12");
  EXPECT_FALSE(p->mirror);
}

TEST(ParseWebUrlTest, NonMatching) {
  for (const char* url : {
           "https://example.com/a/b/issues/3",
           "https://gitlab.com/a/b/issues/3",
           "https://notgitcode.com/a/b/issues/3",
           "https://gitcode.com.evil.org/a/b/issues/3",
           "ftp://gitcode.com/a/b/issues/3",
           "gitcode.com/a/b/issues/3",
           "https://gitcode.com",
           "https://gitcode.com/",
           "https://gitcode.com/Ascend",
           "https://gitcode.com/Ascend/MindSpeed-Ops/issues",
           "https://gitcode.com/Ascend/MindSpeed-Ops/issues/",
           "https://gitcode.com/Ascend/MindSpeed-Ops/merge_requests/abc",
           "https://gitcode.com/Ascend/MindSpeed-Ops/pulls/1a",
           "https://gitcode.com/Ascend/MindSpeed-Ops/issues/1-2",
           "https://gitcode.com/Ascend/MindSpeed-Ops/tree/main",
           "https://github.com/a/b/blob/main/README.md",
           "",
       }) {
    EXPECT_FALSE(ParseWebUrl(url).has_value()) << url;
  }
}

TEST(WebUrlTest, PerPlatform) {
  RepoRef gc = Repo(Platform::kGitCode, "Ascend", "MindSpeed-Ops");
  RepoRef ge = Repo(Platform::kGitee, "mindspore", "mindformers");
  RepoRef gh = Repo(Platform::kGitHub, "vllm-project", "vllm-ascend");
  EXPECT_EQ(WebUrl(Ref::Repo(gc)), "https://gitcode.com/Ascend/MindSpeed-Ops");
  EXPECT_EQ(WebUrl(Ref::Issue(gc, "69")), "https://gitcode.com/Ascend/MindSpeed-Ops/issues/69");
  EXPECT_EQ(WebUrl(Ref::Pull(gc, 166)),
            "https://gitcode.com/Ascend/MindSpeed-Ops/merge_requests/166");
  EXPECT_EQ(WebUrl(Ref::Repo(ge)), "https://gitee.com/mindspore/mindformers");
  EXPECT_EQ(WebUrl(Ref::Issue(ge, "I8XK2P")),
            "https://gitee.com/mindspore/mindformers/issues/I8XK2P");
  EXPECT_EQ(WebUrl(Ref::Pull(ge, 12)), "https://gitee.com/mindspore/mindformers/pulls/12");
  EXPECT_EQ(WebUrl(Ref::Repo(gh)), "https://github.com/vllm-project/vllm-ascend");
  EXPECT_EQ(WebUrl(Ref::Issue(gh, "5")), "https://github.com/vllm-project/vllm-ascend/issues/5");
  EXPECT_EQ(WebUrl(Ref::Pull(gh, 11337)), "https://github.com/vllm-project/vllm-ascend/pull/11337");
  EXPECT_EQ(WebUrl(Ref::Doc("a/b")), "");
}

TEST(WebUrlTest, RoundTripsThroughParseWebUrl) {
  for (const char* text : {"gitcode:Ascend/MindSpeed-Ops", "gitcode:Ascend/MindSpeed-Ops#69",
                           "gitcode:Ascend/MindSpeed-Ops!166", "gitee:mindspore/mindformers#I8XK2P",
                           "gitee:mindspore/mindformers!12", "github:vllm-project/vllm-ascend#5",
                           "github:vllm-project/vllm-ascend!11337", "gitcode:g/s/r!2"}) {
    Ref r = MustParse(text);
    auto u = ParseWebUrl(WebUrl(r));
    ASSERT_TRUE(u.has_value()) << WebUrl(r);
    EXPECT_EQ(u->ref, r) << WebUrl(r);
  }
}

TEST(RefOrderTest, EqualityAndOrdering) {
  Ref a = MustParse("gitcode:a/b#1");
  Ref a2 = Ref::Issue(Repo(Platform::kGitCode, "a", "b"), "1");
  EXPECT_EQ(a, a2);
  EXPECT_FALSE(a < a2);
  EXPECT_NE(a, MustParse("gitcode:a/b!1"));  // same number, other kind
  EXPECT_NE(a, MustParse("gitee:a/b#1"));    // other platform
  EXPECT_NE(a, MustParse("gitcode:a/c#1"));

  // Kind first (repo < issue < pull < doc), then platform, owner, name, number.
  EXPECT_LT(MustParse("gitcode:z/z"), MustParse("gitcode:a/a#1"));
  EXPECT_LT(MustParse("gitcode:z/z#1"), MustParse("gitcode:a/a!1"));
  EXPECT_LT(MustParse("github:a/a!1"), MustParse("doc:a"));
  EXPECT_LT(MustParse("gitcode:z/z#1"), MustParse("gitee:a/a#1"));
  EXPECT_LT(MustParse("gitee:a/z#1"), MustParse("gitee:b/a#1"));
  EXPECT_LT(MustParse("gitee:a/a#1"), MustParse("gitee:a/b#1"));
  EXPECT_LT(MustParse("gitee:a/a#1"), MustParse("gitee:a/a#2"));

  std::set<Ref> s = {MustParse("gitcode:a/b#2"), MustParse("gitcode:a/b#1"),
                     MustParse("gitcode:a/b#1"), MustParse("gitcode:a/b")};
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.begin()->kind, RefKind::kRepo);

  RepoRef r1 = Repo(Platform::kGitCode, "a", "b"), r2 = Repo(Platform::kGitee, "a", "b");
  EXPECT_LT(r1, r2);
  EXPECT_NE(r1, r2);
  EXPECT_EQ(r1, Repo(Platform::kGitCode, "a", "b"));
}

TEST(RefTest, IsDecimalIsOneToEighteenDigits) {
  EXPECT_TRUE(IsDecimal("0"));
  EXPECT_TRUE(IsDecimal("166"));
  EXPECT_TRUE(IsDecimal(std::string(18, '9')));  // fits in an int64
  EXPECT_FALSE(IsDecimal(std::string(19, '9')));
  EXPECT_FALSE(IsDecimal(""));
  EXPECT_FALSE(IsDecimal("I8XK2P"));
  EXPECT_FALSE(IsDecimal("-1"));
  EXPECT_FALSE(IsDecimal("1 "));
  EXPECT_FALSE(IsDecimal("\xd9\xa1"));  // an Arabic-Indic digit is not ASCII
}

}  // namespace
}  // namespace fixgraph
