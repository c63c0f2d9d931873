#include "tar_archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

namespace fixgraph::ingest {
namespace {

constexpr std::size_t kBlock = 512;
constexpr std::size_t kWindow = std::size_t{1} << 20;       // headers are read in windows of this
constexpr std::uint64_t kAdvise = std::uint64_t{64} << 20;  // read ahead of the headers
constexpr std::size_t kArenaBlock = std::size_t{1}
                                    << 20;  // member paths are kept in blocks of this
constexpr std::uint64_t kMaxNameBytes = std::uint64_t{1} << 16;  // a GNU long name
constexpr std::uint64_t kMaxPaxBytes = std::uint64_t{1} << 20;   // a pax extended header

// Header fields (POSIX ustar; GNU tar uses the same offsets).
constexpr std::size_t kNameAt = 0, kNameLen = 100;
constexpr std::size_t kSizeAt = 124, kSizeLen = 12;
constexpr std::size_t kChecksumAt = 148, kChecksumLen = 8;
constexpr std::size_t kTypeAt = 156;
constexpr std::size_t kMagicAt = 257;
constexpr std::size_t kPrefixAt = 345, kPrefixLen = 155;

std::string ByteAt(std::uint64_t offset) { return "byte " + std::to_string(offset); }

// A NUL-terminated field of at most `len` bytes.
std::string_view Field(const char* h, std::size_t at, std::size_t len) {
  const char* p = h + at;
  return {p, strnlen(p, len)};
}

// An octal number field (spaces and NULs around it), or GNU's base-256 form
// (first byte's high bit set) for sizes of 8 GiB and more.
std::optional<std::uint64_t> NumberField(const char* h, std::size_t at, std::size_t len) {
  const auto* p = reinterpret_cast<const unsigned char*>(h + at);
  if ((p[0] & 0x80) != 0) {
    if ((p[0] & 0x40) != 0) return std::nullopt;  // negative
    std::uint64_t v = p[0] & 0x3f;
    for (std::size_t i = 1; i < len; ++i) {
      if (v >> 56 != 0) return std::nullopt;
      v = (v << 8) | p[i];
    }
    return v;
  }
  std::size_t i = 0;
  while (i < len && (p[i] == ' ' || p[i] == '\0')) ++i;
  std::uint64_t v = 0;
  bool any = false;
  for (; i < len && p[i] >= '0' && p[i] <= '7'; ++i) {
    if (v >> 61 != 0) return std::nullopt;
    v = v * 8 + (p[i] - '0');
    any = true;
  }
  for (; i < len; ++i)
    if (p[i] != ' ' && p[i] != '\0') return std::nullopt;
  if (!any) return std::nullopt;
  return v;
}

// The header's checksum: the sum of its bytes with the checksum field taken
// as spaces, unsigned (POSIX) or signed (some old writers).
bool ChecksumMatches(const char* h) {
  std::optional<std::uint64_t> stored = NumberField(h, kChecksumAt, kChecksumLen);
  if (!stored) return false;
  // Every byte summed, then the field's own bytes replaced by spaces (one
  // loop without a branch, which the compiler vectorises).
  std::uint64_t unsigned_sum = 0;
  std::int64_t signed_sum = 0;
  for (std::size_t i = 0; i < kBlock; ++i) {
    unsigned_sum += static_cast<unsigned char>(h[i]);
    signed_sum += static_cast<signed char>(h[i]);
  }
  for (std::size_t i = kChecksumAt; i < kChecksumAt + kChecksumLen; ++i) {
    unsigned_sum += std::uint64_t{' '} - static_cast<unsigned char>(h[i]);
    signed_sum += std::int64_t{' '} - static_cast<signed char>(h[i]);
  }
  return *stored == unsigned_sum || static_cast<std::int64_t>(*stored) == signed_sum;
}

bool AllZero(const char* h) {
  for (std::size_t i = 0; i < kBlock; ++i)
    if (h[i] != 0) return false;
  return true;
}

// The compressed format whose magic number starts `head`, or nullptr.
const char* CompressionOf(const unsigned char* head, std::size_t n) {
  auto starts = [&](std::initializer_list<unsigned char> magic) {
    if (n < magic.size()) return false;
    return std::equal(magic.begin(), magic.end(), head);
  };
  if (starts({0x1f, 0x8b})) return "gzip";
  if (starts({'B', 'Z', 'h'})) return "bzip2";
  if (starts({0xfd, '7', 'z', 'X', 'Z', 0x00})) return "xz";
  if (starts({0x28, 0xb5, 0x2f, 0xfd})) return "zstd";
  return nullptr;
}

std::string_view Normalize(std::string_view p) {
  for (;;) {
    if (p.substr(0, 2) == "./") {
      p.remove_prefix(2);
    } else if (!p.empty() && p.front() == '/') {
      p.remove_prefix(1);
    } else {
      break;
    }
  }
  while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  if (p == ".") return {};
  return p;
}

Status ReadFully(int fd, std::uint64_t offset, char* out, std::size_t n, const std::string& path) {
  std::size_t done = 0;
  while (done < n) {
    ssize_t got = ::pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(path + ": read error at " + ByteAt(offset + done) + ": " +
                             std::strerror(errno));
    }
    if (got == 0)
      return Status::Corruption(path + ": " + ByteAt(offset + done) + ": unexpected end of file");
    done += static_cast<std::size_t>(got);
  }
  return Status::OK();
}

// The records of a pax extended header ("LEN key=value\n" each) that name
// the next member: its `path` and `size`. `at` (the header's data offset)
// and `path` name a bad record.
Status ParsePax(std::string_view rest, std::uint64_t at, const std::string& path,
                std::optional<std::string>* pax_path, std::optional<std::uint64_t>* pax_size) {
  auto bad = [&](const char* what) {
    return Status::Corruption(path + ": " + ByteAt(at) + ": bad pax " + what);
  };
  while (!rest.empty()) {
    std::size_t sp = rest.find(' ');
    std::uint64_t len = 0;
    bool ok = sp != std::string_view::npos && sp > 0;
    for (std::size_t i = 0; ok && i < sp; ++i) {
      ok = rest[i] >= '0' && rest[i] <= '9' && len < (std::uint64_t{1} << 40);
      len = len * 10 + static_cast<std::uint64_t>(rest[i] - '0');
    }
    if (!ok || len <= sp + 1 || len > rest.size() || rest[len - 1] != '\n')
      return bad("header record");
    std::string_view record = rest.substr(sp + 1, len - sp - 2);
    std::size_t eq = record.find('=');
    if (eq != std::string_view::npos) {
      std::string_view key = record.substr(0, eq), value = record.substr(eq + 1);
      if (key == "path") *pax_path = std::string(value);
      if (key == "size") {
        std::uint64_t v = 0;
        bool digits = !value.empty() && value.size() <= 19;
        for (char c : value) {
          digits = digits && c >= '0' && c <= '9';
          v = v * 10 + static_cast<std::uint64_t>(c - '0');
        }
        if (!digits) return bad("size");
        *pax_size = v;
      }
    }
    rest.remove_prefix(len);
  }
  return Status::OK();
}

// A member's name: a pax path, else a GNU long name, else the header's
// (with its ustar prefix).
std::string MemberName(const char* h, const std::optional<std::string>& long_name,
                       const std::optional<std::string>& pax_path) {
  if (pax_path) return *pax_path;
  if (long_name) return *long_name;
  std::string name;
  std::string_view prefix;
  if (std::memcmp(h + kMagicAt, "ustar\0", 6) == 0)  // POSIX; GNU's "ustar " has no prefix
    prefix = Field(h, kPrefixAt, kPrefixLen);
  if (!prefix.empty()) {
    name.assign(prefix);
    name += '/';
  }
  name += Field(h, kNameAt, kNameLen);
  return name;
}

TarArchive::Kind KindOf(char type) {
  switch (type) {
    case '0':
    case '\0':
    case '7':
      return TarArchive::Kind::kFile;
    case '5':
      return TarArchive::Kind::kDirectory;
    case '1':
    case '2':
      return TarArchive::Kind::kLink;
    default:
      return TarArchive::Kind::kOther;
  }
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string_view TarArchive::Keep(std::string_view path) {
  if (path.size() > arena_cap_ - arena_used_) {
    arena_cap_ = std::max(kArenaBlock, path.size());
    arena_.push_back(std::make_unique<char[]>(arena_cap_));
    arena_used_ = 0;
  }
  char* at = arena_.back().get() + arena_used_;
  std::memcpy(at, path.data(), path.size());
  arena_used_ += path.size();
  return {at, path.size()};
}

StatusOr<std::unique_ptr<const TarArchive>> TarArchive::Open(const std::string& path) {
  // O_NONBLOCK: a FIFO must not hang the import in open(); it is refused.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::IOError(path + ": cannot open: " + std::strerror(errno));
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return Status::IOError(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + ": not a regular file");
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  std::unique_ptr<TarArchive> a(new TarArchive());
  a->path_ = path;

  // Headers come from a window of the file; a member larger than the window
  // is passed with a seek, so its bytes are not read.
  std::string window(static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, file_size)), '\0');
  std::uint64_t win_at = 0, win_len = 0;
  // The kernel is asked to read ahead kAdvise bytes past the window, so that
  // the disk works while the headers are parsed (its own read-ahead keeps
  // about 128 KiB in flight).
  std::uint64_t advised = 0;
  auto header = [&](std::uint64_t at, const char** out) -> Status {
    if (at < win_at || at + kBlock > win_at + win_len) {
      if (at + kAdvise / 2 > advised && advised < file_size) {
        advised = std::max(advised, at);
        (void)::posix_fadvise(fd, static_cast<off_t>(advised), static_cast<off_t>(kAdvise),
                              POSIX_FADV_WILLNEED);
        advised += kAdvise;
      }
      std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, file_size - at));
      FG_RETURN_IF_ERROR(ReadFully(fd, at, window.data(), want, path));
      win_at = at;
      win_len = want;
    }
    *out = window.data() + (at - win_at);
    return Status::OK();
  };
  auto read_data = [&](std::uint64_t at, std::uint64_t n, std::string* out) -> Status {
    out->resize(static_cast<std::size_t>(n));
    return ReadFully(fd, at, out->data(), out->size(), path);
  };

  std::optional<std::string> long_name, pax_path;
  std::optional<std::uint64_t> pax_size;
  std::string scratch;
  std::uint64_t at = 0;
  for (;;) {
    if (at == file_size) break;  // no end-of-archive blocks: the members read are all there is
    if (file_size - at < kBlock) {
      if (at == 0) return Status::InvalidArgument(path + ": not a tar archive (too short)");
      return Status::Corruption(path + ": " + ByteAt(at) + ": truncated header");
    }
    const char* h = nullptr;
    FG_RETURN_IF_ERROR(header(at, &h));
    if (h[0] == '\0' && AllZero(h)) break;  // end of the archive
    if (!ChecksumMatches(h)) {
      if (at == 0) {
        if (const char* z = CompressionOf(reinterpret_cast<const unsigned char*>(h), kBlock))
          return Status::InvalidArgument(path + ": compressed (" + std::string(z) +
                                         "); decompress it first and import the .tar");
        return Status::InvalidArgument(path + ": not a tar archive (nor a dump folder)");
      }
      return Status::Corruption(path + ": " + ByteAt(at) + ": tar header checksum mismatch");
    }
    std::optional<std::uint64_t> size = NumberField(h, kSizeAt, kSizeLen);
    if (!size) return Status::Corruption(path + ": " + ByteAt(at) + ": bad size in tar header");
    const char type = h[kTypeAt];
    const bool extension = type == 'L' || type == 'K' || type == 'x' || type == 'g';
    if (!extension && pax_size) size = pax_size;
    const std::uint64_t data = at + kBlock;
    if (*size > file_size - data)
      return Status::Corruption(path + ": " + ByteAt(at) + ": member of " + std::to_string(*size) +
                                " bytes runs past the end of the archive (truncated?)");
    const std::uint64_t next = data + (*size + kBlock - 1) / kBlock * kBlock;
    if (type == 'L') {  // GNU: the next member's name
      if (*size > kMaxNameBytes)
        return Status::Corruption(path + ": " + ByteAt(at) + ": long name of " +
                                  std::to_string(*size) + " bytes");
      FG_RETURN_IF_ERROR(read_data(data, *size, &scratch));
      long_name = std::string(scratch.c_str());  // up to its NUL
    } else if (type == 'x') {  // pax: records "LEN key=value\n" for the next member
      if (*size > kMaxPaxBytes)
        return Status::Corruption(path + ": " + ByteAt(at) + ": pax header of " +
                                  std::to_string(*size) + " bytes");
      FG_RETURN_IF_ERROR(read_data(data, *size, &scratch));
      FG_RETURN_IF_ERROR(ParsePax(scratch, data, path, &pax_path, &pax_size));
    } else if (type != 'K' && type != 'g') {
      std::string name = MemberName(h, long_name, pax_path);
      Kind kind = KindOf(type);
      std::string_view norm = Normalize(name);
      if (!norm.empty()) {
        if (a->members_.size() >= UINT32_MAX)
          return Status::InvalidArgument(path + ": more than 4 billion members");
        a->members_.push_back(Member{a->Keep(norm), data, kind == Kind::kFile ? *size : 0, kind});
      }
      long_name.reset();
      pax_path.reset();
      pax_size.reset();
    }
    at = next;
  }
  a->IndexByPath();
  return std::unique_ptr<const TarArchive>(std::move(a));
}

void TarArchive::IndexByPath() {
  // Sorted as (path, index) pairs: no indirection per comparison, and the
  // index keeps archive order among equal paths.
  std::vector<std::pair<std::string_view, std::uint32_t>> keys;
  keys.reserve(members_.size());
  for (std::uint32_t i = 0; i < members_.size(); ++i) keys.emplace_back(members_[i].path, i);
  std::sort(keys.begin(), keys.end());
  by_path_.reserve(keys.size());
  for (const auto& k : keys) by_path_.push_back(k.second);
}

std::vector<std::uint32_t>::const_iterator TarArchive::LowerBound(std::string_view path) const {
  return std::lower_bound(
      by_path_.begin(), by_path_.end(), path,
      [&](std::uint32_t i, std::string_view p) { return members_[i].path < p; });
}

const TarArchive::Member* TarArchive::Find(std::string_view path) const {
  const Member* found = nullptr;
  for (auto it = LowerBound(path); it != by_path_.end() && members_[*it].path == path; ++it)
    found = &members_[*it];
  return found;
}

Status TarArchive::ReadMember(int fd, const Member& m, const std::string& name, std::string* out) {
  out->resize(m.size);
  return ReadFully(fd, m.offset, out->data(), out->size(), name);
}

StatusOr<int> TarArchive::OpenReader() const {
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(path_ + ": cannot open: " + std::strerror(errno));
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return fd;
}

}  // namespace fixgraph::ingest
