// References: the names every interface prints and accepts (design.md s2).
//
//   repository    gitcode:Ascend/MindSpeed-Ops
//   issue         gitcode:Ascend/MindSpeed-Ops#69     gitee:mindspore/mindformers#I8XK2P
//   pull request  gitcode:Ascend/MindSpeed-Ops!166    github:vllm-project/vllm-ascend!11337
//   doc node      doc:torch_npu/env/TORCH_TRANSFER_TO_NPU
//
// Issue numbers are strings of ASCII letters and digits (Gitee's are
// alphanumeric, case-sensitive); pull request numbers are decimal integers.
// Owners may contain '/' (GitCode and GitLab-style subgroups); the repository
// name is the last path segment.
//
// Thread safety: plain values; all functions are pure.
#pragma once

#include "fixgraph/engine/status.h"

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fixgraph {

// Values are part of the on-disk format: do not renumber.
enum class Platform : std::uint8_t { kGitCode = 1, kGitee = 2, kGitHub = 3 };

// "gitcode", "gitee", "github".
const char* PlatformName(Platform p);
// Accepts the names above (case-insensitive).
StatusOr<Platform> ParsePlatform(std::string_view name);
// "https://gitcode.com", "https://gitee.com", "https://github.com".
const char* PlatformWebBase(Platform p);

struct RepoRef {
  Platform platform = Platform::kGitCode;
  std::string owner;
  std::string name;

  // "gitcode:Ascend/MindSpeed-Ops".
  std::string ToString() const;
  // "Ascend/MindSpeed-Ops".
  std::string FullName() const { return owner + "/" + name; }
  bool empty() const { return owner.empty() || name.empty(); }

  friend bool operator==(const RepoRef&, const RepoRef&) = default;
  friend auto operator<=>(const RepoRef& a, const RepoRef& b) {
    if (auto c = a.platform <=> b.platform; std::is_neq(c)) return c;
    if (auto c = a.owner <=> b.owner; std::is_neq(c)) return c;
    return a.name <=> b.name;
  }
};

enum class RefKind : std::uint8_t { kRepo, kIssue, kPull, kDoc };

struct Ref {
  RefKind kind = RefKind::kRepo;
  RepoRef repo;        // unused for kDoc
  std::string number;  // issue number, PR number in decimal, or the doc id

  static Ref Repo(RepoRef r) { return Ref{RefKind::kRepo, std::move(r), {}}; }
  static Ref Issue(RepoRef r, std::string number) {
    return Ref{RefKind::kIssue, std::move(r), std::move(number)};
  }
  static Ref Pull(RepoRef r, std::int64_t number) {
    return Ref{RefKind::kPull, std::move(r), std::to_string(number)};
  }
  static Ref Doc(std::string id) { return Ref{RefKind::kDoc, {}, std::move(id)}; }

  // REQUIRES: kind == kPull
  std::int64_t pull_number() const;

  // Canonical text form (see the file comment).
  std::string ToString() const;

  friend bool operator==(const Ref&, const Ref&) = default;
  friend auto operator<=>(const Ref& a, const Ref& b) {
    if (auto c = a.kind <=> b.kind; std::is_neq(c)) return c;
    if (auto c = a.repo <=> b.repo; std::is_neq(c)) return c;
    return a.number <=> b.number;
  }
};

// True for 1-18 ASCII digits: a decimal number that fits in an int64 (a pull
// request number, a numeric id).
bool IsDecimal(std::string_view s);
// True for a valid issue number: 1-32 ASCII letters or digits.
bool IsValidIssueNumber(std::string_view s);
// True for a valid owner or repository path segment.
bool IsValidRepoSegment(std::string_view s);
// True for a valid owner: one or more valid segments joined by '/' (a
// GitLab-style group and subgroups, "group/sub").
bool IsValidOwner(std::string_view s);

// Parses the canonical forms above, or a web URL of an issue, PR or
// repository on one of the three platforms (see ParseWebUrl).
// InvalidArgument names the text and says what was expected.
StatusOr<Ref> ParseRef(std::string_view text);

// A reference found in a web URL.
struct UrlRef {
  Ref ref;
  std::string host;     // as written, lower-cased ("gitcode.com", "atomgit.com")
  bool mirror = false;  // host is a mirror brand of the platform (atomgit.com -> gitcode)
};

// Recognises issue, PR and repository URLs:
//   https://gitcode.com/O/R/issues/N, /merge_requests/N, /pulls/N, /pull/N
//   https://gitee.com/O/R/issues/I8XK2P, /pulls/N
//   https://github.com/O/R/issues/N, /pull/N
//   https://atomgit.com/... (GitCode's mirror brand; mirror = true)
// Also the API forms (api.gitcode.com/api/v5/repos/O/R/..., gitee.com/api/v5/repos/...,
// api.github.com/repos/...). A trailing "#note_1", query or ".git" is ignored.
// Returns nullopt when the URL is not such a link.
std::optional<UrlRef> ParseWebUrl(std::string_view url);

// The web URL of an item: GitCode PRs are /merge_requests/N, Gitee /pulls/N,
// GitHub /pull/N. Empty for doc references.
std::string WebUrl(const Ref& ref);

}  // namespace fixgraph
