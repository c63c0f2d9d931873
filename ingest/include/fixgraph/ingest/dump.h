// Recorded dumps (design.md s3): reading a dump directory into the store.
//
//   DUMP/<platform>/<owner>/<repo>/repo.json, issues.json, pulls.json,
//     issues/<number>/{comments,operate_logs,pull_requests}.json,
//     pulls/<number>/{comments,commits,files,issues,operate_logs}.json
//
// DUMP may also be an uncompressed tar file of that folder (`tar -cf
// dump.tar -C DUMP .`, or of a folder holding it: `tar -cf dump.tar DUMP`):
// the same files are read from the archive where they lie, each
// repository's item folders in archive order, so that a dump of millions of
// small files is read front to back (tar_archive.h). Errors name a file in
// an archive as "ARCHIVE:<path in the archive>".
//
// Every file is optional except that a repository folder must hold at least
// one of repo.json, issues.json and pulls.json. Files and folders at the top
// of DUMP that are not platform folders (README.md, MANIFEST.json) are
// ignored; an unknown platform *folder* is an error.
//
// Import of one repository is all or nothing for bad input. A repository the
// store holds no record of is read, mapped and bulk-loaded in one pass: its
// records are sorted into table files (runs of bounded size) that are added to
// the store in one atomic step at the end (Store::IngestBulkLoad); when bad
// input turns up, the files are dropped and the store never saw any of it
// (platform links are kept back until the whole repository has been read). A
// repository the store already holds is read and mapped first (verify pass),
// and only when all of it is good are the records written (write pass), in
// committed batches of bounded size. Memory stays flat whatever the dump's
// size (apart from the platform links kept back, one small record per link); an
// "import in progress" marker is written with the first batch and removed
// with the last (or after an undo), so an interrupted import (kill -9) is
// visible (InterruptedImports) and a rerun completes it. Upserts are
// idempotent: importing the same dump twice changes nothing.
#pragma once

#include "fixgraph/engine/store.h"
#include "fixgraph/ingest/counts.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fixgraph::ingest {

class TarArchive;  // ingest/tar_archive.h

struct DumpRepo {
  RepoRef repo;
  // DUMP/<platform>/<owner>/<repo>; in an archive "ARCHIVE:<platform>/<owner>/<repo>"
  // (as errors name its files).
  std::string dir;
  // A dump packed into a tar file: the archive and the folder's path in it
  // ("<platform>/<owner>/<repo>/", after the archive's top folder if any).
  std::shared_ptr<const TarArchive> archive;
  std::string in_archive;
};

struct ImportCounts : RecordCounts {
  void Add(const ImportCounts& o) { AddRecords(o); }
};

struct ImportProgress {
  const DumpRepo* repo = nullptr;
  size_t repo_index = 0;  // 0-based
  size_t repo_count = 0;
  std::int64_t records_done = 0;  // written so far in this repository
  // Counted by the verify pass; 0 while unknown (a one-pass import knows it
  // only at the end: its last call has it).
  std::int64_t records_total = 0;
  // A repository new to the store is read once, so its record total is known
  // only at the end; its item folders (issues and PRs) are listed first, and
  // these count them: the share walked is the progress (0/0 when not known).
  std::int64_t items_done = 0;
  std::int64_t items_total = 0;
};

struct ImportOptions {
  // Records per committed WriteBatch. Default: 4096.
  size_t batch_records = 4096;
  // A repository the store does not hold is bulk-loaded (Store::Batch::
  // StartBulkLoad): its records are sorted into table files of about this
  // many staged bytes each and added to the store at the end in one step.
  // 0: the store's default (256 MiB).
  size_t bulk_run_bytes = 0;
  // Repositories imported at the same time (each by one thread). Default: the
  // number of cores, at most 4.
  size_t threads = 0;
  // Whether a repository the store does not hold is written by a second
  // thread while the first reads and maps it, so that one repository keeps two
  // cores busy (re-imports are one thread: they verify before writing).
  // on_progress and after_batch are then called from that thread. kAuto: only
  // while cores would be idle otherwise (ImportDump: repositories imported at
  // once x 2 <= cores; ImportRepository: 2 cores or more). Default: kAuto.
  enum class Pipeline { kAuto, kOn, kOff };
  Pipeline pipeline = Pipeline::kAuto;
  // Whether each repository's item folders are read into the page cache a
  // few hundred folders ahead of the walk, by two threads of their own, so that
  // the cold reads of a dump larger than the page cache overlap the parsing
  // (ingest/prefetch.h). The first pass of a re-import prefetches; its write
  // pass reads what the first left cached. Default: on.
  bool prefetch = true;
  // Minutes east of UTC assumed for timestamps without an offset (mapper.h
  // MapperOptions). Default: +08:00 for GitCode and Gitee, UTC for GitHub.
  std::optional<int> naive_utc_offset_minutes;
  // Called after each committed batch. Default: none.
  std::function<void(const ImportProgress&)> on_progress;
  // Test hook: called after each committed batch of records with the
  // number of batches committed so far in this repository. Default: none.
  std::function<void(size_t batches)> after_batch;
};

// The repositories of a dump (a folder or a tar file), sorted by reference.
// Errors: IOError for an unreadable path, InvalidArgument for an unknown
// platform folder, an OWNER/REPO folder whose name no repository can have
// (space, ':', '#', newline...) or a path that is not a dump (naming the path).
StatusOr<std::vector<DumpRepo>> ListDumpRepositories(const std::string& dump_dir);

// Imports every repository of a dump, several at a time. A repository with bad
// input is left as it was and its error returned (the first in repository
// order; the others that failed are named after it); every other repository is
// imported. A repository folder with an invalid name is refused alone the same
// way: the others are imported and its error returned. Dump files must be
// regular files (or symbolic links to one): a FIFO, a device or a dangling
// link is an error naming it. `counts` (may be null) receives what was read from the repositories
// imported. on_progress is called from worker threads, one call at a time.
Status ImportDump(Store* store, const std::string& dump_dir, const ImportOptions& options,
                  ImportCounts* counts);

// Removes the stored operate-log links (source "operate_log") of `repo` (all
// repositories when null) whose last link or unlink event, over the stored
// operate logs of both sides, is an unlink; appends the issues and PRs that
// lost one to `touched` (may be null). ImportDump and Sync call it after their
// writes; the removal and the items' pending relinks are one write.
Status ApplyOperateLogUnlinks(Store* store, const RepoRef* repo, std::vector<Ref>* touched);

// Imports one repository folder.
Status ImportRepository(Store* store, const DumpRepo& repo, const ImportOptions& options,
                        ImportCounts* counts);

// Meta key of the marker of an unfinished import of `repo`.
std::string ImportMarkerKey(const RepoRef& repo);
// Repositories whose import was interrupted and not rerun.
Status InterruptedImports(const Store& store, std::vector<std::string>* repos);

}  // namespace fixgraph::ingest
