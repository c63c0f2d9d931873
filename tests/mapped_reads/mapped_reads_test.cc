// cli/mapped_reads.h: this test binary links the hooks, so its own pread and
// close are the server's.
#include "mapped_reads.h"

#include "testutil/testutil.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>

namespace fixgraph {
namespace {

using cli::mapped_reads::GetCounts;
using fixgraph::testing::TempDir;

// `n` bytes that differ with `seed` and with the offset.
std::string Pattern(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + static_cast<char>(i % 251));
  return s;
}

void Write(const std::string& path, const std::string& bytes, bool append = false) {
  std::ofstream f(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
  f << bytes;
}

std::string ReadAt(int fd, size_t n, off_t offset) {
  std::string out(n, '\0');
  const ssize_t got = ::pread(fd, out.data(), n, offset);
  out.resize(got < 0 ? 0 : static_cast<size_t>(got));
  return out;
}

bool MappedNow(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream all;
  all << maps.rdbuf();
  return all.str().find(path) != std::string::npos;
}

TEST(MappedReads, AGlassTableIsReadOutOfAMapping) {
  TempDir dir;
  const std::string path = dir / "postlist.glass";
  const std::string bytes = Pattern(3 * 8192, 'a');
  Write(path, bytes);
  const auto before = GetCounts();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(ReadAt(fd, 8192, 8192), bytes.substr(8192, 8192));
  EXPECT_EQ(ReadAt(fd, 100, 5), bytes.substr(5, 100));
  EXPECT_EQ(ReadAt(fd, 8192, 2 * 8192), bytes.substr(2 * 8192));
  EXPECT_TRUE(MappedNow(path));
  const auto after = GetCounts();
  EXPECT_EQ(after.files_mapped, before.files_mapped + 1);
  EXPECT_EQ(after.mapped_reads, before.mapped_reads + 3);
  // Past the end: the kernel's answer (a short read, then none).
  EXPECT_EQ(ReadAt(fd, 200, 3 * 8192 - 50), bytes.substr(3 * 8192 - 50));
  EXPECT_EQ(ReadAt(fd, 10, 3 * 8192 + 10), "");
  EXPECT_EQ(GetCounts().mapped_reads, after.mapped_reads);
  EXPECT_EQ(::close(fd), 0);
  EXPECT_FALSE(MappedNow(path));
}

TEST(MappedReads, OtherFilesAreReadByTheKernel) {
  TempDir dir;
  const std::string path = dir / "000012.sst";
  const std::string bytes = Pattern(4096, 'k');
  Write(path, bytes);
  const auto before = GetCounts();
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(ReadAt(fd, 1000, 17), bytes.substr(17, 1000));
  EXPECT_FALSE(MappedNow(path));
  EXPECT_EQ(GetCounts().files_mapped, before.files_mapped);
  EXPECT_EQ(GetCounts().mapped_reads, before.mapped_reads);
  EXPECT_EQ(::close(fd), 0);
}

// Another process's writer changes the table in place and adds blocks: a
// mapped reader sees both, as pread would.
TEST(MappedReads, WritesToTheFileAreSeenInPlaceAndPastTheMappedEnd) {
  TempDir dir;
  const std::string path = dir / "termlist.glass";
  Write(path, Pattern(8192, 'a'));
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ReadAt(fd, 16, 0), Pattern(16, 'a'));  // mapped now
  const int wfd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(wfd, 0);
  const std::string changed = Pattern(8192, 'x');
  ASSERT_EQ(::pwrite(wfd, changed.data(), changed.size(), 0), 8192);
  const std::string added = Pattern(8192, 'n');
  ASSERT_EQ(::pwrite(wfd, added.data(), added.size(), 8192), 8192);
  EXPECT_EQ(::close(wfd), 0);
  const auto before = GetCounts();
  EXPECT_EQ(ReadAt(fd, 8192, 0), changed);
  EXPECT_EQ(GetCounts().mapped_reads, before.mapped_reads + 1);
  EXPECT_EQ(ReadAt(fd, 8192, 8192), added);  // past the mapping: the kernel
  EXPECT_EQ(ReadAt(fd, 100, 8192 - 50), changed.substr(8192 - 50) + added.substr(0, 50));
  EXPECT_EQ(GetCounts().mapped_reads, before.mapped_reads + 1);
  EXPECT_EQ(::close(fd), 0);
}

// close unmaps: the descriptor number, given to another file, reads that
// file (a stale mapping would read the first).
TEST(MappedReads, ADescriptorNumberUsedAgainReadsItsNewFile) {
  TempDir dir;
  const std::string first = dir / "a.glass", second = dir / "b.glass", plain = dir / "c.txt";
  Write(first, Pattern(8192, 'a'));
  Write(second, Pattern(8192, 'b'));
  Write(plain, Pattern(8192, 'c'));
  const int fd1 = ::open(first.c_str(), O_RDONLY);
  ASSERT_GE(fd1, 0);
  EXPECT_EQ(ReadAt(fd1, 64, 64), Pattern(8192, 'a').substr(64, 64));
  EXPECT_EQ(::close(fd1), 0);
  const int fd2 = ::open(second.c_str(), O_RDONLY);
  ASSERT_EQ(fd2, fd1);  // the lowest free number
  EXPECT_EQ(ReadAt(fd2, 64, 64), Pattern(8192, 'b').substr(64, 64));
  EXPECT_TRUE(MappedNow(second));
  EXPECT_FALSE(MappedNow(first));
  EXPECT_EQ(::close(fd2), 0);
  const int fd3 = ::open(plain.c_str(), O_RDONLY);
  ASSERT_EQ(fd3, fd1);
  EXPECT_EQ(ReadAt(fd3, 64, 64), Pattern(8192, 'c').substr(64, 64));
  EXPECT_EQ(::close(fd3), 0);
}

TEST(MappedReads, TheEnvironmentTurnsMappingsOff) {
  TempDir dir;
  const std::string path = dir / "position.glass";
  Write(path, Pattern(8192, 'p'));
  ASSERT_EQ(::setenv("FIXGRAPH_MAPPED_READS", "0", 1), 0);
  const auto before = GetCounts();
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(ReadAt(fd, 128, 1), Pattern(8192, 'p').substr(1, 128));
  EXPECT_FALSE(MappedNow(path));
  EXPECT_EQ(GetCounts().files_mapped, before.files_mapped);
  EXPECT_EQ(::close(fd), 0);
  ASSERT_EQ(::unsetenv("FIXGRAPH_MAPPED_READS"), 0);
}

// Read-ahead advice on a mapped table is not passed on (the reads are
// copies out of the mapping); before the first read, on other files and
// for other advice it is the kernel's, errors included.
TEST(MappedReads, ReadAheadAdviceOnAMappedTableIsSkipped) {
  TempDir dir;
  const std::string table = dir / "postlist.glass", plain = dir / "LOG";
  Write(table, Pattern(4 * 8192, 't'));
  Write(plain, Pattern(8192, 'l'));
  const int fd = ::open(table.c_str(), O_RDONLY);
  const int other = ::open(plain.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_GE(other, 0);
  const auto before = GetCounts();
  EXPECT_EQ(::posix_fadvise(fd, 8192, 8192, POSIX_FADV_WILLNEED), 0);  // not mapped yet
  EXPECT_EQ(GetCounts().advice_skipped, before.advice_skipped);
  ASSERT_EQ(ReadAt(fd, 8, 0), Pattern(8, 't'));  // mapped now
  EXPECT_EQ(::posix_fadvise(fd, 8192, 8192, POSIX_FADV_WILLNEED), 0);
  EXPECT_EQ(::posix_fadvise64(fd, 2 * 8192, 8192, POSIX_FADV_WILLNEED), 0);
  EXPECT_EQ(GetCounts().advice_skipped, before.advice_skipped + 2);
  EXPECT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
  ASSERT_EQ(ReadAt(other, 8, 0), Pattern(8, 'l'));
  EXPECT_EQ(::posix_fadvise(other, 0, 8192, POSIX_FADV_WILLNEED), 0);
  EXPECT_EQ(GetCounts().advice_skipped, before.advice_skipped + 2);
  EXPECT_EQ(::posix_fadvise(fd, 0, 8192, 12345), EINVAL);
  EXPECT_EQ(::posix_fadvise(-1, 0, 8192, POSIX_FADV_WILLNEED), EBADF);
  EXPECT_EQ(::close(other), 0);
  EXPECT_EQ(::close(fd), 0);
  // Closed: the number is no longer a mapped table's.
  EXPECT_EQ(::posix_fadvise(fd, 0, 8192, POSIX_FADV_WILLNEED), EBADF);
  EXPECT_EQ(GetCounts().advice_skipped, before.advice_skipped + 2);
}

TEST(MappedReads, BadDescriptorsFailAsTheKernelSays) {
  char buf[8];
  errno = 0;
  EXPECT_EQ(::pread(-1, buf, sizeof buf, 0), -1);
  EXPECT_EQ(errno, EBADF);
  errno = 0;
  EXPECT_EQ(::pread(1 << 20, buf, sizeof buf, 0), -1);
  EXPECT_EQ(errno, EBADF);
  errno = 0;
  EXPECT_EQ(::close(-1), -1);
  EXPECT_EQ(errno, EBADF);
  TempDir dir;
  const std::string path = dir / "x.glass";
  Write(path, Pattern(64, 'x'));
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  errno = 0;
  EXPECT_EQ(::pread(fd, buf, sizeof buf, -1), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(::close(fd), 0);
}

}  // namespace
}  // namespace fixgraph
