#include "testutil/demo_store.h"

#include "testutil/testutil.h"

#include "fixgraph/engine/store.h"
#include "fixgraph/ingest/dump.h"
#include "fixgraph/query/refresh.h"

#include <filesystem>
#include <memory>
#include <system_error>

namespace fixgraph::testing {

Status ImportAndRefresh(const std::string& db_dir, const std::string& dump_dir) {
  std::error_code ec;
  std::filesystem::create_directories(db_dir, ec);
  if (ec) return Status::IOError("creating " + db_dir + ": " + ec.message());
  auto store = Store::Open(db_dir + "/store", StoreOptions());
  if (!store.ok()) return store.status();
  FG_RETURN_IF_ERROR(ingest::ImportDump(store->get(), dump_dir, ingest::ImportOptions(), nullptr));
  query::RefreshOptions options;
  options.db_dir = db_dir;
  query::RefreshStats stats;
  return query::FinishPendingWork(store->get(), options, &stats);
}

StatusOr<std::string> DemoDb() {
  // Built once, on first use; the directory goes when the process exits.
  static const TempDir dir;
  static const Status imported = ImportAndRefresh(dir / "db", SourceDir() + "/data/demo");
  if (!imported.ok()) return imported.WithContext("importing data/demo for the tests");
  return dir / "db";
}

Status CopyTree(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive, ec);
  if (ec) return Status::IOError("copying " + from + " to " + to + ": " + ec.message());
  return Status::OK();
}

}  // namespace fixgraph::testing
