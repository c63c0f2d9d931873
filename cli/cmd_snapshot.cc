// fixgraph snapshot DIR [--publish]: a consistent copy of the data directory
// for readers (docs/deploy.md).
//
// What DIR holds: a data directory of its own (`fixgraph --db DIR ask` works
// on it): store/ (a RocksDB checkpoint, table files hard-linked), and copies
// of index-issues/ and index-docs/ (Xapian rewrites their files in place, so
// they are copied, never linked).
//
// Consistency: the store is opened for writing, so its lock keeps every other
// writer (import, sync, link, index-ask) out until the copy is complete, and
// the work earlier runs left pending (links, the ask index) is finished first
// (Context::OpenForWrite); an interrupted import is refused. `docs import`
// does not take the store's lock: each Xapian folder is copied with its
// version file read before and after, and copied again when a commit happened
// in between, so the copy holds one committed revision.
//
// Atomicity: everything is written into a hidden folder beside DIR and
// synced, then renamed to DIR; a crash leaves only that hidden folder.
#include "commands.h"
#include "refresh.h"

#include "fixgraph/engine/files.h"
#include "fixgraph/ingest/dump.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fixgraph::cli {
namespace {

namespace fs = std::filesystem;

// The folders of a data directory a snapshot copies besides store/.
constexpr const char* kIndexDirs[] = {"index-issues", "index-docs"};
// Attempts at copying one Xapian folder while commits keep changing it.
constexpr int kCopyAttempts = 5;

// The bytes of a Xapian folder's version file; NotFound when it has none.
StatusOr<std::string> VersionFile(const std::string& dir) {
  std::ifstream in(dir + "/iamglass", std::ios::binary);
  if (!in) return Status::NotFound(dir + " holds no Xapian database (no iamglass)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Copies the Xapian database folder `from` into the new folder `to` as of one
// committed revision. A writer never overwrites the blocks of the committed
// revision until it has committed the next one, and every commit rewrites the
// version file: the version file is copied first and read again after the
// tables; when it changed, the copy is made again.
Status CopyXapianDir(const std::string& from, const std::string& to) {
  for (int attempt = 0; attempt < kCopyAttempts; ++attempt) {
    auto before = VersionFile(from);
    if (!before.ok()) return before.status();
    std::error_code ec;
    fs::remove_all(to, ec);
    fs::create_directory(to, ec);
    if (ec) return Status::IOError("creating " + to + ": " + ec.message());
    {
      std::ofstream v(to + "/iamglass", std::ios::binary | std::ios::trunc);
      v << *before;
      if (!v.flush()) return Status::IOError("writing " + to + "/iamglass");
    }
    std::vector<std::string> copied{to + "/iamglass"};
    for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      // The lock file is per process; *.tmp is a commit being written.
      if (name == "iamglass" || name == "flintlock" ||
          (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0))
        continue;
      if (!it->is_regular_file(ec)) continue;
      std::error_code cp;
      fs::copy_file(it->path(), to + "/" + name, fs::copy_options::overwrite_existing, cp);
      if (cp)
        return Status::IOError("copying " + it->path().string() + " to " + to + ": " +
                               cp.message());
      copied.push_back(to + "/" + name);
    }
    if (ec) return Status::IOError("listing " + from + ": " + ec.message());
    auto after = VersionFile(from);
    if (after.ok() && *after == *before) {
      for (const std::string& p : copied) FG_RETURN_IF_ERROR(SyncPath(p));
      return SyncPath(to);
    }
  }
  return Status::Unavailable("the index " + from + " changed at every one of " +
                             std::to_string(kCopyAttempts) +
                             " attempts to copy it (is `docs import` running?); try again");
}

struct Written {
  std::vector<std::string> parts;  // "store", "index-issues", ...
};

// Everything but the rename: the checkpoint and the index copies in `tmp`.
Status WriteSnapshot(const Context& ctx, const std::string& tmp, Written* written) {
  std::error_code ec;
  if (!fs::exists(ctx.StoreDir() + "/CURRENT", ec))  // OpenForWrite would create one
    return Status::NotFound("no fixgraph store at " + ctx.StoreDir() +
                            " (run `fixgraph import` first, or pass --db)");
  auto store = ctx.OpenForWrite();  // the lock, and the pending work finished
  if (!store.ok()) return store.status();
  std::vector<std::string> interrupted;
  FG_RETURN_IF_ERROR(ingest::InterruptedImports(**store, &interrupted));
  if (!interrupted.empty()) {
    std::string list;
    for (const std::string& r : interrupted) list += (list.empty() ? "" : ", ") + r;
    return Status::FailedPrecondition("the import of " + list +
                                      " was interrupted; run the import again, then take the "
                                      "snapshot (a snapshot never holds half a repository)");
  }
  PendingWork pending;
  FG_RETURN_IF_ERROR((*store)->ListPending(&pending));
  if (!pending.empty())
    return Status::FailedPrecondition("the store still records pending work (" +
                                      PendingWarning(pending) + ")");
  FG_RETURN_IF_ERROR((*store)->WriteCheckpoint(tmp + "/store"));
  written->parts.emplace_back("store");
  for (const char* name : kIndexDirs) {
    std::string from = ctx.db_dir + "/" + name;
    if (!fs::exists(from, ec)) continue;
    FG_RETURN_IF_ERROR(CopyXapianDir(from, tmp + "/" + name));
    written->parts.emplace_back(name);
  }
  return SyncPath(tmp);
  // The store closes here, after the copies: no writer got in between.
}

// Points <parent>/current at `name` in one step (a new symlink renamed over
// the old one). Refuses to replace anything but a symlink.
Status Publish(const fs::path& parent, const std::string& name) {
  fs::path current = parent / "current";
  std::error_code ec;
  auto st = fs::symlink_status(current, ec);
  if (!ec && fs::exists(st) && !fs::is_symlink(st))
    return Status::FailedPrecondition(current.string() +
                                      " exists and is not a symbolic link; not replacing it");
  fs::path tmp = parent / (".current." + std::to_string(::getpid()));
  fs::remove(tmp, ec);
  fs::create_symlink(name, tmp, ec);
  if (ec) return Status::IOError("creating the link " + tmp.string() + ": " + ec.message());
  fs::rename(tmp, current, ec);
  if (ec) {
    std::error_code rm;
    fs::remove(tmp, rm);
    return Status::IOError("renaming " + tmp.string() + " to " + current.string() + ": " +
                           ec.message());
  }
  return SyncPath(parent.string());
}

void RunSnapshot(Context& ctx, const std::string& target_text, bool publish) {
  std::error_code ec;
  fs::path target = fs::absolute(fs::path(target_text), ec).lexically_normal();
  if (ec || target_text.empty())
    return ctx.Fail(Status::InvalidArgument("snapshot \"" + target_text + "\": not a usable path"));
  if (!target.has_filename()) target = target.parent_path();
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == ".." || name == "current")
    return ctx.Fail(Status::InvalidArgument(
        "snapshot \"" + target_text + "\": name the new snapshot's folder (not \"" + name + "\")"));
  auto st = fs::symlink_status(target, ec);
  if (!ec && fs::exists(st)) {
    if (!fs::is_directory(st))
      return ctx.Fail(
          Status::InvalidArgument("snapshot " + target.string() + " exists and is not a folder"));
    if (!fs::is_empty(target, ec))
      return ctx.Fail(Status::InvalidArgument(
          "snapshot " + target.string() +
          " exists and is not empty; a snapshot is never written over another (pick a new name)"));
  }
  const fs::path parent = target.parent_path();
  fs::create_directories(parent, ec);
  if (ec)
    return ctx.Fail(Status::IOError("snapshot: cannot create the folder " + parent.string() + ": " +
                                    ec.message()));
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    return ctx.Fail(Status::IOError("snapshot: cannot write in " + parent.string() + ": " +
                                    std::strerror(errno)));
  {
    std::error_code e1, e2;
    fs::path db = fs::weakly_canonical(ctx.db_dir, e1);
    fs::path in = fs::weakly_canonical(parent, e2);
    auto rel = in.lexically_relative(db);
    if (!e1 && !e2 && !rel.empty() && *rel.begin() != "..")
      return ctx.Fail(Status::InvalidArgument("snapshot " + target.string() +
                                              ": inside the data directory " + ctx.db_dir +
                                              "; put snapshots beside it"));
  }

  const std::string tmp =
      (parent / ("." + name + ".partial-" + std::to_string(::getpid()))).string();
  fs::remove_all(tmp, ec);
  fs::create_directory(tmp, ec);
  if (ec) return ctx.Fail(Status::IOError("snapshot: cannot create " + tmp + ": " + ec.message()));
  Written written;
  Status s = WriteSnapshot(ctx, tmp, &written);
  if (s.ok()) {
    fs::rename(tmp, target, ec);  // replaces an empty folder in one step
    if (ec) s = Status::IOError("renaming " + tmp + " to " + target.string() + ": " + ec.message());
  }
  if (!s.ok()) {
    std::error_code rm;
    fs::remove_all(tmp, rm);
    return ctx.Fail(s.WithContext("snapshot " + target.string()));
  }
  if (Status synced = SyncPath(parent.string()); !synced.ok()) return ctx.Fail(synced);
  std::string parts;
  for (const std::string& p : written.parts) parts += (parts.empty() ? "" : ", ") + p;
  *ctx.out << "snapshot " << target.string() << " written (" << parts << ")\n";
  if (publish) {
    if (Status p = Publish(parent, name); !p.ok())
      return ctx.Fail(p.WithContext("publishing snapshot " + target.string()));
    *ctx.out << "published: " << (parent / "current").string() << " -> " << name << "\n";
  }
}

}  // namespace

void AddSnapshotCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "snapshot", "write a consistent copy of the data directory for readers (docs/deploy.md)");
  auto dir = std::make_shared<std::string>();
  auto publish = std::make_shared<bool>(false);
  cmd->add_option("DIR", *dir, "the new snapshot's folder (must not exist, or be empty)")
      ->required();
  cmd->add_flag("--publish", *publish,
                "then point the symbolic link 'current' beside DIR at it, in one step (what "
                "`serve --snapshots` follows)");
  cmd->callback([&ctx, dir, publish] { RunSnapshot(ctx, *dir, *publish); });
}

}  // namespace fixgraph::cli
