#include "refresh.h"

#include "progress.h"

#include <algorithm>
#include <memory>
#include <string>

namespace fixgraph::cli {

graph::LinkerOptions CliLinkerOptions(const Environment& env) {
  graph::LinkerOptions options;
  options.threads = env.link_threads;
  if (env.link_batch) options.batch_issues = std::max<size_t>(1, *env.link_batch);
  return options;
}

query::IndexOptions CliIndexOptions(const Environment& env) {
  query::IndexOptions options;
  options.threads = std::min(env.index_threads, 8u);
  return options;
}

namespace {

// The refresh's reports drawn as a progress line labelled "link", made at
// the first report (a refresh with nothing pending draws nothing).
class ProgressObserver : public query::RefreshObserver {
 public:
  explicit ProgressObserver(const Context& ctx) : ctx_(ctx) {}

  void Phase(const std::string& label, bool counting, std::int64_t total,
             const std::string& detail) override {
    Line()->Phase(label, counting ? ProgressState::Count("issues", 0, total, detail)
                                  : ProgressState::Note(detail));
  }
  void Count(std::int64_t done, std::int64_t total, const std::string& detail) override {
    Line()->Update(ProgressState::Count("issues", done, total, detail));
  }
  bool counts() const override { return Line()->enabled(); }
  void Finish() override { Line()->Finish(); }

 private:
  Progress* Line() const {
    if (!line_) line_ = ctx_.NewProgress("link");
    return line_.get();
  }

  const Context& ctx_;
  mutable std::unique_ptr<Progress> line_;
};

query::RefreshOptions Options(const Context& ctx, graph::LinkerOptions link,
                              query::RefreshObserver* observer) {
  query::RefreshOptions o;
  o.db_dir = ctx.db_dir;
  o.link = std::move(link);
  o.index = CliIndexOptions(ctx.env);
  o.observer = observer;
  return o;
}

}  // namespace

Status FinishPendingWork(const Context& ctx, Store* store, RefreshStats* stats) {
  ProgressObserver observer(ctx);
  return query::FinishPendingWork(store, Options(ctx, CliLinkerOptions(ctx.env), &observer), stats);
}

Status LinkRun(const Context& ctx, Store* store, const RepoRef* repo,
               const graph::LinkerOptions& options, graph::LinkStats* stats) {
  ProgressObserver observer(ctx);
  return query::LinkRun(store, repo, Options(ctx, options, &observer), stats);
}

}  // namespace fixgraph::cli
