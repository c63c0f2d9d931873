// The linker's result for one issue (design.md s5) and its JSON form, one
// line of `links --json` (design.md s8; the store keeps the same value in a
// binary form, graph/link_codec.h):
//
//   {"issue": REF, "state": "closed", "resolution": "fixed",
//    "fixes": [{"pr": REF or URL, "tier": "A", "confidence": 0.97,
//               "evidence": [{"kind": "close_at_merge", "detail": "...", "delta_s": 0}],
//               "in_store": true, "merged_at": "2026-09-15T03:35:56Z", "state": "merged",
//               "base_ref": "main", "title": "...", "backport_of": REF or null,
//               "mirror_host": false}],
//    "suggested": [...tier D, same fields...],
//    "flags": ["backport"], "evidence": [...issue-level evidence...],
//    "answer": {"comment_id", "author", "created_at", "text", "kind"} or null,
//    "duplicate_of": REF or null, "false_leads": [REF...], "notes": ["..."],
//    "created_at": ..., "closed_at": ...}
//
// Names of evidence kinds, tiers, resolutions and flags are part of the JSON
// contract: do not rename.
//
// Thread safety: plain values; functions are pure.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::graph {

enum class EvidenceKind : std::uint8_t {
  kCloseAtMerge,        // issue closed within seconds of the PR's merge
  kClosingKeyword,      // "fix #43" in the PR title/body/commits
  kExplicitUrl,         // the issue's URL in the PR's texts or comments
  kExplicitRef,         // a bare or relating "#43" reference
  kPlatformLink,        // the platform links them
  kBranchName,          // the PR's head branch names the issue
  kCommentRef,          // an issue comment points at the PR
  kTitleMatch,          // the PR title (or body) restates the issue title
  kPatchOverlap,        // the PR changes files/identifiers the issue names
  kVerifyCommentClose,  // closed within seconds after a verification comment
};

// Strongest first: A machine-verifiable, B explicit, C implicit, D inferred.
enum class Tier : std::uint8_t { kA = 0, kB = 1, kC = 2, kD = 3 };

enum class Resolution : std::uint8_t {
  kFixed,
  kFixedElsewhere,
  kAnswered,
  kDuplicate,
  kWontfix,
  kStale,
  kOpen,
  kUnknown,
};

enum class Flag : std::uint8_t {
  kFixBeforeIssue,  // a fix PR was opened (or merged) before the issue was filed
  kCloseLag,        // closed more than 7 days after the fix merged
  kFalseLead,       // a referenced PR never merged
  kBackport,        // the fix merged again into a release branch
  kCrossPlatform,   // the fix lives on another platform (or a mirror host)
  kTraceless,       // resolved elsewhere, no change found
};

const char* EvidenceKindName(EvidenceKind k);  // "close_at_merge", ...
const char* TierName(Tier t);                  // "A", "B", "C", "D"
const char* ResolutionName(Resolution r);      // "fixed", "fixed_elsewhere", ...
const char* FlagName(Flag f);                  // "fix_before_issue", ...
StatusOr<EvidenceKind> ParseEvidenceKind(std::string_view name);
StatusOr<Tier> ParseTier(std::string_view name);
StatusOr<Resolution> ParseResolution(std::string_view name);
StatusOr<Flag> ParseFlag(std::string_view name);

struct Evidence {
  EvidenceKind kind = EvidenceKind::kExplicitRef;
  std::string detail;                   // plain words: what was seen, where
  std::optional<std::int64_t> delta_s;  // close time minus merge (or comment) time
};

// One change that resolved the issue.
struct FixLink {
  // The PR's canonical reference ("gitcode:Ascend/X!12"), or the URL as
  // written when it names no parsable PR.
  std::string pr;
  Tier tier = Tier::kD;
  double confidence = 0;  // in [0, 1], monotone with the tier
  std::vector<Evidence> evidence;
  bool in_store = false;  // the PR record is in the store
  OptTime merged_at;
  OptTime created_at;
  std::string state;  // "merged", "open", "closed", or "unknown" (not in the store)
  std::string base_ref;
  std::string title;
  std::string backport_of;   // the fix this PR re-applies to a release branch, or ""
  bool mirror_host = false;  // named through a mirror-host URL (atomgit.com)

  bool Has(EvidenceKind k) const;
  // Tiers A-C: listed as a fix ("fixes"), acted on; tier D is a likely fix
  // ("suggested"), shown but never trusted (docs/evidence.md).
  bool Trusted() const { return tier <= Tier::kC; }
};

// The comment that says what to do (answered, fixed elsewhere, won't fix).
struct Answer {
  std::string comment_id;
  std::string author;  // login
  OptTime created_at;
  std::string text;  // lines extracted verbatim from the comment
  std::string kind;  // "maintainer", "self_solved", "verification", "vendor_fix", "decline"
};

struct IssueLinks {
  Ref issue;
  IssueState state = IssueState::kOpen;
  OptTime created_at;
  OptTime closed_at;
  Resolution resolution = Resolution::kUnknown;
  // What the evidence links (tiers A-D), strongest first. Resolution and
  // flags read all of them; the JSON view (ToJson) lists only the trusted
  // ones (A-C) under "fixes", and the tier-D ones under "suggested" (Likely).
  std::vector<FixLink> fixes;
  // For a closed issue without a trusted (A-C) fix: the ranking's likely
  // fixes, not verified (tier D, suggest.h), most probable first, whose
  // confidence is a calibrated probability; PRs already in `fixes` are not
  // repeated.
  std::vector<FixLink> suggested;
  std::vector<Flag> flags;         // sorted, unique
  std::vector<Evidence> evidence;  // issue-level evidence (verify_comment_close)
  std::optional<Answer> answer;
  std::optional<Ref> duplicate_of;
  std::vector<std::string> false_leads;  // referenced PRs that never merged
  std::vector<std::string> notes;        // why timing was discounted, etc.

  bool HasFlag(Flag f) const;
  const FixLink* FindFix(std::string_view pr) const;
  // The likely fixes, not verified: the tier-D links of `fixes` and the
  // ranking's `suggested` together, most probable first (by confidence;
  // equal ones keep that order). What "suggested" lists and every view
  // prints as "likely fix, not verified".
  std::vector<const FixLink*> Likely() const;
};

nlohmann::json ToJson(const Evidence& v);
nlohmann::json ToJson(const FixLink& v);
nlohmann::json ToJson(const Answer& v);
nlohmann::json ToJson(const IssueLinks& v);
// Strict decoding; Corruption names the field. It reads the JSON view as
// written: tier-D links come back in `suggested`, not `fixes`.
Status FromJson(const nlohmann::json& j, IssueLinks* out);

}  // namespace fixgraph::graph
