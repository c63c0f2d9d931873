#include "serve_backend.h"

#include "fixgraph/query/ask.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <type_traits>
#include <vector>

namespace fixgraph::cli {

int HttpStatusFor(const Status& s) {
  switch (s.code()) {
    case Status::Code::kInvalidArgument:
      return 400;
    case Status::Code::kNotFound:
      return 404;
    case Status::Code::kFailedPrecondition:
      return 409;
    case Status::Code::kUnavailable:
      return 503;
    case Status::Code::kNotSupported:
      return 501;
    default:
      return 500;
  }
}

namespace {

const char* CodeName(int http_status) {
  switch (http_status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 408:
      return "request_timeout";
    case 409:
      return "conflict";
    case 413:
      return "payload_too_large";
    case 414:
      return "uri_too_long";
    case 415:
      return "unsupported_media_type";
    case 431:
      return "headers_too_large";
    case 501:
      return "not_implemented";
    case 503:
      return "unavailable";
    default:
      return http_status >= 500 ? "internal" : "bad_request";
  }
}

}  // namespace

nlohmann::json ErrorDocument(int http_status, const std::string& message) {
  return {
      {"error", {{"status", http_status}, {"code", CodeName(http_status)}, {"message", message}}}};
}

namespace {

// "it stops being JSON at byte 3: {no" / "it ends at byte 12 before the value
// is complete"; `byte` is the 1-based position where the parser gave up (the
// end of the bad token), shown with up to 24 bytes before it.
std::string DescribeJsonError(const std::string& text, size_t byte) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return "it is empty";
  if (byte == 0 || byte > text.size())
    return "it ends at byte " + std::to_string(text.size()) + " before the value is complete";
  size_t from = byte > 24 ? byte - 24 : 0;
  std::string shown = from > 0 ? "..." : "";
  for (size_t i = from; i < byte; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      shown += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      shown += buf;
    }
  }
  return "it stops being JSON at byte " + std::to_string(byte) + ": " + shown;
}

}  // namespace

StatusOr<nlohmann::json> ParseClientJson(const std::string& text, const std::string& what,
                                         size_t max_depth) {
  // The nesting depth first: nlohmann's parser is iterative, but copying,
  // dumping and destroying a deep value recurse.
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return Status::InvalidArgument(what + ": JSON nested deeper than " +
                                       std::to_string(max_depth) + " levels at byte " +
                                       std::to_string(i));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  // The library's own messages are not passed on: they name its internals
  // ("[json.exception.parse_error.101]") and change between versions. Say
  // where the text stops being JSON and what is there, in our words.
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::out_of_range&) {
    // A number that does not fit a double (1e400).
    return Status::InvalidArgument(what +
                                   ": a number is out of range (larger than a double holds)");
  } catch (const nlohmann::json::parse_error& e) {
    return Status::InvalidArgument(what + " is not valid JSON: " + DescribeJsonError(text, e.byte));
  } catch (const nlohmann::json::exception&) {
    return Status::InvalidArgument(what + " is not valid JSON");
  }
}

struct Backend::SearchState {
  std::shared_mutex mu;  // shared: Ask; exclusive: Reopen
  std::unique_ptr<query::Searcher> searcher;
  Status open_status = Status::Unavailable("ask index not opened yet");
  bool tried = false;
};

Backend::Backend(std::string db_dir, std::chrono::milliseconds recheck, query::DocSourceConfig docs)
    : db_dir_(std::move(db_dir)),
      recheck_(recheck),
      docs_(std::move(docs)),
      search_(std::make_unique<SearchState>()) {}

Backend::~Backend() = default;

std::string Backend::StoreSignature() const {
  std::string dir = db_dir_ + "/store";
  std::vector<std::string> parts;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      bool wanted = name == "CURRENT" || name.rfind("MANIFEST-", 0) == 0 ||
                    (name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0);
      if (!wanted) continue;
      struct stat st {};
      if (stat((dir + "/" + name).c_str(), &st) != 0) continue;
      parts.push_back(name + ":" + std::to_string(st.st_size) + ":" +
                      std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec));
    }
    closedir(d);
  }
  std::sort(parts.begin(), parts.end());
  std::string sig;
  for (const std::string& p : parts) sig += p + ";";
  return sig;
}

StatusOr<std::shared_ptr<const Store>> Backend::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  auto now = std::chrono::steady_clock::now();
  if (store_ != nullptr && now - checked_ < recheck_) return store_;
  checked_ = now;
  std::string sig = StoreSignature();
  if (store_ != nullptr && sig == signature_) return store_;
  StoreOptions o;
  o.read_only = true;
  o.create_if_missing = false;
  auto opened = Store::Open(db_dir_ + "/store", o);
  if (!opened.ok()) {
    if (store_ != nullptr) return store_;  // keep serving the last good snapshot
    return opened.status();
  }
  store_ = std::shared_ptr<const Store>(std::move(*opened));
  signature_ = sig;
  ++opens_;
  stale_for_searcher_ = true;
  return store_;
}

std::int64_t Backend::opens() const {
  std::lock_guard<std::mutex> lock(mu_);
  return opens_;
}

Status Backend::OpenSearcherLocked() {
  auto s = query::Searcher::Open(db_dir_, docs_);
  if (!s.ok()) return s.status();
  search_->searcher = std::move(*s);
  return Status::OK();
}

bool Backend::AskAvailable() {
  std::unique_lock<std::shared_mutex> lock(search_->mu);
  if (search_->searcher == nullptr) {  // retried: the index may have appeared since
    search_->tried = true;
    search_->open_status = OpenSearcherLocked();
  }
  return search_->searcher != nullptr;
}

StatusOr<nlohmann::json> Backend::Ask(const std::string& text, size_t limit,
                                      const std::string& repo, double min_score) {
  return AskAs<nlohmann::json>(text, limit, repo, min_score);
}

StatusOr<std::string> Backend::AskText(const std::string& text, size_t limit,
                                       const std::string& repo, double min_score) {
  return AskAs<std::string>(text, limit, repo, min_score);
}

template <typename Out>
StatusOr<Out> Backend::AskAs(const std::string& text, size_t limit, const std::string& repo,
                             double min_score) {
  // Learn whether the data changed since the searcher last looked.
  auto store = Acquire();
  bool reopen = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reopen = stale_for_searcher_;
    stale_for_searcher_ = false;
  }
  bool ready = false;
  if (!reopen) {
    std::shared_lock<std::shared_mutex> lock(search_->mu);
    ready = search_->searcher != nullptr;
  }
  if (!ready) {
    std::unique_lock<std::shared_mutex> lock(search_->mu);
    if (search_->searcher == nullptr) {
      // Not open yet, or the index did not exist: try again now.
      search_->tried = true;
      search_->open_status = OpenSearcherLocked();
      if (!search_->open_status.ok()) {
        // No index yet is the server's state, not a missing item: 503.
        if (search_->open_status.IsNotFound())
          return Status::Unavailable(search_->open_status.message());
        return search_->open_status;
      }
    } else if (reopen) {
      if (Status s = search_->searcher->Reopen(); !s.ok())
        return Status::Unavailable("reopening the ask index: " + s.message());
    }
  }
  std::shared_lock<std::shared_mutex> lock(search_->mu);
  query::AskOptions options;
  options.limit = limit;
  options.repo = repo;
  options.min_score = min_score;
  options.decode_fixes = false;  // only printed as JSON: the fixes stay the stored text
  auto result = search_->searcher->Ask(text, options);
  if (!result.ok()) return result.status();
  if constexpr (std::is_same_v<Out, std::string>) {
    return query::ToJsonText(*result);
  } else {
    return query::ToJson(*result);
  }
}

}  // namespace fixgraph::cli

namespace fixgraph::cli {

namespace {
// A snapshot never changes: its Backend need not look for writers.
constexpr std::chrono::hours kSnapshotRecheck{24 * 365};
}  // namespace

BackendSource::BackendSource(std::string db_dir, query::DocSourceConfig docs)
    : docs_(std::move(docs)),
      current_(std::make_shared<Backend>(db_dir, std::chrono::milliseconds(200), docs_)),
      serving_(std::move(db_dir)) {}

StatusOr<std::unique_ptr<BackendSource>> BackendSource::ForSnapshots(const std::string& root,
                                                                     query::DocSourceConfig docs) {
  std::unique_ptr<BackendSource> source(new BackendSource());
  source->root_ = root;
  source->docs_ = std::move(docs);
  auto dir = source->ResolveCurrent();
  if (!dir.ok()) return dir.status();
  auto backend = OpenSnapshot(*dir, source->docs_);
  if (!backend.ok()) return backend.status();
  source->current_ = std::move(*backend);
  source->serving_ = *dir;
  return source;
}

StatusOr<std::string> BackendSource::ResolveCurrent() const {
  std::filesystem::path link = std::filesystem::path(root_) / "current";
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::canonical(link, ec);
  if (ec)
    return Status::NotFound("--snapshots " + root_ + ": " + link.string() +
                            " does not name a snapshot (" + ec.message() +
                            "; `fixgraph snapshot --publish` makes it)");
  if (!std::filesystem::is_directory(dir, ec))
    return Status::InvalidArgument("--snapshots " + root_ + ": " + link.string() + " names " +
                                   dir.string() + ", not a folder");
  return dir.string();
}

StatusOr<std::shared_ptr<Backend>> BackendSource::OpenSnapshot(const std::string& dir,
                                                               const query::DocSourceConfig& docs) {
  auto backend = std::make_shared<Backend>(dir, kSnapshotRecheck, docs);
  auto store = backend->Acquire();
  if (!store.ok()) return store.status().WithContext("snapshot " + dir);
  std::error_code ec;
  // Open the ask index now: a broken one must not replace a good one, and the
  // first request after the swap should not pay for opening it.
  if (std::filesystem::exists(std::filesystem::path(dir) / "index-issues", ec) &&
      !backend->AskAvailable())
    return Status::Unavailable("snapshot " + dir + ": its ask index cannot be opened");
  return backend;
}

std::shared_ptr<Backend> BackendSource::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

StatusOr<bool> BackendSource::Refresh() {
  if (root_.empty()) return false;
  std::lock_guard<std::mutex> refresh(refresh_mu_);
  auto dir = ResolveCurrent();
  if (!dir.ok()) return dir.status();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (*dir == serving_) return false;
  }
  // Opened outside mu_: requests keep getting the current one meanwhile.
  auto backend = OpenSnapshot(*dir, docs_);
  if (!backend.ok()) return backend.status();
  std::lock_guard<std::mutex> lock(mu_);
  retired_.push_back(std::move(current_));
  current_ = std::move(*backend);
  serving_ = *dir;
  ++swaps_;
  return true;
}

std::vector<std::string> BackendSource::ReleaseUnused() {
  std::vector<std::shared_ptr<Backend>> unused;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // A retired Backend is reachable only through retired_ and the requests
    // that took it before the swap: a count of 1 means none holds it, and
    // none can take it again.
    auto keep = std::partition(retired_.begin(), retired_.end(),
                               [](const std::shared_ptr<Backend>& b) { return b.use_count() > 1; });
    std::move(keep, retired_.end(), std::back_inserter(unused));
    retired_.erase(keep, retired_.end());
    closing_ += unused.size();
  }
  std::vector<std::string> closed;
  for (auto& b : unused) {
    closed.push_back(b->db_dir());
    b.reset();  // closes its store and ask index, outside mu_
    std::lock_guard<std::mutex> lock(mu_);
    --closing_;
  }
  return closed;
}

std::string BackendSource::serving() const {
  std::lock_guard<std::mutex> lock(mu_);
  return serving_;
}

std::int64_t BackendSource::swaps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return swaps_;
}

size_t BackendSource::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return 1 + retired_.size() + closing_;
}

}  // namespace fixgraph::cli
