// Suggested fixes: the merged PRs most likely to have fixed a closed issue
// that no trusted (tier A-C) link explains (docs/evidence.md, "Suggested
// fixes").
//
// The pool: every PR of the issue's repository merged from the issue's
// creation minus a day to its close plus a day, on any branch (no bound where
// a time is unknown; at most RankPoolOptions::max_pool, the latest first).
// Each pool PR gets a feature vector (RankFeature): BM25 of the issue text
// against the PR text with the pool's document frequencies, title overlap,
// the files and identifiers the issue names that the PR changes, the time
// from the merge to the close, the number sequence where issues and PRs share
// one counter (GitHub), people, labels, and the versions and branches named. A linear model scores
// each PR; a softmax over the pool's scores and one more "none of these" score turns them into
// probabilities, so an issue whose fix is not in the pool can get a low
// probability everywhere. The top five are the suggestions, with that
// probability as their confidence.
//
// Weights: built in (BuiltinRankModel, fitted offline on real issue -> fix
// pairs, docs/evaluation.md), and refitted per repository by `link` from the
// store's own explicit pairs (a merged PR whose text says it fixes an issue of
// the repository, or that the platform links to one), with the explicit reference masked and the
// time features held at their built-in weights (an issue closed by its fix's merge tells nothing of
// how late a traceless issue is closed). The fit is a conditional logit with an L2 pull towards the
// built-in weights, by Newton's method from fixed starting values: deterministic, and with few
// pairs it stays near the built-in model.
//
// Thread safety: RankModel is a plain value; the functions are pure.
#pragma once

#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace fixgraph::graph {

// The features of one (issue, PR) pair. Names (RankFeatureName) are part of
// the JSON of a model and of `eval-suggest --json`.
enum class RankFeature : std::uint8_t {
  kText,         // BM25(issue title+body, PR title+body) / the pool's best
  kTextLog,      // log(1 + BM25)
  kTitle,        // the issue title's idf mass found in the PR title, 0-1
  kTitleDice,    // Dice of the two titles' word sets
  kPatch,        // files, modules, functions the issue names that the PR changes (log(1 + score))
  kLagLog,       // log(1 + hours from merge to close), merged before the close
  kLagDay,       // merged within a day before the close
  kLagWeek,      // merged within seven days before the close
  kAfterClose,   // merged after the close (within the pool's day of allowance)
  kBeforeIssue,  // merged before the issue was filed (within the day of allowance)
  kNoClose,      // the close time is unknown (or masked for training)
  kNumAfter,     // shared number sequence: the PR's number is above the issue's
  kNumGap,       // log(1 + PR number - issue number) / 5, when above
  kNumBefore,    // log(1 + issue number - PR number) / 5, when below
  kPeople,       // the PR's author filed the issue, is assigned or commented on it
  kIdentTitle,   // the PR title names a code identifier the issue names: 1 / (shortlisted PR titles
                 // naming it)
  kLabel,  // the PR carries an issue label, or a label's word names a path it changes or is in its
           // title: 1 / (shortlisted PRs sharing that label), the best label
  kVersion,  // the PR's base is the release line of a version the issue names, or a branch linked
             // to the issue (other than the default branch)
};
inline constexpr size_t kRankFeatures = 18;
const char* RankFeatureName(size_t i);
// The time features: masked in training examples and frozen in a store fit.
bool IsTimeFeature(size_t i);

using FeatureVector = std::array<double, kRankFeatures>;

struct RankModel {
  FeatureVector weights{};
  double none = 0;                  // the score of "the fix is not in the pool"
  std::string source = "built-in";  // or "store"
  std::int64_t pairs = 0;           // training pairs of a store fit

  double Score(const FeatureVector& x) const;
  // Probabilities of `scores` and, last, of "none": a softmax.
  std::vector<double> Probabilities(std::span<const double> scores) const;
  nlohmann::json ToJson() const;
  // InvalidArgument naming the field for a malformed model.
  static StatusOr<RankModel> FromJson(const nlohmann::json& j);
};

const RankModel& BuiltinRankModel();

// One issue's pool for training or evaluation.
struct RankExample {
  std::string issue;                // canonical reference
  std::vector<std::string> prs;     // per pool entry
  std::vector<FeatureVector> pool;  // per pool entry
  std::vector<bool> fix;            // per pool entry: a labelled fix (none: "none" is right)
  bool labelled = false;            // the issue has a labelled fix, in the pool or not
};

struct RankFitOptions {
  int iterations = 50;       // Newton steps at most (it stops when a step is below 1e-7)
  double l2 = 0.02;          // pull towards `prior`
  RankModel prior;           // starting point and L2 centre (the built-in model by default)
  bool freeze_time = false;  // keep the time features at the prior's weights
  // When non-zero, each example keeps only its `top_k` entries best by the
  // prior's score and its fixes: the rest carry next to no probability, so
  // next to no gradient, and the fit costs a fraction (link's store fit).
  size_t top_k = 0;
  RankFitOptions() : prior(BuiltinRankModel()) {}
};
RankModel FitRankModel(std::span<const RankExample> examples, const RankFitOptions& options);
// The fit of `eval-suggest` (its cross-validation and --fit-out): from zero
// weights with a light L2 pull towards zero, so nothing of the built-in
// model (itself fitted on a dev set) leaks into a cross-validated figure.
RankFitOptions NeutralFitOptions();

// Cross-validated ranking quality (eval-suggest): examples are split into
// `folds` by a fixed rule (sorted by issue, every folds-th), each fold scored
// by a model fitted on the others.
struct RankEval {
  std::int64_t pairs = 0;                    // examples with a fix in the pool or not
  std::int64_t fix_in_pool = 0;              // pairs whose fix is in the pool at all
  std::int64_t distractors = 0;              // examples without a labelled fix
  double p_at_1 = 0, hit_at_5 = 0, mrr = 0;  // over `pairs`
  // Reliability of the top-5 suggestions' probabilities (ten equal bins).
  struct Bin {
    double lo = 0, hi = 0;
    std::int64_t n = 0;
    double mean_p = 0, accuracy = 0;
  };
  std::vector<Bin> bins;
  double ece = 0;  // expected calibration error over those suggestions
  int folds = 0;
  // Per labelled issue whose fix was not ranked first: where the first fix
  // came (0: not in the pool), and what came first instead.
  struct Miss {
    std::string issue;
    int fix_rank = 0;
    std::string top;                 // the first-ranked PR ("" for an empty pool)
    double top_p = 0;                // its probability
    double fix_p = 0;                // the best-ranked fix's probability (0 when absent)
    FeatureVector top_x{}, fix_x{};  // their features
  };
  std::vector<Miss> misses;  // in issue order
  nlohmann::json ToJson() const;
};
// `fold_models` (may be null) receives the model of each fold.
RankEval CrossValidate(std::span<const RankExample> examples, int folds,
                       const RankFitOptions& options,
                       std::vector<RankModel>* fold_models = nullptr);
// The same measures for one fixed model (no fitting).
RankEval EvaluateModel(std::span<const RankExample> examples, const RankModel& model);

// An issue and the PRs (canonical references) that fixed it; none for an
// issue known to have no fix PR.
struct IssueFixes {
  Ref issue;
  std::vector<std::string> fixes;
};
// The ranking pools of `issues` as the linker builds them, read from the
// store with one run index of their repositories. Issues absent from the
// store are skipped (NotFound only when none is there). mask_times: as for
// training (time features read "unknown").
StatusOr<std::vector<RankExample>> LoadRankExamples(const Store& store,
                                                    std::span<const IssueFixes> issues,
                                                    bool mask_times);

}  // namespace fixgraph::graph
