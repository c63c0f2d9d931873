// Each command adds its subcommand to the app. Private to cli/.
#pragma once

#include "context.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <string>
#include <vector>

namespace fixgraph::cli {

// Accepts a whole number from `lo` to `hi`; anything else is refused with a
// message that says which ("--limit: expected a whole number from 1 to 100, got
// abc"). CLI::Range alone reports a word as out of range.
inline CLI::Validator WholeNumber(long long lo, long long hi) {
  std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        long long v = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ec != std::errc() || ptr != end || v < lo || v > hi)
          return "expected a whole number from " + range + ", got \"" + text + "\"";
        return std::string();
      },
      "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

// Accepts one of `values` exactly; anything else is refused naming them
// ("--format: expected md, json or html, got \"xx\"").
inline CLI::Validator OneOf(std::vector<std::string> values) {
  std::string list;
  for (size_t i = 0; i < values.size(); ++i)
    list += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + values[i];
  return CLI::Validator(
      [values, list](std::string& text) -> std::string {
        for (const std::string& v : values)
          if (text == v) return std::string();
        return "expected " + list + ", got \"" + text + "\"";
      },
      list);
}

// Accepts a repository reference (gitcode:OWNER/REPO, a web URL of one);
// whether the store holds it is checked later (exit 1, RequireRepository).
CLI::Validator RepoSyntax();

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
void AddSnapshotCommand(CLI::App& app, Context& ctx);
void AddIndexCommands(CLI::App& app, Context& ctx);

}  // namespace fixgraph::cli
