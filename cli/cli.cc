#include "fixgraph/cli/cli.h"

#include "commands.h"
#include "context.h"
#include "refresh.h"

#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/version.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <iostream>

namespace fixgraph::cli {

constexpr const char* kDefaultDbDir = "./fixgraph-data";

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

CLI::Validator RepoSyntax() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        auto ref = ParseRef(text);
        if (!ref.ok() || ref->kind != RefKind::kRepo)
          return "expected a repository such as gitcode:Ascend/MindSpeed-Ops, got \"" + text + "\"";
        return std::string();
      },
      "REPO");
}

namespace {

// The command a command line selects ("ask", "docs import"; "" for none) and
// the first flag none of its options (nor those of the commands above it)
// knows. CLI11 checks required arguments before unknown ones, so `ask --foo`
// would be reported as "TEXT is required"; this names --foo instead.
struct Scan {
  CLI::App* command = nullptr;
  std::string path;
  std::string unknown_flag;
};

Scan ScanArgs(CLI::App& app, const std::vector<std::string>& args) {
  Scan scan;
  scan.command = &app;
  std::vector<CLI::App*> chain{&app};
  auto find = [&chain](const std::string& name) -> CLI::Option* {
    for (size_t k = chain.size(); k-- > 0;)  // innermost command first
      if (CLI::Option* o = chain[k]->get_option_no_throw(name); o != nullptr) return o;
    return nullptr;
  };
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    bool is_long = a.size() > 2 && a.compare(0, 2, "--") == 0;
    bool is_short = !is_long && a.size() >= 2 && a[0] == '-' && a[1] != '-' &&
                    !std::isdigit(static_cast<unsigned char>(a[1])) && a[1] != '.';
    if (!is_long && !is_short) {
      auto subs = scan.command->get_subcommands([&a](CLI::App* s) { return s->get_name() == a; });
      CLI::App* sub = subs.empty() ? nullptr : subs.front();
      if (sub != nullptr && a[0] != '-') {
        scan.command = sub;
        chain.push_back(sub);
        scan.path += (scan.path.empty() ? "" : " ") + a;
      }
      continue;
    }
    std::string name = is_long ? a.substr(0, a.find('=')) : a.substr(0, 2);
    CLI::Option* opt = find(name);
    if (opt == nullptr) {
      if (scan.unknown_flag.empty()) scan.unknown_flag = name;
      continue;
    }
    bool inline_value = is_long ? a.find('=') != std::string::npos : a.size() > 2;
    // Its value, unless it is a flag (`--quiet`, `--json`): a flag's type
    // takes one item, but it expects none, and the word after it is the next
    // argument (the command in `fixgraph --quiet import --no-link`).
    if (opt->get_items_expected_max() > 0 && !inline_value) ++i;
  }
  return scan;
}

}  // namespace

void Context::Fail(const Status& s) {
  *err << "fixgraph: error: " << s.message() << "\n";
  exit_code = kExitFailure;
}

int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Context ctx;
  ctx.args = args;
  ctx.out = &out;
  ctx.err = &err;
  ctx.err_is_terminal = &err == &std::cerr && isatty(STDERR_FILENO);
  ctx.env = ReadEnvironment(&err);
  ApplyEnvironment(ctx.env);
  const char* env_db = std::getenv("FIXGRAPH_DB");
  ctx.db_dir = env_db != nullptr && *env_db != '\0' ? env_db : kDefaultDbDir;

  CLI::App app{"fixgraph: link issues to the changes that fixed them, and find known fixes",
               "fixgraph"};
  const std::string version = std::string("fixgraph ") + fixgraph::kVersion;
  app.set_version_flag("--version", version);
  app.add_option("--db", ctx.db_dir,
                 "data directory (default: $FIXGRAPH_DB, else ./fixgraph-data)");
  bool quiet = false, force_progress = false;
  app.add_flag("--quiet", quiet, "no progress line on stderr");
  app.add_flag(
      "--progress", force_progress,
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
  AddSnapshotCommand(app, ctx);
  AddIndexCommands(app, ctx);

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
      return kExitUsage;
    }
    break;
  }

  Scan scan = ScanArgs(app, args);
  std::string where = scan.path.empty() ? "fixgraph" : "fixgraph " + scan.path;
  std::string help = "Run '" + where + " --help' for usage.\n";
  if (!scan.unknown_flag.empty()) {
    err << "fixgraph: usage error: " << (scan.path.empty() ? "" : scan.path + ": ")
        << "unknown flag " << scan.unknown_flag << "\n"
        << help;
    return kExitUsage;
  }

  std::vector<std::string> rev(args.rbegin(), args.rend() - (args.empty() ? 0 : 1));
  // Before the commands' callbacks run (CLI11 runs them once everything is parsed).
  app.parse_complete_callback([&] {
    ctx.progress = quiet            ? ProgressMode::kQuiet
                   : force_progress ? ProgressMode::kForce
                                    : ProgressMode::kAuto;
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
    out << version << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "fixgraph: usage error: " << (scan.path.empty() ? "" : scan.path + ": ") << e.what()
        << "\n"
        << help;
    return kExitUsage;
  }
  return ctx.exit_code;
}

}  // namespace fixgraph::cli
