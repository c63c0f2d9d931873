// libFuzzer harness: the tar member index (ingest/tar_archive.h) over any
// bytes: Open either fails with a status or gives members that lie inside the
// file, each found again by its path.
#include "../../ingest/tar_archive.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using fixgraph::ingest::TarArchive;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int fd = ::memfd_create("fuzz_tar", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))
    std::abort();
  auto opened = TarArchive::Open("/proc/self/fd/" + std::to_string(fd));
  if (!opened.ok()) return 0;
  const TarArchive& a = **opened;
  std::size_t under = 0;
  a.ForEachUnder("", [&](const TarArchive::Member&) { ++under; });
  if (under != a.members().size()) std::abort();
  for (const TarArchive::Member& m : a.members()) {
    if (m.offset > size || m.size > size - m.offset) {
      std::fprintf(stderr, "member past the end: %.*s\n", static_cast<int>(m.path.size()),
                   m.path.data());
      std::abort();
    }
    if (m.path.empty() || a.Find(m.path) == nullptr) std::abort();
  }
  return 0;
}
