// The local corpus as a DocSource: a pool of index handles (docs_local.h),
// so that searches from several threads (a server's workers) run at once.
#include "docs_local.h"

#include "fixgraph/query/docs.h"

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace fixgraph::query {
namespace {

// Starts with one handle (a CLI question opens one index) and opens another,
// up to kMaxHandles, when a search finds every handle busy.
class LocalDocSource : public DocSource {
 public:
  static constexpr size_t kMaxHandles = 4;

  LocalDocSource(std::string dir, std::unique_ptr<docs::IndexSearch> first, LocalDocOptions options,
                 std::unique_ptr<std::mutex> debug_mu)
      : dir_(std::move(dir)), options_(std::move(options)), debug_mu_(std::move(debug_mu)) {
    pool_.push_back(std::make_unique<Slot>());
    pool_.back()->search = std::move(first);
  }

  std::string Name() const override { return "local"; }

  StatusOr<std::vector<DocHit>> Search(std::string_view text, size_t limit) override {
    std::unique_lock<std::mutex> held;
    Slot* slot = Acquire(&held);
    if (!held.owns_lock()) held = std::unique_lock<std::mutex>(slot->mu);
    return slot->search->Search(text, limit);
  }

 private:
  struct Slot {
    std::mutex mu;  // held by the search using it
    std::unique_ptr<docs::IndexSearch> search;
  };

  // A free slot, locked into `held`; else a new one (locked) while the pool
  // is below kMaxHandles; else the next in turn, unlocked (the caller waits).
  // An index that could not be opened once more (a shard down) is not tried
  // again: a busy search would otherwise pay that open, under pool_mu_, each
  // time.
  Slot* Acquire(std::unique_lock<std::mutex>* held) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    for (auto& slot : pool_) {
      std::unique_lock<std::mutex> l(slot->mu, std::try_to_lock);
      if (l.owns_lock()) {
        *held = std::move(l);
        return slot.get();
      }
    }
    if (grow_ && pool_.size() < kMaxHandles) {
      auto search = docs::OpenIndexSearch(dir_, options_, debug_mu_.get());
      grow_ = search.ok();
      if (search.ok()) {  // else: wait for an open one
        pool_.push_back(std::make_unique<Slot>());
        pool_.back()->search = std::move(*search);
        *held = std::unique_lock<std::mutex>(pool_.back()->mu);
        return pool_.back().get();
      }
    }
    return pool_[next_++ % pool_.size()].get();
  }

  const std::string dir_;
  const LocalDocOptions options_;
  std::unique_ptr<std::mutex> debug_mu_;  // the handles hold its address
  std::mutex pool_mu_;                    // guards pool_, next_ and grow_
  std::vector<std::unique_ptr<Slot>> pool_;
  size_t next_ = 0;
  bool grow_ = true;  // false once opening another handle failed
};

}  // namespace

StatusOr<std::unique_ptr<DocSource>> OpenLocalDocSource(const std::string& db_dir,
                                                        const LocalDocOptions& options) {
  const std::string dir = DocIndexDir(db_dir);
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec))
    return Status::NotFound(dir + ": no doc index (run 'fixgraph docs import')");
  auto debug_mu = std::make_unique<std::mutex>();
  auto first = docs::OpenIndexSearch(dir, options, debug_mu.get());
  if (!first.ok()) return first.status();
  return std::unique_ptr<DocSource>(
      new LocalDocSource(dir, std::move(*first), options, std::move(debug_mu)));
}

}  // namespace fixgraph::query
