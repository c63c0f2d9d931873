// SplitIndexes (fixgraph/query/shards.h): the issue and doc indexes as shards.
#include "index_shards.h"
#include "issue_index.h"

#include "fixgraph/query/docs.h"
#include "fixgraph/query/shards.h"

#include <xapian.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fixgraph::query {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxShards = 64;
// Documents of the issue index rebuilt in memory at a time: the index has no
// termlist table, so a document's terms are gathered from the posting lists
// of every term, one range of docids per pass.
constexpr Xapian::docid kInvertChunk = 1 << 16;

std::string ShardPath(const std::string& dir, const char* kind, size_t k) {
  return dir + "/" + kind + "-" + std::to_string(k);
}

Xapian::docid LocalDocid(Xapian::docid did, size_t shards) {
  return static_cast<Xapian::docid>((did - 1) / shards + 1);
}

void CopyMetadata(const Xapian::Database& from, Xapian::WritableDatabase* to) {
  for (auto k = from.metadata_keys_begin(); k != from.metadata_keys_end(); ++k)
    to->set_metadata(*k, from.get_metadata(*k));
}

Status WriteStub(const std::string& path, const char* kind, size_t shards) {
  std::ofstream out(path, std::ios::trunc);
  out << "# " << kind << " index shards written by `fixgraph index split`; one line per shard, in "
      << "order (remote HOST:PORT for a shard served by xapian-tcpsrv)\n";
  for (size_t k = 0; k < shards; ++k) out << "auto " << kind << "-" << k << "\n";
  out.close();
  if (!out) return Status::IOError("writing " + path);
  return Status::OK();
}

Status SplitIssues(const std::string& db_dir, const std::string& work, size_t n, SplitStats* st) {
  const std::string from = IssueIndexDir(db_dir);
  Xapian::Database src(from);
  const std::string schema = src.get_metadata("fixgraph:schema");
  if (schema != kIssueIndexSchema)
    return Status::FailedPrecondition("issue index " + from + " has layout " +
                                      (schema.empty() ? std::string("(none)") : schema) +
                                      ", this build splits layout " + kIssueIndexSchema +
                                      ": rebuild it with `fixgraph index-ask` first");
  std::vector<std::uint32_t> dead;
  if (!DecodeDocids(src.get_metadata(kDeadKey), &dead))
    return Status::Corruption("issue index " + from + ": unreadable dead document set");
  const Xapian::docid last = src.get_lastdocid();
  const std::string encoded_priors = EncodePriors(ReadPriorSlots(src));

  std::vector<Xapian::WritableDatabase> out;
  for (size_t k = 0; k < n; ++k) {
    // With a termlist table, unlike the index: a remote shard sends a
    // document's values by the slot list the termlist table keeps.
    out.emplace_back(ShardPath(work, "issues", k), Xapian::DB_CREATE | Xapian::DB_NO_SYNC);
    CopyMetadata(src, &out.back());
    out.back().set_metadata(kPriorsKey, encoded_priors);
    out.back().set_metadata(kShardsKey, std::to_string(n));
  }
  for (Xapian::docid a = 1; a <= last; a += std::min(kInvertChunk, last - a + 1)) {
    const Xapian::docid b = a + std::min(kInvertChunk, last - a + 1);  // [a, b)
    std::vector<Xapian::Document> docs(b - a);
    std::vector<bool> present(b - a, false);
    {
      Xapian::PostingIterator p = src.postlist_begin("");
      for (p.skip_to(a); p != src.postlist_end("") && *p < b; ++p) present[*p - a] = true;
    }
    for (auto t = src.allterms_begin(); t != src.allterms_end(); ++t) {
      const std::string term = *t;
      Xapian::PostingIterator p = src.postlist_begin(term);
      const Xapian::PostingIterator end = src.postlist_end(term);
      for (p.skip_to(a); p != end && *p < b; ++p) docs[*p - a].add_term(term, p.get_wdf());
    }
    for (Xapian::docid d = a; d < b; ++d) {
      if (!present[d - a]) continue;
      Xapian::Document& doc = docs[d - a];
      const Xapian::Document stored = src.get_document(d, Xapian::DOC_ASSUME_VALID);
      doc.set_data(stored.get_data());
      // The layout's value slots (issue_index.h), by number: the list of a
      // document's slots lives in the termlist table, which the index lacks.
      for (Xapian::valueno slot : {kPriorSlot, kHitSlot})
        if (std::string v = stored.get_value(slot); !v.empty()) doc.add_value(slot, v);
      if (std::binary_search(dead.begin(), dead.end(), d)) {
        doc.add_term(std::string(kDeadTerm), 0);
        ++st->dead;
      }
      out[(d - 1) % n].replace_document(LocalDocid(d, n), doc);
      ++st->issue_documents;
    }
    for (Xapian::WritableDatabase& db : out) db.commit();
  }
  for (Xapian::WritableDatabase& db : out) {
    db.commit();
    db.close();
  }
  return WriteStub(work + "/index-issues", "issues", n);
}

Status SplitDocs(const std::string& db_dir, const std::string& work, size_t n, SplitStats* st) {
  Xapian::Database src(DocIndexDir(db_dir));
  std::vector<Xapian::WritableDatabase> out;
  for (size_t k = 0; k < n; ++k) {
    out.emplace_back(ShardPath(work, "docs", k), Xapian::DB_CREATE | Xapian::DB_NO_SYNC);
    CopyMetadata(src, &out.back());
    out.back().set_metadata(kShardsKey, std::to_string(n));
  }
  for (auto p = src.postlist_begin(""); p != src.postlist_end(""); ++p) {
    out[(*p - 1) % n].replace_document(LocalDocid(*p, n), src.get_document(*p));
    ++st->doc_nodes;
  }
  for (Xapian::WritableDatabase& db : out) {
    db.commit();
    db.close();
  }
  return WriteStub(work + "/index-docs", "docs", n);
}

}  // namespace

Status SplitIndexes(const std::string& db_dir, const std::string& out_dir, size_t shards,
                    SplitStats* stats) {
  SplitStats local;
  SplitStats* st = stats != nullptr ? stats : &local;
  *st = SplitStats();
  if (shards < 1 || shards > kMaxShards)
    return Status::InvalidArgument("--shards must be from 1 to " + std::to_string(kMaxShards) +
                                   ", got " + std::to_string(shards));
  std::error_code ec;
  if (fs::exists(out_dir, ec))
    return Status::InvalidArgument(out_dir + " already exists: give a new directory");
  const std::string from = IssueIndexDir(db_dir);
  if (IsStubFile(from))
    return Status::InvalidArgument(from +
                                   " is a stub of shards, not an index: split the writer's index");
  if (!fs::exists(from + "/iamglass", ec))
    return Status::NotFound("no issue index at " + from +
                            " (import data with `fixgraph import DUMP` or run `fixgraph link`)");
  const std::string work = out_dir + ".tmp";
  fs::remove_all(work, ec);  // a split that died midway
  fs::create_directories(work, ec);
  if (ec) return Status::IOError("creating " + work + ": " + ec.message());
  st->shards = shards;
  Status s;
  try {
    s = SplitIssues(db_dir, work, shards, st);
    const std::string docs = DocIndexDir(db_dir);
    if (s.ok() && fs::exists(docs + "/iamglass", ec)) s = SplitDocs(db_dir, work, shards, st);
  } catch (const Xapian::Error& e) {
    s = Status::IOError("splitting the indexes of " + db_dir + ": " + e.get_description());
  }
  if (s.ok()) {
    fs::rename(work, out_dir, ec);
    if (ec) s = Status::IOError("renaming " + work + " to " + out_dir + ": " + ec.message());
  }
  if (!s.ok()) fs::remove_all(work, ec);
  return s;
}

}  // namespace fixgraph::query
