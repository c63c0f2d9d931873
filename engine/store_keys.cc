#include "store_keys.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace fixgraph::keys {

constexpr size_t kNumWidth = 12;

void AppendNum(std::string* out, std::string_view number) {
  bool digits =
      !number.empty() && number.size() <= kNumWidth &&
      std::all_of(number.begin(), number.end(), [](unsigned char c) { return std::isdigit(c); });
  if (digits) out->append(kNumWidth - number.size(), '0');
  out->append(number);
}

void AppendNum(std::string* out, std::int64_t number) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, number);
  (void)ec;  // 24 bytes hold any int64
  AppendNum(out, std::string_view(buf, static_cast<size_t>(end - buf)));
}

std::string Num(std::string_view number) {
  std::string out;
  AppendNum(&out, number);
  return out;
}

std::string Unpad(std::string_view padded) {
  if (padded.size() != kNumWidth ||
      !std::all_of(padded.begin(), padded.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::string(padded);
  size_t first = padded.find_first_not_of('0');
  return first == std::string_view::npos ? "0" : std::string(padded.substr(first));
}

void AppendTime(std::string* out, std::int64_t t) {
  std::uint64_t u = static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63);
  char b[8];
  for (int i = 7; i >= 0; --i) {
    b[i] = static_cast<char>(u & 0xff);
    u >>= 8;
  }
  out->append(b, 8);
}

std::string Time(std::int64_t t) {
  std::string out;
  AppendTime(&out, t);
  return out;
}

std::int64_t DecodeTime(std::string_view b) {
  std::uint64_t u = 0;
  for (size_t i = 0; i < 8 && i < b.size(); ++i) u = (u << 8) | static_cast<unsigned char>(b[i]);
  return static_cast<std::int64_t>(u ^ (std::uint64_t{1} << 63));
}

std::string Join(char tag, std::initializer_list<std::string_view> parts) {
  std::string k(1, tag);
  for (std::string_view p : parts) {
    k += kSep;
    k += p;
  }
  return k;
}

std::string Prefix(char tag, std::initializer_list<std::string_view> parts) {
  std::string k = Join(tag, parts);
  k += kSep;
  return k;
}

std::string PendingKey(std::string_view kind, std::string_view what) {
  std::string k(kPendingPrefix);
  k.append(kind);
  k.push_back(kSep);
  k.append(what);
  return k;
}

std::string RepoKey(const RepoRef& repo) { return Join(kRepoTag, {repo.ToString()}); }

std::string IssueKey(const RepoRef& repo, std::string_view number) {
  return Join(kIssueTag, {repo.ToString(), Num(number)});
}

std::string PullKey(const RepoRef& repo, std::int64_t number) {
  return Join(kPullTag, {repo.ToString(), Num(std::to_string(number))});
}

std::string ItemKey(const Ref& ref) {
  switch (ref.kind) {
    case RefKind::kRepo:
      return RepoKey(ref.repo);
    case RefKind::kIssue:
      return IssueKey(ref.repo, ref.number);
    case RefKind::kPull:
      return Join(kPullTag, {ref.repo.ToString(), Num(ref.number)});
    case RefKind::kDoc:
      return Join('D', {ref.number});
  }
  return {};
}

}  // namespace fixgraph::keys
