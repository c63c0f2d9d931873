#include "store_keys.h"

#include <algorithm>
#include <cctype>

namespace fixgraph::keys {

constexpr size_t kNumWidth = 12;

std::string Num(std::string_view number) {
  bool digits = !number.empty() && number.size() <= kNumWidth &&
                std::all_of(number.begin(), number.end(),
                            [](unsigned char c) { return std::isdigit(c); });
  if (!digits) return std::string(number);
  return std::string(kNumWidth - number.size(), '0') + std::string(number);
}

std::string Unpad(std::string_view padded) {
  if (padded.size() != kNumWidth ||
      !std::all_of(padded.begin(), padded.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::string(padded);
  size_t first = padded.find_first_not_of('0');
  return first == std::string_view::npos ? "0" : std::string(padded.substr(first));
}

std::string Time(std::int64_t t) {
  std::uint64_t u = static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63);
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(u & 0xff);
    u >>= 8;
  }
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

std::string RepoKey(const RepoRef& repo) { return Join(kRepoTag, {repo.ToString()}); }

std::string IssueKey(const RepoRef& repo, std::string_view number) {
  return Join(kIssueTag, {repo.ToString(), Num(number)});
}

std::string PullKey(const RepoRef& repo, std::int64_t number) {
  return Join(kPullTag, {repo.ToString(), Num(std::to_string(number))});
}

std::string ItemKey(const Ref& ref) {
  switch (ref.kind) {
    case RefKind::kRepo: return RepoKey(ref.repo);
    case RefKind::kIssue: return IssueKey(ref.repo, ref.number);
    case RefKind::kPull: return Join(kPullTag, {ref.repo.ToString(), Num(ref.number)});
    case RefKind::kDoc: return Join('D', {ref.number});
  }
  return {};
}

}  // namespace fixgraph::keys
