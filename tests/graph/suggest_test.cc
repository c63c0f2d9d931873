// Suggested fixes: the model (fit, probabilities, JSON), cross-validation,
// and the linker's suggestions for a closed issue without a trusted fix.
#include "fixgraph/graph/suggest.h"

#include "graph_fixture.h"

#include <gtest/gtest.h>

namespace fixgraph::graph {
namespace {

using testing::GraphTest;

FeatureVector X(double text, double lag_week) {
  FeatureVector x{};
  x[static_cast<size_t>(RankFeature::kText)] = text;
  x[static_cast<size_t>(RankFeature::kLagWeek)] = lag_week;
  return x;
}

// Examples where the fix is the PR with the better text and a recent merge.
std::vector<RankExample> Examples(int n) {
  std::vector<RankExample> out;
  for (int i = 0; i < n; ++i) {
    RankExample e;
    e.issue = "gitcode:o/r#" + std::to_string(100 + i);
    e.labelled = true;
    e.prs = {"a", "b", "c"};
    e.pool = {X(1.0, 1), X(0.9, 0), X(0.2, 1)};
    e.fix = {true, false, false};
    if (i % 4 == 3) {  // sometimes the close-by PR with a weaker text is the fix
      e.pool = {X(1.0, 0), X(0.7, 1), X(0.1, 0)};
      e.fix = {false, true, false};
    }
    out.push_back(std::move(e));
  }
  return out;
}

TEST(RankModel, ProbabilitiesSumToOneWithNone) {
  RankModel m = BuiltinRankModel();
  std::vector<double> scores = {1.0, 2.0, -1.0};
  std::vector<double> p = m.Probabilities(scores);
  ASSERT_EQ(p.size(), 4u);
  double sum = 0;
  for (double v : p) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_GT(p[1], p[0]);
  EXPECT_GT(p[0], p[2]);
}

TEST(RankModel, FitLearnsTheDecidingFeaturesAndIsDeterministic) {
  std::vector<RankExample> ex = Examples(40);
  RankFitOptions o;
  o.prior = RankModel{};  // all zero: what is learned comes from the data
  RankModel a = FitRankModel(ex, o);
  RankModel b = FitRankModel(ex, o);
  EXPECT_EQ(a.ToJson().dump(), b.ToJson().dump());
  EXPECT_GT(a.weights[static_cast<size_t>(RankFeature::kText)], 0);
  EXPECT_GT(a.weights[static_cast<size_t>(RankFeature::kLagWeek)], 0);
  EXPECT_EQ(a.pairs, 40);
  RankEval e = EvaluateModel(ex, a);
  EXPECT_GE(e.p_at_1, 0.75);
  EXPECT_EQ(e.hit_at_5, 1.0);
}

TEST(RankModel, FreezeTimeKeepsThePriorsTimeWeights) {
  std::vector<RankExample> ex = Examples(20);
  RankFitOptions o;
  o.freeze_time = true;
  RankModel m = FitRankModel(ex, o);
  for (size_t i = 0; i < kRankFeatures; ++i) {
    if (IsTimeFeature(i)) {
      EXPECT_EQ(m.weights[i], BuiltinRankModel().weights[i]) << RankFeatureName(i);
    }
  }
}

TEST(RankModel, DistractorsTeachTheNoneOption) {
  std::vector<RankExample> ex;
  for (int i = 0; i < 20; ++i) {
    RankExample e;
    e.issue = "gitcode:o/r#" + std::to_string(i);
    e.prs = {"a"};
    e.pool = {X(1.0, 1)};
    e.fix = {i % 2 == 0};  // half of them: the fix is not in the pool
    e.labelled = i % 2 == 0;
    ex.push_back(std::move(e));
  }
  RankFitOptions o;
  o.prior = RankModel{};
  o.iterations = 2000;
  RankModel m = FitRankModel(ex, o);
  std::vector<double> s = {m.Score(X(1.0, 1))};
  // Calibrated: the one candidate is right half of the time.
  EXPECT_NEAR(m.Probabilities(s)[0], 0.5, 0.05);
}

TEST(RankModel, JsonRoundTripAndErrors) {
  RankModel m = BuiltinRankModel();
  auto back = RankModel::FromJson(m.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->weights, m.weights);
  EXPECT_EQ(back->none, m.none);
  nlohmann::json bad = m.ToJson();
  bad["weights"]["no_such_feature"] = 1;
  EXPECT_FALSE(RankModel::FromJson(bad).ok());
  bad = m.ToJson();
  bad["none"] = "x";
  EXPECT_FALSE(RankModel::FromJson(bad).ok());
}

TEST(RankModel, CrossValidationScoresEachFoldWithoutIt) {
  std::vector<RankExample> ex = Examples(25);
  std::vector<RankModel> models;
  RankEval e = CrossValidate(ex, 5, RankFitOptions{}, &models);
  EXPECT_EQ(models.size(), 5u);
  EXPECT_EQ(e.pairs, 25);
  EXPECT_GT(e.p_at_1, 0.5);
  std::int64_t shown = 0;
  for (const RankEval::Bin& b : e.bins) shown += b.n;
  EXPECT_EQ(shown, 25 * 3);  // every pool entry of these pools is in the top five
}

// A closed issue, no PR naming it, closed hours after the fix merged: the
// fix is the first suggestion; fixes stays empty.
TEST_F(GraphTest, ClosedIssueWithoutTrustedFixGetsRankedSuggestions) {
  AddIssue("7", "DataLoader worker crashes with shared memory error",
           "RuntimeError: DataLoader worker exited unexpectedly, bus error in shared memory when "
           "num_workers is 8",
           "2026-03-01T00:00:00Z", "2026-03-04T09:00:00Z");
  AddPull(20, "Fix shared memory bus error in DataLoader workers",
          "Workers crashed with a bus error when shared memory ran out; allocate buffers lazily.",
          "2026-03-02T00:00:00Z", "2026-03-04T03:00:00Z");
  AddPull(21, "Update documentation of the optimizer", "Docs only.", "2026-03-02T00:00:00Z",
          "2026-03-04T05:00:00Z");
  AddPull(22, "Add CI job for the tokenizer", "New CI job.", "2026-03-02T00:00:00Z",
          "2026-03-03T05:00:00Z");
  Commit();
  // Without the window's title and patch evidence, nothing links the issue:
  // only the ranking speaks.
  options_.implicit = false;
  IssueLinks l = Link("7");
  EXPECT_TRUE(l.fixes.empty());
  ASSERT_FALSE(l.suggested.empty());
  EXPECT_EQ(l.suggested.front().pr, P(20));
  EXPECT_EQ(l.suggested.front().tier, Tier::kD);
  EXPECT_GT(l.suggested.front().confidence, l.suggested.back().confidence - 1e-9);
  for (const FixLink& f : l.suggested) EXPECT_LE(f.confidence, 1.0);
  // The suggestions survive the stored form and JSON.
  nlohmann::json j = ToJson(l);
  ASSERT_TRUE(j.contains("suggested"));
  IssueLinks back;
  ASSERT_TRUE(FromJson(j, &back).ok());
  ASSERT_EQ(back.suggested.size(), l.suggested.size());
  // Switched off, none are made.
  options_.suggest = false;
  EXPECT_TRUE(Link("7").suggested.empty());
}

// An issue with an explicit fix gets no suggestions.
TEST_F(GraphTest, TrustedFixMeansNoSuggestions) {
  AddIssue("8", "Crash when saving checkpoints", "save_checkpoint raises", "2026-03-01T00:00:00Z",
           "2026-03-04T09:00:00Z");
  AddPull(30, "Fix checkpoint saving", "Fixes #8", "2026-03-02T00:00:00Z", "2026-03-04T03:00:00Z");
  AddPull(31, "Checkpoint saving speedup", "", "2026-03-02T00:00:00Z", "2026-03-04T04:00:00Z");
  Commit();
  IssueLinks l = Link("8");
  ASSERT_FALSE(l.fixes.empty());
  EXPECT_TRUE(l.suggested.empty());
}

}  // namespace
}  // namespace fixgraph::graph

namespace fixgraph::graph {
namespace {

// `link` refits the model from a repository's explicit pairs and keeps it
// in the store; with too few pairs it keeps none.
// Links the repository with a store fit from at least `min_pairs` pairs and
// reads back the model it kept (NotFound when it kept none).
StatusOr<RankModel> LinkAndReadModel(Store* store, const RepoRef& repo, LinkerOptions o,
                                     size_t min_pairs) {
  o.suggest_min_pairs = min_pairs;
  FG_RETURN_IF_ERROR(LinkAll(store, &repo, o, nullptr));
  FG_ASSIGN_OR_RETURN(std::string meta, store->GetMeta(RankModelKey(repo)));
  return RankModel::FromJson(nlohmann::json::parse(meta));
}

TEST_F(GraphTest, LinkAllFitsAModelFromTheRepositorysExplicitPairs) {
  for (int i = 0; i < 3; ++i) {
    std::string n = std::to_string(40 + i);
    AddIssue(n, "Crash in module " + n + " when loading weights",
             "loader_" + n + " raises KeyError", "2026-03-01T00:00:00Z",
             "2026-03-04T09:00:0" + std::to_string(i) + "Z");
    AddPull(140 + i, "Fix loader_" + n + " key error", "Fixes #" + n, "2026-03-02T00:00:00Z",
            "2026-03-04T09:00:0" + std::to_string(i) + "Z");
  }
  Commit();
  auto m = LinkAndReadModel(store_.get(), repo_, options_, 3);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->source, "store");
  EXPECT_EQ(m->pairs, 3);
  // Time weights stay the built-in ones.
  for (size_t i = 0; i < kRankFeatures; ++i) {
    if (IsTimeFeature(i)) {
      EXPECT_EQ(m->weights[i], BuiltinRankModel().weights[i]);
    }
  }
  EXPECT_TRUE(LinkAndReadModel(store_.get(), repo_, options_, 4).status().IsNotFound());
}

// Platform links are explicit pairs too (GitCode and Gitee link most fixes
// that way, with no reference in the texts); an issue linked to more than
// three merged PRs is an umbrella and teaches nothing.
TEST_F(GraphTest, StoreFitTakesPlatformLinkedPairs) {
  for (int i = 0; i < 3; ++i) {
    std::string n = std::to_string(40 + i);
    std::string at = "2026-03-04T09:00:0" + std::to_string(i) + "Z";
    AddIssue(n, "Crash in module " + n + " when loading weights",
             "loader_" + n + " raises KeyError", "2026-03-01T00:00:00Z", at);
    AddPull(140 + i, "Fix loader_" + n + " key error", "", "2026-03-02T00:00:00Z", at);
    AddPlatformLink(IssueRef(n), PullRef(140 + i));
  }
  AddIssue("50", "Tracking: loader rewrite", "", "2026-03-01T00:00:00Z", "2026-03-09T00:00:00Z");
  for (int k = 0; k < 4; ++k) {
    AddPull(150 + k, "Loader rewrite step " + std::to_string(k), "", "2026-03-02T00:00:00Z",
            "2026-03-05T00:00:00Z");
    AddPlatformLink(IssueRef("50"), PullRef(150 + k));
  }
  Commit();
  auto m = LinkAndReadModel(store_.get(), repo_, options_, 3);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->pairs, 3);  // not the umbrella
}

}  // namespace
}  // namespace fixgraph::graph

namespace fixgraph::graph {
namespace {

double FeatureOf(const RankExample& e, const std::string& pr, RankFeature f) {
  for (size_t i = 0; i < e.prs.size(); ++i)
    if (e.prs[i] == pr) return e.pool[i][static_cast<size_t>(f)];
  ADD_FAILURE() << pr << " is not in the pool of " << e.issue;
  return -1;
}

// ident_title: a PR title naming a code identifier of the issue (by its last
// segment), shared out among the shortlisted titles that name it.
TEST_F(GraphTest, RankPoolIdentTitleFeature) {
  AddIssue("9", "Importing the library sets multiprocessing set_start_method",
           "Our code calls torch.multiprocessing.set_start_method() and model.no_sync() first; it "
           "breaks.",
           "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z");
  AddPull(50, "Don't break set_start_method", "", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z");
  AddPull(51, "Add a no_sync context manager", "", "2026-03-02T00:00:00Z", "2026-03-03T01:00:00Z");
  AddPull(52, "Log when set_start_method was called before", "", "2026-03-02T00:00:00Z",
          "2026-03-03T02:00:00Z");
  AddPull(53, "Speed up the loader", "start method", "2026-03-02T00:00:00Z",
          "2026-03-03T03:00:00Z");
  Commit();
  std::vector<IssueFixes> want = {{IssueRef("9"), {P(50)}}};
  auto ex = LoadRankExamples(*store_, want, false);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  ASSERT_EQ(ex->size(), 1u);
  const RankExample& e = ex->front();
  EXPECT_DOUBLE_EQ(FeatureOf(e, P(50), RankFeature::kIdentTitle), 0.5);  // two titles name it
  EXPECT_DOUBLE_EQ(FeatureOf(e, P(52), RankFeature::kIdentTitle), 0.5);
  EXPECT_DOUBLE_EQ(FeatureOf(e, P(51), RankFeature::kIdentTitle), 1.0);  // model.no_sync -> no_sync
  EXPECT_DOUBLE_EQ(FeatureOf(e, P(53), RankFeature::kIdentTitle),
                   0.0);  // words, not the identifier
}

// people: the PR's author by login, or by a git author name that fits a
// participant's login; the merger alone counts half.
TEST_F(GraphTest, RankPoolPeopleFeatureMatchesLoginsToNames) {
  AddIssue("10", "Loader crash", "KeyError in the loader", "2026-03-01T00:00:00Z",
           "2026-03-06T00:00:00Z", "jrandall");
  AddComment(IssueRef("10"), "c1", "fabiogeraci", "same here", "2026-03-02T00:00:00Z");
  AddComment(IssueRef("10"), "c2", "alexk101", "and here", "2026-03-02T00:00:00Z");
  auto pull = [&](std::int64_t n, const std::string& author) {
    AddPull(n, "Loader change " + std::to_string(n), "", "2026-03-02T00:00:00Z",
            "2026-03-03T00:00:00Z", "", "main", "", nullptr, author);
  };
  pull(60, "Joshua C. Randall");
  pull(61, "Fabio Geraci");
  pull(62, "Alexander Kiefer");
  pull(63, "Jane Randolph");
  pull(64, "jrandall");
  pull(65, "Kim Lee");
  Commit();
  std::vector<IssueFixes> want = {{IssueRef("10"), {P(60)}}};
  auto ex = LoadRankExamples(*store_, want, false);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  const RankExample& e = ex->front();
  EXPECT_EQ(FeatureOf(e, P(60), RankFeature::kPeople), 1);
  EXPECT_EQ(FeatureOf(e, P(61), RankFeature::kPeople), 1);
  EXPECT_EQ(FeatureOf(e, P(62), RankFeature::kPeople), 1);
  EXPECT_EQ(FeatureOf(e, P(63), RankFeature::kPeople), 0);
  EXPECT_EQ(FeatureOf(e, P(64), RankFeature::kPeople), 1);
  EXPECT_EQ(FeatureOf(e, P(65), RankFeature::kPeople), 0);
}

// label: a PR sharing an issue label (carrying it, changing a path its word
// names, or naming it in its title), shared out among the shortlisted PRs
// that share it. version: the PR's base is the release line of a version the
// issue names, or a branch linked to the issue.
TEST_F(GraphTest, RankPoolLabelAndVersionFeatures) {
  Issue is = AddIssue("11", "Quantized model gives wrong output",
                      "With v0.14.2 the quantizer output differs from 0.13; see below.",
                      "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z");
  is.labels = {"sig/compression", "area/optimizer"};
  ASSERT_TRUE(batch_->PutIssue(is, "").ok());
  auto pull = [&](std::int64_t n, const std::string& title, const std::string& base) {
    return AddPull(n, title, "", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z", "", base);
  };
  pull(70, "Change the quantizer rounding", "main");
  AddFile(PullRef(70), "deepspeed/compression/quantizer.py", "");
  PullRequest p71 = pull(71, "Tidy the code", "main");
  p71.labels = {"Area/Optimizer"};
  ASSERT_TRUE(batch_->PutPull(p71, "").ok());
  pull(72, "Speed up the optimizer step", "main");
  pull(73, "Backport the rounding change", "release/v0.14");
  pull(74, "Backport a scheduler change", "release/v0.12");
  pull(75, "Update the readme", "main");
  Commit();
  std::vector<IssueFixes> want = {{IssueRef("11"), {P(70)}}};
  auto ex = LoadRankExamples(*store_, want, false);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  const RankExample& e = ex->front();
  EXPECT_DOUBLE_EQ(FeatureOf(e, P(70), RankFeature::kLabel), 1.0);  // the only one in compression/
  EXPECT_DOUBLE_EQ(FeatureOf(e, P(71), RankFeature::kLabel),
                   0.5);  // its label; 72's title names it too
  EXPECT_DOUBLE_EQ(FeatureOf(e, P(72), RankFeature::kLabel), 0.5);
  EXPECT_DOUBLE_EQ(FeatureOf(e, P(75), RankFeature::kLabel), 0.0);
  EXPECT_EQ(FeatureOf(e, P(73), RankFeature::kVersion), 1);  // release/v0.14 holds 0.14.2
  EXPECT_EQ(FeatureOf(e, P(74), RankFeature::kVersion), 0);  // 0.12 is not named
  EXPECT_EQ(FeatureOf(e, P(70), RankFeature::kVersion), 0);  // the default branch never counts
}

// A branch the platform links to the issue counts as named.
TEST_F(GraphTest, RankPoolVersionFeatureReadsLinkedBranches) {
  Issue is =
      AddIssue("12", "Loader crash", "KeyError", "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z");
  is.branch = "feature/loader";
  ASSERT_TRUE(batch_->PutIssue(is, "").ok());
  AddPull(80, "Loader change", "", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z", "",
          "feature/loader");
  AddPull(81, "Loader change too", "", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z", "",
          "feature/other");
  Commit();
  std::vector<IssueFixes> want = {{IssueRef("12"), {P(80)}}};
  auto ex = LoadRankExamples(*store_, want, false);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  EXPECT_EQ(FeatureOf(ex->front(), P(80), RankFeature::kVersion), 1);
  EXPECT_EQ(FeatureOf(ex->front(), P(81), RankFeature::kVersion), 0);
  // The suggestion says why.
  options_.implicit = false;
  IssueLinks l = Link("12");
  bool said = false;
  for (const FixLink& f : l.suggested)
    if (f.pr == P(80))
      for (const Evidence& ev : f.evidence)
        said |= ev.detail.find("a branch linked to the issue") != std::string::npos;
  EXPECT_TRUE(said);
}

// The store fit learns a repository's own use of labels: where every
// explicit fix changes the directory its issue's component label names, and
// look-alike PRs do not, the label weight comes out positive and ranks a
// traceless issue's fix first.
TEST_F(GraphTest, StoreFitLearnsTheLabelWeight) {
  const char* comps[] = {"loader", "sampler", "router", "planner", "tracer", "encoder"};
  for (int i = 0; i < 6; ++i) {
    std::string n = std::to_string(90 + i), c = comps[i];
    std::string closed = "2026-03-0" + std::to_string(4 + i % 3) + "T09:00:00Z";
    Issue is = AddIssue(n, "Wrong result after the update", "The output is wrong since yesterday.",
                        "2026-03-01T00:00:00Z", closed);
    is.labels = {"comp/" + c};
    ASSERT_TRUE(batch_->PutIssue(is, "").ok());
    AddPull(190 + i, "Update module", "Fixes #" + n, "2026-03-02T00:00:00Z", closed);
    AddFile(PullRef(190 + i), "src/" + c + "/impl.cc", "");
    AddPull(290 + i, "Update module", "Fixes #999", "2026-03-02T00:00:00Z", closed);
    AddFile(PullRef(290 + i), "src/common" + std::to_string(i) + "/impl.cc", "");
  }
  // The traceless issue: both candidates alike but for the label's directory.
  Issue is = AddIssue("99", "Wrong result after the update", "The output is wrong since yesterday.",
                      "2026-03-10T00:00:00Z", "2026-03-12T09:00:00Z");
  is.labels = {"comp/indexer"};
  ASSERT_TRUE(batch_->PutIssue(is, "").ok());
  AddPull(400, "Update module", "", "2026-03-11T00:00:00Z", "2026-03-12T03:00:00Z");
  AddFile(PullRef(400), "src/common9/impl.cc", "");
  AddPull(401, "Update module", "", "2026-03-11T00:00:00Z", "2026-03-12T03:00:00Z");
  AddFile(PullRef(401), "src/indexer/impl.cc", "");
  Commit();
  auto m = LinkAndReadModel(store_.get(), repo_, options_, 3);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_GT(m->weights[static_cast<size_t>(RankFeature::kLabel)], 0.5);
  auto links = ReadLinks(*store_, IssueRef("99"));
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  ASSERT_FALSE(links->suggested.empty());
  EXPECT_EQ(links->suggested.front().pr, P(401));
}

// eval-suggest --misses: every labelled issue whose fix is not first, with
// where its fix came.
TEST(RankModel, EvaluationListsTheMisses) {
  std::vector<RankExample> ex = Examples(8);
  RankModel m;
  m.weights[static_cast<size_t>(RankFeature::kText)] =
      5;  // text alone: the i % 4 == 3 examples miss
  RankEval e = EvaluateModel(ex, m);
  ASSERT_EQ(e.misses.size(), 2u);
  EXPECT_EQ(e.misses[0].issue, "gitcode:o/r#103");
  EXPECT_EQ(e.misses[0].fix_rank, 2);
  EXPECT_EQ(e.misses[0].top, "a");
  EXPECT_GT(e.misses[0].top_p, e.misses[0].fix_p);
  EXPECT_EQ(e.ToJson()["misses"].size(), 2u);
}

}  // namespace
}  // namespace fixgraph::graph

namespace fixgraph::graph {
namespace {

// top_k: each example keeps its best entries by the prior and its fixes, so
// a fix ranked low by the prior still teaches the fit.
TEST(RankModel, TopKKeepsTheFixes) {
  std::vector<RankExample> ex = Examples(20);
  RankFitOptions o = NeutralFitOptions();
  o.prior.weights[static_cast<size_t>(RankFeature::kText)] = 1;  // prior: text alone
  o.top_k = 1;
  RankModel m = FitRankModel(ex, o);
  // With only the prior's favourite and the fix left, the close-by fixes
  // (i % 4 == 3) still pull lag_week up.
  EXPECT_GT(m.weights[static_cast<size_t>(RankFeature::kLagWeek)], 0.5);
  RankModel full = FitRankModel(ex, NeutralFitOptions());
  EXPECT_GT(full.weights[static_cast<size_t>(RankFeature::kLagWeek)], 0.5);
}

}  // namespace
}  // namespace fixgraph::graph
