// Evaluating the linker against a labelled dev set (tests/data/demo-labels.json):
//
//   {"version": 1, "issues": [{"issue": REF, "resolution": "fixed",
//     "fixes": [{"pr": REF or URL, "tier": "A", "evidence": ["close_at_merge", ...]}],
//     "flags": ["close_lag"], "duplicate_of": REF (optional), ...more fields ignored}]}
//
// Measures:
//   - fix links as (issue, PR) pairs: precision, recall, F1 (PRs compared by
//     canonical reference, so a URL and its reference are the same PR);
//   - tier accuracy over the correctly found links;
//   - resolution accuracy, with a confusion table;
//   - flags as (issue, flag) pairs: precision and recall;
//   - per issue, what disagrees.
// A ratio with an empty denominator is 1 (nothing to get wrong).
//
// Thread safety: pure functions, except EvaluateStore which reads the store.
#pragma once

#include "fixgraph/engine/store.h"
#include "fixgraph/graph/links.h"

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fixgraph::graph {

struct LabeledFix {
  std::string pr;  // canonical reference, or the URL when it names no PR
  std::optional<Tier> tier;
  std::vector<std::string> evidence;
};

struct LabeledIssue {
  Ref issue;
  Resolution resolution = Resolution::kUnknown;
  std::vector<LabeledFix> fixes;
  std::vector<Flag> flags;
  std::optional<Ref> duplicate_of;
};

// Corruption naming the entry for a malformed label.
StatusOr<std::vector<LabeledIssue>> ParseLabels(const nlohmann::json& doc);
StatusOr<std::vector<LabeledIssue>> LoadLabels(const std::string& path);

// "gitcode:O/R!12" for a PR reference or URL; the text unchanged otherwise.
std::string CanonicalTarget(std::string_view pr_or_url);

struct Disagreement {
  Ref issue;
  std::string expected_resolution;
  std::string actual_resolution;
  std::vector<std::string> missing_fixes;    // labelled, not found
  std::vector<std::string> extra_fixes;      // found, not labelled
  std::vector<std::string> tier_mismatches;  // "gitcode:O/R!12: expected B, got C"
  std::vector<std::string> missing_flags;
  std::vector<std::string> extra_flags;
  bool not_linked = false;  // no prediction for this issue
};

struct EvalReport {
  std::int64_t issues = 0;
  std::int64_t link_tp = 0, link_fp = 0, link_fn = 0;
  double link_precision = 1, link_recall = 1, link_f1 = 1;
  // The trusted links alone (tiers A-C, the JSON view's "fixes"): how many
  // are labelled fixes of their issue (any labelled tier).
  std::int64_t trusted_tp = 0, trusted_fp = 0;
  double trusted_precision = 1;
  std::int64_t tier_correct = 0, tier_total = 0;
  double tier_accuracy = 1;
  std::int64_t resolution_correct = 0;
  double resolution_accuracy = 1;
  std::int64_t flag_tp = 0, flag_fp = 0, flag_fn = 0;
  double flag_precision = 1, flag_recall = 1;
  // expected resolution -> predicted resolution -> count
  std::map<std::string, std::map<std::string, std::int64_t>> resolution_confusion;
  std::vector<Disagreement> disagreements;  // issues with any difference, in label order
};

// `predicted` returns the linker's result for an issue, or nullopt when it
// has none (every labelled fix then counts as missed).
EvalReport Evaluate(const std::vector<LabeledIssue>& labels,
                    const std::function<std::optional<IssueLinks>(const Ref&)>& predicted);

// Evaluate against the links stored in `store` (ReadLinks).
StatusOr<EvalReport> EvaluateStore(const Store& store, const std::vector<LabeledIssue>& labels);

nlohmann::json ToJson(const EvalReport& r);
// A short human-readable summary followed by the disagreements.
std::string FormatReport(const EvalReport& r);

}  // namespace fixgraph::graph
