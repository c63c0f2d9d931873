#include "fixgraph/graph/evaluate.h"

#include "fixgraph/graph/linker.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace fixgraph::graph {
namespace {

using nlohmann::json;

double Ratio(std::int64_t num, std::int64_t den) {
  return den == 0 ? 1.0 : static_cast<double>(num) / static_cast<double>(den);
}

double F1(double p, double r) { return p + r == 0 ? 0 : 2 * p * r / (p + r); }

Status ParseOne(const json& e, LabeledIssue* out) {
  if (!e.is_object()) return Status::Corruption("expected an object");
  if (!e.contains("issue") || !e["issue"].is_string())
    return Status::Corruption("missing \"issue\"");
  auto ref = ParseRef(e["issue"].get<std::string>());
  if (!ref.ok() || ref->kind != RefKind::kIssue)
    return Status::Corruption("\"issue\" is not an issue reference");
  out->issue = *ref;
  if (!e.contains("resolution") || !e["resolution"].is_string())
    return Status::Corruption("missing \"resolution\"");
  auto res = ParseResolution(e["resolution"].get<std::string>());
  if (!res.ok()) return Status::Corruption(res.status().message());
  out->resolution = *res;
  if (e.contains("fixes")) {
    if (!e["fixes"].is_array()) return Status::Corruption("\"fixes\" is not an array");
    for (const json& f : e["fixes"]) {
      if (!f.is_object() || !f.contains("pr") || !f["pr"].is_string())
        return Status::Corruption("a fix without \"pr\"");
      LabeledFix fix;
      fix.pr = CanonicalTarget(f["pr"].get<std::string>());
      if (f.contains("tier") && f["tier"].is_string()) {
        auto t = ParseTier(f["tier"].get<std::string>());
        if (!t.ok()) return Status::Corruption(t.status().message());
        fix.tier = *t;
      }
      if (f.contains("evidence") && f["evidence"].is_array())
        for (const json& k : f["evidence"])
          if (k.is_string()) fix.evidence.push_back(k.get<std::string>());
      out->fixes.push_back(std::move(fix));
    }
  }
  if (e.contains("flags")) {
    if (!e["flags"].is_array()) return Status::Corruption("\"flags\" is not an array");
    for (const json& f : e["flags"]) {
      if (!f.is_string()) return Status::Corruption("a flag is not a string");
      auto flag = ParseFlag(f.get<std::string>());
      if (!flag.ok()) return Status::Corruption(flag.status().message());
      out->flags.push_back(*flag);
    }
  }
  if (e.contains("duplicate_of") && e["duplicate_of"].is_string()) {
    auto d = ParseRef(e["duplicate_of"].get<std::string>());
    if (!d.ok()) return Status::Corruption("\"duplicate_of\": " + d.status().message());
    out->duplicate_of = *d;
  }
  return Status::OK();
}

}  // namespace

std::string CanonicalTarget(std::string_view pr_or_url) {
  auto ref = ParseRef(pr_or_url);
  if (ref.ok()) return ref->ToString();
  return std::string(pr_or_url);
}

StatusOr<std::vector<LabeledIssue>> ParseLabels(const json& doc) {
  if (!doc.is_object() || !doc.contains("issues") || !doc["issues"].is_array())
    return Status::Corruption("labels: expected {\"issues\": [...]}");
  std::vector<LabeledIssue> out;
  size_t i = 0;
  for (const json& e : doc["issues"]) {
    LabeledIssue li;
    Status s = ParseOne(e, &li);
    if (!s.ok()) return s.WithContext("labels: issues[" + std::to_string(i) + "]");
    out.push_back(std::move(li));
    ++i;
  }
  return out;
}

StatusOr<std::vector<LabeledIssue>> LoadLabels(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError(path + ": cannot open");
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded()) return Status::Corruption(path + ": not JSON");
  auto labels = ParseLabels(doc);
  if (!labels.ok()) return labels.status().WithContext(path);
  return labels;
}

EvalReport Evaluate(const std::vector<LabeledIssue>& labels,
                    const std::function<std::optional<IssueLinks>(const Ref&)>& predicted) {
  EvalReport r;
  for (const LabeledIssue& li : labels) {
    ++r.issues;
    Disagreement d;
    d.issue = li.issue;
    d.expected_resolution = ResolutionName(li.resolution);
    std::optional<IssueLinks> got = predicted(li.issue);
    std::map<std::string, const FixLink*> found;
    std::set<Flag> got_flags;
    if (got) {
      d.actual_resolution = ResolutionName(got->resolution);
      for (const FixLink& f : got->fixes) found[CanonicalTarget(f.pr)] = &f;
      got_flags.insert(got->flags.begin(), got->flags.end());
    } else {
      d.actual_resolution = "(not linked)";
      d.not_linked = true;
    }
    ++r.resolution_confusion[d.expected_resolution][d.actual_resolution];
    if (got && got->resolution == li.resolution) ++r.resolution_correct;

    std::set<std::string> expected;
    for (const LabeledFix& f : li.fixes) {
      expected.insert(f.pr);
      auto it = found.find(f.pr);
      if (it == found.end()) {
        ++r.link_fn;
        d.missing_fixes.push_back(f.pr);
        continue;
      }
      ++r.link_tp;
      if (f.tier) {
        ++r.tier_total;
        if (it->second->tier == *f.tier) {
          ++r.tier_correct;
        } else {
          d.tier_mismatches.push_back(f.pr + ": expected " + TierName(*f.tier) + ", got " +
                                      TierName(it->second->tier));
        }
      }
    }
    for (const auto& [pr, fix] : found) {
      if (fix->Trusted()) ++(expected.count(pr) ? r.trusted_tp : r.trusted_fp);
      if (expected.count(pr)) continue;
      ++r.link_fp;
      d.extra_fixes.push_back(pr + " (" + TierName(fix->tier) + ")");
    }
    std::set<Flag> want(li.flags.begin(), li.flags.end());
    for (Flag f : want) {
      if (got_flags.count(f)) {
        ++r.flag_tp;
      } else {
        ++r.flag_fn;
        d.missing_flags.emplace_back(FlagName(f));
      }
    }
    for (Flag f : got_flags) {
      if (want.count(f)) continue;
      ++r.flag_fp;
      d.extra_flags.emplace_back(FlagName(f));
    }
    bool differs = d.not_linked || d.expected_resolution != d.actual_resolution ||
                   !d.missing_fixes.empty() || !d.extra_fixes.empty() ||
                   !d.tier_mismatches.empty() || !d.missing_flags.empty() || !d.extra_flags.empty();
    if (differs) r.disagreements.push_back(std::move(d));
  }
  r.link_precision = Ratio(r.link_tp, r.link_tp + r.link_fp);
  r.link_recall = Ratio(r.link_tp, r.link_tp + r.link_fn);
  r.link_f1 = F1(r.link_precision, r.link_recall);
  r.trusted_precision = Ratio(r.trusted_tp, r.trusted_tp + r.trusted_fp);
  r.tier_accuracy = Ratio(r.tier_correct, r.tier_total);
  r.resolution_accuracy = Ratio(r.resolution_correct, r.issues);
  r.flag_precision = Ratio(r.flag_tp, r.flag_tp + r.flag_fp);
  r.flag_recall = Ratio(r.flag_tp, r.flag_tp + r.flag_fn);
  return r;
}

StatusOr<EvalReport> EvaluateStore(const Store& store, const std::vector<LabeledIssue>& labels) {
  Status error;
  EvalReport r = Evaluate(labels, [&](const Ref& issue) -> std::optional<IssueLinks> {
    auto l = ReadLinks(store, issue);
    if (l.ok()) return std::move(l).value();
    if (!l.status().IsNotFound() && error.ok()) error = l.status();
    return std::nullopt;
  });
  if (!error.ok()) return error;
  return r;
}

json ToJson(const EvalReport& r) {
  json dis = json::array();
  for (const Disagreement& d : r.disagreements) {
    dis.push_back({{"issue", d.issue.ToString()},
                   {"expected_resolution", d.expected_resolution},
                   {"actual_resolution", d.actual_resolution},
                   {"missing_fixes", d.missing_fixes},
                   {"extra_fixes", d.extra_fixes},
                   {"tier_mismatches", d.tier_mismatches},
                   {"missing_flags", d.missing_flags},
                   {"extra_flags", d.extra_flags},
                   {"not_linked", d.not_linked}});
  }
  return json{
      {"issues", r.issues},
      {"links",
       {{"tp", r.link_tp},
        {"fp", r.link_fp},
        {"fn", r.link_fn},
        {"precision", r.link_precision},
        {"recall", r.link_recall},
        {"f1", r.link_f1}}},
      {"trusted", {{"tp", r.trusted_tp}, {"fp", r.trusted_fp}, {"precision", r.trusted_precision}}},
      {"tiers",
       {{"correct", r.tier_correct}, {"total", r.tier_total}, {"accuracy", r.tier_accuracy}}},
      {"resolution",
       {{"correct", r.resolution_correct},
        {"total", r.issues},
        {"accuracy", r.resolution_accuracy},
        {"confusion", r.resolution_confusion}}},
      {"flags",
       {{"tp", r.flag_tp},
        {"fp", r.flag_fp},
        {"fn", r.flag_fn},
        {"precision", r.flag_precision},
        {"recall", r.flag_recall}}},
      {"disagreements", std::move(dis)}};
}

std::string FormatReport(const EvalReport& r) {
  std::ostringstream o;
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "issues %lld\nfix links: precision %.3f recall %.3f F1 %.3f (tp %lld fp %lld fn %lld)\n"
      "trusted (A-C) links: precision %.3f (tp %lld fp %lld)\n",
      static_cast<long long>(r.issues), r.link_precision, r.link_recall, r.link_f1,
      static_cast<long long>(r.link_tp), static_cast<long long>(r.link_fp),
      static_cast<long long>(r.link_fn), r.trusted_precision, static_cast<long long>(r.trusted_tp),
      static_cast<long long>(r.trusted_fp));
  o << buf;
  std::snprintf(buf, sizeof buf,
                "tiers: %.3f (%lld/%lld correctly found links)\nresolution: %.3f (%lld/%lld)\n"
                "flags: precision %.3f recall %.3f (tp %lld fp %lld fn %lld)\n",
                r.tier_accuracy, static_cast<long long>(r.tier_correct),
                static_cast<long long>(r.tier_total), r.resolution_accuracy,
                static_cast<long long>(r.resolution_correct), static_cast<long long>(r.issues),
                r.flag_precision, r.flag_recall, static_cast<long long>(r.flag_tp),
                static_cast<long long>(r.flag_fp), static_cast<long long>(r.flag_fn));
  o << buf;
  auto list = [&o](const char* what, const std::vector<std::string>& v) {
    if (v.empty()) return;
    o << "    " << what << ":";
    for (const std::string& s : v) o << " " << s;
    o << "\n";
  };
  for (const Disagreement& d : r.disagreements) {
    o << "  " << d.issue.ToString();
    if (d.expected_resolution != d.actual_resolution)
      o << "  resolution " << d.expected_resolution << " -> " << d.actual_resolution;
    o << "\n";
    list("missing fixes", d.missing_fixes);
    list("extra fixes", d.extra_fixes);
    list("tiers", d.tier_mismatches);
    list("missing flags", d.missing_flags);
    list("extra flags", d.extra_flags);
  }
  return o.str();
}

}  // namespace fixgraph::graph
