#include "dump_list.h"

#include "tar_archive.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string_view>
#include <utility>

namespace fixgraph::ingest {

namespace fs = std::filesystem;

std::vector<fs::path> SortedSubdirs(const fs::path& dir, std::error_code* ec) {
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, *ec), end; !*ec && it != end; it.increment(*ec)) {
    if (it->is_directory()) out.push_back(it->path());
  }
  // Siblings: comparing the strings orders them as comparing the paths does, faster.
  std::sort(out.begin(), out.end(),
            [](const fs::path& a, const fs::path& b) { return a.native() < b.native(); });
  return out;
}

namespace {

// Quotes a folder name for an error message: control characters (a newline)
// as \xNN, so that the message stays on one line.
std::string QuotedName(const std::string& name) {
  std::string out = "\"";
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A repository of the dump: `refused` receives an error instead when a name
// cannot be an OWNER or REPO; `where` names the platform folder.
bool AcceptRepository(Platform platform, std::string owner, std::string name,
                      const std::string& where, DumpRepo* r, std::vector<Status>* refused) {
  r->repo.platform = platform;
  r->repo.owner = std::move(owner);
  r->repo.name = std::move(name);
  if (IsValidRepoSegment(r->repo.owner) && IsValidRepoSegment(r->repo.name)) return true;
  refused->push_back(Status::InvalidArgument(
      where + "/" + QuotedName(r->repo.owner) + "/" + QuotedName(r->repo.name) +
      ": not a valid OWNER/REPO folder (names hold only letters, digits, '.', '-' and "
      "'_'); not imported"));
  return false;
}

// The repositories found, sorted; when none, the first refused folder's
// error, else `none` (what was searched).
StatusOr<std::vector<DumpRepo>> Listed(std::vector<DumpRepo> out,
                                       const std::vector<Status>& refused,
                                       const std::string& none) {
  if (out.empty() && !refused.empty()) return refused.front();
  if (out.empty())
    return Status::InvalidArgument(none + " (expected <platform>/<owner>/<repo>/ folders)");
  std::sort(out.begin(), out.end(),
            [](const DumpRepo& a, const DumpRepo& b) { return a.repo < b.repo; });
  return out;
}

Status UnknownPlatform(const std::string& where, const std::string& name) {
  return Status::InvalidArgument(where + ": unknown platform folder \"" + name +
                                 "\" (expected gitcode, gitee or github)");
}

// The repositories of a dump packed into a tar file. Its members lie under
// the platform folders, or under one top folder that holds them.
StatusOr<std::vector<DumpRepo>> ListArchiveRepositories(const std::string& path,
                                                        std::vector<Status>* refused) {
  FG_ASSIGN_OR_RETURN(std::unique_ptr<const TarArchive> opened, TarArchive::Open(path));
  std::shared_ptr<const TarArchive> archive(std::move(opened));
  auto first = [](std::string_view p) { return p.substr(0, p.find('/')); };
  // The top folder all members lie under, with its '/', when no platform
  // folder is at the top (`tar -cf dump.tar DUMP`).
  std::string root;
  {
    bool platform_at_top = false, one_top = true;
    std::string_view top, last;
    for (const TarArchive::Member& m : archive->members()) {
      std::string_view f = first(m.path);
      if (f == last) continue;  // members of one folder come together: parsed once
      last = f;
      platform_at_top = platform_at_top || ParsePlatform(std::string(f)).ok();
      if (top.empty()) top = f;
      one_top = one_top && f == top;
    }
    if (!platform_at_top && one_top && !top.empty()) root = std::string(top) + "/";
  }
  std::map<std::string, DumpRepo> found;  // by "<platform>/<owner>/<repo>"
  std::string last;                       // the folder of the last repository found, with its '/'
  for (const TarArchive::Member& m : archive->members()) {
    if (m.path.substr(0, root.size()) != root) continue;
    if (!last.empty() && m.path.substr(0, last.size()) == last) continue;
    std::string_view rel = m.path.substr(root.size());
    std::size_t a = rel.find('/');
    std::string_view pname = rel.substr(0, a);
    if (pname.empty() || pname[0] == '.') continue;  // .git and friends
    bool is_folder = a != std::string_view::npos || m.kind == TarArchive::Kind::kDirectory;
    if (!is_folder) continue;  // README.md, MANIFEST.json
    auto platform = ParsePlatform(std::string(pname));
    if (!platform.ok())
      return UnknownPlatform(path + ":" + root + std::string(pname), std::string(pname));
    if (a == std::string_view::npos) continue;
    std::size_t b = rel.find('/', a + 1);
    if (b == std::string_view::npos) continue;  // a file or folder of the platform folder
    std::size_t c = rel.find('/', b + 1);
    if (c == std::string_view::npos && m.kind != TarArchive::Kind::kDirectory) continue;
    std::string key(rel.substr(0, c));
    last = root + key + "/";
    if (found.count(key) != 0) continue;
    DumpRepo r;
    if (!AcceptRepository(
            *platform, std::string(rel.substr(a + 1, b - a - 1)),
            std::string(rel.substr(b + 1, c == std::string_view::npos ? c : c - b - 1)),
            path + ":" + root + std::string(pname), &r, refused)) {
      found.emplace(key, DumpRepo());  // refused once
      continue;
    }
    r.dir = path + ":" + root + key;
    r.archive = archive;
    r.in_archive = root + key + "/";
    found.emplace(key, std::move(r));
  }
  std::vector<DumpRepo> out;
  for (auto& [key, r] : found)
    if (r.archive != nullptr) out.push_back(std::move(r));
  return Listed(std::move(out), *refused, path + ": no repositories found in the archive");
}

}  // namespace

StatusOr<std::vector<DumpRepo>> ListRepositoryFolders(const std::string& dump_dir,
                                                      std::vector<Status>* refused) {
  std::error_code ec;
  fs::path root(dump_dir);
  if (!fs::exists(root, ec)) return Status::IOError(dump_dir + ": no such file or directory");
  if (fs::is_regular_file(root, ec)) return ListArchiveRepositories(dump_dir, refused);
  if (!fs::is_directory(root, ec))
    return Status::InvalidArgument(dump_dir + ": not a directory nor a tar file");
  std::vector<DumpRepo> out;
  std::vector<fs::path> platforms = SortedSubdirs(root, &ec);
  if (ec) return Status::IOError(dump_dir + ": " + ec.message());
  for (const fs::path& pdir : platforms) {
    std::string pname = pdir.filename().string();
    if (!pname.empty() && pname[0] == '.') continue;  // .git and friends
    auto platform = ParsePlatform(pname);
    if (!platform.ok()) return UnknownPlatform(pdir.string(), pname);
    for (const fs::path& odir : SortedSubdirs(pdir, &ec)) {
      for (const fs::path& rdir : SortedSubdirs(odir, &ec)) {
        DumpRepo r;
        if (!AcceptRepository(*platform, odir.filename().string(), rdir.filename().string(),
                              pdir.string(), &r, refused))
          continue;
        r.dir = rdir.string();
        out.push_back(std::move(r));
      }
      if (ec) return Status::IOError(odir.string() + ": " + ec.message());
    }
    if (ec) return Status::IOError(pdir.string() + ": " + ec.message());
  }
  return Listed(std::move(out), *refused, dump_dir + ": no repositories found");
}

StatusOr<std::vector<DumpRepo>> ListDumpRepositories(const std::string& dump_dir) {
  std::vector<Status> refused;
  FG_ASSIGN_OR_RETURN(std::vector<DumpRepo> repos, ListRepositoryFolders(dump_dir, &refused));
  if (!refused.empty()) return refused.front();
  return repos;
}

}  // namespace fixgraph::ingest
