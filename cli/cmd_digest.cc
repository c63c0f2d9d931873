// fixgraph digest: the curated digest of resolved issues (docs/design.md s7).
#include "commands.h"
#include "documents.h"
#include "output_file.h"

#include "fixgraph/engine/time.h"
#include "fixgraph/query/digest.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

namespace fixgraph::cli {
namespace {

// The flags: the request itself (documents.h, shared with the HTTP API) and
// what only the command has.
struct DigestArgs {
  DigestRequest request;
  std::string output;
  std::string config;
  bool json_out = false;  // --json: --format json
};

void RunDigest(Context& ctx, const DigestArgs& a) {
  DigestRequest request = a.request;
  if (!a.config.empty()) {
    std::ifstream f(a.config, std::ios::binary);
    if (!f) return ctx.Fail(Status::NotFound("--config " + a.config + ": cannot read the file"));
    std::stringstream ss;
    ss << f.rdbuf();
    auto rules = query::ParseDigestRules(ss.str(), a.config);
    if (!rules.ok()) return ctx.Fail(rules.status());
    request.rules = *rules;
  }
  if (a.json_out) {
    if (request.format != "md" && request.format != "json")
      Context::UsageError("--json asks for --format json; drop --format " + request.format +
                          " or --json");
    request.format = "json";
  }
  // Flag values are usage errors (exit 2), found before the store is opened.
  if (Status s = CheckDigestRequest(request, "--"); !s.ok()) Context::UsageError(s.message());

  auto store = ctx.OpenForRead();
  if (!store.ok()) return ctx.Fail(store.status());
  DigestCounts counts;
  // Repositories collected (they are the digest's unit of work), then the rendering.
  auto progress = ctx.NewProgress("digest");
  progress->Phase("digest", ProgressState::Counting("repositories"));
  auto on_progress = [&](size_t done, size_t total) {
    progress->Update(ProgressState::Count(
        "repositories", static_cast<std::int64_t>(done), static_cast<std::int64_t>(total),
        done == total ? "themes and rendering" : "reading the resolved issues and their fixes"));
  };
  // Written as it is rendered (a JSON digest of a whole large store is
  // gigabytes): to stdout, or to a temporary file renamed over -o's path
  // once complete (an error leaves that path as it was).
  const bool to_stdout = a.output.empty() || a.output == "-";
  auto write = [&](const query::TextSink& sink) {
    return WriteDigest(**store, request, "--", &counts, on_progress, sink);
  };
  const query::TextSink to_out = [&](std::string_view piece) {
    ctx.out->write(piece.data(), static_cast<std::streamsize>(piece.size()));
    return ctx.out->good() ? Status::OK() : Status::IOError("writing the digest to stdout");
  };
  Status s = to_stdout ? write(to_out) : WriteOutputFileFrom(a.output, write);
  progress->Finish();
  if (!s.ok()) return ctx.Fail(s);
  if (to_stdout) return;
  *ctx.err << "wrote " << a.output << ": " << counts.cases << " issues from " << counts.repos
           << " repositories (" << counts.excluded << " excluded)\n";
}

}  // namespace

void AddDigestCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<DigestArgs>();
  CLI::App* sub = app.add_subcommand(
      "digest", "write a curated digest of resolved issues (Markdown, JSON or HTML)");
  sub->add_option("--repo", args->request.repos, "repository to include (repeatable; default: all)")
      ->check(RepoSyntax());
  sub->add_option("--org", args->request.org,
                  "only repositories of this owner (Ascend or gitcode:Ascend)");
  sub->add_option("--since", args->request.since, "issues closed on or after this date");
  sub->add_option("--until", args->request.until,
                  "issues closed on or before this date (also the 'as of' date)");
  sub->add_option("--min-tier", args->request.min_tier,
                  "weakest fix tier a fixed issue may have (A-D; default D)")
      ->check(OneOf({"A", "B", "C", "D"}));
  sub->add_option("--lang", args->request.lang, "language of the fixed text: zh (default) or en")
      ->check(OneOf({"zh", "en"}));
  sub->add_option("--format", args->request.format, "md (default), json or html")
      ->check(OneOf({"md", "json", "html"}));
  sub->add_flag("--json", args->json_out, "the same as --format json");
  sub->add_option("-o,--output", args->output,
                  "write to this file (atomically; a regular file only) instead of stdout (-o -)");
  sub->add_option("--config", args->config, "selection rules (JSON, see data/digest/rules.json)");
  sub->callback([&ctx, args]() { RunDigest(ctx, *args); });
}

}  // namespace fixgraph::cli
