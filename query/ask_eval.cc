// eval-ask: how well `ask` finds the issues a query set expects (ask.h,
// EvaluateAsk): Recall@1, Recall@5, MRR, by kind, latency and where a noise
// floor would cut.
#include "fixgraph/engine/utf8.h"
#include "fixgraph/query/ask.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <numeric>
#include <set>

namespace fixgraph::query {
namespace {

using nlohmann::json;

// CPU time of the calling thread (what a query costs, whatever else runs).
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// How many of `scores` fall below each candidate floor (0.05 .. 0.50):
// what a floor would drop.
json ScoreCounts(const std::vector<double>& scores) {
  json out = json::object();
  for (int f = 5; f <= 50; f += 5) {
    size_t below = 0;
    for (double s : scores) below += s < f / 100.0 ? 1 : 0;
    char key[8];
    std::snprintf(key, sizeof key, "%.2f", f / 100.0);
    out[key] = below;
  }
  return out;
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1,
                         static_cast<size_t>(p * static_cast<double>(sorted.size())))];
}

}  // namespace

StatusOr<json> EvaluateAsk(Searcher& searcher, const json& set, const AskOptions& options) {
  if (!set.is_array())
    return Status::InvalidArgument(R"(expected a JSON array of {"q", "expect"})");
  // The score of each expected hit found, and of each other hit listed:
  // where a noise floor would cut (docs/evaluation.md, "Noise floor").
  std::vector<double> expected_scores, other_scores;
  size_t n = 0, r1 = 0, r5 = 0;
  double mrr = 0;
  std::vector<double> ms, cpu_ms;
  json rows = json::array();
  std::map<std::string, std::array<double, 3>> by_kind;  // count, r5, rr
  for (size_t i = 0; i < set.size(); ++i) {
    const json& item = set[i];
    if (!item.is_object() || !item.contains("q") || !item["q"].is_string() ||
        !item.contains("expect") || !item["expect"].is_array())
      return Status::InvalidArgument("entry " + std::to_string(i) +
                                     R"( needs "q" (string) and "expect" (array))");
    auto kind_field = item.find("kind");  // optional: a string, or null for none
    if (kind_field != item.end() && !kind_field->is_null() && !kind_field->is_string())
      return Status::InvalidArgument("entry " + std::to_string(i) +
                                     R"(: "kind" must be a string, got )" +
                                     kind_field->type_name());
    std::string q = item["q"];
    std::set<std::string> expect;
    for (const json& e : item["expect"])
      if (e.is_string()) expect.insert(e.get<std::string>());
    auto t0 = std::chrono::steady_clock::now();
    double c0 = ThreadCpuMs();
    auto result = searcher.Ask(q, options);
    cpu_ms.push_back(ThreadCpuMs() - c0);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    size_t rank = 0;
    double score = 0;
    std::vector<std::string> got;
    if (result.ok()) {
      for (size_t k = 0; k < result->hits.size(); ++k) {
        got.push_back(result->hits[k].issue.ToString());
        const bool expected = expect.count(got.back()) > 0;
        (expected ? expected_scores : other_scores).push_back(result->hits[k].score);
        if (rank == 0 && expected) {
          rank = k + 1;
          score = result->hits[k].score;
        }
      }
    }
    ++n;
    if (rank == 1) ++r1;
    if (rank >= 1 && rank <= 5) ++r5;
    double rr = rank > 0 ? 1.0 / static_cast<double>(rank) : 0.0;
    mrr += rr;
    std::string kind =
        kind_field != item.end() && kind_field->is_string() ? kind_field->get<std::string>() : "";
    auto& k = by_kind[kind];
    k[0] += 1;
    k[1] += (rank >= 1 && rank <= 5) ? 1 : 0;
    k[2] += rr;
    rows.push_back(
        {{"q", std::string(Utf8Prefix(q, 120))},
         {"kind", kind},
         {"expect", item["expect"]},
         {"rank", rank},
         {"score", score},
         {"ms", ms.back()},
         {"top", got.size() > 3 ? std::vector<std::string>(got.begin(), got.begin() + 3) : got}});
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu_ms.begin(), cpu_ms.end());
  double dn = n == 0 ? 1.0 : static_cast<double>(n);
  json kinds = json::object();
  for (const auto& [kind, v] : by_kind)
    kinds[kind.empty() ? "other" : kind] = {
        {"queries", v[0]}, {"recall_at_5", v[1] / v[0]}, {"mrr", v[2] / v[0]}};
  return json{
      {"queries", n},
      {"recall_at_1", static_cast<double>(r1) / dn},
      {"recall_at_5", static_cast<double>(r5) / dn},
      {"mrr", mrr / dn},
      {"latency_ms_p50", Percentile(ms, 0.5)},
      {"latency_ms_p99", Percentile(ms, 0.99)},
      {"cpu_ms_p50", Percentile(cpu_ms, 0.5)},
      {"cpu_ms_p99", Percentile(cpu_ms, 0.99)},
      {"cpu_ms_mean", cpu_ms.empty() ? 0.0
                                     : std::accumulate(cpu_ms.begin(), cpu_ms.end(), 0.0) /
                                           static_cast<double>(cpu_ms.size())},
      {"by_kind", kinds},
      {"min_score", options.min_score},
      {"expected_score_min",
       expected_scores.empty() ? 0.0
                               : *std::min_element(expected_scores.begin(), expected_scores.end())},
      {"other_scores_below", ScoreCounts(other_scores)},
      {"results", rows}};
}

}  // namespace fixgraph::query
