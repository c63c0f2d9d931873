#include "pull_cache.h"

namespace fixgraph::graph {

const std::vector<Mention>& PullInfo::OwnMentions() const {
  if (!mentions_done_) {
    mentions_ = FindMentions(text::ForMentions(pr.title + "\n" + pr.body), pr.repo);
    mentions_done_ = true;
  }
  return mentions_;
}

PullCache::PullCache(const Store& store, size_t capacity) : store_(store), capacity_(capacity) {}

StatusOr<std::shared_ptr<PullInfo>> PullCache::Get(const Ref& pull) {
  std::string key = pull.ToString();
  if (auto it = pulls_.find(key); it != pulls_.end()) return it->second;
  if (pulls_.size() >= capacity_) pulls_.clear();
  auto pr = store_.GetPull(pull);
  if (!pr.ok()) {
    if (!pr.status().IsNotFound()) return pr.status();
    pulls_[key] = nullptr;
    return std::shared_ptr<PullInfo>();
  }
  auto info = std::make_shared<PullInfo>();
  info->pr = std::move(pr).value();
  info->normalized_title = text::StripTitleTags(info->pr.title);
  info->title_tokens = text::Tokens(info->normalized_title);
  info->title_identifiers = text::Identifiers(info->normalized_title, false);
  info->text_tokens = text::Tokens(info->normalized_title + "\n" + info->pr.body);
  pulls_[key] = info;
  return info;
}

Status PullCache::LoadFiles(PullInfo* info) {
  if (info->files_loaded) return Status::OK();
  std::vector<FileChange> files;
  FG_RETURN_IF_ERROR(store_.ListFiles(info->pr.ref(), &files));
  std::string patch_text;
  for (const FileChange& f : files) {
    info->files.push_back(text::Lower(f.filename));
    if (!f.previous_filename.empty()) info->files.push_back(text::Lower(f.previous_filename));
    for (std::string& id : text::Identifiers(f.patch, /*path_variants=*/false)) info->patch_idents.insert(std::move(id));
    patch_text += f.patch;
    patch_text += '\n';
  }
  info->patch_tokens = text::Tokens(patch_text);
  for (const std::string& f : info->files) info->file_generic.push_back(text::IsGenericFileName(text::Basename(f)));
  for (const std::string& f : info->files) {
    std::string_view v(f);
    info->match_keys.push_back(text::Hash(v));
    for (size_t p = v.find('/'); p != std::string_view::npos; p = v.find('/', p + 1)) {
      info->match_keys.push_back(text::Hash(v.substr(0, p)));   // directory prefix
      info->match_keys.push_back(text::Hash(v.substr(p + 1)));  // path suffix
    }
    std::string_view rest(f);
    while (!rest.empty()) {
      size_t slash = rest.find('/');
      std::string_view part = rest.substr(0, slash);
      info->match_keys.push_back(text::Hash(part));
      size_t dot = part.rfind('.');
      if (dot != std::string_view::npos && dot > 0) info->match_keys.push_back(text::Hash(part.substr(0, dot)));
      if (slash == std::string_view::npos) break;
      rest.remove_prefix(slash + 1);
    }
  }
  for (const std::string& id : info->patch_idents) info->match_keys.push_back(text::Hash(id));
  text::Normalize(&info->match_keys);
  info->files_loaded = true;
  return Status::OK();
}

std::string PullCache::DefaultBranch(const RepoRef& repo) {
  if (auto it = branches_.find(repo); it != branches_.end()) return it->second;
  auto r = store_.GetRepository(repo);
  std::string branch = r.ok() ? r->default_branch : "";
  branches_[repo] = branch;
  return branch;
}

}  // namespace fixgraph::graph
