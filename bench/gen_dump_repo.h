// gen_dump_repo.h: writes a whole dump (WriteDump) and, inside it, one repository (RepoWriter):
// DIR/<platform>/<owner>/repo-<i>/ with repo.json, issues.json and pulls.json, newest first,
// and the per-item files, all in the platform's JSON shape (reference/api.md section 2), plus
// the answer key lines when a truth file is open.
//
// The writer is split by job: gen_dump_repo.cc the directory, repo.json, the order of writing
// and the answer key; gen_dump_issues.cc the issues and their comments; gen_dump_pulls.cc the
// PRs, their review comments, commits and files. Plans come from a Planner (gen_dump_plan.h),
// text from gen_dump_text.h; each item's text stream is keyed by its index, so an item's output
// does not depend on the items written before it.
#pragma once

#include "gen_dump_catalog.h"
#include "gen_dump_format.h"
#include "gen_dump_options.h"
#include "gen_dump_output.h"
#include "gen_dump_plan.h"
#include "gen_dump_text.h"
#include "gen_dump_vocab.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gen_dump {

// Writes options.repos repositories (replacing earlier dumps of them) and the answer key, if
// options.truth names one; returns what was written. Throws std::runtime_error on a file that
// cannot be written or a directory in the way that is not an earlier dump.
Stats WriteDump(const Options& options);

// One comment of an issue or PR: when, by whom, what kind, in which language.
struct CommentSpec {
  int64_t time;
  uint32_t user;
  CommentKind kind;
  bool zh;
};

class RepoWriter {
 public:
  RepoWriter(const Options& options, uint64_t repo_index, const Catalog& catalog, Stats& stats,
             TruthFile& truth);

  void Write();

 private:
  // --- identities (numbers from the planner; references, URLs and ids from them) ---------

  uint64_t Key(uint64_t tag, uint64_t item) const { return planner_.Key(tag, item); }
  const Timeline& timeline() const { return planner_.timeline(); }
  bool github() const { return o_.platform == Platform::kGitHub; }
  std::string Time(int64_t utc) const { return FormatTime(utc, o_.platform); }
  // Unset time: "" on GitCode, null elsewhere.
  Json UnsetTime() const { return o_.platform == Platform::kGitCode ? Json("") : Json(nullptr); }
  Json TimeOrUnset(int64_t utc) const { return utc != 0 ? Json(Time(utc)) : UnsetTime(); }
  std::string_view DefaultBranch() const { return github() ? "main" : "master"; }

  std::string IssueNumber(uint64_t i) const { return planner_.IssueNumber(i); }
  Json IssueNumberJson(const std::string& number) const {
    return github() ? Json(std::stoll(number)) : Json(number);
  }
  std::string IssueRef(const std::string& number) const { return "#" + number; }
  std::string IssueUrl(const std::string& number) const { return web_url_ + "/issues/" + number; }
  int64_t IssueId(uint64_t i) const {
    return kIssueIdBase + static_cast<int64_t>(repo_index_) * kIdsPerRepo + static_cast<int64_t>(i);
  }

  uint64_t PrNumber(uint64_t j) const { return planner_.PrNumber(j); }
  std::string PrRef(uint64_t number) const {
    return (github() ? "#" : "!") + IntString(static_cast<int64_t>(number));
  }
  std::string PrUrl(uint64_t number) const {
    std::string_view path = "/merge_requests/";
    if (o_.platform == Platform::kGitee) path = "/pulls/";
    if (github()) path = "/pull/";
    return web_url_ + std::string(path) + IntString(static_cast<int64_t>(number));
  }
  int64_t PrId(uint64_t j) const {
    return kPrIdBase + static_cast<int64_t>(repo_index_) * kIdsPerRepo + static_cast<int64_t>(j);
  }

  // --- directory and repo.json (gen_dump_repo.cc) ----------------------------------------

  void PrepareDirectory();
  void WriteRepoJson();

  // --- issues (gen_dump_issues.cc) --------------------------------------------------------

  void WriteIssues();
  // Its own stream, so that PRs restating the title can recompute it.
  std::string IssueTitle(const IssuePlan& p) const;
  void AppendEnvironment(std::string& out, const Sections& s, const Topic& t) const;
  void AppendReproduce(std::string& out, const Sections& s, bool zh, const TextCtx& ctx,
                       TextRng& rng) const;
  void AppendLog(std::string& out, const Sections& s, size_t target, const TextCtx& ctx,
                 TextRng& rng) const;
  void BuildIssueBody(const IssuePlan& p, TextRng& rng, std::string& out) const;
  bool OutcomeComment(const IssuePlan& p, TextRng& rng, CommentSpec& spec) const;
  bool FixedByComment(const IssuePlan& p, TextRng& rng, CommentSpec& spec) const;
  void PlanIssueComments(const IssuePlan& p, TextRng& rng);
  Json IssueJson(const IssuePlan& p, const std::string& title, TextRng& rng);
  std::string_view IssueState(const IssuePlan& p) const;
  Json IssueLabels(const IssuePlan& p) const;
  void WriteIssueComments(const IssuePlan& p, const std::string& title, TextRng& rng);

  // --- pull requests (gen_dump_pulls.cc) --------------------------------------------------

  struct PrText {
    std::string title, body, head, base;
  };

  void WritePulls();
  bool LeadIssue(const PrPlan& p, IssuePlan& issue) const;
  void AppendReference(std::string& out, Evidence evidence, const std::string& number, bool zh,
                       TextRng& rng) const;
  std::string ForeignIssueUrl(TextRng& rng) const;
  void AppendNoise(std::string& out, const PrPlan& p, bool zh, TextRng& rng) const;
  std::string BranchFor(const std::string& number, TextRng& rng) const;
  void ComposePr(const PrPlan& p, const IssuePlan* lead, TextRng& rng, PrText& text) const;
  void ComposePrTitle(const PrPlan& p, const IssuePlan* lead, bool zh, const std::string& base,
                      const TextCtx& ctx, TextRng& rng, std::string& title) const;
  void ComposePrBody(const PrPlan& p, bool zh, const std::string& refs, const TextCtx& ctx,
                     TextRng& rng, std::string& body) const;
  std::string CommitSha(uint64_t j, uint64_t k) const;
  Json PrJson(const PrPlan& p, const PrText& text, int64_t last_comment) const;
  std::string_view PrStateName(PrState state) const;
  int64_t WritePrComments(const PrPlan& p, const fs::path& dir, TextRng& rng);
  void WriteCommits(const PrPlan& p, const PrText& text, const fs::path& dir, TextRng& rng);
  void WriteFiles(const PrPlan& p, const IssuePlan* lead, const fs::path& dir, TextRng& rng);

  // --- answer key (gen_dump_repo.cc) ------------------------------------------------------

  std::string RepoRef() const;
  Json IssueTruth(const IssuePlan& p) const;
  Json PrTruth(const PrPlan& p) const;

  // --- state ------------------------------------------------------------------------------

  const Options& o_;
  const Catalog& catalog_;
  Stats& stats_;
  TruthFile& truth_;
  uint64_t repo_index_;
  std::string name_, full_name_, web_url_;
  fs::path dir_;
  Planner planner_;
  std::vector<CommentSpec> comments_;  // reused per issue
  std::string text_;                   // reused text buffer
};

}  // namespace gen_dump
