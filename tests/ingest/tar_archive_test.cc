// A dump packed into a tar file (ingest/tar_archive.h, dump.h): the member
// index, and an import of the archive against the same dump as a folder.
#include "../../ingest/tar_archive.h"

#include "testutil/testutil.h"

#include "fixgraph/ingest/dump.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace fixgraph::ingest {
namespace {

namespace fs = std::filesystem;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

// One member of a tar written by TarWriter.
struct Entry {
  std::string name;
  std::string data;
  char type = '0';
  enum class Name { kPlain, kPrefix, kGnuLong, kPax } how = Name::kPlain;
};

std::string Octal(std::uint64_t v, std::size_t width) {
  std::string s(width - 1, '0');
  for (std::size_t i = width - 1; i-- > 0 && v != 0; v /= 8) s[i] = static_cast<char>('0' + v % 8);
  return s;  // the field's last byte stays NUL
}

// A 512-byte header with its checksum.
std::string Header(const std::string& name, std::uint64_t size, char type,
                   const std::string& prefix = "") {
  std::string h(512, '\0');
  h.replace(0, std::min<std::size_t>(name.size(), 100), name.substr(0, 100));
  h.replace(100, 7, Octal(0644, 8));
  h.replace(108, 7, Octal(0, 8));
  h.replace(116, 7, Octal(0, 8));
  h.replace(124, 11, Octal(size, 12));
  h.replace(136, 11, Octal(0, 12));
  h[156] = type;
  h.replace(257, 6, std::string("ustar\0", 6));
  h.replace(263, 2, "00");
  h.replace(345, prefix.size(), prefix);
  h.replace(148, 8, "        ");
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  h.replace(148, 7, Octal(sum, 8));
  return h;
}

std::string Padded(const std::string& data) {
  return data + std::string((512 - data.size() % 512) % 512, '\0');
}

// A tar file of `entries`, in their order, ending with two zero blocks.
std::string Tar(const std::vector<Entry>& entries) {
  std::string out;
  for (const Entry& e : entries) {
    std::string name = e.name;
    std::string prefix;
    if (e.how == Entry::Name::kGnuLong) {
      out += Header("././@LongLink", e.name.size() + 1, 'L') + Padded(e.name + '\0');
      name = e.name.substr(0, 99);
    } else if (e.how == Entry::Name::kPax) {
      std::string rec = " path=" + e.name + "\n";
      std::string len = std::to_string(rec.size() + 2);
      rec = std::to_string(rec.size() + len.size()) + rec;
      out += Header("PaxHeaders/x", rec.size(), 'x') + Padded(rec);
      name = "truncated-name";
    } else if (e.how == Entry::Name::kPrefix) {
      std::size_t cut = e.name.rfind('/');
      prefix = e.name.substr(0, cut);
      name = e.name.substr(cut + 1);
    }
    out += Header(name, e.data.size(), e.type, prefix) + Padded(e.data);
  }
  return out + std::string(1024, '\0');
}

// The files under `dir`, as tar entries named relative to it with `top`
// before them, in a shuffled order (an archive need not list a repository's
// lists before its item folders).
std::vector<Entry> EntriesOf(const std::string& dir, const std::string& top, unsigned seed) {
  std::vector<Entry> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string rel = top + fs::relative(e.path(), dir).string();
    if (e.is_directory()) {
      out.push_back({rel + "/", "", '5'});
      continue;
    }
    std::ifstream in(e.path(), std::ios::binary);
    out.push_back({rel, std::string(std::istreambuf_iterator<char>(in), {})});
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  std::shuffle(out.begin(), out.end(), std::mt19937(seed));
  return out;
}

// A GitCode repository of n issues and n PRs, PR i fixing issue i.
void WriteRepo(const std::string& dump, const std::string& name, int n) {
  std::string root = dump + "/gitcode/Ascend/" + name;
  json issues = json::array(), pulls = json::array();
  for (int i = 1; i <= n; ++i) {
    std::string num = std::to_string(i);
    issues.push_back({{"id", i},
                      {"number", num},
                      {"title", "问题 " + num},
                      {"body", "EZ9999 at step " + num},
                      {"state", i % 2 ? "closed" : "open"},
                      {"created_at", "2026-01-01T10:00:00+08:00"},
                      {"finished_at", i % 2 ? "2026-01-02T10:00:00+08:00" : ""}});
    pulls.push_back({{"id", 1000 + i},
                     {"number", i},
                     {"title", "fix " + num},
                     {"body", "fix #" + num},
                     {"state", "merged"},
                     {"merged_at", "2026-01-02T10:00:00+08:00"}});
    WriteFile(root + "/issues/" + num + "/comments.json",
              json::array({{{"id", i * 10}, {"body", "fixed by !" + num}}}).dump());
    WriteFile(
        root + "/pulls/" + num + "/commits.json",
        json::array({{{"sha", "sha" + num}, {"commit", {{"message", "fix #" + num}}}}}).dump());
    WriteFile(root + "/pulls/" + num + "/files.json",
              json::array({{{"filename", "f" + num + ".cc"}, {"additions", 1}}}).dump());
  }
  WriteFile(root + "/repo.json",
            json{{"full_name", "Ascend/" + name}, {"description", "d"}}.dump());
  WriteFile(root + "/issues.json", issues.dump());
  WriteFile(root + "/pulls.json", pulls.dump());
}

std::unique_ptr<Store> OpenStore(const std::string& dir) {
  auto s = Store::Open(dir, StoreOptions());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

// Imports `dump` into a new store at `db`; the counts, or a failed status.
StatusOr<ImportCounts> Import(const std::string& db, const std::string& dump,
                              std::unique_ptr<Store>* out = nullptr) {
  auto store = OpenStore(db);
  if (store == nullptr) return Status::IOError("no store");
  ImportCounts c;
  Status s = ImportDump(store.get(), dump, ImportOptions(), &c);
  if (out != nullptr) *out = std::move(store);
  if (!s.ok()) return s;
  return c;
}

void ExpectSameCounts(const ImportCounts& a, const ImportCounts& b) {
  EXPECT_EQ(a.repos, b.repos);
  EXPECT_EQ(a.issues, b.issues);
  EXPECT_EQ(a.pulls, b.pulls);
  EXPECT_EQ(a.comments, b.comments);
  EXPECT_EQ(a.commits, b.commits);
  EXPECT_EQ(a.files, b.files);
  EXPECT_EQ(a.platform_links, b.platform_links);
}

TEST(TarArchive, FindsMembersNamedEveryWay) {
  TempDir dir;
  std::string deep(150, 'd');
  WriteFile(dir / "a.tar",
            Tar({{"./top/", "", '5'},
                 {"./top/plain.json", "[1]"},
                 {"top/" + deep + "/prefixed.json", "[2]", '0', Entry::Name::kPrefix},
                 {"top/" + deep + "/gnu-long.json", "[3]", '0', Entry::Name::kGnuLong},
                 {"top/" + deep + "/pax.json", "[4]", '0', Entry::Name::kPax},
                 {"top/link.json", "", '2'},
                 {"top/plain.json", "[5, 6]"}}));
  auto a = TarArchive::Open(dir / "a.tar");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const TarArchive& t = **a;
  EXPECT_EQ(t.members().size(), 7u);
  const TarArchive::Member* m = t.Find("top/plain.json");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->size, 6u);  // the later of the two, as tar's extraction keeps
  for (const char* name : {"prefixed.json", "gnu-long.json", "pax.json"}) {
    m = t.Find("top/" + deep + "/" + name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->kind, TarArchive::Kind::kFile);
    EXPECT_EQ(m->size, 3u);
  }
  ASSERT_NE(t.Find("top"), nullptr);
  EXPECT_EQ(t.Find("top")->kind, TarArchive::Kind::kDirectory);
  EXPECT_EQ(t.Find("top/link.json")->kind, TarArchive::Kind::kLink);
  EXPECT_EQ(t.Find("top/none.json"), nullptr);
  std::vector<std::string> under;
  t.ForEachUnder("top/" + deep + "/", [&](const TarArchive::Member& x) {
    under.emplace_back(x.path.substr(x.path.rfind('/') + 1));
  });
  EXPECT_EQ(under, (std::vector<std::string>{"gnu-long.json", "pax.json", "prefixed.json"}));
}

TEST(TarArchive, BadArchivesSayWhatAndWhere) {
  TempDir dir;
  std::string good = Tar({{"a/b.json", std::string(2000, ' ')}, {"a/c.json", "[]"}});
  struct Case {
    std::string name, bytes, expect;
  };
  std::string bad_sum = good;
  bad_sum[2560 + 10] ^= 1;  // the second header's name
  std::vector<Case> cases = {
      {"cut.tar", good.substr(0, 1500), "byte 0: member of 2000 bytes runs past the end"},
      {"sum.tar", bad_sum, "byte 2560: tar header checksum mismatch"},
      {"gz.tar.gz", std::string("\x1f\x8b\x08\x00", 4) + std::string(600, 'x'),
       "compressed (gzip); decompress it first"},
      {"text.json", std::string(600, '['), "not a tar archive"},
      {"short.tar", "[]", "not a tar archive (too short)"},
      {"half.tar", good.substr(0, 2560 + 100), "byte 2560: truncated header"},
  };
  for (const Case& c : cases) {
    WriteFile(dir / c.name, c.bytes);
    auto a = TarArchive::Open(dir / c.name);
    ASSERT_FALSE(a.ok()) << c.name;
    EXPECT_NE(a.status().message().find(dir / c.name), std::string::npos) << a.status().ToString();
    EXPECT_NE(a.status().message().find(c.expect), std::string::npos) << a.status().ToString();
  }
  EXPECT_EQ(TarArchive::Open(dir / "missing.tar").status().code(), Status::Code::kIOError);
}

// The archive, shuffled, with its top folder or without, imports exactly what
// the folder does.
TEST(DumpArchive, ImportsWhatTheFolderImports) {
  TempDir dir;
  WriteRepo(dir / "dump", "a", 7);
  WriteRepo(dir / "dump", "b", 3);
  WriteFile(dir / "dump/README.md", "not a platform folder");
  auto folder = Import(dir / "db0", dir / "dump");
  ASSERT_TRUE(folder.ok()) << folder.status().ToString();
  EXPECT_EQ(folder->issues, 10);
  for (const std::string top : {"", "./", "dump/"}) {
    std::string tar = dir / ("d" + std::to_string(top.size()) + ".tar");
    WriteFile(tar, Tar(EntriesOf(dir / "dump", top, static_cast<unsigned>(top.size()))));
    auto repos = ListDumpRepositories(tar);
    ASSERT_TRUE(repos.ok()) << repos.status().ToString();
    ASSERT_EQ(repos->size(), 2u);
    EXPECT_EQ((*repos)[0].dir, tar + ":" + (top == "dump/" ? top : "") + "gitcode/Ascend/a");
    std::unique_ptr<Store> store;
    auto packed = Import(dir / ("db" + std::to_string(top.size())), tar, &store);
    ASSERT_TRUE(packed.ok()) << packed.status().ToString();
    ExpectSameCounts(*folder, *packed);
    auto issue = store->GetIssue(ParseRef("gitcode:Ascend/a#7").value());
    ASSERT_TRUE(issue.ok());
    EXPECT_EQ(issue->title, "问题 7");
    std::vector<PlatformLink> links;
    ASSERT_TRUE(store->ListPlatformLinks(ParseRef("gitcode:Ascend/b!3").value(), &links).ok());
  }
}

// A repository the store holds is verified, then written, from the archive
// (two passes over its members): the same archive again changes nothing, a
// newer one changes what changed.
TEST(DumpArchive, ReimportFromAnArchiveVerifiesThenWrites) {
  TempDir dir;
  WriteRepo(dir / "dump", "a", 4);
  std::string tar = dir / "d.tar";
  WriteFile(tar, Tar(EntriesOf(dir / "dump", "", 3)));
  std::unique_ptr<Store> store = OpenStore(dir / "db");
  ImportCounts first, again, newer;
  ASSERT_TRUE(ImportDump(store.get(), tar, ImportOptions(), &first).ok());
  ASSERT_TRUE(ImportDump(store.get(), tar, ImportOptions(), &again).ok());
  EXPECT_GT(first.changed, 0);
  EXPECT_EQ(again.changed, 0);
  ExpectSameCounts(first, again);
  WriteRepo(dir / "dump", "a", 6);  // two more issues and PRs
  WriteFile(tar, Tar(EntriesOf(dir / "dump", "", 4)));
  ASSERT_TRUE(ImportDump(store.get(), tar, ImportOptions(), &newer).ok());
  EXPECT_EQ(newer.issues, 6);
  EXPECT_GT(newer.changed, 0);
  EXPECT_TRUE(store->GetIssue(ParseRef("gitcode:Ascend/a#6").value()).ok());
}

// What GNU tar writes (when the machine has it) imports the same.
TEST(DumpArchive, ArchiveWrittenByTarImports) {
  if (std::system("tar --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no tar";
  TempDir dir;
  WriteRepo(dir / "dump", "a", 4);
  std::string cmd = "tar -cf '" + (dir / "d.tar") + "' -C '" + (dir / "dump") + "' .";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  auto folder = Import(dir / "db0", dir / "dump");
  auto packed = Import(dir / "db1", dir / "d.tar");
  ASSERT_TRUE(folder.ok() && packed.ok()) << packed.status().ToString();
  ExpectSameCounts(*folder, *packed);
  EXPECT_EQ(packed->issues, 4);
}

// Bad input in a member is named as ARCHIVE:PATH with its byte offset, and
// nothing of that repository is stored; a link where a file should be is
// refused by name.
TEST(DumpArchive, BadMemberIsNamedAndImportsNothingOfItsRepository) {
  TempDir dir;
  WriteRepo(dir / "dump", "a", 3);
  WriteRepo(dir / "dump", "b", 2);
  WriteFile(dir / "dump/gitcode/Ascend/a/pulls/2/files.json", R"([{"filename": "x"}, {"file)");
  std::string tar = dir / "d.tar";
  WriteFile(tar, Tar(EntriesOf(dir / "dump", "", 1)));
  std::unique_ptr<Store> store;
  auto r = Import(dir / "db", tar, &store);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(tar + ":gitcode/Ascend/a/pulls/2/files.json: byte "),
            std::string::npos)
      << r.status().ToString();
  EXPECT_FALSE(store->GetIssue(ParseRef("gitcode:Ascend/a#1").value()).ok());
  EXPECT_TRUE(store->GetIssue(ParseRef("gitcode:Ascend/b#1").value()).ok());

  WriteRepo(dir / "dump", "a", 3);  // good again
  std::vector<Entry> entries = EntriesOf(dir / "dump", "", 2);
  for (Entry& e : entries) {
    if (e.name == "gitcode/Ascend/b/issues.json") {
      e.type = '2';
      e.data.clear();
    }
  }
  WriteFile(tar, Tar(entries));
  r = Import(dir / "db2", tar);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                tar + ":gitcode/Ascend/b/issues.json: not a regular file (a link in the archive)"),
            std::string::npos)
      << r.status().ToString();
}

TEST(DumpArchive, UnknownPlatformAndEmptyArchiveAreNamed) {
  TempDir dir;
  WriteFile(dir / "p.tar",
            Tar({{"gitlab/o/r/issues.json", "[]"}, {"gitcode/o/r/issues.json", "[]"}}));
  Status s = ListDumpRepositories(dir / "p.tar").status();
  EXPECT_NE(s.message().find("unknown platform folder \"gitlab\""), std::string::npos)
      << s.ToString();
  WriteFile(dir / "e.tar", Tar({{"notes.txt", "hello"}, {"other.txt", "x"}}));
  s = ListDumpRepositories(dir / "e.tar").status();
  EXPECT_NE(s.message().find("no repositories found in the archive"), std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace fixgraph::ingest
