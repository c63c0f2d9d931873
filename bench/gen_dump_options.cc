// gen_dump_options.cc: fixgraph_gen_dump's command line (contract in gen_dump_options.h).

#include "gen_dump_options.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <stdexcept>

namespace gen_dump {
namespace {

uint64_t ParseCount(std::string_view flag, std::string_view text, uint64_t max) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) {
    throw std::invalid_argument(std::string(flag) + ": expected an integer in [0, " +
                                IntString(static_cast<int64_t>(max)) + "], got '" +
                                std::string(text) + "'");
  }
  return value;
}

double ParseAverage(std::string_view flag, std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value >= 0) ||
      value > kMaxAverageComments) {
    throw std::invalid_argument(std::string(flag) + ": expected a number in [0, " +
                                IntString(static_cast<int64_t>(kMaxAverageComments)) + "], got '" +
                                std::string(text) + "'");
  }
  return value;
}

bool IsSafeName(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

}  // namespace

Options ParseOptions(int argc, char** argv) {
  Options o;
  bool have_out = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (i + 1 >= argc) throw std::invalid_argument(std::string(flag) + ": missing value");
    const std::string_view value = argv[++i];
    if (flag == "--out") {
      o.out = fs::path(value);
      have_out = true;
    } else if (flag == "--repos") {
      o.repos = ParseCount(flag, value, kMaxRepos);
    } else if (flag == "--issues") {
      o.issues = ParseCount(flag, value, kMaxItemsPerRepo);
    } else if (flag == "--prs") {
      o.prs = ParseCount(flag, value, kMaxItemsPerRepo);
      o.prs_given = true;
    } else if (flag == "--comments") {
      o.comments = ParseAverage(flag, value);
    } else if (flag == "--seed") {
      o.seed = ParseCount(flag, value, std::numeric_limits<uint64_t>::max());
    } else if (flag == "--platform") {
      if (value == "gitcode")
        o.platform = Platform::kGitCode;
      else if (value == "gitee")
        o.platform = Platform::kGitee;
      else if (value == "github")
        o.platform = Platform::kGitHub;
      else
        throw std::invalid_argument("--platform: expected gitcode, gitee or github");
    } else if (flag == "--truth") {
      o.truth = fs::path(value);
    } else if (flag == "--owner") {
      if (!IsSafeName(value)) throw std::invalid_argument("--owner: use [A-Za-z0-9._-]");
      o.owner = std::string(value);
    } else {
      throw std::invalid_argument("unknown option " + std::string(flag));
    }
  }
  if (!have_out) throw std::invalid_argument("--out is required");
  if (!o.prs_given) o.prs = o.issues;
  return o;
}

}  // namespace gen_dump
