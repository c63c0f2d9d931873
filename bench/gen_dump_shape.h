// gen_dump_shape.h: the shape of fixgraph_gen_dump's workload (gen_dump.cc has the overview):
// the time line, id blocks, size limits, text lengths, users, random stream purposes, and the
// odds of each outcome and piece of evidence. Constants only; changing one changes every dump.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

namespace gen_dump {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;  // keeps the field order the APIs use
using std::int64_t;
using std::size_t;
using std::uint32_t;
using std::uint64_t;
// A table of text pieces (gen_dump_vocab.h) to draw from.
using Pool = std::span<const std::string_view>;

// ---------------------------------------------------------------------------------------
// Constants

constexpr int64_t kMinute = 60;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;
constexpr int64_t kChinaUtcOffset = 8 * kHour;

// Items are spread over two years that end at the snapshot, the moment the dump was
// "recorded" (2026-04-01T00:00:00+08:00). Anything due later has not happened yet.
constexpr int64_t kTimelineStart =
    static_cast<int64_t>(
        std::chrono::sys_days{std::chrono::year{2024} / 4 / 1}.time_since_epoch().count()) *
        kDay -
    kChinaUtcOffset;
constexpr int64_t kTimelineSpan = 730 * kDay;
constexpr int64_t kSnapshot = kTimelineStart + kTimelineSpan;

// Limits that keep ids unique and creation times distinct.
constexpr uint64_t kMaxRepos = 500;
constexpr uint64_t kMaxItemsPerRepo = 5'000'000;
constexpr double kMaxAverageComments = 50.0;

// Ids: one block of kMaxItemsPerRepo per repository; comment id = item id * 64 + k.
constexpr int64_t kRepoIdBase = 9'000'000;
constexpr int64_t kIssueIdBase = 1'000'000'000;
constexpr int64_t kPrIdBase = 5'000'000'000;
constexpr int64_t kIdsPerRepo = static_cast<int64_t>(kMaxItemsPerRepo);
constexpr int64_t kCommentIdsPerItem = 64;
constexpr uint32_t kMaxComments = 60;  // < kCommentIdsPerItem
// Commit SHA keys per PR: 0 the merge commit, 1-2 earlier commits, 3 the head.
constexpr uint64_t kCommitKeysPerPr = 4;
constexpr uint64_t kMergeCommitKey = 0;
constexpr uint64_t kHeadCommitKey = 3;

// Text lengths in code points. Text grows a whole piece at a time until it reaches a
// target, and targets stay kLongestPiece below the maximum.
constexpr size_t kTitleMin = 20;
constexpr size_t kTitleMax = 80;
constexpr size_t kBodyMin = 200;
constexpr size_t kBodyMax = 2000;
constexpr size_t kCommentMin = 50;
constexpr size_t kCommentMax = 600;
constexpr size_t kLongestPiece = 400;
constexpr size_t kMaxTraceLines = 24;

// Users: kHumanUsers people (the first kMaintainers of them maintain every repo), then a bot.
constexpr uint32_t kHumanUsers = 240;
constexpr uint32_t kMaintainers = 16;
constexpr uint32_t kBotUser = kHumanUsers;

// Gitee issue numbers ("I4CD5P"): base 36, increasing with the index, unique per repo.
constexpr uint64_t kGiteeNumberBase = 4ULL * 36 * 36 * 36 * 36;
constexpr uint64_t kGiteeRepoShift = 36ULL * 36 * 7;
constexpr uint64_t kGiteeStride = 37;

// Random stream purposes.
enum StreamTag : uint64_t {
  kTagSlotJitter = 1,
  kTagIssueFate,
  kTagIssuePlan,
  kTagIssueTitle,
  kTagIssueText,
  kTagPrTiming,
  kTagPrPlan,
  kTagPrText,
  kTagCommitSha,
  kTagFileSha,
  kTagDiscussion,
  kTagUser,
};

// ---------------------------------------------------------------------------------------
// Workload shape

enum class Outcome { kOpen, kFixed, kAnswered, kDuplicate, kStale, kWontfix, kVerified };
// Percent of all issues, in Outcome order; closed ones are fixed about 47/78 = 60% of
// the time.
constexpr std::array<uint32_t, 7> kOutcomeWeights = {22, 47, 14, 5, 6, 3, 3};

// How a fixed issue closes relative to its fix's merge, in CloseMode order.
enum class CloseMode { kAtMerge, kSecondsAfter, kWeeksAfter, kFixedBeforeFiled };
constexpr std::array<uint32_t, 4> kCloseModeWeights = {72, 12, 12, 4};

struct SpanBucket {
  uint32_t weight;
  int64_t lo;
  int64_t hi;
};
// Issue filed -> fixing PR opened.
constexpr std::array<SpanBucket, 3> kFixLag = {
    {{35, 1 * kHour, 1 * kDay}, {40, 1 * kDay, 7 * kDay}, {25, 7 * kDay, 45 * kDay}}};
// PR opened -> merged or closed.
constexpr std::array<SpanBucket, 5> kPrDuration = {{{15, 10 * kMinute, 1 * kHour},
                                                    {25, 1 * kHour, 6 * kHour},
                                                    {25, 6 * kHour, 1 * kDay},
                                                    {20, 1 * kDay, 4 * kDay},
                                                    {15, 4 * kDay, 14 * kDay}}};
// Issue filed -> closed, for outcomes without a PR.
constexpr std::array<SpanBucket, 3> kCloseWithoutPr = {
    {{40, 1 * kHour, 2 * kDay}, {40, 2 * kDay, 20 * kDay}, {20, 20 * kDay, 90 * kDay}}};
constexpr int64_t kSecondsAfterMax = 5;
constexpr int64_t kWeeksAfterMin = 7 * kDay;
constexpr int64_t kWeeksAfterMax = 40 * kDay;
constexpr int64_t kFiledAfterFixMax = 30 * kMinute;

// A fix PR is at most kMaxLagSlots slots after its issue (slot = one item of the time
// line), or, when the fix came first, up to kMaxLeadPrs PRs before it.
constexpr uint64_t kMaxLagSlots = 192;
constexpr uint64_t kMaxLeadPrs = 3;

// A bot closes inactive issues in sweeps: everything idle for kStaleAfter closes at the
// next sweep, all in the same second.
constexpr int64_t kStaleAfter = 90 * kDay;
constexpr int64_t kStaleSweepPeriod = 30 * kDay;
constexpr int64_t kStaleSweepOffset = 3 * kHour + 17 * kMinute;

enum class PrState { kOpen, kClosed, kMerged };
enum class PrKind { kFix, kBackport, kFalseLead, kOther };
// States of PRs that fix nothing, in PrState order.
constexpr std::array<uint32_t, 3> kOtherPrStateWeights = {25, 20, 55};
constexpr uint32_t kBackportPercent = 10;
// A backport cherry-picks the fix that was open this long before it (when merged by then).
constexpr int64_t kBackportLagMin = 1 * kDay;
constexpr int64_t kBackportLagMax = 10 * kDay;
constexpr uint32_t kFalseLeadPercent = 40;
constexpr uint64_t kFalseLeadReach = 30;
constexpr uint64_t kDuplicateReach = 200;

enum class Evidence { kKeyword, kRef, kUrl, kKeywordUrl, kBranch, kSilent };
// In Evidence order.
constexpr std::array<uint32_t, 6> kEvidenceWeights = {35, 15, 15, 10, 10, 15};

constexpr uint32_t kChinesePercent = 50;
constexpr uint32_t kRestateTitlePercent = 25;
constexpr uint32_t kFixedByCommentPercent = 45;
constexpr uint32_t kPendingCommentPercent = 30;
constexpr uint32_t kCommitKeywordPercent = 30;
constexpr uint32_t kPrCommentsPercent = 40;
constexpr uint32_t kCodeBlockNoisePercent = 15;
constexpr uint32_t kForeignUrlNoisePercent = 10;
constexpr uint32_t kPrRefNoisePercent = 10;

}  // namespace gen_dump
