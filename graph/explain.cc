#include "fixgraph/graph/explain.h"

#include <algorithm>
#include <cstdio>

namespace fixgraph::graph {
namespace {

std::string When(UnixSeconds t) { return FormatWithOffset(t, DisplayOffsetMinutes()); }

// "!192" for a PR of the issue's repository, the reference (or URL) otherwise.
std::string Short(const IssueLinks& links, const std::string& pr_or_ref) {
  auto ref = ParseRef(pr_or_ref);
  if (!ref.ok() || ref->repo != links.issue.repo) return pr_or_ref;
  return (ref->kind == RefKind::kPull ? "!" : "#") + ref->number;
}

std::string Confidence(double c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", c);
  return buf;
}

const FixLink* Primary(const IssueLinks& links) {
  for (const FixLink& f : links.fixes)
    if (f.backport_of.empty() && f.merged_at) return &f;
  return nullptr;
}

std::string FlagReason(const IssueLinks& links, Flag flag) {
  const FixLink* primary = Primary(links);
  switch (flag) {
    case Flag::kFixBeforeIssue:
      for (const FixLink& f : links.fixes)
        if (links.created_at && f.created_at && *f.created_at < *links.created_at)
          return Short(links, f.pr) + " was opened " + When(*f.created_at) +
                 ", before the issue (" + When(*links.created_at) + ")";
      return "the fix predates the issue";
    case Flag::kCloseLag:
      if (primary && links.closed_at) {
        std::int64_t days = (*links.closed_at - *primary->merged_at) / 86400;
        return "closed " + std::to_string(days) +
               " days after the fix merged; the close time is not the fix time";
      }
      return "closed long after the fix merged";
    case Flag::kFalseLead: {
      std::string s = "referenced but never merged:";
      for (const std::string& p : links.false_leads) s.append(" ").append(Short(links, p));
      return s;
    }
    case Flag::kBackport:
      for (const FixLink& f : links.fixes)
        if (!f.backport_of.empty())
          return Short(links, f.pr) + " re-applies " + Short(links, f.backport_of) + " to " +
                 f.base_ref;
      return "the fix merged again into a release branch";
    case Flag::kCrossPlatform:
      for (const FixLink& f : links.fixes) {
        auto ref = ParseRef(f.pr);
        if (ref.ok() && ref->repo.platform != links.issue.repo.platform)
          return "the fix " + f.pr + " lives on " + PlatformName(ref->repo.platform);
      }
      return "the fix lives on another platform or a mirror host";
    case Flag::kTraceless:
      return "no change found in any repository; resolved outside (see the answer)";
  }
  return "";
}

}  // namespace

std::string ExplainFix(const IssueLinks& links, const FixLink& fix) {
  std::string s = Short(links, fix.pr) + " (tier " + TierName(fix.tier) + ", " +
                  Confidence(fix.confidence) + "): ";
  if (!fix.backport_of.empty())
    s += "backport of " + Short(links, fix.backport_of) + " to " + fix.base_ref + ", ";
  if (!fix.in_store) {
    s += "not in the store (state unknown)";
  } else if (fix.merged_at) {
    s += "merged " + When(*fix.merged_at);
    if (!fix.base_ref.empty() && fix.backport_of.empty()) s += " into " + fix.base_ref;
  } else {
    s += fix.state;
  }
  for (const Evidence& e : fix.evidence) {
    if (e.kind == EvidenceKind::kCloseAtMerge && e.delta_s) {
      std::int64_t d = *e.delta_s;
      s += d == 0  ? "; the issue closed in the same second"
           : d > 0 ? "; the issue closed " + std::to_string(d) + " s later"
                   : "; the issue closed " + std::to_string(-d) + " s before the merge";
      continue;
    }
    s += "; " + e.detail;
  }
  return s;
}

std::vector<std::string> ExplainLines(const IssueLinks& links) {
  std::vector<std::string> out;
  std::string head = std::string(ResolutionName(links.resolution));
  if (links.state == IssueState::kClosed && links.closed_at)
    head += ": closed " + When(*links.closed_at);
  else if (links.state == IssueState::kOpen)
    head += ": still open";
  if (links.created_at) head += " (filed " + When(*links.created_at) + ")";
  out.push_back(head);
  bool trusted = std::any_of(links.fixes.begin(), links.fixes.end(),
                             [](const FixLink& f) { return f.Trusted(); });
  bool likely = !links.suggested.empty() || !links.fixes.empty();
  if (!trusted && links.resolution != Resolution::kOpen)
    out.emplace_back(likely ? "no verified fixing change found" : "no fixing change found");
  for (const FixLink& f : links.fixes)
    if (f.Trusted()) out.push_back(ExplainFix(links, f));
  for (const FixLink* f : links.Likely())
    out.push_back("likely fix, not verified: " + ExplainFix(links, *f));
  for (const Evidence& e : links.evidence)
    out.push_back(std::string(EvidenceKindName(e.kind)) + ": " + e.detail);
  if (links.duplicate_of)
    out.push_back("duplicate of " + Short(links, links.duplicate_of->ToString()));
  for (Flag f : links.flags)
    out.push_back(std::string("flag ") + FlagName(f) + ": " + FlagReason(links, f));
  if (links.answer) {
    const Answer& a = *links.answer;
    std::string line = "answer (" + a.kind + ", comment " + a.comment_id + " by " + a.author;
    if (a.created_at) line += ", " + When(*a.created_at);
    out.push_back(line + "): " + a.text);
  }
  for (const std::string& n : links.notes) out.push_back("note: " + n);
  return out;
}

std::string Explain(const IssueLinks& links) {
  std::string s;
  for (const std::string& line : ExplainLines(links)) s += line + "\n";
  return s;
}

}  // namespace fixgraph::graph
