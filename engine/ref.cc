#include "fixgraph/engine/ref.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

namespace fixgraph {
namespace {

constexpr size_t kMaxIssueNumberLength = 32;

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// Splits "owner/sub/name" into owner ("owner/sub") and name.
bool SplitOwnerName(std::string_view full, RepoRef* repo) {
  size_t slash = full.rfind('/');
  if (slash == std::string_view::npos) return false;
  std::string_view owner = full.substr(0, slash), name = full.substr(slash + 1);
  if (!IsValidOwner(owner) || !IsValidRepoSegment(name)) return false;
  repo->owner = std::string(owner);
  repo->name = std::string(name);
  return true;
}

Status BadRef(std::string_view text, std::string_view why) {
  return Status::InvalidArgument("bad reference \"" + std::string(text.substr(0, 200)) +
                                 "\": " + std::string(why));
}

}  // namespace

const char* PlatformName(Platform p) {
  switch (p) {
    case Platform::kGitCode:
      return "gitcode";
    case Platform::kGitee:
      return "gitee";
    case Platform::kGitHub:
      return "github";
  }
  return "unknown";
}

const char* PlatformWebBase(Platform p) {
  switch (p) {
    case Platform::kGitCode:
      return "https://gitcode.com";
    case Platform::kGitee:
      return "https://gitee.com";
    case Platform::kGitHub:
      return "https://github.com";
  }
  return "";
}

StatusOr<Platform> ParsePlatform(std::string_view name) {
  std::string n = Lower(name);
  if (n == "gitcode") return Platform::kGitCode;
  if (n == "gitee") return Platform::kGitee;
  if (n == "github") return Platform::kGitHub;
  return Status::InvalidArgument("unknown platform \"" + std::string(name) +
                                 "\" (expected gitcode, gitee or github)");
}

namespace {

// "platform:owner/name", then `mark` and `number` when `mark` is set ('#' or
// '!'), in one allocation.
std::string RepoString(const RepoRef& r, char mark = 0, std::string_view number = {}) {
  std::string_view platform = PlatformName(r.platform);
  std::string out;
  out.reserve(platform.size() + 1 + r.owner.size() + 1 + r.name.size() +
              (mark ? 1 + number.size() : 0));
  out.append(platform).append(1, ':').append(r.owner).append(1, '/').append(r.name);
  if (mark) out.append(1, mark).append(number);
  return out;
}

}  // namespace

std::string RepoRef::ToString() const { return RepoString(*this); }

std::int64_t Ref::pull_number() const {
  std::int64_t n = 0;
  std::from_chars(number.data(), number.data() + number.size(), n);
  return n;
}

std::string Ref::ToString() const {
  switch (kind) {
    case RefKind::kRepo:
      return repo.ToString();
    case RefKind::kIssue:
      return RepoString(repo, '#', number);
    case RefKind::kPull:
      return RepoString(repo, '!', number);
    case RefKind::kDoc:
      return "doc:" + number;
  }
  return {};
}

bool IsDecimal(std::string_view s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool IsValidIssueNumber(std::string_view s) {
  return !s.empty() && s.size() <= kMaxIssueNumberLength &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c); });
}

bool IsValidRepoSegment(std::string_view s) {
  if (s.empty() || s.size() > 200 || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.';
  });
}

bool IsValidOwner(std::string_view s) {
  if (s.empty() || s.front() == '/' || s.back() == '/' || s.find("//") != std::string_view::npos)
    return false;
  for (std::string_view seg : SplitPath(s))
    if (!IsValidRepoSegment(seg)) return false;
  return true;
}

StatusOr<Ref> ParseRef(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  if (t.empty()) return BadRef(text, "empty");
  if (t.rfind("http://", 0) == 0 || t.rfind("https://", 0) == 0) {
    auto u = ParseWebUrl(t);
    if (!u)
      return BadRef(text,
                    "not an issue, pull request or repository URL of gitcode, gitee or github");
    return u->ref;
  }
  size_t colon = t.find(':');
  if (colon == std::string_view::npos)
    return BadRef(text, "expected PLATFORM:OWNER/REPO[#ISSUE|!PR] or doc:ID");
  std::string_view scheme = t.substr(0, colon), rest = t.substr(colon + 1);
  if (Lower(scheme) == "doc") {
    if (rest.empty() ||
        std::any_of(rest.begin(), rest.end(), [](unsigned char c) { return std::isspace(c); }))
      return BadRef(text, "a doc id is non-empty and has no spaces");
    return Ref::Doc(std::string(rest));
  }
  auto platform = ParsePlatform(scheme);
  if (!platform.ok()) return BadRef(text, platform.status().message());
  Ref ref;
  ref.repo.platform = *platform;
  size_t mark = rest.find_first_of("#!");
  std::string_view repo_part = rest.substr(0, mark);
  if (!SplitOwnerName(repo_part, &ref.repo))
    return BadRef(text, "expected OWNER/REPO of letters, digits, '-', '_' or '.'");
  if (mark == std::string_view::npos) {
    ref.kind = RefKind::kRepo;
    return ref;
  }
  std::string_view number = rest.substr(mark + 1);
  if (rest[mark] == '#') {
    if (!IsValidIssueNumber(number)) return BadRef(text, "an issue number is letters and digits");
    ref.kind = RefKind::kIssue;
    ref.number = std::string(number);
  } else {
    if (!IsDecimal(number)) return BadRef(text, "a pull request number is a decimal integer");
    ref.kind = RefKind::kPull;
    std::int64_t n = 0;
    std::from_chars(number.data(), number.data() + number.size(), n);
    ref.number = std::to_string(n);
  }
  return ref;
}

std::optional<UrlRef> ParseWebUrl(std::string_view url) {
  std::string_view u = url;
  if (u.rfind("https://", 0) == 0) {
    u.remove_prefix(8);
  } else if (u.rfind("http://", 0) == 0) {
    u.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  size_t end = u.find_first_of("?#");
  if (end != std::string_view::npos) u = u.substr(0, end);
  size_t slash = u.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  UrlRef out;
  out.host = Lower(u.substr(0, slash));
  if (out.host.rfind("www.", 0) == 0) out.host.erase(0, 4);
  std::vector<std::string_view> parts = SplitPath(u.substr(slash + 1));
  Platform platform;
  if (out.host == "gitcode.com" || out.host == "api.gitcode.com" || out.host == "gitcode.net") {
    platform = Platform::kGitCode;
  } else if (out.host == "atomgit.com" || out.host == "api.atomgit.com") {
    platform = Platform::kGitCode;
    out.mirror = true;
  } else if (out.host == "gitee.com") {
    platform = Platform::kGitee;
  } else if (out.host == "github.com" || out.host == "api.github.com") {
    platform = Platform::kGitHub;
  } else {
    return std::nullopt;
  }
  // API forms: [api/v5/]repos/O/R/...
  if (parts.size() >= 2 && parts[0] == "api" && (parts[1] == "v5" || parts[1] == "v8"))
    parts.erase(parts.begin(), parts.begin() + 2);
  if (!parts.empty() && parts[0] == "repos" && parts.size() >= 3) parts.erase(parts.begin());
  // Find the item marker; everything before it is owner/.../repo (GitLab-style "/-/").
  static constexpr std::string_view kIssueWords[] = {"issues"};
  static constexpr std::string_view kPullWords[] = {"merge_requests", "pulls", "pull"};
  size_t marker = parts.size();
  RefKind kind = RefKind::kRepo;
  for (size_t i = 2; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    bool is_issue =
        std::find(std::begin(kIssueWords), std::end(kIssueWords), p) != std::end(kIssueWords);
    bool is_pull =
        std::find(std::begin(kPullWords), std::end(kPullWords), p) != std::end(kPullWords);
    if (is_issue || is_pull) {
      marker = i;
      kind = is_issue ? RefKind::kIssue : RefKind::kPull;
      break;
    }
  }
  size_t repo_end = marker;
  if (repo_end > 0 && parts[repo_end - 1] == "-") --repo_end;
  if (repo_end < 2) return std::nullopt;
  if (kind == RefKind::kRepo && repo_end != 2) return std::nullopt;
  std::string full;
  for (size_t i = 0; i < repo_end; ++i) {
    if (i) full += '/';
    full += parts[i];
  }
  if (full.size() > 4 && full.compare(full.size() - 4, 4, ".git") == 0)
    full.resize(full.size() - 4);
  out.ref.repo.platform = platform;
  if (!SplitOwnerName(full, &out.ref.repo)) return std::nullopt;
  out.ref.kind = kind;
  if (kind == RefKind::kRepo) return out;
  if (marker + 1 >= parts.size()) return std::nullopt;
  std::string_view number = parts[marker + 1];
  if (kind == RefKind::kIssue) {
    if (!IsValidIssueNumber(number)) return std::nullopt;
    out.ref.number = std::string(number);
  } else {
    if (!IsDecimal(number)) return std::nullopt;
    std::int64_t n = 0;
    std::from_chars(number.data(), number.data() + number.size(), n);
    out.ref.number = std::to_string(n);
  }
  return out;
}

std::string WebUrl(const Ref& ref) {
  if (ref.kind == RefKind::kDoc) return {};
  std::string base = std::string(PlatformWebBase(ref.repo.platform)) + "/" + ref.repo.FullName();
  switch (ref.kind) {
    case RefKind::kRepo:
      return base;
    case RefKind::kIssue:
      return base + "/issues/" + ref.number;
    case RefKind::kPull:
      switch (ref.repo.platform) {
        case Platform::kGitCode:
          return base + "/merge_requests/" + ref.number;
        case Platform::kGitee:
          return base + "/pulls/" + ref.number;
        case Platform::kGitHub:
          return base + "/pull/" + ref.number;
      }
      break;
    case RefKind::kDoc:
      break;
  }
  return {};
}

}  // namespace fixgraph
