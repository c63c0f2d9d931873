// PullCache: pull requests with the features the linker compares against
// issues (title and text tokens, changed files, patch identifiers, the
// references in their own texts), loaded on demand and kept for reuse across
// the issues of one LinkAll run. Private to graph/.
//
// Thread safety: not thread-safe; one cache per linking thread.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fixgraph/engine/mentions.h"
#include "fixgraph/engine/store.h"
#include "text.h"

namespace fixgraph::graph {

struct PullInfo {
  PullRequest pr;
  text::TokenSet title_tokens;  // title without leading tags
  text::TokenSet text_tokens;   // title and body
  std::string normalized_title;
  std::vector<std::string> title_identifiers;

  // References in the title and body (computed on first use).
  const std::vector<Mention>& OwnMentions() const;

  // Filled by PullCache::LoadFiles.
  bool files_loaded = false;
  std::vector<std::string> files;  // changed paths, lower-cased
  std::vector<bool> file_generic;  // per file: a name every repository has
  std::set<std::string> patch_idents;
  text::TokenSet patch_tokens;
  // Hashes of every path suffix, directory prefix, component and stem of the
  // changed files, and of the patch identifiers: a PR whose keys miss all of
  // an issue's identifier keys cannot overlap it.
  text::TokenSet match_keys;

 private:
  mutable bool mentions_done_ = false;
  mutable std::vector<Mention> mentions_;
};

class PullCache {
 public:
  // Keeps at most `capacity` PRs; older entries are dropped wholesale.
  PullCache(const Store& store, size_t capacity);

  // The PR, or nullptr when it is not in the store.
  StatusOr<std::shared_ptr<PullInfo>> Get(const Ref& pull);
  // Loads the PR's changed files and patch features (once).
  Status LoadFiles(PullInfo* info);
  // The repository's default branch ("" when unknown).
  std::string DefaultBranch(const RepoRef& repo);

  const Store& store() const { return store_; }

 private:
  const Store& store_;
  size_t capacity_;
  std::unordered_map<std::string, std::shared_ptr<PullInfo>> pulls_;  // null: known absent
  std::map<RepoRef, std::string> branches_;
};

}  // namespace fixgraph::graph
