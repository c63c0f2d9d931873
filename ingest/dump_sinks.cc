#include "dump_sinks.h"

#include <nlohmann/json.hpp>
#include <type_traits>

namespace fixgraph::ingest {

bool MakeRaw(const JsonDoc* doc, std::string* out) {
  out->clear();
  if (doc == nullptr) return false;
  if (!doc->WriteDump(out)) {
    std::string_view span = doc->root().raw();
    *out = nlohmann::json::parse(span.begin(), span.end()).dump();  // validated already
  }
  return true;
}

Status WritingSink::Begin() {
  FG_RETURN_IF_ERROR(batch_->PutMeta(ImportMarkerKey(repo_.repo), "1"));
  return store_->Write(batch_.get(), Store::Durability::kLogged);
}

Status WritingSink::Finish() {
  for (const PlatformLink& link : links_) FG_RETURN_IF_ERROR(Done(batch_->PutPlatformLink(link)));
  links_.clear();
  FG_RETURN_IF_ERROR(Flush());
  if (bulk_) {
    FG_RETURN_IF_ERROR(
        store_->IngestBulkLoad(batch_.get()).WithContext("import " + repo_.repo.ToString()));
    bulk_ = false;
  } else {
    FG_RETURN_IF_ERROR(store_->Flush());
  }
  FG_RETURN_IF_ERROR(batch_->DeleteMeta(ImportMarkerKey(repo_.repo)));
  return store_->Write(batch_.get(), Store::Durability::kLogged);
}

Status WritingSink::Undo() {
  if (bulk_) {  // nothing reached the store
    batch_->AbortBulkLoad();
    bulk_ = false;
    FG_RETURN_IF_ERROR(batch_->DeleteMeta(ImportMarkerKey(repo_.repo)));
    return store_->Write(batch_.get(), Store::Durability::kLogged);
  }
  FG_RETURN_IF_ERROR(store_->Write(batch_.get(), Store::Durability::kUnlogged));
  FG_RETURN_IF_ERROR(store_->DeleteRepositoryRecords(repo_.repo, Store::Durability::kUnlogged));
  FG_RETURN_IF_ERROR(store_->Flush());
  FG_RETURN_IF_ERROR(batch_->DeleteMeta(ImportMarkerKey(repo_.repo)));
  return store_->Write(batch_.get(), Store::Durability::kLogged);
}

Status WritingSink::Flush() {
  changed_ += batch_->changed();
  FG_RETURN_IF_ERROR(store_->Write(batch_.get(), Store::Durability::kUnlogged)
                         .WithContext("import " + repo_.repo.ToString()));
  pending_ = 0;
  ++batches_;
  if (options_.on_progress) {
    if (items_ != nullptr) {
      progress_.items_total = items_->total.load(std::memory_order_relaxed);
      progress_.items_done = items_->done.load(std::memory_order_relaxed);
    }
    options_.on_progress(progress_);
  }
  if (options_.after_batch) options_.after_batch(batches_);
  return Status::OK();
}

PipelineSink::PipelineSink(WritingSink* write) : write_(write) {
  for (auto& b : blocks_) free_.push_back(&b);
  thread_ = std::thread([this] { Run(); });
}

Status PipelineSink::Close() {
  if (!thread_.joinable()) return WriterStatus();
  if (fill_ != nullptr && fill_->count > 0) Send();
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  full_cv_.notify_one();
  thread_.join();
  return WriterStatus();
}

void PipelineSink::Send() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    full_.push_back(fill_);
  }
  fill_ = nullptr;
  full_cv_.notify_one();
}

Status PipelineSink::WriterStatus() {
  std::lock_guard<std::mutex> lock(mu_);
  return writer_status_;
}

void PipelineSink::Run() {
  for (;;) {
    Block* b;
    {
      std::unique_lock<std::mutex> lock(mu_);
      full_cv_.wait(lock, [this] { return !full_.empty() || closed_; });
      if (full_.empty()) return;
      b = full_.front();
      full_.pop_front();
    }
    Status s;
    for (size_t i = 0; i < b->count && s.ok(); ++i) {
      Slot& slot = b->slots[i];
      std::string_view raw = slot.has_raw ? std::string_view(slot.raw) : std::string_view();
      s = std::visit(
          [&](const auto& r) -> Status {
            if constexpr (std::is_same_v<std::decay_t<decltype(r)>, std::monostate>) {
              return Status::OK();
            } else {
              return write_->Put(r, raw);
            }
          },
          slot.record);
      if (slot.raw.capacity() > kKeep) {  // its record is likely large too
        slot.raw = std::string();
        slot.record = std::monostate();
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      free_.push_back(b);
      if (!s.ok()) {
        writer_status_ = s;
        failed_ = true;
      }
    }
    free_cv_.notify_one();
    if (!s.ok()) return;
  }
}

}  // namespace fixgraph::ingest
