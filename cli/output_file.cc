#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace fixgraph::cli {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Status Errno(const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(errno));
}

}  // namespace

Status WriteOutputFile(const std::string& path, std::string_view text) {
  return WriteOutputFileFrom(path, [&](const PieceSink& sink) { return sink(text); });
}

Status WriteOutputFileFrom(const std::string& path,
                           const std::function<Status(const PieceSink& sink)>& produce) {
  if (path.empty()) return Status::InvalidArgument("output path is empty");
  struct stat st {};
  bool exists = ::lstat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return Errno(path);
  if (exists && !S_ISREG(st.st_mode))
    return Status::InvalidArgument(path + ": " + KindOf(st.st_mode) +
                                   ", not a regular file: not replaced (use -o - to write to "
                                   "stdout)");
  // The temporary file: beside the target (rename stays in one file system),
  // hidden, named uniquely; O_EXCL never reuses an existing name.
  std::size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = dir + "." + base + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0 && errno != EEXIST) return Errno("cannot create " + tmp);
  }
  if (fd < 0) return Errno("cannot create " + tmp);
  auto fail = [&](const std::string& what) {
    Status s = Errno(what);
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  };
  Status produced = produce([&](std::string_view text) {
    for (std::size_t done = 0; done < text.size();) {
      ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno("cannot write " + tmp);
      }
      done += static_cast<std::size_t>(n);
    }
    return Status::OK();
  });
  if (!produced.ok()) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return produced;
  }
  if (exists && ::fchmod(fd, st.st_mode & 07777) != 0) return fail("cannot set the mode of " + tmp);
  if (::fsync(fd) != 0) return fail("cannot write " + tmp);
  if (::close(fd) != 0) {
    Status s = Errno("cannot write " + tmp);
    ::unlink(tmp.c_str());
    return s;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = Errno("cannot replace " + path);
    ::unlink(tmp.c_str());
    return s;
  }
  // The rename itself made durable (best effort: the output is complete either way).
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::OK();
}

}  // namespace fixgraph::cli
