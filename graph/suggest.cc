// The suggestion model: scores, softmax with a "none" option, the
// conditional-logit fit and its cross-validation (see suggest.h).
#include "fixgraph/graph/suggest.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fixgraph::graph {
namespace {

constexpr const char* kNames[kRankFeatures] = {
    "text",    "text_log",   "title",       "title_dice",   "patch",    "lag_log",
    "lag_day", "lag_week",   "after_close", "before_issue", "no_close", "num_after",
    "num_gap", "num_before", "people",      "ident_title",  "label",    "version",
};

// Fitted by `fixgraph eval-suggest --fit-out` (NeutralFitOptions) on the 78
// closed issues of the references-stripped DeepSpeed dev set
// (docs/evaluation.md, "Suggested fixes"); its figures there come from
// cross-validation from zero weights, never from these. no_close (constant
// within a pool: it only sets how likely "none" is when the close time is
// unknown) is taken from the fit on the set's variant without issue times, as
// the difference none - no_close that fit found (4.96); in the stripped set
// only the distractors lack a close time, which would teach "no close time:
// no fix".
constexpr FeatureVector kBuiltin = {
    2.6416,  0.0540,  1.5711, 1.6201,  1.4575,  -0.2312, -0.0183, 3.7324, -0.1994,
    -0.6463, -2.6661, 0.4208, -1.4748, -1.6732, 1.5187,  2.0382,  0,      0,
};
constexpr double kBuiltinNone = 2.2911;

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
         f == RankFeature::kAfterClose || f == RankFeature::kBeforeIssue ||
         f == RankFeature::kNoClose;
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
  if (w == j.end() || !w->is_object())
    return Status::InvalidArgument("rank model: \"weights\" must be an object");
  for (size_t i = 0; i < kRankFeatures; ++i) {
    auto v = w->find(kNames[i]);
    if (v == w->end()) continue;  // a feature this model does not weigh
    if (!v->is_number())
      return Status::InvalidArgument(std::string("rank model: weight \"") + kNames[i] +
                                     "\" must be a number");
    m.weights[i] = v->get<double>();
  }
  for (const auto& [k, v] : w->items()) {
    if (std::find_if(std::begin(kNames), std::end(kNames),
                     [&key = k](const char* n) { return key == n; }) == std::end(kNames))
      return Status::InvalidArgument("rank model: unknown feature \"" + k + "\"");
  }
  auto n = j.find("none");
  if (n == j.end() || !n->is_number())
    return Status::InvalidArgument("rank model: \"none\" must be a number");
  m.none = n->get<double>();
  if (auto s = j.find("source"); s != j.end() && s->is_string()) m.source = s->get<std::string>();
  if (auto p = j.find("pairs"); p != j.end() && p->is_number_integer())
    m.pairs = p->get<std::int64_t>();
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

namespace {

// `examples` with each pool cut to its top_k entries by the prior's score
// and its fixes (in pool order).
std::vector<RankExample> Pruned(std::span<const RankExample> examples,
                                const RankFitOptions& options) {
  std::vector<RankExample> out;
  out.reserve(examples.size());
  std::vector<std::pair<double, size_t>> by_score;
  for (const RankExample& e : examples) {
    RankExample p;
    p.issue = e.issue;
    p.labelled = e.labelled;
    by_score.clear();
    for (size_t j = 0; j < e.pool.size(); ++j)
      by_score.emplace_back(-options.prior.Score(e.pool[j]), j);
    std::sort(by_score.begin(), by_score.end());
    std::vector<bool> keep(e.pool.size(), false);
    for (size_t r = 0; r < by_score.size() && r < options.top_k; ++r)
      keep[by_score[r].second] = true;
    for (size_t j = 0; j < e.pool.size(); ++j) {
      if (!keep[j] && !e.fix[j]) continue;
      p.prs.push_back(e.prs[j]);
      p.pool.push_back(e.pool[j]);
      p.fix.push_back(e.fix[j]);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

namespace {

// The parameters the fit moves: the weights, then "none".
constexpr size_t kThetaSize = kRankFeatures + 1;
using Theta = std::array<double, kThetaSize>;
using Hessian = std::array<Theta, kThetaSize>;

Theta ThetaOf(const RankModel& r) {
  Theta t{};
  for (size_t k = 0; k < kRankFeatures; ++k) t[k] = r.weights[k];
  t[kRankFeatures] = r.none;
  return t;
}

// The fit's objective: the mean negative log-likelihood of each example's
// target (its fixes, or "none" when it has none) plus the L2 pull of the free
// parameters towards the prior's. The Hessian of an example is the
// covariance of its options' feature vectors under the model's
// probabilities (exact for one target option; for several targets the PSD
// part).
class RankObjective {
 public:
  RankObjective(std::span<const RankExample> examples, const Theta& prior,
                const std::array<bool, kThetaSize>& free, double l2)
      : examples_(examples),
        prior_(prior),
        free_(free),
        n_(static_cast<double>(examples.size())),
        l2_(l2) {}

  // The objective at `t`; with `grad` and `hess`, also its derivatives.
  double Evaluate(const Theta& t, Theta* grad, Hessian* hess) {
    RankModel at;
    for (size_t k = 0; k < kRankFeatures; ++k) at.weights[k] = t[k];
    at.none = t[kRankFeatures];
    double loss = 0;
    if (grad) *grad = {};
    if (hess) *hess = {};
    for (const RankExample& e : examples_) {
      scores_.resize(e.pool.size());
      for (size_t j = 0; j < e.pool.size(); ++j) scores_[j] = at.Score(e.pool[j]);
      Softmax(scores_, at.none, &p_);
      double p_fix = 0;
      bool has_fix = false;
      for (size_t j = 0; j < e.pool.size(); ++j)
        if (e.fix[j]) {
          p_fix += p_[j];
          has_fix = true;
        }
      double p_target = has_fix ? p_fix : p_.back();
      loss -= std::log(std::max(p_target, 1e-300));
      if (!grad) continue;
      Theta mu{};
      for (size_t j = 0; j < e.pool.size(); ++j) {
        const double pj = p_[j];
        const double q = has_fix && e.fix[j] ? (p_fix > 0 ? pj / p_fix : 0) : 0;
        const double g = pj - q;
        const FeatureVector& x = e.pool[j];
        for (size_t k = 0; k < kRankFeatures; ++k) {
          if (x[k] == 0) continue;
          (*grad)[k] += g * x[k];
          mu[k] += pj * x[k];
          for (size_t l = k; l < kRankFeatures; ++l) (*hess)[k][l] += pj * x[k] * x[l];
        }
      }
      (*grad)[kRankFeatures] += p_.back() - (has_fix ? 0.0 : 1.0);
      mu[kRankFeatures] = p_.back();
      (*hess)[kRankFeatures][kRankFeatures] += p_.back();
      for (size_t k = 0; k < kThetaSize; ++k)
        for (size_t l = k; l < kThetaSize; ++l) (*hess)[k][l] -= mu[k] * mu[l];
    }
    double reg = 0;
    for (size_t k = 0; k < kThetaSize; ++k)
      if (free_[k]) reg += (t[k] - prior_[k]) * (t[k] - prior_[k]);
    double obj = loss / n_ + 0.5 * l2_ * reg;
    if (grad) {
      for (size_t k = 0; k < kThetaSize; ++k)
        (*grad)[k] = (*grad)[k] / n_ + l2_ * (t[k] - prior_[k]);
      for (size_t k = 0; k < kThetaSize; ++k)
        for (size_t l = k; l < kThetaSize; ++l) {
          (*hess)[k][l] = (*hess)[k][l] / n_ + (k == l ? l2_ : 0);
          (*hess)[l][k] = (*hess)[k][l];
        }
    }
    return obj;
  }

 private:
  std::span<const RankExample> examples_;
  const Theta prior_;
  const std::array<bool, kThetaSize> free_;
  const double n_;
  const double l2_;
  std::vector<double> scores_, p_;  // scratch
};

// Solves hess[idx][idx] * step = grad[idx] by Cholesky (the L2 term keeps
// the matrix positive definite); `a` is scratch of idx.size() squared.
// False when the matrix is not positive definite after all.
bool SolveNewtonStep(const Hessian& hess, const Theta& grad, const std::vector<size_t>& idx,
                     std::vector<double>* a_out, std::vector<double>* step_out) {
  std::vector<double>& a = *a_out;
  std::vector<double>& step = *step_out;
  const size_t f = idx.size();
  for (size_t r = 0; r < f; ++r)
    for (size_t c = 0; c < f; ++c) a[r * f + c] = hess[idx[r]][idx[c]];
  for (size_t c = 0; c < f; ++c) {
    double d = a[c * f + c];
    for (size_t k = 0; k < c; ++k) d -= a[c * f + k] * a[c * f + k];
    if (!(d > 0)) return false;
    a[c * f + c] = std::sqrt(d);
    for (size_t r = c + 1; r < f; ++r) {
      double v = a[r * f + c];
      for (size_t k = 0; k < c; ++k) v -= a[r * f + k] * a[c * f + k];
      a[r * f + c] = v / a[c * f + c];
    }
  }
  for (size_t r = 0; r < f; ++r) {
    double v = grad[idx[r]];
    for (size_t k = 0; k < r; ++k) v -= a[r * f + k] * step[k];
    step[r] = v / a[r * f + r];
  }
  for (size_t r = f; r-- > 0;) {
    double v = step[r];
    for (size_t k = r + 1; k < f; ++k) v -= a[k * f + r] * step[k];
    step[r] = v / a[r * f + r];
  }
  return true;
}

}  // namespace

RankModel FitRankModel(std::span<const RankExample> all_examples, const RankFitOptions& options) {
  std::vector<RankExample> pruned;
  std::span<const RankExample> examples = all_examples;
  if (options.top_k > 0) {
    pruned = Pruned(all_examples, options);
    examples = pruned;
  }
  RankModel m = options.prior;
  m.source = "fitted";
  m.pairs = 0;
  for (const RankExample& e : examples)
    if (std::find(e.fix.begin(), e.fix.end(), true) != e.fix.end()) ++m.pairs;
  if (examples.empty()) return m;
  // Newton's method on the objective (RankObjective): theta = (weights,
  // none). Each step is halved until the objective does not rise.
  const double l2 = std::max(options.l2, 1e-9);
  std::array<bool, kThetaSize> free{};
  std::vector<size_t> idx;  // the free parameters
  for (size_t k = 0; k < kThetaSize; ++k) {
    free[k] = !(k < kRankFeatures && options.freeze_time && IsTimeFeature(k));
    if (free[k]) idx.push_back(k);
  }
  RankObjective objective(examples, ThetaOf(options.prior), free, l2);
  Theta theta = ThetaOf(m);
  Theta grad{};
  Hessian hess{};
  const size_t f = idx.size();
  std::vector<double> a(f * f), step(f);
  for (int it = 0; it < options.iterations; ++it) {
    const double obj = objective.Evaluate(theta, &grad, &hess);
    if (!SolveNewtonStep(hess, grad, idx, &a, &step)) break;
    double t = 1, biggest = 0;
    Theta next = theta;
    for (; t > 1e-4; t /= 2) {
      next = theta;
      for (size_t r = 0; r < f; ++r) next[idx[r]] -= t * step[r];
      if (objective.Evaluate(next, nullptr, nullptr) <= obj) break;
    }
    if (t <= 1e-4) break;
    for (size_t r = 0; r < f; ++r) biggest = std::max(biggest, std::abs(t * step[r]));
    theta = next;
    if (biggest < 1e-7) break;
  }
  for (size_t k = 0; k < kRankFeatures; ++k) m.weights[k] = theta[k];
  m.none = theta[kRankFeatures];
  return m;
}

RankFitOptions NeutralFitOptions() {
  RankFitOptions o;
  o.prior = RankModel();
  o.l2 = 0.01;
  return o;
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
  std::stable_sort(s.order.begin(), s.order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  return s;
}

void Accumulate(const RankExample& e, const Scored& s, RankEval* out,
                std::vector<std::pair<double, bool>>* shown) {
  for (size_t r = 0; r < s.order.size() && r < 5; ++r)
    shown->push_back({s.p[s.order[r]], e.fix[s.order[r]]});
  if (!e.labelled) return;
  RankEval::Miss miss;
  miss.issue = e.issue;
  if (!s.order.empty()) {
    miss.top = e.prs[s.order[0]];
    miss.top_p = s.p[s.order[0]];
    miss.top_x = e.pool[s.order[0]];
  }
  for (size_t r = 0; r < s.order.size(); ++r) {
    if (!e.fix[s.order[r]]) continue;
    if (r == 0) out->p_at_1 += 1;
    if (r < 5) out->hit_at_5 += 1;
    out->mrr += 1.0 / static_cast<double>(r + 1);
    miss.fix_rank = static_cast<int>(r + 1);
    miss.fix_p = s.p[s.order[r]];
    miss.fix_x = e.pool[s.order[r]];
    break;
  }
  if (miss.fix_rank != 1) out->misses.push_back(std::move(miss));
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
  std::sort(out->misses.begin(), out->misses.end(),
            [](const RankEval::Miss& a, const RankEval::Miss& b) { return a.issue < b.issue; });
}

void CountExamples(std::span<const RankExample> examples, RankEval* out) {
  for (const RankExample& e : examples) {
    if (e.labelled)
      ++out->pairs;
    else
      ++out->distractors;
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

RankEval CrossValidate(std::span<const RankExample> examples, int folds,
                       const RankFitOptions& options, std::vector<RankModel>* fold_models) {
  RankEval out;
  out.folds = std::max(2, folds);
  std::vector<size_t> order(examples.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return examples[a].issue < examples[b].issue; });
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
    bins_json.push_back(
        {{"lo", b.lo}, {"hi", b.hi}, {"n", b.n}, {"mean_p", b.mean_p}, {"accuracy", b.accuracy}});
  nlohmann::json misses_json = nlohmann::json::array();
  auto features = [](const FeatureVector& x) {
    nlohmann::json f = nlohmann::json::object();
    for (size_t i = 0; i < kRankFeatures; ++i)
      if (x[i] != 0) f[kNames[i]] = x[i];
    return f;
  };
  for (const Miss& m : misses) {
    nlohmann::json mj = {{"issue", m.issue}, {"fix_rank", m.fix_rank},
                         {"top", m.top},     {"top_p", m.top_p},
                         {"fix_p", m.fix_p}, {"top_features", features(m.top_x)}};
    if (m.fix_rank) mj["fix_features"] = features(m.fix_x);
    misses_json.push_back(std::move(mj));
  }
  return {{"pairs", pairs},
          {"fix_in_pool", fix_in_pool},
          {"distractors", distractors},
          {"p_at_1", p_at_1},
          {"hit_at_5", hit_at_5},
          {"mrr", mrr},
          {"ece", ece},
          {"folds", folds},
          {"reliability", bins_json},
          {"misses", misses_json}};
}

}  // namespace fixgraph::graph
