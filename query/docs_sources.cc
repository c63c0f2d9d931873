// OpenDocSources: the configured doc sources behind one DocSource, merged by
// score and deduplicated by id.
#include "analyzer.h"

#include "fixgraph/engine/utf8.h"
#include "fixgraph/query/docs.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace fixgraph::query {
namespace {

class MergedDocSource : public DocSource {
 public:
  explicit MergedDocSource(std::vector<std::unique_ptr<DocSource>> members)
      : members_(std::move(members)) {}

  std::string Name() const override {
    if (members_.empty()) return "none";
    std::string n;
    for (const auto& m : members_) {
      if (!n.empty()) n += '+';
      n += m->Name();
    }
    return n;
  }

  StatusOr<std::vector<DocHit>> Search(std::string_view text, size_t limit) override {
    return SearchReporting(text, limit, nullptr);
  }

  StatusOr<std::vector<DocHit>> SearchReporting(std::string_view text, size_t limit,
                                                std::vector<std::string>* warnings) override {
    std::vector<DocHit> all;
    Status first_error;
    size_t failed = 0;
    for (const auto& m : members_) {
      auto r = m->Search(text, limit);
      if (!r.ok()) {
        if (failed++ == 0) first_error = r.status();
        if (warnings) warnings->push_back(m->Name() + ": " + r.status().message());
        continue;
      }
      for (DocHit& h : *r) all.push_back(std::move(h));
    }
    if (!members_.empty() && failed == members_.size()) return first_error;
    // Dedupe by id, keeping the best-scored copy.
    std::stable_sort(all.begin(), all.end(),
                     [](const DocHit& a, const DocHit& b) { return a.score > b.score; });
    std::vector<DocHit> out;
    std::map<std::string, bool> seen;
    for (DocHit& h : all) {
      if (out.size() >= limit) break;
      if (!seen.emplace(h.id, true).second) continue;
      out.push_back(std::move(h));
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<DocSource>> members_;
};

}  // namespace

StatusOr<std::vector<DocHit>> SearchWithWarnings(DocSource& source, std::string_view text,
                                                 size_t limit, std::vector<std::string>* warnings) {
  if (Analyze(text).empty())
    return Status::InvalidArgument(
        "nothing to search for in the query: it has no words, identifiers or error codes");
  return source.SearchReporting(text, limit, warnings);
}

StatusOr<std::unique_ptr<DocSource>> OpenDocSources(const std::string& db_dir,
                                                    const DocSourceConfig& config) {
  std::string mode = LowerAscii(config.mode);
  if (mode.empty()) mode = "auto";
  if (mode != "auto" && mode != "local" && mode != "remote" && mode != "both")
    return Status::InvalidArgument("$FIXGRAPH_KG_MODE must be local, remote, both or auto (got \"" +
                                   mode + "\")");
  const std::string& url = config.url;
  std::vector<std::unique_ptr<DocSource>> members;
  if (mode != "remote") {
    auto local = OpenLocalDocSource(db_dir, config.local);
    if (local.ok()) {
      members.push_back(std::move(*local));
    } else if (!local.status().IsNotFound()) {
      return local.status();
    }
  }
  if (mode == "remote" && url.empty())
    return Status::InvalidArgument("$FIXGRAPH_KG_MODE is remote but $FIXGRAPH_KG_URL is not set");
  if (mode != "local" && !url.empty()) {
    RemoteDocOptions o;
    o.url = url;
    o.api_key = config.api_key;
    if (const std::string& t = config.timeout; !t.empty()) {
      char* end = nullptr;
      double v = std::strtod(t.c_str(), &end);
      if (end == t.c_str() || *end != '\0' || !(v > 0))
        return Status::InvalidArgument(
            "$FIXGRAPH_KG_TIMEOUT must be a positive number of seconds (got \"" + t + "\")");
      o.timeout_seconds = v;
    }
    auto remote = OpenRemoteDocSource(o);
    if (!remote.ok()) return remote.status();
    members.push_back(std::move(*remote));
  }
  if (members.size() == 1) return std::move(members[0]);
  return std::unique_ptr<DocSource>(new MergedDocSource(std::move(members)));
}

}  // namespace fixgraph::query
