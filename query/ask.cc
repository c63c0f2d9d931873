// Searcher over the issue index (issue_index.h) and the KG fallback.
#include "fixgraph/query/ask.h"

#include "analyzer.h"
#include "ask_priors.h"
#include "ask_query.h"
#include "index_shards.h"
#include "issue_index.h"
#include "lexicon.h"
#include "log_signature.h"

#include "fixgraph/engine/utf8.h"

#include <xapian.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace fixgraph::query {
namespace {

using nlohmann::json;

constexpr size_t kPoolSize = 4;
constexpr size_t kMinCandidates = 40;
constexpr size_t kMaxQueryEcho = 2000;
constexpr size_t kDocLimit = 3;
// An identifier part held by more than this share of the issues is not
// searched (ask_query.h, CommonPart), in an index of at least
// kCommonPartMinIssues issues (in a smaller one a share says little: one
// issue of three is a third).
constexpr double kCommonPartShare = 0.2;
constexpr Xapian::doccount kCommonPartMinIssues = 1000;
// In an index of at least kCommonPartMinIssues issues, a query unit whose
// postings exceed this (or kCommonPartShare of the issues) is common: it no
// longer brings candidates to the partial-match pass, and alone (a query of
// one unit of words) it is looked for in titles first (ask_query.h,
// RareUnits, CommonSingleUnit). A BM25 pass reads about ten million
// postings a second on the 2-core machine of docs/benchmarks.md: this is about
// 5 ms.
constexpr double kLongUnitPostings = 50000;
// In the partial-match pass, a title unit whose title terms have more postings
// than this share of the issues adds no title weight (ask_query.h,
// RareTitleUnits), in an index of at least kCommonPartMinIssues issues.
constexpr double kCommonTitleShare = 0.05;
// In the partial-match pass of a large index, the candidates are the issues
// holding one of the query's rarest units, taken rarest first while their
// postings together stay within this (ask_query.h, RareUnits). The pass then
// reads about this many documents whatever the length of the query: a pasted
// log line of forty units otherwise weighed every issue holding any unit not
// common (tens of thousands), and ranked them worse (docs/benchmarks.md,
// "Pasted log lines": on 300 log lines of a 100k store, 34 -> 10 CPU ms a query
// and Recall@5 0.733 -> 0.820). When the rarest unit alone is over it (an
// error code in a million issues), the issues holding the rarest units
// together come first (ask_query.h, RareIntersection).
constexpr double kRareFilterPostings = 2000;
// The prior pool (BodyCandidates): a pass that would weigh a large part of
// a large index takes its candidates from the kPriorPool best-resolved issues
// that match, walked in prior order (PriorSource skips the rest, as in the
// title pass), and weighs only those by BM25. Which passes:
// - the conjunctive pass, when it reads more postings than a common unit's
//   or than kDearPass (its rarest unit is common, or frequent enough that
//   weighing every match would be dear). Its matches are not estimated:
//   units of a template line or a phrase go together, so an estimate as if
//   independent can be a hundred times low. When at most kPriorPool match,
//   the walk reads about what the pass reads, and keeps them all (the same
//   candidates, weighed alike);
// - a partial pass narrowed by the rarest units, when its filter matches more
//   issues than the filter's budget (kRareFilterPostings: correlated units
//   again), counted first (the count stops at the budget);
// - the unfiltered partial pass, when it reads more postings than a common
//   unit's or than kDearPass and is estimated to match at least kDearPass
//   issues, sixteen pools (an OR's estimate is sound; a unit found mostly by
//   its identifier parts is not walked).
// On the 1M store of docs/benchmarks.md ("The prior pool"): the serve mix
// about 2x the requests/s; pasted log lines found better; title and code
// queries as before.
constexpr Xapian::doccount kPriorPool = 500;
// A pass that would weigh more matches than this is pooled even when its
// units are not common (under a fifth of the issues and 50,000 postings):
// a pasted error line that thousands of issues repeat whole (22,000 at 1M)
// matched them all in the conjunctive pass, and an error code that 5,000 to
// 50,000 issues hold in the partial pass, and BM25 weighed every one (5-18
// ms). On the 1M store of docs/benchmarks.md ("A frequent line pools the
// conjunctive pass", "A frequent code pools the partial pass"): the serve mix
// 0.87x and then 0.84x the CPU a query; every recall the same at 10k, 100k
// and 1M; a code's first hit changed for 12 of 300 title and code queries,
// each time to another issue holding it in its title, better resolved. At
// 2,000 one title query in 300 lost its place.
constexpr double kDearPass = 8000;
// A partial pass narrowed by the rarest units (and not pooled) weighs up to
// kRareFilterPostings issues by its elite set, half the query's units: at 1M
// issues a pasted log line's elite set is twenty-odd units, skipped to at
// each of those issues, about 10 microseconds an issue. It first weighs them
// by the kFirstStageUnits units that can weigh most (an elite set of those
// alone) and, when at least kFirstStageKeep hold one, weighs only the best
// kFirstStageKeep of them in full (an issue holding none of those units is
// then not a candidate). On the 1M store of docs/benchmarks.md ("A first
// stage for the narrowed pass"): pasted log lines 8.2 -> 6.5 CPU ms a query
// (p99 22.5 -> 14.9), about the same recall (of 300 lines, 3 more found
// first; of the same lines with their own numbers, one fewer in the top 5).
// It keeps 15 rather than 100 (or `limit`, when more are asked for): the
// issues the four rank lower came up only by holding more of the line's
// commoner units, and pushed the issue the line came from down ("The
// narrowed pass keeps 30": log-line Recall@1 up at 10k, 100k and 1M, 0.85x
// their CPU at 1M; "The narrowed pass keeps 15": Recall@5 up at every size,
// 0.94x their CPU at 1M).
constexpr size_t kFirstStageUnits = 4;
constexpr Xapian::doccount kFirstStageKeep = 15;

std::string RepoTerm(const std::string& repo) {
  std::string t = "R";
  t += repo;
  return t;
}

double Round3(double v) { return std::round(v * 1000.0) / 1000.0; }

// The ranking score: relevance scaled by the issue's resolution prior (its
// value slot kPriorSlot).
double HitScore(double relevance, double prior) {
  prior = std::clamp(prior, 0.0, 1.0);
  return Round3(std::clamp(relevance, 0.0, 1.0) *
                (kRelevanceShare + (1 - kRelevanceShare) * prior));
}

// A hit from its stored fields (value slot kHitSlot, issue_index.h,
// EncodeHitFields). `decode_fixes`: also decode the fixes (AskHit::fixes);
// else they stay JSON text (AskHit::fixes_json).
StatusOr<AskHit> HitFromValue(std::string_view value, double score, bool decode_fixes) {
  HitFields fields;
  if (!DecodeHitFields(value, &fields))
    return Status::Corruption("issue index: unreadable hit fields");
  if (fields.fixes.empty() || fields.fixes.front() != '[')
    return Status::Corruption("issue index document: fixes: expected an array");
  AskHit hit;
  hit.title = std::move(fields.title);
  hit.answer = std::move(fields.answer);
  hit.answer_source = std::move(fields.answer_source);
  hit.url = std::move(fields.url);
  hit.state = fields.state;
  if (decode_fixes) {
    // The strict decoder of graph/ checks every field of every fix.
    json fixes = json::parse(fields.fixes, nullptr, false);
    if (fixes.is_discarded() || !fixes.is_array())
      return Status::Corruption("issue index document: fixes: expected an array");
    json links = {{"issue", fields.issue},
                  {"state", fields.state.empty() ? "open" : fields.state},
                  {"resolution", fields.resolution.empty() ? "unknown" : fields.resolution},
                  {"fixes", std::move(fixes)},
                  {"flags", json::array()}};
    graph::IssueLinks decoded;
    FG_RETURN_IF_ERROR(graph::FromJson(links, &decoded).WithContext("issue index document"));
    hit.issue = decoded.issue;
    hit.resolution = decoded.resolution;
    hit.fixes = std::move(decoded.fixes);
  } else {
    auto ref = ParseRef(fields.issue);
    if (!ref.ok() || ref->kind != RefKind::kIssue)
      return Status::Corruption("issue index document: issue: expected an issue reference, got '" +
                                fields.issue + "'");
    hit.issue = *ref;
    if (!fields.state.empty() && fields.state != "open" && fields.state != "closed")
      return Status::Corruption("issue index document: state: '" + fields.state + "'");
    auto res = graph::ParseResolution(fields.resolution.empty() ? "unknown" : fields.resolution);
    if (!res.ok()) return Status::Corruption("issue index document: " + res.status().message());
    hit.resolution = *res;
  }
  hit.fixes_json = std::move(fields.fixes);
  hit.score = score;
  // The flags, comma-separated names (issue_index.h, HitFields::flags).
  for (std::string_view rest = fields.flags; !rest.empty();) {
    const size_t comma = rest.find(',');
    auto flag = graph::ParseFlag(rest.substr(0, comma));
    if (!flag.ok())
      return Status::Corruption("issue index document: flags: " + flag.status().message());
    hit.flags.push_back(*flag);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return hit;
}

class XapianSearcher final : public Searcher {
 public:
  XapianSearcher(std::string db_dir, DocSourceConfig docs_config, SearcherUse use)
      : db_dir_(std::move(db_dir)), docs_config_(std::move(docs_config)), use_(use) {}

  // The doc sources, opened once, at the first call (OpenDocSources; none
  // when they cannot be opened: ask answers from issues alone). A server
  // opens them in Open; a CLI question only when it searches them, and most
  // need not (the doc-skip rule in Ask): opening the local index and its
  // learned associations is about a third of a CLI ask's CPU time
  // (docs/benchmarks.md, "A CLI ask opens the doc index only when it
  // searches it").
  DocSource* Docs() {
    std::call_once(docs_once_, [this] {
      auto opened = OpenDocSources(db_dir_, docs_config_);
      if (opened.ok()) docs_ = std::move(*opened);
    });
    return docs_.get();
  }

  Status OpenPool() {
    try {
      const size_t handles = use_ == SearcherUse::kOneQuestion ? 1 : kPoolSize;
      for (size_t i = 0; i < handles; ++i) {
        auto h = std::make_unique<Handle>();
        // The shards the first handle found down are not waited for again.
        FG_RETURN_IF_ERROR(OpenHandle(*h, i == 0 ? std::vector<size_t>() : pool_[0]->down));
        if (i == 0) {
          std::string schema = h->db.get_metadata("fixgraph:schema");
          if (schema != kIssueIndexSchema)
            return Status::FailedPrecondition(
                "issue index " + IssueIndexDir(db_dir_) + " has layout " +
                (schema.empty() ? std::string("(none)") : schema) + ", this build reads layout " +
                kIssueIndexSchema + ": rebuild it with `fixgraph link` (or `fixgraph index-ask`)");
        }
        pool_.push_back(std::move(h));
      }
    } catch (const Xapian::Error& e) {
      return Status::IOError("issue index " + IssueIndexDir(db_dir_) + ": " + e.get_description());
    }
    return Status::OK();
  }

  StatusOr<AskResult> Ask(std::string_view text, const AskOptions& options) override {
    if (text.size() > kMaxQueryBytes)
      return Status::InvalidArgument("query is " + std::to_string(text.size()) +
                                     " bytes; at most " + std::to_string(kMaxQueryBytes) +
                                     " are accepted");
    AskResult result;
    result.query = std::string(Utf8Prefix(text, kMaxQueryEcho));
    result.searched = ExtractSignature(text);
    size_t limit = std::clamp<size_t>(options.limit, 1, 100);
    BuiltQuery built;
    FG_ASSIGN_OR_RETURN(result.hits, Search(result.searched, options.repo, limit,
                                            options.decode_fixes, &built, &result.missing_shards));
    bool weak = result.hits.empty() || result.hits.front().score < kWeakHitScore;
    // With no hardware named and a best issue that is not weak, a doc is part
    // of the answer only when it scores above the best issue (doc_leads
    // below); doc scores are at most 1 (DocHit), so over a best issue at 1
    // the doc search cannot change the answer and is not run: most served
    // questions (docs/benchmarks.md, "The doc search of a served ask").
    bool doc_can_lead = result.hits.empty() || result.hits.front().score < 1.0;
    DocSource* source = nullptr;
    if (options.with_docs && (built.names_hardware || weak || doc_can_lead)) source = Docs();
    if (source != nullptr) {
      auto docs = source->Search(result.searched, kDocLimit);
      if (docs.ok() && !docs->empty()) {
        // A strong doc outranks a weaker issue hit even when the question
        // does not look like a hardware question.
        bool doc_leads = docs->front().score > kDocHitScore &&
                         (result.hits.empty() || docs->front().score > result.hits.front().score);
        if (built.names_hardware || weak || doc_leads) result.docs = std::move(*docs);
      }
      result.fallback = !result.docs.empty();
    }
    ApplyNoiseFloor(&result, options.min_score);
    MergeRanking(&result);
    return result;
  }

  Status Reopen() override {
    for (auto& h : pool_) {
      std::lock_guard<std::mutex> lock(h->mu);
      try {
        if (h->sharded) {
          FG_RETURN_IF_ERROR(OpenHandle(*h));
          continue;
        }
        if (h->db.reopen()) h->priors_stale = true;
        h->opened = std::chrono::steady_clock::now();
      } catch (const Xapian::Error& e) {
        return Status::IOError("reopening issue index: " + e.get_description());
      }
    }
    return Status::OK();
  }

 private:
  struct Handle {
    std::mutex mu;
    Xapian::Database db;
    // Opened from a stub of shards (index_shards.h); `missing` names the
    // shards that could not be reached (the search runs without them).
    bool sharded = false;
    std::vector<std::string> missing;
    std::vector<size_t> down;  // their indexes in the stub
    std::chrono::steady_clock::time_point opened;
    // Read at the first search after the handle opens or sees a new
    // revision (shared by the handles on the same revision, SharedPriors):
    // ranking the candidates then reads nothing per candidate.
    std::shared_ptr<const PriorTable> priors;
    bool priors_stale = true;

    double Prior(Xapian::docid did) {
      if (did < priors->prior.size()) return priors->prior[did];
      // No table (a CLI ask of an index without a stored one, SearcherUse),
      // or a docid past it: read it, as the table holds it (a float).
      std::string slot = db.get_document(did).get_value(kPriorSlot);
      return static_cast<float>(slot.empty() ? kDefaultPrior : Xapian::sortable_unserialise(slot));
    }
  };

  // (Re)opens the handle's database: the index directory, or the shards of a
  // stub (those that are up).
  Status OpenHandle(Handle& h, const std::vector<size_t>& skip = {}) {
    auto opened = OpenIndex(IssueIndexDir(db_dir_), "issue index", skip);
    if (!opened.ok()) return opened.status();
    h.db = std::move(opened->db);
    h.sharded = opened->sharded;
    h.missing = std::move(opened->missing);
    h.down = std::move(opened->missing_shards);
    h.opened = std::chrono::steady_clock::now();
    h.priors_stale = true;
    return Status::OK();
  }

  // The prior table of `db`'s revision: the one the last handle loaded when
  // it is of the same database and revision, else read now. One table serves
  // every handle on a revision (a handle keeps its own until it reloads).
  StatusOr<std::shared_ptr<const PriorTable>> SharedPriors(const Xapian::Database& db,
                                                           bool sharded) {
    if (sharded) {
      // A combined database has no single revision: each handle reads its
      // own table (when it opens or a shard changed).
      auto table = std::make_shared<PriorTable>();
      if (!table->LoadShared(db) || !table->LoadDead(db))
        return Status::Corruption("issue index " + IssueIndexDir(db_dir_) +
                                  ": the shards' priors or dead document set (" + kPriorsKey +
                                  ", " + kDeadKey +
                                  ") cannot be read: split the index again with `fixgraph index "
                                  "split`");
      return std::shared_ptr<const PriorTable>(std::move(table));
    }
    if (use_ == SearcherUse::kOneQuestion) {
      // The table the index stores, else none (SearcherUse): the dead
      // documents only.
      auto table = std::make_shared<PriorTable>();
      table->LoadStored(db);
      if (!table->LoadDead(db))
        return Status::Corruption("issue index " + IssueIndexDir(db_dir_) +
                                  ": unreadable dead document set (" + kDeadKey +
                                  "): rebuild it with `fixgraph index-ask`");
      return std::shared_ptr<const PriorTable>(std::move(table));
    }
    const std::string uuid = db.get_uuid();
    const Xapian::rev rev = db.get_revision();
    std::lock_guard<std::mutex> lock(priors_mu_);
    if (priors_ == nullptr || priors_uuid_ != uuid || priors_rev_ != rev) {
      auto table = std::make_shared<PriorTable>();
      if (!table->LoadStored(db)) table->Load(db);
      if (!table->LoadDead(db))
        return Status::Corruption("issue index " + IssueIndexDir(db_dir_) +
                                  ": unreadable dead document set (" + kDeadKey +
                                  "): rebuild it with `fixgraph index-ask`");
      priors_ = std::move(table);
      priors_uuid_ = uuid;
      priors_rev_ = rev;
    }
    return priors_;
  }

  // When a query unit or identifier part is common (ask_query.h): in a large
  // index only. Made once per search, from the handle's live issues.
  struct Commonness {
    bool large;         // at least kCommonPartMinIssues live issues
    double part;        // an identifier part held by more issues than this is left out
    double unit;        // a unit matching more postings than this is common
    double title_unit;  // RareTitleUnits' bound
    // The index's term frequencies, each looked up once per search: the
    // passes' estimates ask for the same terms up to seven times, about 30
    // B-tree lookups a query of the serve mix (docs/benchmarks.md, "A first
    // stage for the narrowed pass": 0.98x its CPU).
    TermFreq termfreq;
    double issues;  // live issues

    Commonness(const Xapian::Database& db, Xapian::doccount issues)
        : large(issues >= kCommonPartMinIssues),
          part(kCommonPartShare * static_cast<double>(issues)),
          unit(std::min(kLongUnitPostings, part)),
          title_unit(kCommonTitleShare * static_cast<double>(issues)),
          termfreq([&db, seen = std::make_shared<std::unordered_map<std::string, unsigned>>()](
                       const std::string& term) {
            auto [it, fresh] = seen->try_emplace(term, 0);
            if (fresh) it->second = db.get_termfreq(term);
            return it->second;
          }),
          issues(static_cast<double>(issues)) {}
  };

  // Builds the query of `text` into `built` (with the handle: identifier
  // parts held by more than kCommonPartShare of the issues are left out,
  // ask_query.h, kCommonPartMinIssues) and searches it.
  StatusOr<std::vector<AskHit>> Search(const std::string& text, const std::string& repo,
                                       size_t limit, bool decode_fixes, BuiltQuery* built,
                                       std::vector<std::string>* missing) {
    // A free handle, looked for from the next in turn; when all are busy,
    // the one in turn is waited for.
    const size_t first = next_.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock<std::mutex> lock;
    Handle* chosen = nullptr;
    for (size_t i = 0; i < pool_.size() && chosen == nullptr; ++i) {
      Handle& c = *pool_[(first + i) % pool_.size()];
      lock = std::unique_lock<std::mutex>(c.mu, std::try_to_lock);
      if (lock.owns_lock()) chosen = &c;
    }
    if (chosen == nullptr) {
      chosen = pool_[first % pool_.size()].get();
      lock = std::unique_lock<std::mutex>(chosen->mu);
    }
    Handle& h = *chosen;
    for (int attempt = 0;; ++attempt) {
      try {
        // Pick up commits of a writer in another process, at most once a second.
        // (Shards found missing are looked for again as often.)
        auto now = std::chrono::steady_clock::now();
        if (now - h.opened > std::chrono::seconds(1)) {
          if (!h.missing.empty()) {
            FG_RETURN_IF_ERROR(OpenHandle(h));
          } else if (h.db.reopen()) {
            h.priors_stale = true;
          }
          h.opened = now;
        }
        if (h.priors_stale || h.priors == nullptr) {
          auto priors = SharedPriors(h.db, h.sharded);
          if (!priors.ok()) return priors.status();
          h.priors = std::move(*priors);
          h.priors_stale = false;
        }
        // The live issues (the document count includes dead documents).
        const Commonness common(h.db, h.priors->Live(h.db));
        CommonPart is_common;
        if (common.large)
          is_common = [&](const std::string& part) {
            return static_cast<double>(common.termfreq(part)) > common.part;
          };
        // Terms no issue holds are matched without a posting list
        // (BuildQuery); a posting source of ours does not run on a remote shard.
        CommonPart absent;
        if (!h.sharded)
          absent = [&](const std::string& term) { return common.termfreq(term) == 0; };
        *built = BuildQuery(text, is_common, absent);
        if (built->empty())
          return Status::InvalidArgument(
              "nothing to search for in the query: it has no words, identifiers or error codes");
        auto hits = SearchOnce(h, *built, repo, limit, decode_fixes, common);
        *missing = h.missing;
        return hits;
      } catch (const Xapian::NetworkError& e) {
        // A shard went away (or timed out) since the handle opened: open the
        // shards again, without those that are down, and search once more.
        if (!h.sharded || attempt >= 2)
          return Status::Unavailable("searching issue index " + IssueIndexDir(db_dir_) + ": " +
                                     e.get_description());
        FG_RETURN_IF_ERROR(OpenHandle(h));
      } catch (const Xapian::DatabaseModifiedError&) {
        if (attempt >= 2)
          return Status::Unavailable("issue index kept changing during the search; retry");
        try {
          if (h.db.reopen()) h.priors_stale = true;
        } catch (const Xapian::Error& e) {
          return Status::IOError("reopening issue index: " + e.get_description());
        }
      } catch (const Xapian::Error& e) {
        return Status::IOError("searching issue index " + IssueIndexDir(db_dir_) + ": " +
                               e.get_description());
      }
    }
  }

  struct Candidate {
    Xapian::docid did;
    double score;
  };

  // One search's Xapian passes: the enquire (BM25 set), the repository and
  // dead-document filters, and the match decider.
  struct Passes {
    Xapian::Enquire enquire;
    std::string repo;        // "" for every repository
    bool dead_term = false;  // leave out documents carrying kDeadTerm (shards)
    const Xapian::MatchDecider* decider = nullptr;

    explicit Passes(const Xapian::Database& db) : enquire(db), counter(db) {
      enquire.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.6, 0.5));
      counter.set_weighting_scheme(Xapian::BoolWeight());
    }
    Xapian::MSet Run(const Xapian::Query& q, Xapian::doccount n) {
      enquire.set_query(Filtered(q));
      return enquire.get_mset(0, n, 0, nullptr, decider);
    }
    // The documents matching q, counted up to `at_least` (the matcher stops
    // there: no weights, no candidates kept).
    Xapian::doccount Count(const Xapian::Query& q, Xapian::doccount at_least) {
      counter.set_query(Filtered(q));
      return counter.get_mset(0, 0, at_least, nullptr, decider).get_matches_lower_bound();
    }

   private:
    Xapian::Enquire counter;

    Xapian::Query Filtered(Xapian::Query q) const {
      if (!repo.empty())
        q = Xapian::Query(Xapian::Query::OP_FILTER, q, Xapian::Query(RepoTerm(repo)));
      if (dead_term)
        q = Xapian::Query(Xapian::Query::OP_AND_NOT, q, Xapian::Query(std::string(kDeadTerm)));
      return q;
    }
  };

  StatusOr<std::vector<AskHit>> SearchOnce(Handle& h, const BuiltQuery& built,
                                           const std::string& repo, size_t limit, bool decode_fixes,
                                           const Commonness& common) {
    Xapian::Database& db = h.db;
    LiveDecider live(*h.priors);
    Passes passes(db);
    passes.repo = repo;
    // Shards (a match decider does not run on a remote shard): the dead
    // documents carry kDeadTerm and are left out by the query.
    const bool dead = h.priors->dead_count > 0;
    passes.dead_term = dead && h.sharded;
    passes.decider = dead && !h.sharded ? &live : nullptr;
    std::vector<Candidate> ranked;
    // Title first: the issues whose title holds every unit of the query are
    // equally relevant (relevance 1), so only their priors order them. One
    // pass: the title terms weigh nothing (scaled by 0) and PriorSource adds
    // each match's prior, so the matcher keeps the `limit` best-resolved
    // matches (in the order of their scores: a higher prior scores higher,
    // equal priors keep docid order, as the stable sort below does), and once
    // it holds them PriorSource skips every issue whose prior cannot displace
    // the worst of them (titles repeat: three title words can match thousands
    // of issues, most never visited). At least `limit` of them answer the
    // query. A query of one unit (an error code, an identifier) skips this:
    // it usually sits in a pasted log in the body, and BM25 ranks it; unless
    // the unit is so common (in a large index) that BM25 would read a large
    // part of the index only to rank issues by how often they say one word
    // (CommonSingleUnit).
    // In a long query (BuiltQuery::long_query) a unit no title holds makes
    // the pass match nothing, and it is not run: a pasted log line's title
    // units are forty-odd posting lists, most of them in no title.
    if ((built.units > 1 ||
         (common.large && CommonSingleUnit(built, common.termfreq, common.unit))) &&
        (!built.long_query || MatchPostings(built.title, common.termfreq) > 0)) {
      PriorSource best(*h.priors);
      // Over shards, or without a prior table (SearcherUse),
      // Xapian's own source of the prior slot: the same weights without the
      // tie-break, and Xapian orders equal weights by docid too (the shards
      // keep the single index's docids). It only cannot skip.
      Xapian::ValueWeightPostingSource slot(kPriorSlot);
      const bool by_slot = h.sharded || h.priors->prior.empty();
      Xapian::Query unweighted(Xapian::Query::OP_SCALE_WEIGHT, built.title, 0.0);
      Xapian::MSet mset =
          passes.Run(Xapian::Query(Xapian::Query::OP_AND, unweighted,
                                   by_slot ? Xapian::Query(&slot) : Xapian::Query(&best)),
                     static_cast<Xapian::doccount>(limit));
      for (auto it = mset.begin(); it != mset.end(); ++it)
        ranked.push_back({*it, HitScore(1.0, h.Prior(*it))});
    }
    if (ranked.size() < limit) {
      // Fewer title matches than `limit`: they keep relevance 1 among the
      // candidates below (a pass that weighs only some units, or all units
      // in every field, may rate them lower), and the others fill the places.
      const std::vector<Candidate> title_matches = std::move(ranked);
      ranked.clear();
      Xapian::MSet mset = BodyCandidates(h, built, limit, common, passes);
      ranked.reserve(mset.size() + title_matches.size());
      std::vector<bool> title_listed(title_matches.size(), false);
      for (auto it = mset.begin(); it != mset.end(); ++it) {
        double relevance = Relevance(it.get_percent());
        for (size_t t = 0; t < title_matches.size(); ++t)
          if (title_matches[t].did == *it) {
            relevance = 1.0;
            title_listed[t] = true;
          }
        ranked.push_back({*it, HitScore(relevance, h.Prior(*it))});
      }
      for (size_t t = 0; t < title_matches.size(); ++t)
        if (!title_listed[t]) ranked.push_back(title_matches[t]);
    }
    // Rank the candidates by score (relevance and prior); decode the stored
    // display data of the top `limit` only.
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    if (ranked.size() > limit) ranked.resize(limit);
    std::vector<AskHit> hits;
    for (const Candidate& c : ranked) {
      auto hit = HitFromValue(db.get_document(c.did, Xapian::DOC_ASSUME_VALID).get_value(kHitSlot),
                              c.score, decode_fixes);
      if (!hit.ok()) return hit.status();
      hits.push_back(std::move(*hit));
    }
    return hits;
  }

  // The BM25 candidates of SearchOnce, over all fields, the title field
  // adding weight to the candidates whose title holds some units (AND_MAYBE:
  // it never adds candidates, and its short posting lists are only read at
  // the candidates). Conjunctive first: when at least `limit` issues hold
  // every unit of the query (identifiers whole; in a large index, every unit
  // that narrows: ask_query.h, Conjunction), the candidates are among
  // them: an AND is driven by its rarest unit, an OR walks every posting of
  // every unit and identifier part. Else the rarest units, OR-ed, rank
  // partial matches too; there (in a large index) the title weight comes from
  // the units that few titles hold, and the candidates are the issues holding
  // one of the rarest units (at most kRareFilterPostings postings in all), if
  // they are enough (RareUnits); before them, when the rarest unit alone is
  // over that, the issues holding the rarest units together
  // (RareIntersection), if they are enough. A pass that would weigh a large
  // part of a large index weighs the prior pool instead (kPriorPool); a
  // narrowed one that does not, the best by its rarest units first
  // (kFirstStageUnits).
  enum class PassKind { kConjunctive, kNarrowed, kPartial };

  Xapian::MSet BodyCandidates(Handle& h, const BuiltQuery& built, size_t limit,
                              const Commonness& common, Passes& passes) {
    const Xapian::doccount wanted =
        static_cast<Xapian::doccount>(std::max(kMinCandidates, limit * 4));
    auto run = [&](const Xapian::Query& units, const Xapian::Query& title) {
      return passes.Run(
          title.empty() ? units : Xapian::Query(Xapian::Query::OP_AND_MAYBE, units, title), wanted);
    };
    // A pass over `units`, or over the prior pool (kPriorPool): the
    // best-resolved issues matching `walked` (the units the pass is driven
    // by: without identifier parts, or the narrowing filter), plus `also`
    // (the few candidates a narrower pass brought), weighed by BM25.
    std::vector<Xapian::docid> also;
    // Only with a prior table and its levels (one index; either searcher
    // when the index stores the table, SearcherUse): without them the walk
    // cannot skip (Xapian's source of the prior slot reads every match's
    // value, slower than the pass it would spare), and over remote shards a
    // posting source of ours does not run.
    const bool can_pool = common.large && !h.sharded && !h.priors->levels.empty();
    // The pass weighs only `chosen` and `also` (a posting source of ours:
    // not over remote shards).
    auto weigh_only = [&](const Xapian::MSet& chosen, const Xapian::Query& units,
                          const Xapian::Query& title) {
      std::vector<Xapian::docid> dids(chosen.begin(), chosen.end());
      dids.insert(dids.end(), also.begin(), also.end());
      std::sort(dids.begin(), dids.end());
      dids.erase(std::unique(dids.begin(), dids.end()), dids.end());
      DocidListSource only(std::move(dids));
      return run(Xapian::Query(Xapian::Query::OP_FILTER, units, Xapian::Query(&only)), title);
    };
    const bool first_stage =
        common.large && !h.sharded && EliteSize(built.body_units.size()) > kFirstStageUnits;
    const auto keep = std::max(kFirstStageKeep, static_cast<Xapian::doccount>(limit));
    auto pass = [&](const Xapian::Query& units, const Xapian::Query& title,
                    const Xapian::Query& walked, PassKind kind) {
      const auto budget = static_cast<Xapian::doccount>(kRareFilterPostings);
      bool pooled = can_pool;
      if (pooled && kind == PassKind::kNarrowed)
        pooled = passes.Count(walked, budget + 1) > budget;
      else if (pooled)
        pooled = MatchPostings(units, common.termfreq) > std::min(common.unit, kDearPass) &&
                 (kind == PassKind::kConjunctive ||
                  EstimatedMatches(walked, common.termfreq, common.issues) >= kDearPass);
      if (!pooled && kind == PassKind::kNarrowed && first_stage) {
        const Xapian::MSet first = passes.Run(
            Xapian::Query(Xapian::Query::OP_FILTER,
                          Xapian::Query(Xapian::Query::OP_ELITE_SET, built.body_units.begin(),
                                        built.body_units.end(), kFirstStageUnits),
                          walked),
            keep);
        if (first.size() >= keep) return weigh_only(first, units, title);
      }
      if (!pooled) return run(units, title);
      PriorSource best(*h.priors);
      return weigh_only(
          passes.Run(Xapian::Query(Xapian::Query::OP_AND,
                                   Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, walked, 0.0),
                                   Xapian::Query(&best)),
                     kPriorPool),
          units, title);
    };
    Xapian::MSet mset;
    const Xapian::Query all =
        common.large ? Conjunction(built, common.termfreq, common.issues) : built.all;
    // A unit no issue holds makes the conjunctive pass match nothing (a
    // pasted line's own number or path): it is not run.
    if (!all.empty() && MatchPostings(all, common.termfreq) > 0)
      mset = pass(all, built.title_any, all, PassKind::kConjunctive);
    if (mset.size() >= limit) return mset;
    also.assign(mset.begin(), mset.end());
    Xapian::Query title = built.title_any;
    if (common.large) title = RareTitleUnits(built, common.termfreq, common.title_unit);
    Xapian::Query partial = built.partial;
    if (h.sharded && partial.get_type() == Xapian::Query::OP_ELITE_SET)
      partial = EliteOverShards(h.db, partial);
    if (common.large) {
      // The narrower filter first; each is built only when the one before
      // brought too few.
      const Xapian::Query together =
          RareIntersection(built, common.termfreq, common.unit, kRareFilterPostings, common.issues);
      if (!together.empty()) {
        mset = pass(Xapian::Query(Xapian::Query::OP_FILTER, partial, together), title, together,
                    PassKind::kNarrowed);
        if (mset.size() >= limit) return mset;
        also.insert(also.end(), mset.begin(), mset.end());
      }
      const Xapian::Query rare =
          RareUnits(built, common.termfreq, common.unit, kRareFilterPostings);
      if (!rare.empty()) {
        mset = pass(Xapian::Query(Xapian::Query::OP_FILTER, partial, rare), title, rare,
                    PassKind::kNarrowed);
        if (mset.size() >= limit) return mset;
        also.insert(also.end(), mset.begin(), mset.end());
      }
    }
    // Without common units, or when the rare ones brought too few candidates
    // (term frequencies only estimate what a unit of several words matches):
    // every unit brings them.
    return pass(partial, title, built.wholes, PassKind::kPartial);
  }

  // OP_ELITE_SET picks its units per shard (a unit absent from a shard
  // weighs nothing there, so a commoner one takes its place, and the shards
  // answer different queries): over shards the units are picked here, once,
  // from the whole index's statistics: the rarest (the fewest documents
  // holding their rarest term), as many as the elite set keeps
  // (ask_query.cc), OR-ed.
  static Xapian::Query EliteOverShards(const Xapian::Database& db, const Xapian::Query& elite) {
    const size_t n = elite.get_num_subqueries();
    const size_t keep = EliteSize(n);
    std::vector<std::pair<Xapian::doccount, size_t>> rarity;
    for (size_t i = 0; i < n; ++i) {
      const Xapian::Query unit = elite.get_subquery(i);
      Xapian::doccount rarest = 0;
      bool any = false;
      for (auto t = unit.get_unique_terms_begin(); t != unit.get_unique_terms_end(); ++t) {
        const Xapian::doccount tf = db.get_termfreq(*t);
        if (tf > 0 && (!any || tf < rarest)) rarest = tf, any = true;
      }
      // A unit no document holds matches nothing: last.
      rarity.emplace_back(any ? rarest : std::numeric_limits<Xapian::doccount>::max(), i);
    }
    std::stable_sort(rarity.begin(), rarity.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (rarity.size() > keep) rarity.resize(keep);
    std::sort(rarity.begin(), rarity.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    std::vector<Xapian::Query> units;
    units.reserve(rarity.size());
    for (const auto& r : rarity) units.push_back(elite.get_subquery(r.second));
    return Xapian::Query(Xapian::Query::OP_OR, units.begin(), units.end());
  }

  std::string db_dir_;
  const DocSourceConfig docs_config_;
  std::once_flag docs_once_;
  std::unique_ptr<DocSource> docs_;  // set once, by Docs()
  SearcherUse use_;
  std::vector<std::unique_ptr<Handle>> pool_;
  std::mutex priors_mu_;  // guards the three below
  std::shared_ptr<const PriorTable> priors_;
  std::string priors_uuid_;
  Xapian::rev priors_rev_ = 0;
  std::atomic<size_t> next_{0};
};

}  // namespace

StatusOr<std::unique_ptr<Searcher>> Searcher::Open(const std::string& db_dir,
                                                   const DocSourceConfig& docs_config,
                                                   SearcherUse use) {
  std::error_code ec;
  if (!IsStubFile(IssueIndexDir(db_dir)) &&
      !std::filesystem::exists(IssueIndexDir(db_dir) + "/iamglass", ec))
    return Status::NotFound("no issue index at " + IssueIndexDir(db_dir) +
                            " (import data with `fixgraph import DUMP` or run `fixgraph link`)");
  auto s = std::make_unique<XapianSearcher>(db_dir, docs_config, use);
  FG_RETURN_IF_ERROR(s->OpenPool());
  if (use == SearcherUse::kServing) (void)s->Docs();
  // Build the lexicon and the stemmer now, not in the first query.
  (void)BuildQuery("warm up error 报错 aclnnTest");
  return std::unique_ptr<Searcher>(std::move(s));
}

}  // namespace fixgraph::query
