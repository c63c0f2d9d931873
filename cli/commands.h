// Each command adds its subcommand to the app. Private to cli/.
#pragma once

#include <CLI/CLI.hpp>

#include "context.h"

namespace fixgraph::cli {

void AddImportCommand(CLI::App& app, Context& ctx);
void AddDocsCommands(CLI::App& app, Context& ctx);
void AddSyncCommand(CLI::App& app, Context& ctx);
void AddShowCommand(CLI::App& app, Context& ctx);
void AddStatsCommand(CLI::App& app, Context& ctx);
void AddLinkCommands(CLI::App& app, Context& ctx);
void AddAskCommand(CLI::App& app, Context& ctx);
void AddDigestCommand(CLI::App& app, Context& ctx);
void AddServeCommand(CLI::App& app, Context& ctx);
void AddMcpCommand(CLI::App& app, Context& ctx);

}  // namespace fixgraph::cli
