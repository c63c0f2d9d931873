// KG documentation nodes (design.md s6, reference/ascend-kg.md): the fallback
// answer when no past issue fits or the question is about hardware/platform
// behaviour.
//
// A doc source is either the local corpus (Markdown trees and JSONL nodes
// imported with `fixgraph docs import`, indexed with Xapian under
// <db_dir>/index-docs) or a remote KG service speaking the `/search` API. Scores are
// on the KG service's scale in [0, 1]: > 0.83 a hit, 0.70-0.83 ambiguous,
// < 0.70 noise.
//
// Thread safety: a DocSource may be used from several threads at once.
#pragma once

#include "fixgraph/engine/status.h"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fixgraph::query {

// KG score bands (reference/ascend-kg.md).
inline constexpr double kDocHitScore = 0.83;
inline constexpr double kDocNoiseScore = 0.70;

// One documentation node. JSON (design.md s8, "docs" of ask --json):
//   {"id", "title", "source", "score", "snippet", "products", "url"}
struct DocHit {
  std::string id;                     // stable node id (path#section or the KG's id)
  std::string title;                  // page title > section heading
  std::string source;                 // "local" or the remote service's name/URL host
  double score = 0;                   // [0, 1], KG scale
  std::string snippet;                // the section text that matched, trimmed
  std::vector<std::string> products;  // normalised product tags ("A2", "A3", "training",
                                      // "inference", "950", models like "800I A2")
  std::string url;                    // where to read it, when known
  std::string band;                   // DocBand(score): "hit", "ambiguous" or "noise"
  std::string page_kind;              // local nodes: "api", "env", "guide", "troubleshooting",
                                      // "tutorial", "index" (docs/kg.md); "" when unknown
  std::string section_kind;           // local nodes: "function", "parameters", "constraints",
                                      // "examples", "troubleshooting", "other"
  // A question asking whether something works on products it names ("能在
  // 310P 上用吗", "does X support Atlas A2"): per product family it names
  // ("A2", "A3", "training", "inference", "950"), whether `products` lists
  // it. Empty for other questions and for hits whose page lists no products.
  std::map<std::string, bool> asked_products;
};

// The KG band of a score: "hit" (> kDocHitScore), "ambiguous" (>=
// kDocNoiseScore) or "noise". Issue hits of `ask` use the same bands.
const char* DocBand(double score);

// JSON of a hit; "band" is always present (computed from the score when the
// hit does not carry one), "page_kind"/"section_kind" when known.
nlohmann::json ToJson(const DocHit& hit);

class DocSource {
 public:
  virtual ~DocSource() = default;
  // Best nodes for free text (Chinese and/or English), best first, at most
  // `limit`. An empty or unsearchable query gives an empty list, not an error.
  virtual StatusOr<std::vector<DocHit>> Search(std::string_view text, size_t limit) = 0;
  // "local", or the remote service's base URL (no credentials).
  virtual std::string Name() const = 0;
  // Search that also appends one line per failed member source of a merged
  // source to `warnings` (may be null). Default: Search, no warnings.
  virtual StatusOr<std::vector<DocHit>> SearchReporting(std::string_view text, size_t limit,
                                                        std::vector<std::string>* warnings) {
    (void)warnings;
    return Search(text, limit);
  }
};

// Settings of the local corpus's search. The cli fills them from
// $FIXGRAPH_KG_TUNE and $FIXGRAPH_KG_DEBUG (docs/kg.md); the library never
// reads the environment.
struct LocalDocOptions {
  // Overrides of the ranking constants for tuning experiments:
  // "name=value,..." with the field names of docs_local.cc's Tuning; unknown
  // names and items without '=' are ignored. Default: none.
  std::string tune;
  // When set, each search writes the question's term groups and weights, the
  // alternatives, named pages and sub-corpora and every candidate's parts
  // here, one line each. Not owned; must outlive the source. Default: none.
  std::ostream* debug = nullptr;
};

// Which doc sources to open and how. The cli fills the fields from the
// environment variables named beside them; messages name those variables.
struct DocSourceConfig {
  std::string mode;     // $FIXGRAPH_KG_MODE: local, remote, both, auto or "" (= auto); any case
  std::string url;      // $FIXGRAPH_KG_URL: the remote KG service; "" = none
  std::string api_key;  // $FIXGRAPH_KG_API_KEY; never printed
  std::string timeout;  // $FIXGRAPH_KG_TIMEOUT: seconds for one request; "" = 10
  LocalDocOptions local;
};

// The configured doc sources, merged by score (deduplicated by id): the local
// corpus at <db_dir>/index-docs when it exists, and the remote KG service when
// `config.url` is set (API key `config.api_key`). `config.mode` chooses:
// "local" (local only), "remote" (remote only; an error when no URL is set),
// "both" or ""/"auto" (whatever is configured); anything else is
// InvalidArgument. `config.timeout` (seconds, default 10) bounds one request;
// a text that is not a positive number is InvalidArgument.
// Returns a source with nothing behind it (always empty results) when nothing
// is configured. In a merged source a failing member does not hide the
// others' hits: Search fails only when every member failed (see
// SearchWithWarnings for the failures).
StatusOr<std::unique_ptr<DocSource>> OpenDocSources(const std::string& db_dir,
                                                    const DocSourceConfig& config = {});

// Like DocSource::Search on the merged source, also returning one line per
// member source that failed ("<name>: <message>"); never holds the API key.
// A query with nothing searchable (empty, only punctuation or stop words) is
// InvalidArgument, as in `ask`.
StatusOr<std::vector<DocHit>> SearchWithWarnings(DocSource& source, std::string_view text,
                                                 size_t limit, std::vector<std::string>* warnings);

// --- local corpus -------------------------------------------------------------

struct DocImportStats {
  size_t files = 0;    // Markdown and JSONL files read
  size_t nodes = 0;    // nodes written
  size_t removed = 0;  // nodes of earlier imports of the same trees/files replaced
};

// Imports Markdown trees/files (*.md, *.markdown) and JSONL node files
// (*.jsonl) into <db_dir>/index-docs. A directory D's pages get ids
// "<basename of D>/<path under D>#<section-slug>"; a single Markdown file's
// "<file name>#<section-slug>"; JSONL nodes keep their own ids. Importing a
// tree or file again replaces every node that earlier import of the same
// tree/file wrote (pages deleted since disappear). All files are parsed
// before anything is written: a malformed JSONL line fails the whole import
// with "<file>:<line>: ..." and the index is left as it was.
// `on_progress` (may be empty) is called with the nodes written so far and
// the nodes to write, after each node and once more when the index is
// committed (done == total); it must not throw.
Status ImportDocs(const std::string& db_dir, const std::vector<std::string>& paths,
                  DocImportStats* stats,
                  const std::function<void(size_t done, size_t total)>& on_progress = {});

// Where <db_dir>'s local doc index lives: <db_dir>/index-docs.
std::string DocIndexDir(const std::string& db_dir);

// The local corpus alone. NotFound when <db_dir>/index-docs does not exist.
StatusOr<std::unique_ptr<DocSource>> OpenLocalDocSource(const std::string& db_dir,
                                                        const LocalDocOptions& options = {});

// --- evaluation (issue 22) -----------------------------------------------------

// One question of a doc question set (tests/data/kg-questions.json):
//   {"questions": [{"id", "split", "question", "pages": [path, ...]}, ...]}
// `pages` are page paths under the imported tree (the first is the expected
// page, the others equally good); a hit answers when its page (the id up to
// '#') ends with "/" + one of them.
struct DocQuestion {
  int id = 0;
  std::string split;  // "dev" (when absent), "test" or any other name
  std::string question;
  std::vector<std::string> pages;
};

// Reads a question set; errors name the file and the question.
StatusOr<std::vector<DocQuestion>> ReadDocQuestions(const std::string& path);

struct DocEvalSplit {
  size_t questions = 0;
  double top1 = 0, top3 = 0, mrr = 0;  // shares in [0, 1]; MRR over the first 10
};

struct DocEvalReport {
  std::vector<std::pair<std::string, DocEvalSplit>> splits;  // "dev", "test", any other, "all"
  std::vector<std::string> misses;  // "<split> #<id> rank R: question -> first hit"
  double p50_ms = 0, p99_ms = 0;    // time of one `rank` call
};

// Ranks every question with `rank` (the ids of the answer, best first: doc
// node ids, and anything else, such as "issue:<ref>", for other hits) and
// scores the page each expects.
StatusOr<DocEvalReport> EvaluateDocQuestions(
    const std::vector<DocQuestion>& questions,
    const std::function<StatusOr<std::vector<std::string>>(const std::string&)>& rank);

// True when doc node `id` lies on `page` (a path under some imported tree).
bool DocIdIsPage(std::string_view id, std::string_view page);

// --- remote KG service ----------------------------------------------------------

struct RemoteDocOptions {
  std::string url;                 // base URL; "/search" is appended
  std::string api_key;             // sent as X-API-Key; never printed
  double timeout_seconds = 10;     // whole request, connect included
  int max_retries = 3;             // on HTTP 429 / 503
  double max_backoff_seconds = 4;  // cap on one wait (Retry-After or 0.5/1/2 s)
  std::string file_type;           // optional /search filters, sent only when set
  std::string source_repo;
};

// A source speaking the KG service's POST /search API (reference/ascend-kg.md).
// Errors: HTTP 401/403 (key rejected), 404, 422 (the service's RFC 7807
// "detail" quoted), 429 after the retries, 5xx, timeouts and malformed answers
// become a Status naming the URL (never the key). Scores sent as strings are
// parsed; `degraded` answers keep their (0.0) scores.
StatusOr<std::unique_ptr<DocSource>> OpenRemoteDocSource(const RemoteDocOptions& options);

}  // namespace fixgraph::query
