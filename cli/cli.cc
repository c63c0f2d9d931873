#include "fixgraph/cli/cli.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "context.h"
#include "refresh.h"

namespace fixgraph::cli {

constexpr const char* kDefaultDbDir = "./fixgraph-data";
constexpr const char* kVersion = "fixgraph 0.1.0";

StatusOr<std::unique_ptr<Store>> Context::OpenForRead(bool report_pending) const {
  StoreOptions o;
  o.read_only = true;
  auto store = Store::Open(StoreDir(), o);
  if (store.ok() && report_pending) {
    PendingWork p;
    if ((*store)->ListPending(&p).ok() && !p.empty())
      *err << "fixgraph: warning: " << PendingWarning(p) << "\n";
  }
  return store;
}

StatusOr<std::unique_ptr<Store>> Context::OpenForWrite(bool finish_pending) const {
  auto store = Store::Open(StoreDir(), StoreOptions());
  if (!store.ok() || !finish_pending) return store;
  RefreshStats st;
  Status s = FinishPendingWork(*this, store->get(), &st);
  if (!s.ok()) return s.WithContext("finishing the work an interrupted run left pending");
  if (st.any)
    *err << "fixgraph: finished the work an interrupted run left pending (relinked "
         << st.link.issues << " issues, reindexed " << st.indexed << ")\n";
  return store;
}

void Context::Fail(const Status& s) {
  *err << "fixgraph: error: " << s.message() << "\n";
  exit_code = 1;
}

int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Context ctx;
  ctx.out = &out;
  ctx.err = &err;
  ctx.err_is_terminal = &err == &std::cerr && isatty(STDERR_FILENO);
  const char* env_db = std::getenv("FIXGRAPH_DB");
  ctx.db_dir = env_db != nullptr && *env_db != '\0' ? env_db : kDefaultDbDir;

  CLI::App app{"fixgraph: link issues to the changes that fixed them, and find known fixes",
               "fixgraph"};
  app.set_version_flag("--version", kVersion);
  app.add_option("--db", ctx.db_dir, "data directory (default: $FIXGRAPH_DB, else ./fixgraph-data)");
  bool quiet = false, force_progress = false;
  app.add_flag("--quiet", quiet, "no progress line on stderr");
  app.add_flag("--progress", force_progress,
               "a progress line on stderr even when it is not a terminal (one line a second, for logs)");
  app.require_subcommand(1);
  app.fallthrough();
  AddImportCommand(app, ctx);
  AddDocsCommands(app, ctx);
  AddSyncCommand(app, ctx);
  AddShowCommand(app, ctx);
  AddStatsCommand(app, ctx);
  AddLinkCommands(app, ctx);
  AddAskCommand(app, ctx);
  AddDigestCommand(app, ctx);
  AddServeCommand(app, ctx);
  AddMcpCommand(app, ctx);

  // Name an unknown command plainly (CLI11 would only say one is required).
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--db") {
      ++i;
      continue;
    }
    if (a.empty() || a[0] == '-') continue;
    auto known = app.get_subcommands([&a](CLI::App* sub) { return sub->get_name() == a; });
    if (known.empty()) {
      err << "fixgraph: usage error: unknown command '" << a << "'\n"
          << "Run 'fixgraph --help' for the list of commands.\n";
      return 2;
    }
    break;
  }

  std::vector<std::string> rev(args.rbegin(), args.rend() - (args.empty() ? 0 : 1));
  // Before the commands' callbacks run (CLI11 runs them once everything is parsed).
  app.parse_complete_callback([&] {
    ctx.progress = quiet ? ProgressMode::kQuiet : force_progress ? ProgressMode::kForce : ProgressMode::kAuto;
  });
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << kVersion << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "fixgraph: usage error: " << e.what() << "\n"
        << "Run 'fixgraph --help' (or 'fixgraph COMMAND --help') for usage.\n";
    return 2;
  }
  return ctx.exit_code;
}

}  // namespace fixgraph::cli
