// The suggestion model: scores, softmax with a "none" option, the
// conditional-logit fit and its cross-validation (see suggest.h).
#include "fixgraph/graph/suggest.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fixgraph::graph {
namespace {

constexpr const char* kNames[kRankFeatures] = {
    "text",      "text_log",   "title",   "title_dice", "patch",      "lag_log",    "lag_day",   "lag_week",
    "after_close", "before_issue", "no_close", "num_after", "num_gap", "num_before", "people",
};

// Fitted by `fixgraph eval-suggest --fit-out` on the 78 closed issues of the
// references-stripped DeepSpeed dev set (docs/evaluation.md, "Suggested
// fixes"); its figures there come from cross-validation, never from these.
// no_close (constant within a pool: it only sets how likely "none" is when
// the close time is unknown) is taken from the fit on the set's variant
// without issue times.
constexpr FeatureVector kBuiltin = {
    2.8782, 0.1774, 1.5905, 1.6751, 1.5805, -0.2116, -0.0212, 4.0623, -1.0407, -0.6839, -3.3600, 0.9373, -2.0422, -2.0577, 0.8609,
};
constexpr double kBuiltinNone = 2.3441;

double Softmax(std::span<const double> scores, double none, std::vector<double>* out) {
  double m = none;
  for (double s : scores) m = std::max(m, s);
  out->resize(scores.size() + 1);
  double z = 0;
  for (size_t i = 0; i < scores.size(); ++i) z += (*out)[i] = std::exp(scores[i] - m);
  z += out->back() = std::exp(none - m);
  for (double& p : *out) p /= z;
  return z;
}

}  // namespace

const char* RankFeatureName(size_t i) { return i < kRankFeatures ? kNames[i] : "?"; }

bool IsTimeFeature(size_t i) {
  auto f = static_cast<RankFeature>(i);
  return f == RankFeature::kLagLog || f == RankFeature::kLagDay || f == RankFeature::kLagWeek ||
         f == RankFeature::kAfterClose || f == RankFeature::kBeforeIssue || f == RankFeature::kNoClose;
}

double RankModel::Score(const FeatureVector& x) const {
  double s = 0;
  for (size_t i = 0; i < kRankFeatures; ++i) s += weights[i] * x[i];
  return s;
}

std::vector<double> RankModel::Probabilities(std::span<const double> scores) const {
  std::vector<double> p;
  Softmax(scores, none, &p);
  return p;
}

nlohmann::json RankModel::ToJson() const {
  nlohmann::json w = nlohmann::json::object();
  for (size_t i = 0; i < kRankFeatures; ++i) w[kNames[i]] = weights[i];
  return {{"weights", w}, {"none", none}, {"source", source}, {"pairs", pairs}};
}

StatusOr<RankModel> RankModel::FromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::InvalidArgument("rank model: expected a JSON object");
  RankModel m;
  auto w = j.find("weights");
  if (w == j.end() || !w->is_object()) return Status::InvalidArgument("rank model: \"weights\" must be an object");
  for (size_t i = 0; i < kRankFeatures; ++i) {
    auto v = w->find(kNames[i]);
    if (v == w->end()) continue;  // a feature this model does not weigh
    if (!v->is_number()) return Status::InvalidArgument(std::string("rank model: weight \"") + kNames[i] + "\" must be a number");
    m.weights[i] = v->get<double>();
  }
  for (const auto& [k, v] : w->items()) {
    if (std::find_if(std::begin(kNames), std::end(kNames), [&key = k](const char* n) { return key == n; }) == std::end(kNames))
      return Status::InvalidArgument("rank model: unknown feature \"" + k + "\"");
  }
  auto n = j.find("none");
  if (n == j.end() || !n->is_number()) return Status::InvalidArgument("rank model: \"none\" must be a number");
  m.none = n->get<double>();
  if (auto s = j.find("source"); s != j.end() && s->is_string()) m.source = s->get<std::string>();
  if (auto p = j.find("pairs"); p != j.end() && p->is_number_integer()) m.pairs = p->get<std::int64_t>();
  for (double x : m.weights)
    if (!std::isfinite(x)) return Status::InvalidArgument("rank model: weights must be finite");
  if (!std::isfinite(m.none)) return Status::InvalidArgument("rank model: \"none\" must be finite");
  return m;
}

const RankModel& BuiltinRankModel() {
  static const RankModel m = [] {
    RankModel b;
    b.weights = kBuiltin;
    b.none = kBuiltinNone;
    return b;
  }();
  return m;
}

RankModel FitRankModel(std::span<const RankExample> examples, const RankFitOptions& options) {
  RankModel m = options.prior;
  m.source = "fitted";
  m.pairs = 0;
  for (const RankExample& e : examples)
    if (std::find(e.fix.begin(), e.fix.end(), true) != e.fix.end()) ++m.pairs;
  if (examples.empty()) return m;
  const double n = static_cast<double>(examples.size());
  std::vector<double> scores, p;
  for (int it = 0; it < options.iterations; ++it) {
    FeatureVector grad{};
    double grad_none = 0;
    for (const RankExample& e : examples) {
      scores.resize(e.pool.size());
      for (size_t j = 0; j < e.pool.size(); ++j) scores[j] = m.Score(e.pool[j]);
      Softmax(scores, m.none, &p);
      double p_fix = 0;
      for (size_t j = 0; j < e.pool.size(); ++j)
        if (e.fix[j]) p_fix += p[j];
      bool has_fix = p_fix > 0 || std::find(e.fix.begin(), e.fix.end(), true) != e.fix.end();
      // d(-log P(target))/ds_j = p_j - q_j, q the target's share of each option.
      for (size_t j = 0; j < e.pool.size(); ++j) {
        double q = has_fix && e.fix[j] ? (p_fix > 0 ? p[j] / p_fix : 0) : 0;
        double g = p[j] - q;
        if (g == 0) continue;
        for (size_t k = 0; k < kRankFeatures; ++k) grad[k] += g * e.pool[j][k];
      }
      grad_none += p.back() - (has_fix ? 0.0 : 1.0);
    }
    for (size_t k = 0; k < kRankFeatures; ++k) {
      if (options.freeze_time && IsTimeFeature(k)) continue;
      m.weights[k] -= options.step * (grad[k] / n + options.l2 * (m.weights[k] - options.prior.weights[k]));
    }
    m.none -= options.step * (grad_none / n + options.l2 * (m.none - options.prior.none));
  }
  return m;
}

namespace {

struct Scored {
  std::vector<size_t> order;  // pool indexes, best first
  std::vector<double> p;      // per pool index, then none
};

Scored ScoreExample(const RankExample& e, const RankModel& m) {
  Scored s;
  std::vector<double> scores(e.pool.size());
  for (size_t j = 0; j < e.pool.size(); ++j) scores[j] = m.Score(e.pool[j]);
  Softmax(scores, m.none, &s.p);
  s.order.resize(e.pool.size());
  std::iota(s.order.begin(), s.order.end(), 0);
  std::stable_sort(s.order.begin(), s.order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return s;
}

void Accumulate(const RankExample& e, const Scored& s, RankEval* out, std::vector<std::pair<double, bool>>* shown) {
  for (size_t r = 0; r < s.order.size() && r < 5; ++r) shown->push_back({s.p[s.order[r]], e.fix[s.order[r]]});
  if (!e.labelled) return;
  for (size_t r = 0; r < s.order.size(); ++r) {
    if (!e.fix[s.order[r]]) continue;
    if (r == 0) out->p_at_1 += 1;
    if (r < 5) out->hit_at_5 += 1;
    out->mrr += 1.0 / static_cast<double>(r + 1);
    break;
  }
}

void Finish(std::vector<std::pair<double, bool>>& shown, RankEval* out) {
  if (out->pairs > 0) {
    out->p_at_1 /= static_cast<double>(out->pairs);
    out->hit_at_5 /= static_cast<double>(out->pairs);
    out->mrr /= static_cast<double>(out->pairs);
  }
  out->bins.assign(10, {});
  for (size_t b = 0; b < 10; ++b) {
    out->bins[b].lo = static_cast<double>(b) / 10;
    out->bins[b].hi = static_cast<double>(b + 1) / 10;
  }
  for (const auto& [p, ok] : shown) {
    size_t b = std::min<size_t>(9, static_cast<size_t>(p * 10));
    out->bins[b].n += 1;
    out->bins[b].mean_p += p;
    out->bins[b].accuracy += ok ? 1 : 0;
  }
  double ece = 0;
  for (RankEval::Bin& b : out->bins) {
    if (b.n == 0) continue;
    b.mean_p /= static_cast<double>(b.n);
    b.accuracy /= static_cast<double>(b.n);
    ece += static_cast<double>(b.n) * std::abs(b.mean_p - b.accuracy);
  }
  out->ece = shown.empty() ? 0 : ece / static_cast<double>(shown.size());
}

void CountExamples(std::span<const RankExample> examples, RankEval* out) {
  for (const RankExample& e : examples) {
    if (e.labelled) ++out->pairs; else ++out->distractors;
    if (std::find(e.fix.begin(), e.fix.end(), true) != e.fix.end()) ++out->fix_in_pool;
  }
}

}  // namespace

RankEval EvaluateModel(std::span<const RankExample> examples, const RankModel& model) {
  RankEval out;
  std::vector<std::pair<double, bool>> shown;
  for (const RankExample& e : examples) Accumulate(e, ScoreExample(e, model), &out, &shown);
  CountExamples(examples, &out);
  Finish(shown, &out);
  return out;
}

RankEval CrossValidate(std::span<const RankExample> examples, int folds, const RankFitOptions& options,
                       std::vector<RankModel>* fold_models) {
  RankEval out;
  out.folds = std::max(2, folds);
  std::vector<size_t> order(examples.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return examples[a].issue < examples[b].issue; });
  std::vector<std::pair<double, bool>> shown;
  for (int f = 0; f < out.folds; ++f) {
    std::vector<RankExample> train;
    std::vector<const RankExample*> test;
    for (size_t i = 0; i < order.size(); ++i) {
      if (static_cast<int>(i % static_cast<size_t>(out.folds)) == f) {
        test.push_back(&examples[order[i]]);
      } else {
        train.push_back(examples[order[i]]);
      }
    }
    RankModel m = FitRankModel(train, options);
    for (const RankExample* e : test) Accumulate(*e, ScoreExample(*e, m), &out, &shown);
    if (fold_models) fold_models->push_back(std::move(m));
  }
  CountExamples(examples, &out);
  Finish(shown, &out);
  return out;
}

nlohmann::json RankEval::ToJson() const {
  nlohmann::json bins_json = nlohmann::json::array();
  for (const Bin& b : bins)
    bins_json.push_back({{"lo", b.lo}, {"hi", b.hi}, {"n", b.n}, {"mean_p", b.mean_p}, {"accuracy", b.accuracy}});
  return {{"pairs", pairs}, {"fix_in_pool", fix_in_pool}, {"distractors", distractors},
          {"p_at_1", p_at_1}, {"hit_at_5", hit_at_5}, {"mrr", mrr}, {"ece", ece},
          {"folds", folds}, {"reliability", bins_json}};
}

}  // namespace fixgraph::graph
