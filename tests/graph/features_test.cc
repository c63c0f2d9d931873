// Branch names, release branches and the window's shortcuts (graph/features.h,
// private: white-box).
#include "../../graph/features.h"

#include <gtest/gtest.h>

namespace fixgraph::graph {
namespace {

TEST(Features, BranchNamesIssue) {
  EXPECT_TRUE(BranchNamesIssue("issue-31-mhc-triton", "31"));
  EXPECT_TRUE(BranchNamesIssue("fix/31", "31"));
  EXPECT_TRUE(BranchNamesIssue("31-mhc", "31"));
  EXPECT_TRUE(BranchNamesIssue("bugfix_31", "31"));
  EXPECT_TRUE(BranchNamesIssue("issue31", "31"));
  EXPECT_TRUE(BranchNamesIssue("feat/I8XK2P-cache", "I8XK2P"));
  EXPECT_FALSE(BranchNamesIssue("v0.1.0_local_rank", "1"));  // a version, not an issue
  EXPECT_FALSE(BranchNamesIssue("cp_178_to_v2.17", "17"));
  EXPECT_FALSE(BranchNamesIssue("release-31", "31"));
  EXPECT_FALSE(BranchNamesIssue("main", "31"));
  EXPECT_FALSE(BranchNamesIssue("", "31"));
}

TEST(Features, ReleaseBranches) {
  EXPECT_TRUE(IsReleaseBranch("release/v2.17"));
  EXPECT_TRUE(IsReleaseBranch("r2.4.1"));
  EXPECT_TRUE(IsReleaseBranch("v0.1.0"));
  EXPECT_TRUE(IsReleaseBranch("branch-2.1"));
  EXPECT_TRUE(IsReleaseBranch("br_release_cann_8.0.RC3_20241230"));
  EXPECT_TRUE(IsReleaseBranch("release/20240501"));
  EXPECT_FALSE(IsReleaseBranch("fix-release-notes"));
  EXPECT_FALSE(IsReleaseBranch("main"));
  EXPECT_FALSE(IsReleaseBranch("master"));
  EXPECT_FALSE(IsReleaseBranch("develop"));
  EXPECT_FALSE(IsReleaseBranch("feat/x"));
}

// Versions a text names, the version of a release branch, and when two match.
TEST(Features, VersionsInTextAndBranches) {
  using V = std::vector<std::string>;
  EXPECT_EQ(VersionsIn("DeepSpeed v0.14.2 with torch 2.1.0, CANN 8.0.RC3 (also r2.4)"),
            (V{"0.14.2", "2.1.0", "8.0.rc3", "2.4"}));
  EXPECT_EQ(VersionsIn("python3.8 cuda11.8 sm_80 x1.5 a.2.3"),
            V{});  // inside words, or no leading number
  EXPECT_EQ(VersionsIn("version 2 and 2.5 and 2.5 again; 1.2."), (V{"2.5", "1.2"}));
  EXPECT_EQ(VersionsIn(""), V{});
  EXPECT_EQ(BranchVersion("release/v2.5.1"), "2.5.1");
  EXPECT_EQ(BranchVersion("r2.5"), "2.5");
  EXPECT_EQ(BranchVersion("br_release_cann_8.0.RC3_20241230"), "8.0.rc3");
  EXPECT_EQ(BranchVersion("v2.1.0-6.0.0"), "2.1.0");
  EXPECT_EQ(BranchVersion("stable"), "");
  EXPECT_EQ(BranchVersion("feat/port-2.5"), "");  // no release line
  EXPECT_TRUE(VersionsMatch("2.5", "2.5.1"));
  EXPECT_TRUE(VersionsMatch("2.5.1", "2.5"));
  EXPECT_TRUE(VersionsMatch("8.0.rc3", "8.0.rc3"));
  EXPECT_FALSE(VersionsMatch("2.5", "2.51"));
  EXPECT_FALSE(VersionsMatch("2", "2.5"));
  EXPECT_FALSE(VersionsMatch("2.4.1", "2.5"));
}

// The parts of a label a PR can share: the label and the words of its value.
TEST(Features, LabelKeysTakeTheValuesWords) {
  LabelKeys k = LabelKeysOf("SIG/Model-Compression");
  EXPECT_EQ(k.label, "sig/model-compression");
  EXPECT_EQ(k.words, (std::vector<std::string>{"model", "compression"}));
  EXPECT_EQ(LabelKeysOf("area: inference").words, std::vector<std::string>{"inference"});
  EXPECT_EQ(LabelKeysOf("kind/bug").words, std::vector<std::string>{"bug"});
  EXPECT_TRUE(LabelKeysOf("p0").words.empty());  // too short, digits break words
  EXPECT_EQ(LabelKeysOf("缺陷").label, "缺陷");  // kept whole for an exact PR label
  EXPECT_TRUE(LabelKeysOf("缺陷").words.empty());
}

TEST(Features, IssueNumberKeyAgreesWithBranchText) {
  for (const char* branch :
       {"issue-31-mhc-triton", "fix/31", "31-mhc", "bugfix_31", "issue31", "feat/I8XK2P-cache",
        "feat/i8xk2p", "v0.1.0_local_rank", "cp_178_to_v2.17", "release-31", "main", "",
        "hotfix-0031", "Issue_31"})
    for (const char* number : {"31", "1", "17", "I8XK2P", "i8xk2p", "0031", ""})
      EXPECT_EQ(BranchNamesIssue(BranchKeysOf(branch), IssueNumberKey::Of(number)),
                BranchNamesIssue(branch, number))
          << branch << " / " << number;
}

IssueContext ContextOf(const std::string& title, const std::string& body) {
  IssueContext c;
  c.normalized_title = text::StripTitleTags(title);
  c.title_tokens = text::Tokens(c.normalized_title);
  c.title_identifiers = text::Identifiers(c.normalized_title, false);
  c.title_subject_tokens = TitleSubjectTokens(c.title_identifiers);
  c.text_tokens = text::Tokens(c.normalized_title + "\n" + body);
  c.identifiers = text::Identifiers(title + "\n" + body);
  for (const std::string& id : c.identifiers) c.id_shapes.push_back(IdShape::Of(id));
  c.marks.Reserve(c.title_tokens.size() + c.text_tokens.size());
  c.marks.Add(c.title_tokens, IssueContext::kTitleMark);
  c.marks.Add(c.text_tokens, IssueContext::kTextMark);
  return c;
}

PullInfo PullOf(const std::string& title, const std::string& body, std::vector<std::string> files,
                std::set<std::string> patch_idents, const std::string& patch_text) {
  PullInfo p;
  p.normalized_title = text::StripTitleTags(title);
  p.title_tokens = text::Tokens(p.normalized_title);
  p.title_identifiers = text::Identifiers(p.normalized_title, false);
  p.text_tokens = text::Tokens(p.normalized_title + "\n" + body);
  p.files = std::move(files);
  for (const std::string& f : p.files)
    p.file_generic.push_back(text::IsGenericFileName(text::Basename(f)));
  p.patch_idents = std::move(patch_idents);
  for (std::string_view id : p.patch_idents) p.patch_ident_hashes.push_back(text::Hash(id));
  text::Normalize(&p.patch_ident_hashes);
  p.patch_tokens = text::Tokens(patch_text);
  p.files_loaded = true;
  return p;
}

// The fields of a text match that every shortcut must give exactly as the
// full comparison does (the caller checks the rest).
void ExpectSameVerdict(const TextMatch& got, const TextMatch& want) {
  EXPECT_EQ(got.strong, want.strong);
  EXPECT_EQ(got.moderate, want.moderate);
  EXPECT_EQ(got.described, want.described);
  EXPECT_EQ(got.title_dice, want.title_dice);
}

// A PR whose text holds most of the issue title's words restates it only
// when it also holds the subject the title names in code: an error template
// alone ("AttributeError: ... object has no attribute ...") does not.
TEST(Features, CoverageRestatementNeedsTheTitlesSubject) {
  IssueContext issue =
      ContextOf("AttributeError: 'Linear' object has no attribute 'ds_grads_remaining'", "");
  PullInfo other = PullOf(
      "Fix testcases that depend on triton",
      "E AttributeError: 'NoneType' object has no attribute 'skip_autotune' in the linear test", {},
      {}, "");
  PullInfo fix = PullOf(
      "Reset ds_grads_remaining on wrapped modules",
      "AttributeError: 'Linear' object has no attribute 'ds_grads_remaining' when PEFT wraps", {},
      {}, "");
  TextMatch a = CompareText(issue, other, nullptr);
  TextMatch b = CompareText(issue, fix, nullptr);
  EXPECT_GE(a.title_coverage, 0.6);
  EXPECT_FALSE(a.strong);
  EXPECT_TRUE(a.moderate);  // still a shared-words match, not a restatement
  EXPECT_TRUE(b.strong);
  // Without a subject in code (only the error class), coverage decides as before.
  IssueContext plain =
      ContextOf("AttributeError: object has no attribute when saving checkpoints", "");
  EXPECT_TRUE(CompareText(plain,
                          PullOf("Checkpoint fix",
                                 "AttributeError: object has no attribute when saving checkpoints",
                                 {}, {}, ""),
                          nullptr)
                  .strong);
}

// The window checks the titles' identifiers only for matches that set a
// flag: the flags must come out as the full comparison gives them.
TEST(Features, ConflictCheckedWhenFlaggedKeepsTheFlags) {
  std::vector<IssueContext> issues = {
      ContextOf("npu_rms_norm gives wrong results in fp16",
                "calling torch_npu.npu_rms_norm with fp16 inputs"),
      ContextOf("grouped_linear.py crashes with fused_adam",
                "transformer_engine/pytorch/module/grouped_linear.py"),
      ContextOf("Accuracy drops when training with fused_adam", "loss diverges after 100 steps")};
  std::vector<PullInfo> pulls = {
      PullOf("fix npu_rms_norm wrong results in fp16", "", {}, {}, ""),
      PullOf("fix npu_layer_norm wrong results in fp16", "", {}, {}, ""),
      PullOf("grouped_linear.py: fix crash with fused_adam", "", {}, {}, ""),
      PullOf("update README", "docs only", {}, {}, ""),
      PullOf("fix accuracy drop when training with fused_adam", "loss diverges", {}, {}, ""),
      PullOf("loss spikes in optimizer state", "loss diverges after 100 steps", {}, {}, "")};
  EXPECT_TRUE(CompareText(issues[2], pulls[5], nullptr).described);
  TokenWeights weights;
  weights.Count({text::Hash("fix"), text::Hash("fix"), text::Hash("with")});
  for (const IssueContext& issue : issues) {
    for (const PullInfo& pr : pulls) {
      for (const TokenWeights* w : {static_cast<const TokenWeights*>(nullptr),
                                    static_cast<const TokenWeights*>(&weights)}) {
        TextMatch full = CompareText(issue, pr, w);
        TextCounts counts;
        for (std::uint64_t t : pr.text_tokens) {
          std::uint8_t bits = issue.marks.Of(t);
          if (bits & IssueContext::kTitleMark) counts.title_covered += w ? w->Of(t) : 1.0;
          if (bits & IssueContext::kTextMark) ++counts.in_text;
        }
        TextMatch lazy = CompareText(issue, pr, w, counts, ConflictCheck::kWhenFlagged);
        // The PR-in-issue count left to CompareText (and the title weight given).
        TextCounts title_only{counts.title_covered, TextCounts::kUnknown,
                              IssueTitleWeight(issue, w)};
        for (ConflictCheck check : {ConflictCheck::kAlways, ConflictCheck::kWhenFlagged}) {
          TextMatch counted = CompareText(issue, pr, w, title_only, check);
          TextMatch given = CompareText(issue, pr, w, counts, check);
          ExpectSameVerdict(counted, given);
          EXPECT_EQ(counted.conflict, given.conflict);
          EXPECT_EQ(counted.title_coverage, given.title_coverage);
          if (counted.described) {
            EXPECT_EQ(counted.pr_in_issue, given.pr_in_issue);
          }
        }
        ExpectSameVerdict(lazy, full);
        EXPECT_EQ(lazy.containment, full.containment);
        if (lazy.conflict) {
          EXPECT_TRUE(full.conflict);
        }
      }
    }
  }
  // A conflict that clears flags is still reported.
  TextMatch m =
      CompareText(issues[0], pulls[1], nullptr, TextCounts{}, ConflictCheck::kWhenFlagged);
  EXPECT_TRUE(CompareText(issues[0], pulls[1], nullptr).conflict);
  EXPECT_FALSE(m.strong || m.moderate || m.described);
}

// IdentifierWeights and PatchReachesWeak give what MatchIdentifiersAmong and
// ScorePatch give, for several document frequencies.
TEST(Features, PatchReachesWeakAgreesWithScorePatch) {
  IssueContext issue =
      ContextOf("grouped_linear.py crashes with fused_adam and npu_rms_norm",
                "see transformer_engine/pytorch/module/grouped_linear.py and CheckValidation");
  ASSERT_FALSE(issue.identifiers.empty());
  std::vector<std::uint32_t> all;
  for (size_t i = 0; i < issue.identifiers.size(); ++i)
    all.push_back(static_cast<std::uint32_t>(i));
  std::vector<PullInfo> pulls = {
      PullOf("x", "", {"transformer_engine/pytorch/module/grouped_linear.py"}, {}, ""),
      PullOf("x", "", {"other/grouped_linear.py"}, {"fused_adam"}, ""),
      PullOf("x", "", {"docs/readme.md"}, {"checkvalidation"}, "grouped linear crashes fused adam"),
      PullOf("x", "", {"a/b.py"}, {}, "grouped_linear crashes with fused_adam npu_rms_norm"),
      PullOf("x", "", {"npu_rms_norm/kernel.cc", "setup.py"}, {"npu_rms_norm"}, "")};
  bool some_weak = false, some_not = false;
  for (const PullInfo& pr : pulls) {
    std::vector<IdWeight> weights;
    IdentifierWeights(issue, pr, all, &weights);
    std::vector<IdMatch> matches = MatchIdentifiersAmong(issue, pr, all);
    ASSERT_EQ(weights.size(), matches.size());
    for (size_t i = 0; i < weights.size(); ++i) {
      EXPECT_EQ(weights[i].id, matches[i].id);
      EXPECT_EQ(weights[i].weight, matches[i].weight);
    }
    for (int df : {0, 1, 2, 3, 7}) {
      std::vector<int> dfs(issue.identifiers.size(), df);
      bool weak = ScorePatch(issue, pr, matches, dfs).score >= kPatchWeak;
      EXPECT_EQ(PatchReachesWeak(issue, pr, weights, dfs), weak) << "df " << df;
      (weak ? some_weak : some_not) = true;
    }
  }
  EXPECT_TRUE(some_weak);
  EXPECT_TRUE(some_not);
}

// The tail keys only skip files that cannot match: the matches, weights and
// reasons are the same with and without them.
TEST(Features, TailKeysSkipOnlyFilesThatCannotMatch) {
  IssueContext issue = ContextOf(
      "fully_shard hook fails, see grouped_linear.py and npu_rms_norm",
      "torch_npu/csrc/npu_rms_norm.cpp, fully_shard/hook.py, torch_npu and CheckValidation");
  std::vector<std::uint32_t> all;
  for (size_t i = 0; i < issue.identifiers.size(); ++i)
    all.push_back(static_cast<std::uint32_t>(i));
  std::vector<PullInfo> pulls = {
      PullOf("x", "", {"torch/distributed/fully_shard/hook.py"}, {}, ""),
      PullOf("x", "", {"torch_npu/csrc/other.cpp", "torch_npu/utils.py"}, {"torch_npu"}, ""),
      PullOf("x", "", {"ops/npu_rms_norm.cpp", "docs/readme.md"}, {"checkvalidation"}, ""),
      PullOf("x", "", {"a/fully_shard/b/c.py", "fully_shard"}, {"npu_rms_norm"}, ""),
      PullOf("x", "", {"grouped_linear.py", "x/y/z.py"}, {}, "")};
  size_t matched = 0;
  for (PullInfo& pr : pulls) {
    std::vector<IdMatch> without = MatchIdentifiersAmong(issue, pr, all);
    pr.tail_keys = TailKeysOf(pr.files);
    pr.tail_keys_set = true;
    std::vector<IdMatch> with = MatchIdentifiersAmong(issue, pr, all);
    // The same weights through the PR's hash filters (as the window passes them).
    std::vector<IdWeight> unfiltered, filtered;
    IdentifierWeights(issue, pr, all, &unfiltered);
    IdentifierWeights(issue, pr, all, &filtered,
                      PullFilter{HashFilterOf(pr.patch_ident_hashes), HashFilterOf(pr.tail_keys)});
    ASSERT_EQ(filtered.size(), unfiltered.size());
    for (size_t i = 0; i < filtered.size(); ++i) {
      EXPECT_EQ(filtered[i].id, unfiltered[i].id);
      EXPECT_EQ(filtered[i].weight, unfiltered[i].weight);
    }
    // An empty filter says no identifier is in the patch or names a file by its tail.
    std::vector<IdWeight> none;
    IdentifierWeights(issue, pr, all, &none, PullFilter{0, 0});
    for (const IdWeight& w : none) EXPECT_TRUE(issue.id_shapes[w.id].path_like);
    ASSERT_EQ(with.size(), without.size());
    for (size_t i = 0; i < with.size(); ++i) {
      EXPECT_EQ(with[i].id, without[i].id);
      EXPECT_EQ(with[i].weight, without[i].weight);
      EXPECT_EQ(with[i].why, without[i].why);
    }
    matched += with.size();
  }
  EXPECT_GE(matched, 4u);
}

// The window's title walk by slots (TokenWeights::Add) and TextVerdictOf
// give what the full CompareText gives, on random titles and texts drawn
// from a small vocabulary (shared words, code identifiers that make titles
// conflict, CJK text), with and without repeated window titles.
TEST(Features, TextVerdictAgreesWithCompareText) {
  const std::vector<std::string> words = {
      "fix",
      "crash",
      "when",
      "loading",
      "model",
      "fp16",
      "wrong",
      "results",
      "npu_rms_norm",
      "npu_layer_norm",
      "grouped_linear.py",
      "fused_adam",
      "torch_npu.npu_rms_norm",
      "accuracy",
      "drop",
      "training",
      "loss",
      "diverges",
      "\xE7\xB2\xBE\xE5\xBA\xA6\xE4\xB8\x8D\xE4\xB8\x80\xE8\x87\xB4",
      "step",
      "update",
      "docs",
      "kernel",
      "shape",
      "mismatch",
      "CheckValidation",
      "of",
      "in"};
  std::uint64_t seed = 12345;
  auto next = [&](size_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<size_t>((seed >> 33) % n);
  };
  auto sentence = [&](size_t max_words) {
    std::string out;
    for (size_t i = 0, n = next(max_words + 1); i < n; ++i)
      out += (i ? " " : "") + words[next(words.size())];
    return out;
  };
  size_t flagged = 0, unflagged = 0, described_only = 0;
  for (int round = 0; round < 400; ++round) {
    IssueContext issue = ContextOf(sentence(8), sentence(40));
    std::vector<PullInfo> pulls;
    for (int i = 0; i < 12; ++i) {
      // Some PRs restate the issue title or copy its text.
      std::string title = next(4) == 0 ? issue.normalized_title + " " + sentence(2) : sentence(8);
      pulls.push_back(PullOf(title, next(3) == 0 ? sentence(60) : sentence(12), {}, {}, ""));
    }
    // The window: every PR's title counted, each token's slot kept.
    TokenWeights weights;
    size_t n = 0;
    for (const PullInfo& pr : pulls) n += pr.title_tokens.size();
    weights.Reset(n);
    std::vector<std::uint32_t> slots;
    std::vector<size_t> starts = {0};
    for (const PullInfo& pr : pulls) {
      weights.Add(pr.title_tokens, &slots);
      starts.push_back(slots.size());
    }
    TokenWeights counted;
    std::vector<std::uint64_t> all;
    for (const PullInfo& pr : pulls)
      all.insert(all.end(), pr.title_tokens.begin(), pr.title_tokens.end());
    counted.Count(all);
    for (size_t i = 0; i < pulls.size(); ++i) {
      const PullInfo& pr = pulls[i];
      TitleCounts title;
      for (size_t k = starts[i]; k < starts[i + 1]; ++k) {
        std::uint32_t s = slots[k];
        ASSERT_EQ(weights.TokenAt(s), pr.title_tokens[k - starts[i]]);
        double wt = weights.OfSlot(s);
        ASSERT_EQ(wt, counted.Of(weights.TokenAt(s)));
        std::uint8_t bits = issue.marks.Of(weights.TokenAt(s));
        title.pr_title += wt;
        if (bits & IssueContext::kTitleMark) title.shared += wt;
        if (bits & IssueContext::kTextMark) ++title.in_text;
      }
      double covered = 0;
      for (std::uint64_t t : pr.text_tokens)
        if (issue.marks.Of(t) & IssueContext::kTitleMark) covered += weights.Of(t);
      TextVerdict v = TextVerdictOf(issue, pr, pr.title_tokens.size(), pr.text_tokens, title,
                                    covered, IssueTitleWeight(issue, &weights));
      TokenBits bits(issue.text_tokens);
      for (std::uint64_t t : issue.text_tokens) ASSERT_TRUE(bits.MayHave(t));
      TextVerdict filtered = TextVerdictOf(issue, pr, pr.title_tokens.size(), pr.text_tokens, title,
                                           covered, IssueTitleWeight(issue, &weights), &bits);
      EXPECT_EQ(filtered.flagged, v.flagged);
      TextMatch full = CompareText(issue, pr, &weights);
      EXPECT_EQ(v.flagged, full.strong || full.moderate || full.described) << round << "/" << i;
      EXPECT_EQ(v.title_dice, full.title_dice);
      EXPECT_EQ(v.containment, full.containment);
      (v.flagged ? flagged : unflagged)++;
      if (full.described && !full.moderate) ++described_only;
    }
  }
  // The draw exercises every outcome.
  EXPECT_GT(flagged, 100u);
  EXPECT_GT(unflagged, 100u);
  EXPECT_GT(described_only, 5u);
}

// The window's slot marks set from the issue's side (TokenWeights::SlotOf of
// the issue's tokens) equal the issue's marks of every window title token,
// and a title sharing no word with the issue title gets the same verdict
// whatever positive weight stands for its own (the window skips summing it).
TEST(Features, WindowSlotMarksAndUnsummedTitlesAgreeWithTheFullWalk) {
  const std::vector<std::string> words = {
      "fix",      "crash", "when",     "loading",      "model",
      "fp16",     "wrong", "results",  "npu_rms_norm", "grouped_linear.py",
      "accuracy", "drop",  "training", "loss",         "step",
      "update",   "docs",  "kernel",   "shape",        "of",
      "in",       "a"};
  std::uint64_t seed = 777;
  auto next = [&](size_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<size_t>((seed >> 33) % n);
  };
  auto sentence = [&](size_t max_words) {
    std::string out;
    for (size_t i = 0, n = next(max_words + 1); i < n; ++i)
      out += (i ? " " : "") + words[next(words.size())];
    return out;
  };
  size_t unshared = 0, unshared_flagged = 0;
  for (int round = 0; round < 300; ++round) {
    IssueContext issue = ContextOf(sentence(6), sentence(30));
    std::vector<PullInfo> pulls;
    for (int i = 0; i < 10; ++i) pulls.push_back(PullOf(sentence(8), sentence(20), {}, {}, ""));
    TokenWeights weights;
    size_t n = 0;
    for (const PullInfo& pr : pulls) n += pr.title_tokens.size();
    weights.Reset(n);
    std::vector<std::uint32_t> slots;
    std::vector<size_t> starts = {0};
    for (const PullInfo& pr : pulls) {
      weights.Add(pr.title_tokens, &slots);
      starts.push_back(slots.size());
    }
    std::vector<std::uint8_t> marks(weights.Slots(), 0);
    for (std::uint64_t t : issue.title_tokens)
      if (std::int64_t s = weights.SlotOf(t); s >= 0)
        marks[static_cast<size_t>(s)] |= IssueContext::kTitleMark;
    for (std::uint64_t t : issue.text_tokens)
      if (std::int64_t s = weights.SlotOf(t); s >= 0)
        marks[static_cast<size_t>(s)] |= IssueContext::kTextMark;
    for (std::uint32_t s : slots) ASSERT_EQ(marks[s], issue.marks.Of(weights.TokenAt(s)));
    EXPECT_EQ(weights.SlotOf(0x1234567ull), -1);
    const double it = IssueTitleWeight(issue, &weights);
    for (size_t i = 0; i < pulls.size(); ++i) {
      const PullInfo& pr = pulls[i];
      TitleCounts title;
      for (size_t k = starts[i]; k < starts[i + 1]; ++k) {
        double wt = weights.OfSlot(slots[k]);
        title.pr_title += wt;
        if (marks[slots[k]] & IssueContext::kTitleMark) title.shared += wt;
        if (marks[slots[k]] & IssueContext::kTextMark) ++title.in_text;
      }
      double covered = 0;
      for (std::uint64_t t : pr.text_tokens)
        if (issue.marks.Of(t) & IssueContext::kTitleMark) covered += weights.Of(t);
      TextVerdict full =
          TextVerdictOf(issue, pr, pr.title_tokens.size(), pr.text_tokens, title, covered, it);
      if (title.shared != 0) continue;
      ++unshared;
      unshared_flagged += full.flagged;
      TitleCounts stand_in = title;
      stand_in.pr_title = static_cast<double>(pr.title_tokens.size());
      TextVerdict skipped =
          TextVerdictOf(issue, pr, pr.title_tokens.size(), pr.text_tokens, stand_in, covered, it);
      EXPECT_EQ(skipped.flagged, full.flagged);
      EXPECT_EQ(skipped.title_dice, full.title_dice);
      EXPECT_EQ(skipped.containment, full.containment);
    }
  }
  EXPECT_GT(unshared, 200u);
  EXPECT_GT(unshared_flagged, 5u);  // flagged by coverage or `described` alone
}

}  // namespace
}  // namespace fixgraph::graph
