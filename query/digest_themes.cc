// BuildThemes: groups a digest's cases into themes (digest_themes.h).
#include "digest_themes.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fixgraph::query {
namespace {

// Union-find over case indexes.
struct Dsu {
  std::vector<size_t> parent, size;
  explicit Dsu(size_t n) : parent(n), size(n, 1) { std::iota(parent.begin(), parent.end(), 0); }
  size_t Find(size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  bool Unite(size_t a, size_t b, size_t cap) {
    a = Find(a);
    b = Find(b);
    if (a == b) return false;
    if (cap > 0 && size[a] + size[b] > cap) return false;
    if (a > b) std::swap(a, b);  // the smaller index is the root: deterministic
    parent[b] = a;
    size[a] += size[b];
    return true;
  }
};

}  // namespace

void BuildThemes(const DigestRules& rules, const std::vector<RepoThemeInput>& inputs, Digest* d) {
  std::vector<const DigestCase*> cases = d->Cases();
  const size_t n = cases.size();
  if (n == 0) return;
  // A case's position in digest order, from the digest's case index.
  std::vector<size_t> base(d->repos.size() + 1, 0);
  for (size_t ri = 0; ri < d->repos.size(); ++ri)
    base[ri + 1] = base[ri] + d->repos[ri].cases.size();
  auto position = [&](const std::string& id) -> std::optional<size_t> {
    auto it = d->case_index.find(id);
    if (it == d->case_index.end()) return std::nullopt;
    return base[it->second.first] + it->second.second;
  };
  const size_t cap = std::max<size_t>(8, static_cast<size_t>(rules.term_min_issues) * 4);

  Dsu dsu(n);
  std::vector<bool> by_graph(n, false);
  // 1. Connected components of the link graph (shared fixes, duplicates,
  // backports, cross-references), per repository.
  for (const RepoThemeInput& in : inputs) {
    for (const auto& cluster : *in.clusters) {
      std::vector<size_t> members;
      for (const std::string& id : cluster)
        if (auto p = position(id)) members.push_back(*p);
      for (size_t k = 1; k < members.size(); ++k) {
        if (dsu.Unite(members[0], members[k], 0)) {
          by_graph[members[0]] = by_graph[members[k]] = true;
        }
      }
    }
  }
  // 2. Shared salient terms (computed per case with the repository): rare
  // enough to mean a topic.
  std::vector<std::vector<std::string>> case_terms;
  case_terms.reserve(n);
  for (const RepoThemeInput& in : inputs)
    for (auto& terms : *in.case_terms) case_terms.push_back(std::move(terms));
  std::unordered_map<std::string, std::vector<size_t>> postings;
  for (size_t i = 0; i < n; ++i)
    for (const std::string& t : case_terms[i]) postings[t].push_back(i);
  const size_t max_df =
      std::max<size_t>(static_cast<size_t>(rules.term_min_issues),
                       static_cast<size_t>(rules.term_max_share * static_cast<double>(n)));
  std::vector<std::pair<size_t, std::string>> useful;  // (df, term)
  for (const auto& [t, p] : postings)
    if (p.size() >= static_cast<size_t>(rules.term_min_issues) && p.size() <= max_df)
      useful.emplace_back(p.size(), t);
  std::sort(useful.begin(), useful.end());
  std::unordered_set<std::string> useful_set;
  for (const auto& [df, t] : useful) {
    useful_set.insert(t);
    const auto& p = postings[t];
    for (size_t k = 1; k < p.size(); ++k) dsu.Unite(p[0], p[k], cap);
  }

  // Components in digest order.
  std::map<size_t, std::vector<size_t>> comps;
  for (size_t i = 0; i < n; ++i) comps[dsu.Find(i)].push_back(i);
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, std::vector<size_t>> leftovers;  // repo -> singletons
  for (auto& [root, members] : comps) {
    if (members.size() >= 2) {
      groups.push_back(members);
    } else {
      leftovers[cases[members[0]]->links.issue.repo.ToString()].push_back(members[0]);
    }
  }
  std::vector<DigestTheme> themes;
  for (const auto& g : groups) {
    DigestTheme t;
    std::map<std::string, int> term_count;
    std::set<std::string> repos_set;
    bool graph_link = false;
    for (size_t i : g) {
      t.issues.push_back(cases[i]->links.issue.ToString());
      repos_set.insert(cases[i]->links.issue.repo.ToString());
      graph_link = graph_link || by_graph[i];
      for (const std::string& term : case_terms[i])
        if (useful_set.count(term)) ++term_count[term];
    }
    std::vector<std::pair<int, std::string>> ranked;
    for (const auto& [term, count] : term_count)
      if (count >= 2) ranked.emplace_back(-count, term);
    std::sort(ranked.begin(), ranked.end());
    for (size_t k = 0; k < ranked.size() && k < 4; ++k) t.terms.push_back(ranked[k].second);
    t.repos.assign(repos_set.begin(), repos_set.end());
    t.via = graph_link ? "graph" : "terms";
    themes.push_back(std::move(t));
  }
  // Issues no theme holds: one theme per repository with two or more of
  // them, the rest together at the end.
  DigestTheme rest;
  rest.via = "rest";
  for (const auto& [repo, members] : leftovers) {
    DigestTheme t;
    for (size_t i : members) t.issues.push_back(cases[i]->links.issue.ToString());
    t.repos = {repo};
    t.via = "repo";
    if (members.size() == 1) {
      rest.issues.push_back(t.issues.front());
      rest.repos.push_back(repo);
      continue;
    }
    themes.push_back(std::move(t));
  }
  // Order by the position of the first issue in the digest.
  std::sort(themes.begin(), themes.end(), [&](const DigestTheme& a, const DigestTheme& b) {
    return *position(a.issues.front()) < *position(b.issues.front());
  });
  if (!rest.issues.empty()) {
    std::sort(
        rest.issues.begin(), rest.issues.end(),
        [&](const std::string& a, const std::string& b) { return *position(a) < *position(b); });
    std::sort(rest.repos.begin(), rest.repos.end());
    themes.push_back(std::move(rest));
  }
  for (size_t k = 0; k < themes.size(); ++k) themes[k].id = static_cast<int>(k + 1);
  d->themes = std::move(themes);
}

}  // namespace fixgraph::query
