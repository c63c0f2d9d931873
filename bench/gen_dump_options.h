// gen_dump_options.h: fixgraph_gen_dump's command line. ParseOptions reads the flags of kUsage,
// checks every value against the generator's limits (gen_dump_shape.h) and throws
// std::invalid_argument naming the flag and the value it rejects; --help prints kUsage and exits.
#pragma once

#include "gen_dump_format.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace gen_dump {

struct Options {
  fs::path out;
  uint64_t repos = 1;
  uint64_t issues = 1000;
  uint64_t prs = 1000;
  bool prs_given = false;
  double comments = 3.0;
  uint64_t seed = 1;
  Platform platform = Platform::kGitCode;
  std::string owner = "synth";
  fs::path truth;  // optional answer key, outside the dump
};

inline constexpr std::string_view kUsage =
    "usage: fixgraph_gen_dump --out DIR [--repos N=1] [--issues M=1000] [--prs K=M]\n"
    "                         [--comments C=3] [--seed S=1]\n"
    "                         [--platform gitcode|gitee|github] [--owner NAME=synth]\n"
    "                         [--truth FILE]\n"
    "Writes DIR/<platform>/<owner>/repo-<i>/ (i = 1..N): repo.json, issues.json, pulls.json,\n"
    "issues/<n>/comments.json and pulls/<n>/{comments,commits,files}.json.\n"
    "--truth FILE also writes the answer key, one JSON object per issue and per PR.\n";

Options ParseOptions(int argc, char** argv);

}  // namespace gen_dump
