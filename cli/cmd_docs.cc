// fixgraph docs import PATH... | fixgraph docs search TEXT [--json] [--limit N]
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fixgraph/query/docs.h"

namespace fixgraph::cli {
namespace {

void RunDocsImport(Context& ctx, const std::vector<std::string>& paths) {
  query::DocImportStats st;
  if (Status s = query::ImportDocs(ctx.db_dir, paths, &st); !s.ok()) return ctx.Fail(s);
  *ctx.out << "imported " << st.nodes << " doc nodes from " << st.files << " files";
  if (st.removed > 0) *ctx.out << " (replaced " << st.removed << " from earlier imports)";
  *ctx.out << " into " << ctx.db_dir << "/index-docs\n";
}

const char* Band(double score) {
  if (score > query::kDocHitScore) return "hit";
  if (score >= query::kDocNoiseScore) return "ambiguous";
  return "noise";
}

void RunDocsSearch(Context& ctx, const std::string& text, bool json_out, int limit) {
  auto src = query::OpenDocSources(ctx.db_dir);
  if (!src.ok()) return ctx.Fail(src.status());
  std::vector<std::string> warnings;
  auto hits = query::SearchWithWarnings(**src, text, static_cast<size_t>(limit), &warnings);
  if (!hits.ok()) return ctx.Fail(hits.status());
  for (const std::string& w : warnings) *ctx.err << "fixgraph: warning: " << w << "\n";
  if (json_out) {
    nlohmann::json doc{{"query", text}, {"docs", nlohmann::json::array()}};
    for (const query::DocHit& h : *hits) doc["docs"].push_back(query::ToJson(h));
    *ctx.out << doc.dump() << "\n";
    return;
  }
  if (hits->empty()) {
    *ctx.out << "no doc nodes match (sources: " << (*src)->Name() << ")\n";
    return;
  }
  char buf[64];
  for (const query::DocHit& h : *hits) {
    std::snprintf(buf, sizeof buf, "%.3f %-9s ", h.score, Band(h.score));
    *ctx.out << buf << h.title << "\n      " << h.id;
    if (!h.products.empty()) {
      *ctx.out << "  [";
      for (size_t i = 0; i < h.products.size(); ++i) *ctx.out << (i ? ", " : "") << h.products[i];
      *ctx.out << "]";
    }
    if (h.source != "local") *ctx.out << "  (" << h.source << ")";
    *ctx.out << "\n      " << h.snippet << "\n";
  }
}

}  // namespace

void AddDocsCommands(CLI::App& app, Context& ctx) {
  auto* docs = app.add_subcommand("docs", "KG documentation nodes: import and search");
  docs->require_subcommand(1);

  auto* imp = docs->add_subcommand("import", "load KG doc nodes (Markdown trees, .md or .jsonl files)");
  auto paths = std::make_shared<std::vector<std::string>>();
  imp->add_option("PATH", *paths, "Markdown tree or file, or JSONL node file")->required();
  imp->callback([&ctx, paths] { RunDocsImport(ctx, *paths); });

  auto* search = docs->add_subcommand("search", "search the configured doc sources");
  auto text = std::make_shared<std::string>();
  auto json_out = std::make_shared<bool>(false);
  auto limit = std::make_shared<int>(5);
  search->add_option("TEXT", *text, "question, error line or name")->required();
  search->add_flag("--json", *json_out, "print JSON: {\"query\", \"docs\": [...]}");
  search->add_option("--limit", *limit, "at most N nodes (default 5)")
      ->check(WholeNumber(1, 200));
  search->callback([&ctx, text, json_out, limit] { RunDocsSearch(ctx, *text, *json_out, *limit); });
}

}  // namespace fixgraph::cli
