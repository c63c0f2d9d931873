// Store::WriteCheckpoint: a consistent copy of the store in another folder
// (RocksDB's Checkpoint; `fixgraph snapshot`, docs/deploy.md).
#include "store_impl.h"

#include "fixgraph/engine/store.h"

#include <rocksdb/utilities/checkpoint.h>

#include <filesystem>
#include <memory>

namespace fixgraph {

using store_internal::FromRocks;

Status Store::WriteCheckpoint(const std::string& dir) const {
  if (impl_->read_only)
    return Status::FailedPrecondition("checkpoint of store " + impl_->dir +
                                      ": the store is open read-only (a checkpoint needs the "
                                      "writer's lock, so no write happens meanwhile)");
  std::error_code ec;
  if (std::filesystem::exists(dir, ec))
    return Status::InvalidArgument("checkpoint of store " + impl_->dir + ": " + dir +
                                   " already exists");
  rocksdb::Checkpoint* raw = nullptr;
  FG_RETURN_IF_ERROR(FromRocks(rocksdb::Checkpoint::Create(impl_->db.get(), &raw),
                               "checkpoint of store " + impl_->dir));
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush 0: the memtables are flushed first, so the checkpoint
  // is table files only (no write-ahead log for a read-only open to replay).
  // Table files are hard-linked when `dir` is on the same file system.
  CrashPoint();
  Status s = FromRocks(checkpoint->CreateCheckpoint(dir, /*log_size_for_flush=*/0),
                       "checkpoint of store " + impl_->dir + " into " + dir);
  CrashPoint();
  return s;
}

}  // namespace fixgraph
