// fixgraph_gen_dump: writes a synthetic recorded dump for fixgraph benchmarks.
//
// The output follows the offline dump layout (docs/design.md section 3) and the field
// shapes each platform's API returns (reference/api.md section 2):
//
//   OUT/<platform>/<owner>/repo-<i>/repo.json
//                                   issues.json                    every issue, newest first
//                                   pulls.json                     every PR, newest first
//                                   issues/<number>/comments.json  every issue (some are [])
//                                   pulls/<number>/comments.json   some PRs
//                                   pulls/<number>/commits.json    merged PRs (1-3 commits)
//                                   pulls/<number>/files.json      merged PRs (1-4 files)
//
// The content is a workload for import, linking and search: Chinese and English issues
// (about half each) about Ascend/MindSpore problems (aclnn APIs, 910B/310P, CANN
// versions, error codes, stack traces), about 60% of closed issues fixed by a merged PR
// with graded evidence (closing keyword, bare reference, issue URL, branch name, close
// time equal to the merge time, comments pointing at the PR, restated titles), and noise
// (PRs referencing nothing, numbers inside code blocks, other repositories' URLs, `!N`
// PR references, closed-unmerged PRs claiming a fix, backports, late and batch closes,
// fixes merged before their issue was filed).
//
// Usage:
//   fixgraph_gen_dump --out DIR [--repos N=1] [--issues M=1000] [--prs K=M]
//                     [--comments C=3] [--seed S=1] [--platform gitcode|gitee|github]
//                     [--owner NAME=synth] [--truth FILE]
//
// Repositories are repo-1 .. repo-N. C is the average number of comments per issue
// (geometric, so many issues have none). An existing DIR/<platform>/<owner>/repo-<i>
// that looks like an earlier dump is replaced. --truth writes the answer key for linker
// benchmarks (per issue: outcome, fixing PR, how it closed; per PR: kind, issues fixed)
// as JSON lines, outside the dump. A one-line summary goes to stderr.
//
// Determinism: the output depends only on the options. Every decision about an item
// comes from a random stream keyed by (seed, repository, purpose, item index): cheap
// SplitMix64 streams for plans that other items must recompute (which PR fixes which
// issue, when a PR merges), std::mt19937_64 streams for text. Distributions are written
// here with integer arithmetic, because the standard ones are implementation-defined.
//
// Memory: issues.json and pulls.json are streamed one element at a time, and an issue's
// fixing PR is recomputed rather than stored, so RSS stays at a few MB for any size.
//
// Parts: gen_dump_options (command line), gen_dump_repo (the dump and one repository, with
// gen_dump_issues and gen_dump_pulls), gen_dump_plan (what happens to each item),
// gen_dump_text (topics and template expansion), gen_dump_catalog (users and labels),
// gen_dump_output (files), gen_dump_format (numbers, ids, times), gen_dump_random (streams);
// constants in gen_dump_shape.h, word tables in gen_dump_vocab.h.

#include "gen_dump_options.h"
#include "gen_dump_repo.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  try {
    const gen_dump::Options options = gen_dump::ParseOptions(argc, argv);
    const auto started = std::chrono::steady_clock::now();
    const gen_dump::Stats stats = gen_dump::WriteDump(options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(
        stderr,
        "fixgraph_gen_dump: platform=%s repos=%llu issues=%llu prs=%llu comments=%llu "
        "files=%llu bytes=%llu (%.1f MiB) in %.2f s\n",
        std::string(gen_dump::PlatformName(options.platform)).c_str(),
        static_cast<unsigned long long>(stats.repos), static_cast<unsigned long long>(stats.issues),
        static_cast<unsigned long long>(stats.prs), static_cast<unsigned long long>(stats.comments),
        static_cast<unsigned long long>(stats.files), static_cast<unsigned long long>(stats.bytes),
        static_cast<double>(stats.bytes) / (1 << 20), seconds);
    return 0;
  } catch (const std::invalid_argument& e) {
    std::cerr << "fixgraph_gen_dump: " << e.what() << "\n" << gen_dump::kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fixgraph_gen_dump: " << e.what() << "\n";
    return 1;
  }
}
