// fixgraph index split: the issue and doc indexes as shards for readers
// (fixgraph/query/shards.h, docs/deploy.md "Shards").
#include "commands.h"

#include "fixgraph/query/shards.h"

#include <nlohmann/json.hpp>

namespace fixgraph::cli {
namespace {

void RunSplit(Context& ctx, size_t shards, const std::string& out_dir, bool json_out) {
  query::SplitStats st;
  if (Status s = query::SplitIndexes(ctx.db_dir, out_dir, shards, &st); !s.ok()) return ctx.Fail(s);
  if (json_out) {
    *ctx.out << nlohmann::json{{"out", out_dir},
                               {"shards", st.shards},
                               {"issue_documents", st.issue_documents},
                               {"dead", st.dead},
                               {"doc_nodes", st.doc_nodes}}
                    .dump()
             << "\n";
    return;
  }
  *ctx.out << "split " << st.issue_documents << " issue documents (" << st.dead << " dead)";
  if (st.doc_nodes > 0) *ctx.out << " and " << st.doc_nodes << " doc nodes";
  *ctx.out << " into " << st.shards << " shards in " << out_dir << " (issues-0.." << st.shards - 1
           << (st.doc_nodes > 0 ? ", docs-0.." + std::to_string(st.shards - 1) : "")
           << "; stubs index-issues" << (st.doc_nodes > 0 ? ", index-docs" : "") << ")\n";
}

}  // namespace

void AddIndexCommands(CLI::App& app, Context& ctx) {
  auto* index = app.add_subcommand("index", "index maintenance for readers");
  index->require_subcommand(1);
  auto* split = index->add_subcommand(
      "split", "write the issue and doc indexes as shards (for xapian-tcpsrv) with stub files");
  struct Args {
    size_t shards = 0;
    std::string out;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  split->add_option("--shards", args->shards, "number of shards")
      ->required()
      ->check(WholeNumber(1, 64));
  split->add_option("--out", args->out, "directory to create (must not exist)")->required();
  split->add_flag("--json", args->json, "print JSON");
  split->callback([&ctx, args] { RunSplit(ctx, args->shards, args->out, args->json); });
}

}  // namespace fixgraph::cli
