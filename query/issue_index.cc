#include "issue_index.h"

#include "analyzer.h"
#include "ask_answer.h"
#include "issue_document.h"

#include "fixgraph/engine/byte_codec.h"
#include "fixgraph/engine/ref.h"
#include "fixgraph/engine/utf8.h"
#include "fixgraph/graph/linker.h"
#include "fixgraph/query/ask.h"

#include <xapian.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <optional>
#include <set>

namespace fixgraph::query {
namespace {

using nlohmann::json;

constexpr size_t kMaxBodyBytes = size_t{16} * 1024;
constexpr size_t kMaxCommentBytes = size_t{4} * 1024;
constexpr size_t kMaxCommentsBytes = size_t{32} * 1024;
constexpr size_t kMaxPrBodyBytes = size_t{8} * 1024;
constexpr size_t kMaxFixesShown = 5;
// The first byte of the two encodings (engine/byte_codec.h) this index stores.
constexpr char kHitFieldsTag = 'H';
constexpr char kDeadSetTag = 'D';

// The distinct terms of one document with their summed wdf, in the order
// they first occurred: Xapian's Document::add_term is a std::map lookup per
// call, so a document's terms are counted here (an open-addressing table whose
// buffers are reused from document to document) and each distinct term is
// added once, with the wdf its occurrences add up to (the same document).
class TermCounts {
 public:
  void Clear() {
    for (std::uint32_t s : used_) slots_[s].len = 0;
    used_.clear();
    bytes_.clear();
  }

  void Add(std::string_view term, std::uint32_t wdf) {
    if (term.empty())
      return;  // never produced by the analyzer; kept out of the table's "empty" mark
    if ((used_.size() + 1) * 2 > slots_.size()) Grow();
    const size_t hash = Hash(term);
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.len == 0) {
        slot = {static_cast<std::uint32_t>(bytes_.size()), static_cast<std::uint32_t>(term.size()),
                wdf, hash};
        bytes_.append(term);
        used_.push_back(static_cast<std::uint32_t>(i));
        return;
      }
      if (slot.hash == hash && slot.len == term.size() &&
          bytes_.compare(slot.off, slot.len, term) == 0) {
        slot.wdf += wdf;
        return;
      }
    }
  }

  // A hash of a short string, 8 bytes at a time (terms are mostly a few
  // bytes: std::hash's byte loop cost as much as the table).
  static size_t Hash(std::string_view s) {
    std::uint64_t h = s.size() * 0x9E3779B97F4A7C15ull;
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      h = (h ^ w) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 32;
    }
    if (i < s.size()) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, s.size() - i);
      h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    }
    h ^= h >> 29;
    return static_cast<size_t>(h);
  }

  // Adds every term to `doc` with its summed wdf.
  void AddTo(Xapian::Document* doc) {
    for (std::uint32_t s : used_) {
      const Slot& slot = slots_[s];
      term_.assign(bytes_, slot.off, slot.len);
      doc->add_term(term_, slot.wdf);
    }
  }

 private:
  struct Slot {
    std::uint32_t off = 0, len = 0;  // in bytes_; len 0: empty
    std::uint32_t wdf = 0;
    size_t hash = 0;
  };

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(old.size() * 2, 1024), Slot());
    const size_t mask = slots_.size() - 1;
    for (std::uint32_t& s : used_) {
      size_t i = old[s].hash & mask;
      while (slots_[i].len != 0) i = (i + 1) & mask;
      slots_[i] = old[s];
      s = static_cast<std::uint32_t>(i);
    }
  }

  std::vector<Slot> slots_;          // a power of two, at most half used
  std::vector<std::uint32_t> used_;  // the used slots, in order of first occurrence
  std::string bytes_;                // the terms' bytes
  std::string term_;                 // AddTo's
};

// Counts each term of analysed text with wdf `wdf`; for a title, once more
// under kTitlePrefix with wdf 1 (the title field of a query).
class DocSink final : public TermSink {
 public:
  DocSink(TermCounts* terms, unsigned wdf, bool title) : terms_(terms), wdf_(wdf), title_(title) {}
  void Add(std::string_view text, std::uint32_t, TermKind) override {
    terms_->Add(text, wdf_);
    if (!title_) return;
    term_.assign(kTitlePrefix);
    term_.append(text);
    terms_->Add(term_, 1);
  }

 private:
  TermCounts* terms_;
  unsigned wdf_;
  bool title_;
  std::string term_;
};

void AddText(TermCounts* terms, std::string_view text, unsigned weight) {
  DocSink sink(terms, weight, false);
  AnalyzeTo(text, &sink);
}

// The title: its terms at kTitleWeight in the shared term space, and once more
// under kTitlePrefix (wdf 1 per occurrence) for the title field of a query.
void AddTitle(TermCounts* terms, std::string_view title) {
  DocSink sink(terms, kTitleWeight, true);
  AnalyzeTo(title, &sink);
}

}  // namespace

std::string IssueIndexDir(const std::string& db_dir) { return db_dir + "/index-issues"; }

std::string EncodeDocids(const std::vector<std::uint32_t>& sorted) {
  std::string out;
  if (sorted.empty()) return out;
  ByteWriter w(&out, kDeadSetTag);
  std::uint32_t last = 0;
  for (std::uint32_t did : sorted) {
    w.Varint(did - last);
    last = did;
  }
  return out;
}

std::string EncodePriors(const std::vector<std::string>& by_docid) {
  std::vector<std::string> levels;
  for (size_t d = 1; d < by_docid.size(); ++d)
    if (!by_docid[d].empty()) levels.push_back(by_docid[d]);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  std::string out;
  ByteWriter w(&out, 'P');
  w.Strings(levels);
  w.Varint(by_docid.empty() ? 0 : by_docid.size() - 1);
  for (size_t d = 1; d < by_docid.size(); ++d) {
    if (by_docid[d].empty()) {
      w.Varint(0);
      continue;
    }
    auto it = std::lower_bound(levels.begin(), levels.end(), by_docid[d]);
    w.Varint(static_cast<std::uint64_t>(it - levels.begin()) + 1);
  }
  return out;
}

bool DecodePriors(std::string_view text, float missing, std::vector<float>* by_docid,
                  Xapian::docid* last, std::vector<std::pair<float, size_t>>* held) {
  by_docid->clear();
  ByteReader r(text, 'P', "priors");
  std::vector<std::string> slots;
  r.Strings(&slots);
  std::vector<float> values(1, missing);  // [0]: no slot
  values.reserve(slots.size() + 1);
  for (const std::string& slot : slots)
    values.push_back(static_cast<float>(Xapian::sortable_unserialise(slot)));
  std::vector<size_t> count(values.size(), 0);
  const size_t docs = r.Count();
  by_docid->resize(docs + 1);
  (*by_docid)[0] = missing;
  float* out = by_docid->data();
  for (size_t d = 1; d <= docs; ++d) {
    const std::uint64_t i = r.Varint();
    if (i >= values.size()) {
      by_docid->clear();
      return false;
    }
    out[d] = values[i];
    ++count[i];
  }
  if (!r.Finish().ok()) {
    by_docid->clear();
    return false;
  }
  *last = static_cast<Xapian::docid>(docs);
  if (held != nullptr) {
    held->clear();
    for (size_t i = 0; i < values.size(); ++i) held->emplace_back(values[i], count[i]);
  }
  return true;
}

std::string AppendPriors(std::string_view stored, Xapian::docid last,
                         const std::vector<std::pair<Xapian::docid, std::string>>& added) {
  std::vector<float> check;
  Xapian::docid stored_last = 0;
  if (!DecodePriors(stored, 0.0F, &check, &stored_last) || stored_last != last) return {};
  ByteReader r(stored, 'P', "priors");
  std::vector<std::string> slots;
  r.Strings(&slots);
  (void)r.Count();
  const std::string_view body = r.Rest();  // one varint per docid
  // The index + 1 of each added document's slot string; a new one joins the
  // end of the list (a reader does not need it sorted).
  std::vector<std::uint64_t> index;
  index.reserve(added.size());
  Xapian::docid prev = last;
  for (const auto& [did, slot] : added) {
    if (did <= prev) return {};
    prev = did;
    if (slot.empty()) {
      index.push_back(0);
      continue;
    }
    auto it = std::find(slots.begin(), slots.end(), slot);
    if (it == slots.end()) it = slots.insert(slots.end(), slot);
    index.push_back(static_cast<std::uint64_t>(it - slots.begin()) + 1);
  }
  std::string out;
  ByteWriter w(&out, 'P');
  w.Strings(slots);
  w.Varint(prev);
  out.reserve(out.size() + body.size() + (prev - last));
  out.append(body);
  Xapian::docid d = last;
  for (size_t k = 0; k < added.size(); ++k) {
    for (++d; d < added[k].first; ++d) w.Varint(0);
    w.Varint(index[k]);
  }
  return out;
}

std::vector<std::string> ReadPriorSlots(const Xapian::Database& db) {
  const Xapian::docid last = db.get_lastdocid();
  std::vector<std::string> slots(static_cast<size_t>(last) + 1);
  for (auto v = db.valuestream_begin(kPriorSlot); v != db.valuestream_end(kPriorSlot); ++v)
    if (v.get_docid() <= last) slots[v.get_docid()] = *v;
  return slots;
}

bool DecodeDocids(std::string_view text, std::vector<std::uint32_t>* out) {
  out->clear();
  if (text.empty()) return true;
  ByteReader r(text, kDeadSetTag, "dead document set");
  std::uint64_t last = 0;
  while (!r.AtEnd()) {
    const std::uint64_t gap = r.Varint();
    // Docids start at 1 and ascend strictly (a bad read gives 0 too).
    if (gap == 0 || last + gap > 0xffffffffu) {
      out->clear();
      return false;
    }
    last += gap;
    out->push_back(static_cast<std::uint32_t>(last));
  }
  if (!r.Finish().ok()) {
    out->clear();
    return false;
  }
  return true;
}

namespace {

// True when `s` is valid UTF-8 (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF), which JSON output keeps as it is.
bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n;
    char32_t cp, min;
    if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

// `s`, its invalid UTF-8 replaced as JSON output (nlohmann's dump with
// error_handler_t::replace) replaces it.
std::string_view AsJsonWould(std::string_view s, std::string* replaced) {
  if (ValidUtf8(s)) return s;
  json text =
      json::parse(json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace));
  *replaced = text.get<std::string>();
  return *replaced;
}

}  // namespace

std::string EncodeHitFields(const HitFields& f) {
  std::string out, replaced;
  ByteWriter w(&out, kHitFieldsTag);
  for (const std::string* field :
       {&f.issue, &f.title, &f.state, &f.resolution, &f.answer, &f.answer_source, &f.fixes})
    w.Str(AsJsonWould(*field, &replaced));
  auto ref = ParseRef(f.issue);
  w.Str(ref.ok() && f.url == WebUrl(*ref) ? std::string_view() : AsJsonWould(f.url, &replaced));
  w.Str(f.flags);
  return out;
}

bool DecodeHitFields(std::string_view value, HitFields* f) {
  ByteReader r(value, kHitFieldsTag, "hit fields");
  for (std::string* field : {&f->issue, &f->title, &f->state, &f->resolution, &f->answer,
                             &f->answer_source, &f->fixes, &f->url, &f->flags})
    r.Str(field);
  if (!r.Finish().ok()) return false;
  if (f->url.empty()) {
    auto ref = ParseRef(f->issue);
    if (!ref.ok()) return false;
    f->url = WebUrl(*ref);
  }
  return true;
}

double ResolutionPrior(const graph::IssueLinks& links) {
  using graph::Resolution;
  double tier = 0;
  if (!links.fixes.empty()) {
    switch (links.fixes.front().tier) {
      case graph::Tier::kA:
        tier = 1.0;
        break;
      case graph::Tier::kB:
        tier = 0.85;
        break;
      case graph::Tier::kC:
        tier = 0.6;
        break;
      case graph::Tier::kD:
        tier = 0.35;
        break;
    }
  }
  switch (links.resolution) {
    case Resolution::kFixed:
    case Resolution::kFixedElsewhere:
      return std::max(tier, links.answer ? 0.7 : 0.55);
    case Resolution::kAnswered:
      return links.answer ? 0.7 : 0.5;
    case Resolution::kDuplicate:
      return 0.4;
    case Resolution::kWontfix:
      return 0.3;
    case Resolution::kStale:
      return 0.2;
    case Resolution::kOpen:
      return std::max(0.1, tier * 0.5);
    case Resolution::kUnknown:
      return std::max(0.2, tier * 0.5);
  }
  return 0.2;
}

std::string ExtractPrAnswer(const std::string& title, const std::string& body) {
  std::string passage = ExtractAnswerPassage(Utf8Prefix(body, kMaxPrBodyBytes));
  return passage.empty() || OnlyVersionNotes(passage) ? title : passage;
}

namespace {

// The unique id term of an issue's document (built by appending: GCC 12 warns
// falsely on "Q" + an rvalue string).
std::string IdTerm(const Ref& ref) {
  std::string t = "Q";
  t += ref.ToString();
  return t;
}

// Reads the links and comments of `issue` (the incremental path).
StatusOr<IssueInput> ReadInput(const Store& store, Issue issue) {
  IssueInput in;
  in.issue = std::move(issue);
  const Ref ref = in.issue.ref();
  auto stored = graph::ReadLinks(store, ref);
  if (stored.ok()) {
    in.links = std::move(*stored);
  } else if (!stored.status().IsNotFound()) {
    return stored.status();
  }
  FG_RETURN_IF_ERROR(store.ListComments(ref, &in.comments));
  return in;
}

}  // namespace

// Builds the document of one issue (fix PRs are read from the store).
StatusOr<Xapian::Document> BuildDocument(const Store& store, const IssueInput& in) {
  const Issue& issue = in.issue;
  const Ref ref = issue.ref();
  graph::IssueLinks unlinked;  // an issue never linked: open or of unknown resolution
  if (!in.links) {
    unlinked.issue = ref;
    unlinked.state = issue.state;
    unlinked.resolution =
        issue.state == IssueState::kOpen ? graph::Resolution::kOpen : graph::Resolution::kUnknown;
  }
  const graph::IssueLinks& links = in.links ? *in.links : unlinked;
  // One table per thread, reused by every document it builds.
  thread_local TermCounts terms;
  terms.Clear();
  AddTitle(&terms, issue.title);
  AddText(&terms, Utf8Prefix(issue.body, kMaxBodyBytes), kBodyWeight);
  for (const std::string& label : issue.labels) AddText(&terms, label, kCommentWeight);

  std::string answer, answer_source;
  if (links.answer && !links.answer->text.empty()) {
    // The whole diagnosis-and-steps passage of the resolving comment
    // (ask_answer.h); the linker's sentences when the comment is not at hand.
    for (const Comment& c : in.comments)
      if (c.id == links.answer->comment_id) answer = ExtractAnswerPassage(c.body);
    if (answer.empty()) answer = links.answer->text;
    answer_source = "comment";
  }
  AddText(&terms, answer, kAnswerWeight);

  size_t comment_bytes = 0;
  for (const Comment& c : in.comments) {
    if (comment_bytes >= kMaxCommentsBytes) break;
    if (links.answer && c.id == links.answer->comment_id) continue;  // indexed as the answer
    std::string_view text = Utf8Prefix(c.body, kMaxCommentBytes);
    comment_bytes += text.size();
    AddText(&terms, text, kCommentWeight);
  }

  json fixes = json::array();
  for (const graph::FixLink& f : links.fixes) {
    if (f.Trusted() && fixes.size() < kMaxFixesShown) fixes.push_back(graph::ToJson(f));
    auto pr_ref = ParseRef(f.pr);
    if (!f.in_store || !pr_ref.ok() || pr_ref->kind != RefKind::kPull) continue;
    auto pr = store.GetPull(*pr_ref);
    if (!pr.ok()) continue;
    AddText(&terms, pr->title, kAnswerWeight);
    AddText(&terms, Utf8Prefix(pr->body, kMaxPrBodyBytes), kCommentWeight);
    if (answer.empty() && f.Trusted()) {
      answer = ExtractPrAnswer(pr->title, pr->body);
      answer_source = "pr";
    }
  }

  // The likely fixes (tier D, not verified), most probable first, follow in
  // the same list; ask prints them apart (ask_result.cc, FixesJson).
  const std::vector<const graph::FixLink*> likely = links.Likely();
  for (size_t i = 0; i < likely.size() && i < kMaxFixesShown; ++i)
    fixes.push_back(graph::ToJson(*likely[i]));

  Xapian::Document doc;
  terms.AddTo(&doc);
  double prior = ResolutionPrior(links);
  HitFields hit;
  hit.issue = ref.ToString();
  hit.title = issue.title;
  hit.state = issue.state == IssueState::kOpen ? "open" : "closed";
  hit.resolution = graph::ResolutionName(links.resolution);
  hit.answer = std::move(answer);
  hit.answer_source = std::move(answer_source);
  hit.fixes = fixes.dump(-1, ' ', false, json::error_handler_t::replace);
  hit.url = issue.html_url.empty() ? WebUrl(ref) : issue.html_url;
  for (graph::Flag f : links.flags) {
    if (!hit.flags.empty()) hit.flags += ',';
    hit.flags += graph::FlagName(f);
  }
  doc.add_value(kHitSlot, EncodeHitFields(hit));
  doc.add_value(kPriorSlot, Xapian::sortable_serialise(prior));
  std::string id = IdTerm(ref);
  std::string repo = "R" + ref.repo.ToString();
  if (id.size() <= 240) doc.add_boolean_term(id);
  if (repo.size() <= 240) doc.add_boolean_term(repo);
  return doc;
}

namespace {

// The document of `ref` read from the store (the incremental path); nullopt
// when the issue is no longer in the store.
StatusOr<std::optional<Xapian::Document>> ReadDocument(const Store& store, const Ref& ref) {
  auto issue = store.GetIssue(ref);
  if (!issue.ok()) {
    if (issue.status().IsNotFound()) return std::optional<Xapian::Document>();
    return issue.status().WithContext("indexing " + ref.ToString());
  }
  auto in = ReadInput(store, std::move(*issue));
  if (!in.ok()) return in.status().WithContext("indexing " + ref.ToString());
  StatusOr<Xapian::Document> doc = BuildDocument(store, *in);
  if (!doc.ok()) return doc.status().WithContext("indexing " + ref.ToString());
  return std::optional<Xapian::Document>(std::move(*doc));
}

// The dead set of `db` (kDeadKey); Corruption when it cannot be read.
StatusOr<std::vector<std::uint32_t>> ReadDead(const Xapian::Database& db) {
  std::vector<std::uint32_t> dead;
  if (!DecodeDocids(db.get_metadata(kDeadKey), &dead))
    return Status::Corruption("issue index: unreadable dead document set (" +
                              std::string(kDeadKey) + ")");
  return dead;
}

// The incremental update of an index of this layout (issue_index.h): each
// issue of `issues` gets a new document (none when it left the store) and its
// live document, if any, is tombstoned, all in one commit. False, with nothing
// written, when the dead set would reach kDeadShare of the documents and
// kDeadFloor (or could not be read): the caller rebuilds.
StatusOr<bool> UpdateInPlace(Xapian::WritableDatabase& db, const Store& store,
                             const std::vector<Ref>& issues) {
  auto dead = ReadDead(db);
  if (!dead.ok()) return false;  // a rebuild starts over without one
  // Each issue once, in the order given.
  // (A set: an import may change tens of thousands of issues, and inserting
  // into a sorted vector would move half of it each time.)
  std::vector<Ref> refs;
  {
    std::set<Ref> seen;
    for (const Ref& ref : issues)
      if (ref.kind == RefKind::kIssue && seen.insert(ref).second) refs.push_back(ref);
  }
  // The live documents of the issues: the docids of their id terms not yet dead.
  std::vector<std::uint32_t> killed;
  for (const Ref& ref : refs) {
    const std::string id = IdTerm(ref);
    for (auto it = db.postlist_begin(id); it != db.postlist_end(id); ++it)
      if (!std::binary_search(dead->begin(), dead->end(), *it)) killed.push_back(*it);
  }
  std::sort(killed.begin(), killed.end());
  killed.erase(std::unique(killed.begin(), killed.end()), killed.end());
  if (!killed.empty()) {
    const size_t after = dead->size() + killed.size();
    if (after >= kDeadFloor &&
        static_cast<double>(after) >= kDeadShare * static_cast<double>(db.get_doccount()))
      return false;
  }
  // Every document is built before the first write: an error leaves the
  // index as it was.
  std::vector<Xapian::Document> docs;
  for (const Ref& ref : refs) {
    auto doc = ReadDocument(store, ref);
    if (!doc.ok()) return doc.status();
    if (*doc) docs.push_back(std::move(**doc));
  }
  std::vector<std::uint32_t> merged;
  merged.reserve(dead->size() + killed.size());
  std::merge(dead->begin(), dead->end(), killed.begin(), killed.end(), std::back_inserter(merged));
  const Xapian::docid last = db.get_lastdocid();
  // A transaction: should a write fail, closing the database cancels it
  // (outside one, it would commit what was written).
  db.begin_transaction();
  std::vector<std::pair<Xapian::docid, std::string>> added;
  added.reserve(docs.size());
  for (const Xapian::Document& doc : docs)
    added.emplace_back(db.add_document(doc), doc.get_value(kPriorSlot));
  if (!docs.empty()) {
    // The stored priors (issue_index.h, kPriorsKey) grow with the new
    // documents: appended to the stored table when it is current, else
    // written anew from the value stream, which holds the documents just
    // added (an index written by an older build).
    std::string table = AppendPriors(db.get_metadata(kPriorsKey), last, added);
    if (table.empty()) table = EncodePriors(ReadPriorSlots(db));
    db.set_metadata(kPriorsKey, table);
  }
  if (!killed.empty()) db.set_metadata(kDeadKey, EncodeDocids(merged));
  db.commit_transaction();
  return true;
}

}  // namespace

Status UpdateIssueIndex(const Store& store, const std::string& db_dir,
                        const std::vector<Ref>& issues, const IndexOptions& options) {
  try {
    {
      std::error_code ec;
      std::filesystem::create_directories(db_dir, ec);
      // DB_NO_TERMLIST: an index of this layout has no termlist table (one of
      // an older layout may: it is rebuilt below).
      Xapian::WritableDatabase db(IssueIndexDir(db_dir),
                                  Xapian::DB_CREATE_OR_OPEN | Xapian::DB_NO_TERMLIST);
      if (db.get_metadata("fixgraph:schema") == kIssueIndexSchema) {
        StatusOr<bool> updated = UpdateInPlace(db, store, issues);
        if (!updated.ok()) return updated.status();
        if (*updated) return Status::OK();
        // Too many dead documents: nothing was written; rebuild.
      }
    }
    return RebuildIssueIndexInShards(store, db_dir, kShardIssues, options);
  } catch (const Xapian::DatabaseLockError& e) {
    return Status::Unavailable("issue index " + IssueIndexDir(db_dir) +
                               " is locked by another writer: " + e.get_msg());
  } catch (const Xapian::Error& e) {
    return Status::IOError("issue index " + IssueIndexDir(db_dir) + ": " + e.get_description());
  }
}

}  // namespace fixgraph::query
