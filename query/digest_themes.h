// Theme grouping of a digest's cases (design.md s7). Private to query/.
#pragma once

#include "fixgraph/query/digest.h"

#include <string>
#include <vector>

namespace fixgraph::query {

// What one repository with included cases gives the theme grouping, in the
// order of Digest::repos.
struct RepoThemeInput {
  // The repository's link-graph clusters (issue refs; ids that are not
  // included cases are ignored).
  const std::vector<std::vector<std::string>>* clusters = nullptr;
  // The salient terms of each included case, aligned with the repository's
  // cases; BuildThemes moves them out.
  std::vector<std::vector<std::string>>* case_terms = nullptr;
};

// Fills d->themes: cases joined by the link graph or by shared salient terms
// (rare enough under rules.term_min_issues/term_max_share, term groups capped
// in size) form a theme; the cases left over form one theme per repository
// with two or more of them, and the single leftovers one last "rest" theme.
// Themes are ordered by their first case's place in the digest and numbered
// from 1. Needs d->repos and d->case_index filled; does nothing without cases.
void BuildThemes(const DigestRules& rules, const std::vector<RepoThemeInput>& inputs, Digest* d);

}  // namespace fixgraph::query
