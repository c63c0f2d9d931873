// Tests of the private key layout (engine/store_keys.h): the on-disk format.
#include "../../engine/store_keys.h"

#include "fixgraph/engine/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fixgraph {
namespace {

using namespace std::string_literals;

RepoRef Repo() { return RepoRef{Platform::kGitCode, std::string("a"), std::string("b")}; }

TEST(StoreKeysTest, NumPadsDigitsOnly) {
  EXPECT_EQ(keys::Num("69"), "000000000069");
  EXPECT_EQ(keys::Num("0"), "000000000000");
  EXPECT_EQ(keys::Num("123456789012"), "123456789012");
  EXPECT_EQ(keys::Num("I8XK2P"), "I8XK2P");
  EXPECT_EQ(keys::Num(""), "");
  EXPECT_EQ(keys::Num("1234567890123"), "1234567890123");  // too long to pad
  EXPECT_EQ(keys::Num("12a"), "12a");
}

TEST(StoreKeysTest, ScanOrderKeyFollowsTheIssueKeys) {
  // Issues in the byte order of their record keys (ForEachIssue's order) are
  // in the byte order of their ScanOrderKey too: repositories whose names
  // extend one another, numbers that sort otherwise as text, Gitee numbers.
  const RepoRef r{Platform::kGitCode, "o", "r"}, rx{Platform::kGitCode, "o", "rx"},
      gitee{Platform::kGitee, "o", "r"};
  std::vector<Ref> items;
  for (const RepoRef& repo : {r, rx, gitee})
    for (const char* n : {"1", "9", "10", "100", "I4AB", "I4ABC", "I4B"})
      items.push_back(Ref::Issue(repo, n));
  auto by_key = items, by_scan = items;
  std::sort(by_key.begin(), by_key.end(), [](const Ref& a, const Ref& b) {
    return keys::IssueKey(a.repo, a.number) < keys::IssueKey(b.repo, b.number);
  });
  std::sort(by_scan.begin(), by_scan.end(), [](const Ref& a, const Ref& b) {
    return Store::ScanOrderKey(a) < Store::ScanOrderKey(b);
  });
  EXPECT_EQ(by_key, by_scan);
  EXPECT_LT(Store::ScanOrderKey(Ref::Issue(r, "9")), Store::ScanOrderKey(Ref::Issue(r, "10")));
  EXPECT_LT(Store::ScanOrderKey(Ref::Issue(r, "100")), Store::ScanOrderKey(Ref::Issue(rx, "1")));
}

TEST(StoreKeysTest, PaddedNumbersSortNumerically) {
  std::vector<std::string> nums = {"100", "9", "10", "1", "99"};
  std::vector<std::string> padded;
  for (const std::string& n : nums) padded.push_back(keys::Num(n));
  std::sort(padded.begin(), padded.end());
  std::vector<std::string> back;
  for (const std::string& p : padded) back.push_back(keys::Unpad(p));
  EXPECT_EQ(back, (std::vector<std::string>{"1", "9", "10", "99", "100"}));
}

TEST(StoreKeysTest, UnpadInvertsNum) {
  for (const char* n : {"1", "69", "0", "123456789012", "I8XK2P", "", "abc"}) {
    EXPECT_EQ(keys::Unpad(keys::Num(n)), n) << n;
  }
  EXPECT_EQ(keys::Unpad("000000000000"), "0");
  EXPECT_EQ(keys::Unpad("0069"), "0069");  // not 12 wide: left alone
}

TEST(StoreKeysTest, TimeIsEightBytesInSignedOrder) {
  std::vector<std::int64_t> times = {
      std::numeric_limits<std::int64_t>::min(), -86400, -1, 0, 1, 255, 256, 1789443356,
      std::numeric_limits<std::int64_t>::max()};
  std::vector<std::string> encoded;
  for (std::int64_t t : times) {
    std::string e = keys::Time(t);
    ASSERT_EQ(e.size(), 8u);
    EXPECT_EQ(keys::DecodeTime(e), t);
    encoded.push_back(e);
  }
  // Byte order equals numeric order.
  EXPECT_TRUE(std::is_sorted(encoded.begin(), encoded.end()));
  EXPECT_EQ(keys::Time(0), "\x80\0\0\0\0\0\0\0"s);
  EXPECT_EQ(keys::Time(-1), "\x7f\xff\xff\xff\xff\xff\xff\xff"s);
}

TEST(StoreKeysTest, JoinAndPrefix) {
  EXPECT_EQ(keys::Join('I', {"gitcode:a/b", "40"}),
            "I\0gitcode:a/b\0"s
            "40");
  EXPECT_EQ(keys::Prefix('I', {"gitcode:a/b"}), "I\0gitcode:a/b\0"s);
  EXPECT_EQ(keys::Join('x', {}), "x");
  std::string key = keys::Join('I', {"gitcode:a/b", "40"});
  EXPECT_EQ(key.rfind(keys::Prefix('I', {"gitcode:a/b"}), 0), 0u);
  // A repository's prefix does not match a repository whose name extends it.
  EXPECT_NE(keys::Join('I', {"gitcode:a/bc", "40"}).rfind(keys::Prefix('I', {"gitcode:a/b"}), 0),
            0u);
}

TEST(StoreKeysTest, RecordKeys) {
  EXPECT_EQ(keys::RepoKey(Repo()), "R\0gitcode:a/b"s);
  EXPECT_EQ(keys::IssueKey(Repo(), "69"),
            "I\0gitcode:a/b\0"s
            "000000000069");
  EXPECT_EQ(keys::IssueKey(Repo(), "I8XK2P"),
            "I\0gitcode:a/b\0"s
            "I8XK2P");
  EXPECT_EQ(keys::PullKey(Repo(), 166),
            "P\0gitcode:a/b\0"s
            "000000000166");
  EXPECT_EQ(keys::ItemKey(Ref::Repo(Repo())), keys::RepoKey(Repo()));
  EXPECT_EQ(keys::ItemKey(Ref::Issue(Repo(), "69")), keys::IssueKey(Repo(), "69"));
  EXPECT_EQ(keys::ItemKey(Ref::Pull(Repo(), 166)), keys::PullKey(Repo(), 166));
  EXPECT_NE(keys::ItemKey(Ref::Issue(Repo(), "166")), keys::ItemKey(Ref::Pull(Repo(), 166)));
  EXPECT_EQ(keys::ItemKey(Ref::Doc("x/y")), "D\0x/y"s);
}

TEST(StoreKeysTest, TagsAndFamiliesAreStable) {
  EXPECT_EQ(keys::kSep, '\0');
  EXPECT_EQ(keys::kRepoTag, 'R');
  EXPECT_EQ(keys::kIssueTag, 'I');
  EXPECT_EQ(keys::kPullTag, 'P');
  EXPECT_EQ(keys::kCommentTag, 'C');
  EXPECT_EQ(keys::kCommitTag, 'K');
  EXPECT_EQ(keys::kFileTag, 'F');
  EXPECT_EQ(keys::kOplogTag, 'O');
  EXPECT_EQ(keys::kLinkTag, 'L');
  EXPECT_EQ(keys::kDerivedTag, 'X');
  EXPECT_EQ(keys::kClosedIndexTag, 'c');
  EXPECT_EQ(keys::kMergedIndexTag, 'm');
  EXPECT_EQ(keys::kMentionIndexTag, 'r');
  EXPECT_EQ(keys::kLinkIndexTag, 'l');
  EXPECT_EQ(keys::kStateIndexTag, 's');
  EXPECT_STREQ(keys::kItemsFamily, "items");
  EXPECT_STREQ(keys::kRawFamily, "raw");
  EXPECT_STREQ(keys::kIndexFamily, "index");
  EXPECT_STREQ(keys::kSchemaKey, "schema_version");
}

}  // namespace
}  // namespace fixgraph
