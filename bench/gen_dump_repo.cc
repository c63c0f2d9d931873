// gen_dump_repo.cc: a dump and one repository's frame: the directory, repo.json, the order in
// which issues and PRs are written, and the answer key (contract in gen_dump_repo.h).

#include "gen_dump_repo.h"

#include <iterator>
#include <stdexcept>

namespace gen_dump {
namespace {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOpen:
      return "open";
    case Outcome::kFixed:
      return "fixed";
    case Outcome::kAnswered:
      return "answered";
    case Outcome::kDuplicate:
      return "duplicate";
    case Outcome::kStale:
      return "stale";
    case Outcome::kWontfix:
      return "wontfix";
    case Outcome::kVerified:
      return "verified";
  }
  return "";
}

std::string_view CloseModeName(CloseMode mode) {
  switch (mode) {
    case CloseMode::kAtMerge:
      return "at_merge";
    case CloseMode::kSecondsAfter:
      return "seconds_after";
    case CloseMode::kWeeksAfter:
      return "weeks_after";
    case CloseMode::kFixedBeforeFiled:
      return "fixed_before_filed";
  }
  return "";
}

std::string_view PrKindName(PrKind kind) {
  switch (kind) {
    case PrKind::kFix:
      return "fix";
    case PrKind::kBackport:
      return "backport";
    case PrKind::kFalseLead:
      return "false_lead";
    case PrKind::kOther:
      return "other";
  }
  return "";
}

}  // namespace

Stats WriteDump(const Options& options) {
  const Catalog catalog = BuildCatalog(options.platform);
  Stats stats;
  TruthFile truth(options.truth);
  for (uint64_t r = 0; r < options.repos; ++r) {
    RepoWriter(options, r, catalog, stats, truth).Write();
  }
  truth.Finish();
  return stats;
}

RepoWriter::RepoWriter(const Options& options, uint64_t repo_index, const Catalog& catalog,
                       Stats& stats, TruthFile& truth)
    : o_(options),
      catalog_(catalog),
      stats_(stats),
      truth_(truth),
      repo_index_(repo_index),
      name_("repo-" + IntString(static_cast<int64_t>(repo_index + 1))),
      full_name_(o_.owner + "/" + name_),
      web_url_(std::string(WebRoot(o_.platform)) + full_name_),
      dir_(o_.out / std::string(PlatformName(o_.platform)) / o_.owner / name_),
      planner_(options, repo_index) {}

void RepoWriter::Write() {
  PrepareDirectory();
  WriteRepoJson();
  WriteIssues();
  WritePulls();
  ++stats_.repos;
}

void RepoWriter::PrepareDirectory() {
  if (fs::exists(dir_)) {
    const bool earlier_dump =
        fs::is_empty(dir_) || fs::exists(dir_ / "issues.json") || fs::exists(dir_ / "repo.json");
    if (!earlier_dump) {
      throw std::runtime_error(dir_.string() + " exists and is not a dump; not replacing it");
    }
    fs::remove_all(dir_);
  }
  fs::create_directories(dir_ / "issues");
  fs::create_directories(dir_ / "pulls");
}

void RepoWriter::WriteRepoJson() {
  Json repo;
  repo["id"] = kRepoIdBase + static_cast<int64_t>(repo_index_);
  if (github()) {
    repo["name"] = name_;
    repo["full_name"] = full_name_;
    repo["owner"] = {{"login", o_.owner}, {"id", 70'000'000}};
  } else {
    repo["full_name"] = full_name_;
    repo["human_name"] = o_.owner + " / " + name_;
    repo["path"] = name_;
    repo["name"] = name_;
    repo["namespace"] = {{"path", o_.owner}};
  }
  repo["html_url"] = web_url_;
  repo["default_branch"] = DefaultBranch();
  repo["description"] = kRepoDescriptions[repo_index_ % std::size(kRepoDescriptions)];
  repo["created_at"] = Time(kTimelineStart - 30 * kDay);
  repo["updated_at"] = Time(kSnapshot - kHour);
  WriteJsonFile(dir_ / "repo.json", repo, stats_);
}

std::string RepoWriter::RepoRef() const {
  return std::string(PlatformName(o_.platform)) + ":" + full_name_;
}

// outcome is what holds at the snapshot; fix_pr is set for fixed issues and for open
// issues whose fix is still under review.
Json RepoWriter::IssueTruth(const IssuePlan& p) const {
  Json j;
  j["repo"] = RepoRef();
  j["issue"] = p.number;
  j["outcome"] = OutcomeName(p.outcome);
  if (p.fate.fix_pr != kNone) {
    j["fix_pr"] = PrNumber(p.fate.fix_pr);
    j["close_mode"] = CloseModeName(p.fate.close_mode);
  }
  if (p.outcome == Outcome::kDuplicate) j["duplicate_of"] = IssueNumber(p.duplicate_of);
  return j;
}

Json RepoWriter::PrTruth(const PrPlan& p) const {
  Json j;
  j["repo"] = RepoRef();
  j["pr"] = p.number;
  j["kind"] = PrKindName(p.kind);
  j["state"] = p.state == PrState::kMerged ? "merged"
               : p.state == PrState::kOpen ? "open"
                                           : "closed";
  Json fixes = Json::array();
  for (const uint64_t i : p.fixes) fixes.push_back(IssueNumber(i));
  j["fixes"] = std::move(fixes);
  if (p.kind == PrKind::kBackport) {
    Json backports = Json::array();
    for (const uint64_t i : p.backports) backports.push_back(IssueNumber(i));
    j["backport_of"] = PrNumber(p.backport_of);
    j["backports"] = std::move(backports);
  }
  if (p.kind == PrKind::kFalseLead) j["claims"] = IssueNumber(p.false_lead);
  return j;
}

}  // namespace gen_dump
