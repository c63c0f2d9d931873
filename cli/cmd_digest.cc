// fixgraph digest: the curated digest of resolved issues (design.md s7).
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "fixgraph/engine/time.h"
#include "fixgraph/query/digest.h"

namespace fixgraph::cli {
namespace {

struct DigestArgs {
  std::vector<std::string> repos;
  std::string org;
  std::string since;
  std::string until;
  std::string min_tier;
  std::string lang = "zh";
  std::string format = "md";
  std::string output;
  std::string config;
};

// A --since/--until value; a bare date means the whole day for --until.
Status ParseBound(const std::string& flag, const std::string& text, bool end_of_day, OptTime* out) {
  if (text.empty()) return Status::OK();
  auto t = ParseTimestamp(text);
  if (!t.ok() || !t->has_value())
    return Status::InvalidArgument(flag + " \"" + text + "\": expected a date such as 2026-09-15 or a time such as 2026-09-15T12:00:00+08:00");
  *out = **t;
  if (end_of_day && text.size() == 10) *out = **t + 86399;
  return Status::OK();
}

Status WriteOutput(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return Status::IOError("cannot write " + tmp);
    f << text;
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      return Status::IOError("cannot write " + tmp);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::IOError("cannot replace " + path);
  }
  return Status::OK();
}

void RunDigest(Context& ctx, const DigestArgs& a) {
  query::DigestOptions options;
  if (!a.config.empty()) {
    std::ifstream f(a.config, std::ios::binary);
    if (!f) return ctx.Fail(Status::NotFound("--config " + a.config + ": cannot read the file"));
    std::stringstream ss;
    ss << f.rdbuf();
    auto rules = query::ParseDigestRules(ss.str(), a.config);
    if (!rules.ok()) return ctx.Fail(rules.status());
    options.rules = *rules;
  }
  if (!a.min_tier.empty()) {
    if (!graph::ParseTier(a.min_tier).ok())
      return ctx.Fail(Status::InvalidArgument("--min-tier \"" + a.min_tier + "\": expected A, B, C or D"));
    options.rules.min_tier = a.min_tier;
  }
  for (const std::string& r : a.repos) {
    auto ref = ParseRef(r);
    if (!ref.ok() || ref->kind != RefKind::kRepo)
      return ctx.Fail(Status::InvalidArgument(
          "--repo \"" + r + "\": expected a repository such as gitcode:Ascend/MindSpeed-Ops"));
    options.repos.push_back(ref->repo);
  }
  options.org = a.org;
  Status s = ParseBound("--since", a.since, false, &options.since);
  if (!s.ok()) return ctx.Fail(s);
  s = ParseBound("--until", a.until, true, &options.until);
  if (!s.ok()) return ctx.Fail(s);
  auto lang = query::ParseLang(a.lang);
  if (!lang.ok()) return ctx.Fail(Status::InvalidArgument("--lang: " + lang.status().message()));
  if (a.format != "md" && a.format != "json" && a.format != "html")
    return ctx.Fail(Status::InvalidArgument("--format \"" + a.format + "\": expected md, json or html"));

  auto store = ctx.OpenForRead();
  if (!store.ok()) return ctx.Fail(store.status());
  auto digest = query::BuildDigest(**store, options);
  if (!digest.ok()) return ctx.Fail(digest.status());
  std::string text;
  if (a.format == "md") {
    text = query::RenderMarkdown(*digest, *lang);
  } else if (a.format == "json") {
    text = query::ToJson(*digest).dump(2) + "\n";
  } else {
    text = query::RenderHtml(*digest, *lang);
  }
  if (a.output.empty() || a.output == "-") {
    *ctx.out << text;
    return;
  }
  s = WriteOutput(a.output, text);
  if (!s.ok()) return ctx.Fail(s);
  *ctx.err << "wrote " << a.output << ": " << digest->Cases().size() << " issues from "
           << digest->repos.size() << " repositories (" << digest->excluded.size()
           << " excluded)\n";
}

}  // namespace

void AddDigestCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<DigestArgs>();
  CLI::App* sub = app.add_subcommand(
      "digest", "write a curated digest of resolved issues (Markdown, JSON or HTML)");
  sub->add_option("--repo", args->repos, "repository to include (repeatable; default: all)");
  sub->add_option("--org", args->org, "only repositories of this owner (Ascend or gitcode:Ascend)");
  sub->add_option("--since", args->since, "issues closed on or after this date");
  sub->add_option("--until", args->until, "issues closed on or before this date (also the 'as of' date)");
  sub->add_option("--min-tier", args->min_tier, "weakest fix tier a fixed issue may have (A-D; default D)");
  sub->add_option("--lang", args->lang, "language of the fixed text: zh (default) or en");
  sub->add_option("--format", args->format, "md (default), json or html");
  sub->add_option("-o,--output", args->output, "write to this file instead of stdout");
  sub->add_option("--config", args->config, "selection rules (JSON, see data/digest/rules.json)");
  sub->callback([&ctx, args]() { RunDigest(ctx, *args); });
}

}  // namespace fixgraph::cli
