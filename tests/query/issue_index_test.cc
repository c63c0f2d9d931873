// The issue index: built from the store and links, updated incrementally,
// filtered by repository, readable from many threads and while it changes.
#include "../../query/issue_index.h"

#include "ask_fixture.h"

#include <xapian.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

namespace fixgraph::query::testing {
namespace {

TEST_F(AskTest, IndexAnswersFromTitleBodyCommentsAndFixPr) {
  AddCorpus();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  AskOptions o;
  auto r = searcher->Ask("EZ9999", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("2"));
  // Words only in the fix PR's description find the issue it fixed.
  r = searcher->Ask("workspace 复用", o);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("1"));
  // The maintainer's comment is the answer of #3.
  r = searcher->Ask("下载链接打不开", o);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("3"));
}

TEST_F(AskTest, HitsCarryResolutionFixesAnswerAndUrl) {
  AddCorpus();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  auto r = searcher->Ask("aclnnFlashAttentionScore out of memory", AskOptions());
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->hits.empty());
  const AskHit& h = r->hits[0];
  EXPECT_EQ(h.issue, IssueRef("1"));
  EXPECT_EQ(h.resolution, graph::Resolution::kFixed);
  ASSERT_FALSE(h.fixes.empty());
  EXPECT_EQ(h.fixes[0].pr, P(11));
  EXPECT_NE(h.answer.find("workspace"), std::string::npos) << h.answer;  // from the PR description
  EXPECT_EQ(h.answer_source, "pr");
  EXPECT_EQ(h.url, "https://gitcode.com/o/r/issues/1");
  EXPECT_GT(h.score, 0.0);
  EXPECT_LE(h.score, 1.0);
  nlohmann::json j = ToJson(*r);
  for (const char* k : {"issue", "title", "score", "resolution", "answer", "fixes", "url"})
    EXPECT_TRUE(j["hits"][0].contains(k)) << k;
  EXPECT_EQ(j["hits"][0]["fixes"][0]["tier"].get<std::string>().size(), 1u);
  EXPECT_TRUE(j.contains("docs"));
  EXPECT_TRUE(j["fallback"].is_boolean());
}

TEST_F(AskTest, SynonymsCrossLanguages) {
  AddCorpus();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  // English query, Chinese issue (显存不足 = out of memory).
  auto r = searcher->Ask("memory", AskOptions());
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("1"));
  // Chinese query, English issue (段错误 = segmentation fault).
  r = searcher->Ask("段错误", AskOptions());
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("2"));
}

TEST_F(AskTest, UpdateAddsChangesAndRemovesIncrementally) {
  AddCorpus();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  auto r = searcher->Ask("HCCL 超时 rank 挂起", AskOptions());
  ASSERT_TRUE(r.ok());
  for (const AskHit& h : r->hits) EXPECT_NE(h.issue, IssueRef("4"));

  AddIssue("4", "HCCL 初始化超时", "多机训练 rank 0 卡住 HCCL_CONNECT_TIMEOUT",
           "2026-03-06T10:00:00Z");
  Commit();
  ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("4")}).ok());
  ASSERT_TRUE(searcher->Reopen().ok());
  r = searcher->Ask("HCCL 超时 rank 挂起", AskOptions());
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("4"));
  EXPECT_EQ(r->hits[0].resolution, graph::Resolution::kOpen);

  // A retitled issue is found by its new words only.
  AddIssue("4", "HCCL broadcast 报错", "rank 0", "2026-03-06T10:00:00Z");
  Commit();
  ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("4")}).ok());
  ASSERT_TRUE(searcher->Reopen().ok());
  r = searcher->Ask("多机训练", AskOptions());
  ASSERT_TRUE(r.ok());
  for (const AskHit& h : r->hits) EXPECT_NE(h.issue, IssueRef("4"));

  // An issue that is not in the store (any more) is dropped; unknown refs are fine.
  ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("999")}).ok());
}

// The dead set of the issue index under `db_dir` (issue_index.h, kDeadKey).
std::vector<std::uint32_t> DeadSet(const std::string& db_dir) {
  Xapian::Database db(IssueIndexDir(db_dir));
  std::vector<std::uint32_t> dead;
  EXPECT_TRUE(DecodeDocids(db.get_metadata(kDeadKey), &dead));
  return dead;
}

// How many hits of `query` (limit 100) are `issue`.
int HitsOf(Searcher& searcher, const std::string& query, const Ref& issue) {
  AskOptions all;
  all.limit = 100;
  auto r = searcher.Ask(query, all);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return -1;
  int n = 0;
  for (const AskHit& h : r->hits) n += h.issue == issue ? 1 : 0;
  return n;
}

TEST_F(AskTest, UpdatedIssueIsFoundOnceByItsNewTextOnly) {
  // The index has no termlist, so an update adds the new document and
  // tombstones the old one: the old one must never be a hit again, in the
  // title pass (a query of two units and more) or the BM25 pass, and the new
  // one must be a hit exactly once however often the issue changed.
  AddCorpus();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  ASSERT_EQ(HitsOf(*searcher, "segmentation fault", IssueRef("2")), 1);
  ASSERT_EQ(HitsOf(*searcher, "EZ9999", IssueRef("2")), 1);
  EXPECT_TRUE(DeadSet(db_.path()).empty());
  for (int round = 0; round < 3; ++round) {
    AddIssue("2", "Bus error in aclnnSoftmaxGrad", "stack overflow in the grad kernel",
             "2026-03-03T10:00:00Z");
    Commit();
    Status s = UpdateIssueIndex(*store_, db_.path(), {IssueRef("2"), IssueRef("2")});
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(searcher->Reopen().ok());
    EXPECT_EQ(DeadSet(db_.path()).size(), static_cast<size_t>(round + 1));
    auto fresh = OpenSearcher();
    ASSERT_NE(fresh, nullptr);
    for (Searcher* reader : {searcher.get(), fresh.get()}) {
      EXPECT_EQ(HitsOf(*reader, "segmentation fault", IssueRef("2")), 0) << round;
      EXPECT_EQ(HitsOf(*reader, "EZ9999", IssueRef("2")), 0) << round;
      EXPECT_EQ(HitsOf(*reader, "bus error aclnnSoftmaxGrad", IssueRef("2")), 1) << round;
      EXPECT_EQ(HitsOf(*reader, "aclnnSoftmaxGrad", IssueRef("2")), 1) << round;
      EXPECT_EQ(HitsOf(*reader, "stack overflow", IssueRef("2")), 1) << round;
    }
  }
  // The other issues are untouched.
  EXPECT_EQ(HitsOf(*searcher, "下载链接打不开", IssueRef("3")), 1);
  EXPECT_FALSE(std::filesystem::exists(IssueIndexDir(db_.path()) + "/termlist.glass"));
}

TEST_F(AskTest, IssueGoneFromTheStoreIsGoneFromTheIndex) {
  AddCorpus();
  const RepoRef other{Platform::kGitee, "x", "y"};
  AddRepository(other, "master");
  AddIssue("I9", "zebra crossing kernel", "zebra", "2026-03-01T10:00:00Z", "", "someone", &other);
  Commit();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  const Ref gone = Ref::Issue(other, "I9");
  ASSERT_EQ(HitsOf(*searcher, "zebra", gone), 1);
  ASSERT_TRUE(store_->DeleteRepositoryRecords(other, Store::Durability::kLogged).ok());
  Status s = UpdateIssueIndex(*store_, db_.path(), {gone});
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(searcher->Reopen().ok());
  auto r = searcher->Ask("zebra crossing", AskOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->hits.empty()) << Refs(*r).front();
  EXPECT_EQ(DeadSet(db_.path()).size(), 1u);
  // Gone twice is still one tombstone.
  ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {gone}).ok());
  EXPECT_EQ(DeadSet(db_.path()).size(), 1u);
}

TEST_F(AskTest, ManyUpdatesRebuildTheIndexAndClearTheDeadSet) {
  constexpr int kIssues = 100;
  auto word = [](int i, const char* tag) {
    std::string w = tag;
    w += std::to_string(i);
    w += "x";
    return w;
  };
  for (int i = 1; i <= kIssues; ++i)
    AddIssue(std::to_string(i), "kernel crash " + word(i, "old"), "core dumped",
             "2026-03-01T10:00:00Z");
  Commit();
  LinkAndIndex();
  const std::string dir = IssueIndexDir(db_.path());
  EXPECT_FALSE(std::filesystem::exists(dir + "/termlist.glass"));
  auto update = [&](int from, int to) {
    std::vector<Ref> refs;
    for (int i = from; i <= to; ++i) {
      AddIssue(std::to_string(i), "kernel crash " + word(i, "new"), "core dumped",
               "2026-03-01T10:00:00Z");
      refs.push_back(IssueRef(std::to_string(i)));
    }
    Commit();
    Status s = UpdateIssueIndex(*store_, db_.path(), refs);
    ASSERT_TRUE(s.ok()) << s.ToString();
  };
  // Below kDeadFloor: tombstones.
  const int first = 10;
  update(1, first);
  EXPECT_EQ(DeadSet(db_.path()).size(), static_cast<size_t>(first));
  EXPECT_EQ(Xapian::Database(dir).get_doccount(), static_cast<Xapian::doccount>(kIssues + first));
  EXPECT_FALSE(std::filesystem::exists(dir + "/termlist.glass"));
  // Past kDeadFloor and kDeadShare of the documents: a rebuild, which has none.
  static_assert(first + kDeadFloor <= kIssues);
  update(first + 1, first + static_cast<int>(kDeadFloor));
  EXPECT_TRUE(DeadSet(db_.path()).empty());
  EXPECT_TRUE(Xapian::Database(dir).get_metadata(kDeadKey).empty());
  EXPECT_EQ(Xapian::Database(dir).get_doccount(), static_cast<Xapian::doccount>(kIssues));
  EXPECT_EQ(Xapian::Database(dir).get_lastdocid(), static_cast<Xapian::docid>(kIssues));
  EXPECT_FALSE(std::filesystem::exists(dir + "/termlist.glass"));
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  for (int i : {1, first, first + 1, first + static_cast<int>(kDeadFloor), kIssues}) {
    const bool changed = i <= first + static_cast<int>(kDeadFloor);
    EXPECT_EQ(HitsOf(*searcher, word(i, "new"), IssueRef(std::to_string(i))), changed ? 1 : 0) << i;
    EXPECT_EQ(HitsOf(*searcher, word(i, "old"), IssueRef(std::to_string(i))), changed ? 0 : 1) << i;
  }
  // The rebuilt index takes tombstones again.
  update(kIssues, kIssues);
  EXPECT_EQ(DeadSet(db_.path()), std::vector<std::uint32_t>{static_cast<std::uint32_t>(kIssues)});
}

TEST(DeadSetTest, DocidsRoundTripAndGarbageIsRefused) {
  std::vector<std::uint32_t> dids = {1, 2, 127, 128, 129, 16383, 16384, 2097152, 0xffffffffu};
  std::string text = EncodeDocids(dids);
  std::vector<std::uint32_t> back;
  ASSERT_TRUE(DecodeDocids(text, &back));
  EXPECT_EQ(back, dids);
  EXPECT_TRUE(DecodeDocids("", &back));
  EXPECT_TRUE(back.empty());
  EXPECT_EQ(EncodeDocids({}), "");
  EXPECT_EQ(text[0], 'D');
  EXPECT_FALSE(DecodeDocids(std::string("D\x80", 2), &back));                  // cut short
  EXPECT_FALSE(DecodeDocids(std::string("D\x01\x00", 3), &back));              // not ascending
  EXPECT_FALSE(DecodeDocids(std::string("D\xff\xff\xff\xff\x7f", 6), &back));  // past 32 bits
  EXPECT_FALSE(DecodeDocids(std::string("\x01\x02", 2), &back));               // no type byte
  EXPECT_TRUE(back.empty());
}

TEST_F(AskTest, RepoFilter) {
  AddCorpus();
  RepoRef other{Platform::kGitee, "x", "y"};
  AddRepository(other, "master");
  AddIssue("I1", "EZ9999 on another repo", "EZ9999", "2026-03-01T10:00:00Z", "", "someone", &other);
  Commit();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  AskOptions o;
  o.repo = other.ToString();
  auto r = searcher->Ask("EZ9999", o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].issue.repo, other);
  o.repo = repo_.ToString();
  r = searcher->Ask("EZ9999", o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].issue, IssueRef("2"));
}

TEST_F(AskTest, RebuildIndexesEveryIssueAcrossBatchesAndThreads) {
  // More issues than one rebuild batch, built on several threads and committed
  // in steps: every issue gets exactly one document; a second rebuild over the
  // existing index replaces them.
  constexpr int kIssues = 1300;
  // "w<i>x", built by appending (GCC 12 warns falsely on "w" + an rvalue string).
  auto word = [](int i) {
    std::string w = "w";
    w += std::to_string(i);
    w += "x";
    return w;
  };
  for (int i = 1; i <= kIssues; ++i)
    AddIssue(std::to_string(i), "worker crash number " + word(i), "core dumped",
             "2026-03-01T10:00:00Z");
  Commit();
  IndexOptions three;
  three.threads = 3;
  {
    graph::LinkStats stats;
    ASSERT_TRUE(graph::LinkAll(store_.get(), options_, &stats).ok());
    Status s = RebuildIssueIndex(*store_, db_.path(), three);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  for (int i : {1, 512, 513, 1000, kIssues}) {
    auto r = searcher->Ask(word(i), AskOptions());
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(r->hits.empty()) << i;
    EXPECT_EQ(r->hits[0].issue, IssueRef(std::to_string(i)));
  }
  AskOptions all;
  all.limit = 100;
  auto r = searcher->Ask("core dumped", all);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->hits.size(), 100u);

  AddIssue("700", "renamed issue", "core dumped", "2026-03-01T10:00:00Z");
  Commit();
  ASSERT_TRUE(RebuildIssueIndex(*store_, db_.path(), three).ok());
  ASSERT_TRUE(searcher->Reopen().ok());
  r = searcher->Ask("w700x", AskOptions());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->hits.empty());
  r = searcher->Ask("renamed", AskOptions());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].issue, IssueRef("700"));
  r = searcher->Ask("core dumped", all);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->hits.size(), 100u);
}

// Every document of an index, by docid: data, values, terms with wdf, length.
// Read from the posting lists and value streams: the index has no termlist
// table (issue_index.h), which Document::termlist_begin and values_begin need.
std::vector<std::string> DumpIndex(const std::string& dir) {
  Xapian::Database db(dir);
  std::vector<std::string> out;
  out.push_back("docs " + std::to_string(db.get_doccount()) + " last " +
                std::to_string(db.get_lastdocid()) + " length " +
                std::to_string(db.get_total_length()) + " schema " +
                db.get_metadata("fixgraph:schema"));
  std::vector<std::string> docs(db.get_lastdocid() + 1);
  for (Xapian::docid did = 1; did <= db.get_lastdocid(); ++did) {
    Xapian::Document doc = db.get_document(did);
    docs[did] = std::to_string(did) + " " + doc.get_data() + " len " +
                std::to_string(db.get_doclength(did));
  }
  // Appended piece by piece (GCC 12 warns falsely on " v" + an rvalue string).
  for (Xapian::valueno slot = 0; slot < 16; ++slot)
    for (auto v = db.valuestream_begin(slot); v != db.valuestream_end(slot); ++v) {
      std::string& d = docs.at(v.get_docid());
      d += " v";
      d += std::to_string(slot);
      d += "=";
      d += *v;
    }
  for (auto t = db.allterms_begin(); t != db.allterms_end(); ++t) {
    for (auto p = db.postlist_begin(*t); p != db.postlist_end(*t); ++p) {
      std::string& d = docs.at(*p);
      d += " ";
      d += *t;
      d += ":";
      d += std::to_string(p.get_wdf());
    }
  }
  for (Xapian::docid did = 1; did <= db.get_lastdocid(); ++did) out.push_back(std::move(docs[did]));
  for (auto t = db.allterms_begin(); t != db.allterms_end(); ++t)
    out.push_back(*t + " tf " + std::to_string(t.get_termfreq()) + " cf " +
                  std::to_string(db.get_collection_freq(*t)));
  return out;
}

TEST_F(AskTest, RebuildInShardsGivesTheIndexOfOneWriter) {
  // Shards of 3 issues on 3 threads, compacted: the same documents under the
  // same docids as one shard of everything (fails if the shards were joined
  // out of scan order or renumbered otherwise).
  AddCorpus();
  for (int i = 10; i < 30; ++i)
    AddIssue(std::to_string(i), "issue " + std::to_string(i) + " crashes in aclnnMatMul",
             "stack trace " + std::to_string(i * 7), "2026-03-01T10:00:00Z");
  Commit();
  graph::LinkStats stats;
  ASSERT_TRUE(graph::LinkAll(store_.get(), options_, &stats).ok());
  const std::string one = db_.path() + "/one", many = db_.path() + "/many";
  IndexOptions three;
  three.threads = 3;
  Status s = RebuildIssueIndexInShards(*store_, one, 1000, three);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = RebuildIssueIndexInShards(*store_, many, 3, three);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> a = DumpIndex(IssueIndexDir(one)), b = DumpIndex(IssueIndexDir(many));
  EXPECT_EQ(a.front(), "docs 23 last 23 length " +
                           std::to_string(Xapian::Database(IssueIndexDir(one)).get_total_length()) +
                           " schema " + kIssueIndexSchema);
  EXPECT_EQ(a, b);
  // No work files are left behind.
  EXPECT_FALSE(std::filesystem::exists(IssueIndexDir(many) + ".rebuild"));
}

TEST_F(AskTest, IndexHoldsOnlyTermsThatQueriesOrUpdatesRead) {
  // Every term costs the build (Xapian's work is per distinct term of a
  // document), so none is indexed that nothing reads: analysed text
  // (lower case or CJK), its title copies under kTitlePrefix, the id term an
  // update replaces by, the repository term a filter reads.
  AddCorpus();
  LinkAndIndex();
  Xapian::Database db(IssueIndexDir(db_.path()));
  ASSERT_GT(db.get_doccount(), 0u);
  size_t titles = 0, ids = 0, repos = 0;
  for (auto it = db.allterms_begin(); it != db.allterms_end(); ++it) {
    const std::string term = *it;
    ASSERT_FALSE(term.empty());
    if (!(term[0] >= 'A' && term[0] <= 'Z')) continue;
    switch (term[0]) {
      case 'S':
        ++titles;
        EXPECT_TRUE(db.term_exists(term.substr(1))) << term << ": a title term is also in the text";
        break;
      case 'Q':
        ++ids;
        break;
      case 'R':
        ++repos;
        break;
      default:
        ADD_FAILURE() << "term " << term << " is read by no query";
    }
  }
  EXPECT_GT(titles, 0u);
  EXPECT_EQ(ids, db.get_doccount());
  EXPECT_EQ(repos, 1u);
}

TEST_F(AskTest, HitFieldsAreAValueNotDocumentData) {
  // Glass deflates every document's data (and inflates it per hit); values
  // are stored as written. The hit fields live in kHitSlot, the data is empty.
  AddCorpus();
  LinkAndIndex();
  Xapian::Database db(IssueIndexDir(db_.path()));
  ASSERT_GT(db.get_doccount(), 0u);
  for (Xapian::docid did = 1; did <= db.get_lastdocid(); ++did) {
    Xapian::Document doc = db.get_document(did);
    EXPECT_EQ(doc.get_data(), "") << did;
    HitFields fields;
    ASSERT_TRUE(DecodeHitFields(doc.get_value(kHitSlot), &fields)) << did;
    EXPECT_TRUE(ParseRef(fields.issue).ok()) << did;
    EXPECT_TRUE(fields.state == "open" || fields.state == "closed") << did;
    EXPECT_EQ(fields.fixes.front(), '[') << did;
  }
}

TEST(HitFieldsTest, RoundTripsDerivesTheWebUrlAndReplacesInvalidUtf8) {
  const Ref seven = Ref::Issue(RepoRef{Platform::kGitCode, "o", "r"}, "7");
  HitFields in;
  in.issue = seven.ToString();
  in.title = std::string("npu \"error\"\n") + std::string(200, 'x') + "\xe6\x8a\xa5\xe9\x94\x99";
  in.state = "closed";
  in.resolution = "fixed";
  in.answer = "set HCCL_CONNECT_TIMEOUT";
  in.answer_source = "comment";
  in.fixes = R"([{"pr":"x"}])";
  in.url = WebUrl(seven);
  const std::string value = EncodeHitFields(in);
  // The URL a reference gives is not stored; the title's length takes two bytes.
  EXPECT_EQ(value.find("https://"), std::string::npos);
  HitFields out;
  ASSERT_TRUE(DecodeHitFields(value, &out));
  EXPECT_EQ(out.issue, in.issue);
  EXPECT_EQ(out.title, in.title);
  EXPECT_EQ(out.state, in.state);
  EXPECT_EQ(out.resolution, in.resolution);
  EXPECT_EQ(out.answer, in.answer);
  EXPECT_EQ(out.answer_source, in.answer_source);
  EXPECT_EQ(out.fixes, in.fixes);
  EXPECT_EQ(out.url, in.url);
  // Any other URL is stored.
  in.url = "https://example.com/x/7";
  ASSERT_TRUE(DecodeHitFields(EncodeHitFields(in), &out));
  EXPECT_EQ(out.url, in.url);
  // Invalid UTF-8 (a lone continuation byte, a truncated sequence, an
  // overlong form, a surrogate) becomes U+FFFD, as JSON output has it.
  for (const std::string bad : {"a\x80"
                                "b",
                                "a\xe6\x8a", "\xc0\xaf", "\xed\xa0\x80"}) {
    in.answer = bad;
    ASSERT_TRUE(DecodeHitFields(EncodeHitFields(in), &out));
    const std::string expected =
        nlohmann::json::parse(
            nlohmann::json(bad).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
            .get<std::string>();
    EXPECT_EQ(out.answer, expected);
    EXPECT_NE(out.answer.find("\xef\xbf\xbd"), std::string::npos);
  }
  // Truncated or trailing bytes: corrupt.
  const std::string good = EncodeHitFields(in);
  EXPECT_FALSE(DecodeHitFields(good.substr(0, good.size() - 1), &out));
  EXPECT_FALSE(DecodeHitFields(good + "x", &out));
  EXPECT_FALSE(DecodeHitFields("", &out));
}

TEST_F(AskTest, RebuildJoinsLinksAndCommentsAsReadsPerIssueWould) {
  // A rebuild takes each issue's links and comments from two scans beside the
  // issue scan; an incremental update reads them per issue. Both must give the
  // same documents, across repositories whose names extend one another, issue
  // numbers that sort differently as text (4, 9, 10, 100) or are alphanumeric
  // (Gitee), comments of PRs and of issues no longer in the store, and issues
  // linked or not.
  const RepoRef rx{Platform::kGitCode, "o", "rx"};
  const RepoRef gitee{Platform::kGitee, "o", "r"};
  AddRepository(rx, "main");
  AddRepository(gitee, "master");
  AddCorpus();
  std::vector<std::pair<const RepoRef*, std::string>> issues;
  for (const RepoRef* repo : {static_cast<const RepoRef*>(&repo_), &rx, &gitee}) {
    const bool alnum = repo == &gitee;
    for (const char* n : {"4", "10", "100", "9"}) {
      std::string number = alnum ? std::string("I4A") + n : std::string(n);
      AddIssue(number, "issue " + number + " of " + repo->ToString() + " hangs in hcclInit",
               "log line " + number, "2026-03-01T10:00:00Z", "", "reporter", repo);
      issues.emplace_back(repo, number);
    }
    Ref ten = Ref::Issue(*repo, alnum ? "I4A10" : "10");
    AddComment(ten, "c10a", "someone", "the rendezvous timed out on " + repo->ToString(),
               "2026-03-01T11:00:00Z");
    AddComment(ten, "c10b", "someone", "still fails after 3 retries", "2026-03-01T12:00:00Z");
    AddComment(Ref::Issue(*repo, alnum ? "I4A100" : "100"), "c100", "x", "duplicate of #10",
               "2026-03-02T10:00:00Z");
    AddComment(Ref::Issue(*repo, alnum ? "I4A5" : "5"), "c5", "x",
               "comment of an issue not in the store", "2026-03-02T10:00:00Z");
    if (!alnum)
      AddComment(Ref::Pull(*repo, 10), "p10", "x", "comment of a pull request",
                 "2026-03-02T10:00:00Z");
  }
  Commit();
  graph::LinkStats stats;
  ASSERT_TRUE(graph::LinkAll(store_.get(), options_, &stats).ok());
  // Issues added after linking have no links record.
  AddIssue("50", "unlinked issue with a comment", "body", "2026-03-03T10:00:00Z", "", "reporter",
           &rx);
  AddComment(Ref::Issue(rx, "50"), "c50", "x", "bisected the regression to a compiler upgrade",
             "2026-03-03T11:00:00Z");
  Commit();

  const std::string built = db_.path() + "/built", updated = db_.path() + "/updated";
  IndexOptions two;
  two.threads = 2;
  Status s = RebuildIssueIndexInShards(*store_, built, 4, two);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // The same issues, in scan order, one by one through the incremental path
  // (an empty index of the current layout, so nothing is rebuilt).
  std::vector<Ref> refs;
  ASSERT_TRUE(store_
                  ->ForEachIssue(nullptr,
                                 [&](const Issue& i) {
                                   refs.push_back(i.ref());
                                   return true;
                                 })
                  .ok());
  ASSERT_EQ(refs.size(), 3u + 12u + 1u);
  {
    std::filesystem::create_directories(updated);
    Xapian::WritableDatabase db(IssueIndexDir(updated),
                                Xapian::DB_CREATE_OR_OPEN | Xapian::DB_NO_TERMLIST);
    db.set_metadata("fixgraph:schema", kIssueIndexSchema);
    db.commit();
  }
  s = UpdateIssueIndex(*store_, updated, refs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> a = DumpIndex(IssueIndexDir(built)),
                           b = DumpIndex(IssueIndexDir(updated));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << i;
  // The comments did reach their issues (and only theirs).
  auto opened = Searcher::Open(built);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto& searcher = *opened;
  for (const RepoRef* repo : {static_cast<const RepoRef*>(&repo_), &rx, &gitee}) {
    AskOptions o;
    o.repo = repo->ToString();
    auto r = searcher->Ask("rendezvous", o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->hits.size(), 1u) << repo->ToString();
    EXPECT_EQ(r->hits[0].issue, Ref::Issue(*repo, repo == &gitee ? "I4A10" : "10"));
  }
  auto r = searcher->Ask("bisected regression", AskOptions());
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, Ref::Issue(rx, "50"));
}

TEST_F(AskTest, RebuildReplacesTheLiveIndexAndClearsLeftovers) {
  AddCorpus();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  // A rebuild that died midway left its work directory behind.
  std::filesystem::create_directories(IssueIndexDir(db_.path()) + ".rebuild/shard-000000");
  AddIssue("4", "Segmentation fault in HCCL init", "EZ9999 again", "2026-03-06T10:00:00Z");
  Commit();
  Status s = RebuildIssueIndex(*store_, db_.path());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(std::filesystem::exists(IssueIndexDir(db_.path()) + ".rebuild"));
  // The open searcher still reads (the old index, until it reopens) ...
  auto r = searcher->Ask("HCCL init", AskOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // ... and a reopen finds the new one.
  ASSERT_TRUE(searcher->Reopen().ok());
  r = searcher->Ask("HCCL init", AskOptions());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("4"));
}

TEST_F(AskTest, IssuesHoldingEveryQueryWordComeFirst) {
  // 50 issues hold every word of the query once, in a long body; 50 hold the
  // two rarer words in their short titles (so BM25 alone favours them). With
  // enough full matches, every hit holds every word.
  std::string filler;
  for (int k = 0; k < 60; ++k) filler += " step" + std::to_string(k);
  for (int i = 1; i <= 50; ++i)
    AddIssue(std::to_string(i), "report", "tiling kernel launch" + filler, "2026-03-01T10:00:00Z");
  for (int i = 51; i <= 100; ++i)
    AddIssue(std::to_string(i), "tiling kernel", "tiling kernel", "2026-03-01T10:00:00Z");
  for (int i = 101; i <= 300; ++i)
    AddIssue(std::to_string(i), "launch", "launch", "2026-03-01T10:00:00Z");
  Commit();
  ExpectTenHitsAmongFirst("tiling kernel launch", 50);
}

TEST_F(AskTest, TitleMatchesRankAboveBodyMatches) {
  // Issues 1-20 hold the query words in their title only; issues 21-40 hold
  // them in a short body often enough that the shared term space alone rates
  // them higher. The title field puts the title matches first.
  for (int i = 1; i <= 20; ++i)
    AddIssue(std::to_string(i), "kernel launch timeout", "see the attached log",
             "2026-03-01T10:00:00Z");
  for (int i = 21; i <= 40; ++i)
    AddIssue(std::to_string(i), "report",
             "kernel launch timeout. kernel launch timeout. kernel launch timeout.",
             "2026-03-01T10:00:00Z");
  for (int i = 41; i <= 200; ++i)
    AddIssue(std::to_string(i), "other", "unrelated words", "2026-03-01T10:00:00Z");
  Commit();
  ExpectTenHitsAmongFirst("launch timeout kernel", 20);
}

TEST_F(AskTest, EqualTitleMatchesAreOrderedByResolution) {
  // 100 open issues share a title; the last one indexed becomes fixed by a
  // merged PR. Every issue matches the query equally, so the fixed one comes
  // first, though it is not among the first issues the matcher meets.
  for (int i = 1001; i <= 1100; ++i)
    AddIssue(std::to_string(i), "HCCL allreduce timeout on 8 cards", "see the log",
             "2026-03-01T10:00:00Z");
  Commit();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  AskOptions o;
  o.limit = 5;
  auto r = searcher->Ask("allreduce timeout hccl", o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->hits.size(), 5u);
  for (const AskHit& h : r->hits) EXPECT_EQ(h.resolution, graph::Resolution::kOpen);
  // Fixed meanwhile; the searcher sees it after a reopen.
  AddIssue("1100", "HCCL allreduce timeout on 8 cards", "see the log", "2026-03-01T10:00:00Z",
           "2026-03-02T10:00:05Z");
  AddPull(2000, "fix #1100: raise HCCL_CONNECT_TIMEOUT", "设置 HCCL_CONNECT_TIMEOUT 为 600",
          "2026-03-02T09:00:00Z", "2026-03-02T10:00:04Z");
  Commit();
  LinkAndIndex();
  ASSERT_TRUE(searcher->Reopen().ok());
  r = searcher->Ask("allreduce timeout hccl", o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->hits.size(), 5u);
  EXPECT_EQ(r->hits[0].issue, IssueRef("1100"));
  EXPECT_EQ(r->hits[0].resolution, graph::Resolution::kFixed);
  EXPECT_GT(r->hits[0].score, r->hits[1].score);
}

TEST_F(AskTest, IndexOfAnOlderLayoutIsRefusedThenRebuilt) {
  AddCorpus();
  LinkAndIndex();
  {
    // An index of layout 3, which had a termlist table like any Xapian
    // database written without DB_NO_TERMLIST.
    std::filesystem::remove_all(IssueIndexDir(db_.path()));
    Xapian::WritableDatabase w(IssueIndexDir(db_.path()), Xapian::DB_CREATE);
    Xapian::Document doc;
    doc.add_term("oldlayoutword");
    doc.add_boolean_term("Q" + IssueRef("3").ToString());
    w.add_document(doc);
    w.set_metadata("fixgraph:schema", "3");
    w.commit();
  }
  ASSERT_TRUE(std::filesystem::exists(IssueIndexDir(db_.path()) + "/termlist.glass"));
  auto s = Searcher::Open(db_.path());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Status::Code::kFailedPrecondition) << s.status().ToString();
  EXPECT_NE(s.status().message().find("layout 3"), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("fixgraph link"), std::string::npos) << s.status().message();
  // Any update (import, sync, link) rebuilds an index of another layout.
  ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("1")}).ok());
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  auto r = searcher->Ask("安装文档链接", AskOptions());
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].issue, IssueRef("3"));
  EXPECT_FALSE(std::filesystem::exists(IssueIndexDir(db_.path()) + "/termlist.glass"));
  EXPECT_EQ(Xapian::Database(IssueIndexDir(db_.path())).get_doccount(), 3u);
}

TEST_F(AskTest, NoIndexIsAClearError) {
  auto s = Searcher::Open(db_.path());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsNotFound());
  EXPECT_NE(s.status().message().find("fixgraph import"), std::string::npos);
}

TEST_F(AskTest, ConcurrentReadersWhileTheIndexChanges) {
  AddCorpus();
  LinkAndIndex();
  auto searcher = OpenSearcher();
  ASSERT_NE(searcher, nullptr);
  std::atomic<int> failures{0}, found{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 60; ++i) {
        auto r = searcher->Ask("EZ9999 段错误", AskOptions());
        if (!r.ok())
          ++failures;
        else if (!r->hits.empty() && r->hits[0].issue == IssueRef("2"))
          ++found;
      }
    });
  // A writer commits meanwhile (as import or sync in another process would).
  for (int i = 0; i < 5 && !stop; ++i) {
    ASSERT_TRUE(UpdateIssueIndex(*store_, db_.path(), {IssueRef("1"), IssueRef("2")}).ok());
    ASSERT_TRUE(searcher->Reopen().ok());
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(found.load(), 240);
}

TEST(PrAnswerTest, KeepsTheLinesThatSayWhatWasDoneWithoutMarkdownDecoration) {
  std::string answer = ExtractPrAnswer("修复显存碎片",
                                       "fix #12\n\n**Root Cause**：初始化时反复申请显存。\n\n- "
                                       "**Fix Solution**：改为在 CPU 侧创建参数。\n");
  EXPECT_EQ(answer.find("**"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Fix Solution：改为在 CPU 侧创建参数。"), std::string::npos) << answer;
}

TEST(PrAnswerTest, FallsBackToTheTitleWhenTheBodyHasNothing) {
  EXPECT_EQ(ExtractPrAnswer("fix scatter index check", ""), "fix scatter index check");
}

TEST(PrAnswerTest, VersionNotesOfATemplateAreNoAnswer) {
  // vllm-ascend's PR 6151: the reference line is skipped, and the template's
  // version footer was the whole answer.
  const std::string title = "[Bugfix] Fix structured outputs errors";
  EXPECT_EQ(ExtractPrAnswer(title,
                            "### What this PR does / why we need it?\n"
                            "Fix https://github.com/o/r/issues/5524\n\n"
                            "- vLLM version: v0.13.0\n- vLLM main:\n"
                            "https://github.com/vllm-project/vllm/commit/d68209402dda\n\n"
                            "Signed-off-by: someone <a@b.c>"),
            title);
  EXPECT_EQ(ExtractPrAnswer(title, "- CANN 版本：8.0.RC3\n- torch_npu: 2.1.0.post8\n"), title);
  // A passage that says something stays.
  const std::string said =
      ExtractPrAnswer(title,
                      "Cast the bitmask to int32 before apply_token_bitmask_inplace_cpu.\n\n"
                      "- vLLM version: v0.13.0\n");
  EXPECT_NE(said.find("Cast the bitmask to int32"), std::string::npos) << said;
  EXPECT_NE(ExtractPrAnswer(title, "- 版本: 升级到 8.0.RC3 解决\n"), title);
}

}  // namespace
}  // namespace fixgraph::query::testing

namespace fixgraph::query::testing {
namespace {

// A rebuild reports the issues written so far, run by run, up to all of them.
TEST_F(AskTest, RebuildReportsTheIssuesWritten) {
  AddCorpus();
  graph::LinkStats stats;
  ASSERT_TRUE(graph::LinkAll(store_.get(), options_, &stats).ok());
  std::vector<std::int64_t> reports;
  IndexOptions options;
  options.on_progress = [&](std::int64_t n) { reports.push_back(n); };
  Status s = RebuildIssueIndexInShards(*store_, db_.path(), 1, options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(reports.size(), 3u);  // three issues, one a run
  EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
  EXPECT_EQ(reports.back(), 3);
}

// IndexOptions::threads bounds the writers: the reports come from the writer
// threads, so 30 runs written by one writer report from one thread, by three
// writers from at most three.
TEST_F(AskTest, RebuildWritesOnTheThreadsAsked) {
  for (int i = 10; i < 40; ++i) {
    std::string number = std::to_string(i);
    AddIssue(number, "crash " + number, "core dumped", "2026-03-01T10:00:00Z");
  }
  Commit();
  graph::LinkStats stats;
  ASSERT_TRUE(graph::LinkAll(store_.get(), options_, &stats).ok());
  for (unsigned threads : {1u, 3u}) {
    std::set<std::thread::id> writers;
    IndexOptions options;
    options.threads = threads;
    options.on_progress = [&](std::int64_t) { writers.insert(std::this_thread::get_id()); };
    Status s = RebuildIssueIndexInShards(*store_, db_.path(), 1, options);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_FALSE(writers.empty());
    EXPECT_LE(writers.size(), threads);
  }
}

}  // namespace
}  // namespace fixgraph::query::testing
