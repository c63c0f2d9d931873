#include "base_mapper.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace fixgraph::ingest {
namespace {

// Wraps a mapping error with the item it concerns.
Status Annotate(const Status& s, const std::string& what) {
  return s.ok() ? s : s.WithContext(what);
}

std::string TrimGitSuffix(std::string url) {
  if (url.size() > 4 && url.compare(url.size() - 4, 4, ".git") == 0) url.resize(url.size() - 4);
  return url;
}

}  // namespace

Status Mapper::LinkedPullNumber(const JsonValue& j, std::int64_t* number) const {
  *number = 0;
  Fields f(j);
  std::int64_t n = -1;
  f.Int("number", &n);
  if (n < 0 && f.status().ok()) f.Int("iid", &n);
  if (f.status().ok() && n <= 0) f.Fail("number", "missing pull request number");
  *number = n;
  return f.status();
}

Status Mapper::LinkedIssueNumber(const JsonValue& j, std::string* number) const {
  number->clear();
  Fields f(j);
  f.Id("number", number);
  if (f.status().ok() && !IsValidIssueNumber(*number))
    f.Fail("number", "missing or invalid issue number \"" + number->substr(0, 40) + "\"");
  return f.status();
}

namespace {

bool EqualsNoCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

// The repository a link-list element names in its url or html_url (API form
// ".../repos/O/R/issues/N" or web form "https://host/O/R/merge_requests/N"),
// else `self`.
RepoRef RepoOfItem(const JsonValue& j, const RepoRef& self, bool pull) {
  for (const char* key : {"url", "html_url"}) {
    JsonValue v = j.Find(key);
    if (!v.is_string()) continue;
    std::string url = v.str();
    size_t scheme = url.find("://");
    size_t from = scheme == std::string::npos ? 0 : url.find('/', scheme + 3);
    if (from == std::string::npos) continue;
    std::string path = url.substr(from);
    path = path.substr(0, path.find_first_of("?#"));
    std::vector<std::string> seg;
    for (size_t p = 0; p <= path.size();) {
      size_t q = path.find('/', p);
      if (q == std::string::npos) q = path.size();
      if (q > p) seg.push_back(path.substr(p, q - p));
      p = q + 1;
    }
    for (size_t k = seg.size() >= 2 ? seg.size() - 2 : 0; k >= 2 && k + 1 < seg.size(); --k) {
      const std::string& kind = seg[k];
      bool match =
          pull ? (kind == "pulls" || kind == "pull" || kind == "merge_requests") : kind == "issues";
      if (!match) continue;
      size_t r = k - 1;
      if (seg[r] == "-" && r >= 2) --r;  // GitLab-style ".../O/R/-/merge_requests/N"
      if (r < 1) break;
      RepoRef named{self.platform, seg[r - 1], seg[r]};
      if (!IsValidRepoSegment(named.owner) || !IsValidRepoSegment(named.name)) break;
      if (EqualsNoCase(named.owner, self.owner) && EqualsNoCase(named.name, self.name)) return self;
      return named;
    }
  }
  return self;
}

}  // namespace

Status Mapper::LinkedPull(const JsonValue& j, const RepoRef& self, Ref* out) const {
  std::int64_t n = 0;
  FG_RETURN_IF_ERROR(LinkedPullNumber(j, &n));
  *out = Ref::Pull(RepoOfItem(j, self, true), n);
  return Status::OK();
}

Status Mapper::LinkedIssue(const JsonValue& j, const RepoRef& self, Ref* out) const {
  std::string number;
  FG_RETURN_IF_ERROR(LinkedIssueNumber(j, &number));
  *out = Ref::Issue(RepoOfItem(j, self, false), number);
  return Status::OK();
}

Status Mapper::MapReplies(const JsonValue& j, const Comment& comment, const Ref& parent,
                          std::vector<Comment>* out) const {
  out->clear();
  if (!j.is_object()) return Status::OK();
  JsonValue replies = j.Find("reply");
  if (!replies.valid() || replies.is_null()) return Status::OK();
  if (!replies.is_array())
    return Status::Corruption(std::string("comment ") + comment.id +
                              ": field \"reply\": expected an array, found " + replies.type_name());
  Status s;
  size_t index = 0;
  replies.ForEachElement([&](const JsonValue& r) {
    if (!s.ok()) return;
    ++index;
    Comment c;
    if (r.is_object() && !r.Find("id").valid()) {
      // Map needs an id: give the reply one derived from its comment.
      s = Map(r, parent, &c);
      if (!s.ok() && c.id.empty()) {
        Fields f(r, naive_offset_);
        c = Comment{};
        c.repo = parent.repo;
        c.parent_kind = parent.kind == RefKind::kIssue ? ParentKind::kIssue : ParentKind::kPull;
        c.parent_number = parent.number;
        c.id = comment.id + "." + std::to_string(index);
        f.UserObject("user", &c.author);
        f.String("body", &c.body);
        f.Time("created_at", &c.created_at);
        f.Time("updated_at", &c.updated_at);
        s = f.status().WithContext("reply " + std::to_string(index) + " of comment " + comment.id);
      }
    } else {
      s = Map(r, parent, &c).WithContext("reply of comment " + comment.id);
    }
    if (!s.ok()) return;
    if (c.kind.empty()) c.kind = comment.kind;
    if (c.path.empty()) c.path = comment.path;
    out->push_back(std::move(c));
  });
  return s;
}

void BaseMapper::IssueClosedAt(Fields& f, OptTime* out) const {
  f.Time("finished_at", out);
  if (!out->has_value()) f.Time("closed_at", out);
}

Status BaseMapper::Map(const JsonValue& j, const RepoRef& repo, Repository* out) const {
  *out = Repository{};
  Fields f(j);
  out->ref = repo;
  f.String("full_name", &out->full_name);
  f.String("human_name", &out->display_name);
  if (out->display_name.empty()) f.String("name", &out->display_name);
  f.String("description", &out->description);
  f.String("default_branch", &out->default_branch);
  f.String("html_url", &out->html_url);
  out->html_url = TrimGitSuffix(out->html_url);
  if (out->html_url.empty()) out->html_url = WebUrl(Ref::Repo(repo));
  if (out->full_name.empty()) out->full_name = repo.FullName();
  return Annotate(f.status(), "repository");
}

Status BaseMapper::Map(const JsonValue& j, const RepoRef& repo, Issue* out) const {
  *out = Issue{};
  Fields f(j, naive_offset_);
  out->repo = repo;
  f.Id("number", &out->number);
  if (f.status().ok() && !IsValidIssueNumber(out->number))
    f.Fail("number", "missing or invalid issue number \"" + out->number.substr(0, 40) + "\"");
  std::string what = "issue " + (out->number.empty() ? std::string("?") : out->number);
  f.Id("id", &out->platform_id);
  f.String("title", &out->title);
  f.String("body", &out->body);
  std::string state;
  f.String("state", &state);
  f.String("issue_state", &out->state_detail);
  if (out->state_detail.empty() && state != "open" && state != "closed") out->state_detail = state;
  f.UserObject("user", &out->author);
  f.Labels("labels", &out->labels);
  f.String("html_url", &out->html_url);
  f.Time("created_at", &out->created_at);
  f.Time("updated_at", &out->updated_at);
  IssueClosedAt(f, &out->closed_at);
  f.Int("comments", &out->comment_count);
  IssueExtras(f, out);
  FG_RETURN_IF_ERROR(Annotate(f.status(), what));
  // "closed" and Gitee's "rejected" are closed; "open", "opened", "progressing" are open.
  out->state = (state == "closed" || state == "rejected") ? IssueState::kClosed : IssueState::kOpen;
  if (state.empty() && out->closed_at) out->state = IssueState::kClosed;
  if (out->html_url.empty()) out->html_url = WebUrl(out->ref());
  return Status::OK();
}

Status BaseMapper::Map(const JsonValue& j, const RepoRef& repo, PullRequest* out) const {
  *out = PullRequest{};
  Fields f(j, naive_offset_);
  out->repo = repo;
  out->number = -1;
  f.Int("number", &out->number);
  if (out->number < 0 && f.status().ok()) f.Int("iid", &out->number);
  if (f.status().ok() && out->number <= 0) f.Fail("number", "missing pull request number");
  std::string what = "pull request " + std::to_string(out->number);
  f.Id("id", &out->platform_id);
  f.String("title", &out->title);
  f.String("body", &out->body);
  std::string state;
  f.String("state", &state);
  f.UserObject("user", &out->author);
  f.Labels("labels", &out->labels);
  f.String("html_url", &out->html_url);
  f.Time("created_at", &out->created_at);
  f.Time("updated_at", &out->updated_at);
  f.Time("merged_at", &out->merged_at);
  f.Time("closed_at", &out->closed_at);
  if (JsonValue head = f.Object("head"); head.valid()) {
    Fields h(head);
    h.String("ref", &out->head_ref);
    if (out->head_ref.empty()) h.String("label", &out->head_ref);
    h.String("sha", &out->head_sha);
    if (JsonValue r = h.Object("repo"); r.valid()) {
      Fields rf(r);
      rf.String("full_path", &out->head_repo);
      if (out->head_repo.empty()) rf.String("full_name", &out->head_repo);
      if (!rf.status().ok()) h.Fail("repo", rf.status().message());
    }
    if (!h.status().ok()) f.Fail("head", h.status().message());
  }
  if (JsonValue base = f.Object("base"); base.valid()) {
    Fields b(base);
    b.String("ref", &out->base_ref);
    if (out->base_ref.empty()) b.String("label", &out->base_ref);
    if (!b.status().ok()) f.Fail("base", b.status().message());
  }
  if (JsonValue by = f.Object("merged_by"); by.valid()) {
    Fields m(by);
    m.String("login", &out->merged_by);
    if (!m.status().ok()) f.Fail("merged_by", m.status().message());
  }
  PullExtras(f, out);
  FG_RETURN_IF_ERROR(Annotate(f.status(), what));
  if (state == "merged" || out->merged_at) {
    out->state = PullState::kMerged;
  } else if (state == "closed") {
    out->state = PullState::kClosed;
  } else {
    out->state = PullState::kOpen;  // open, opened, locked
  }
  if (out->state == PullState::kMerged && !out->closed_at) out->closed_at = out->merged_at;
  if (out->html_url.empty()) out->html_url = WebUrl(out->ref());
  return Status::OK();
}

Status BaseMapper::Map(const JsonValue& j, const Ref& parent, Comment* out) const {
  *out = Comment{};
  Fields f(j, naive_offset_);
  out->repo = parent.repo;
  out->parent_kind = parent.kind == RefKind::kIssue ? ParentKind::kIssue : ParentKind::kPull;
  out->parent_number = parent.number;
  f.Id("id", &out->id);
  if (f.status().ok() && out->id.empty()) f.Fail("id", "missing comment id");
  f.UserObject("user", &out->author);
  f.String("body", &out->body);
  f.String("comment_type", &out->kind);
  f.String("path", &out->path);
  if (out->path.empty()) f.String("diff_file", &out->path);
  f.Time("created_at", &out->created_at);
  f.Time("updated_at", &out->updated_at);
  return Annotate(f.status(), "comment " + (out->id.empty() ? std::string("?") : out->id));
}

Status BaseMapper::Map(const JsonValue& j, const Ref& pull, Commit* out) const {
  *out = Commit{};
  Fields f(j);
  out->repo = pull.repo;
  out->pr_number = pull.pull_number();
  f.String("sha", &out->sha);
  if (f.status().ok() && out->sha.empty()) f.Fail("sha", "missing commit sha");
  if (JsonValue c = f.Object("commit"); c.valid()) {
    Fields cf(c);
    cf.String("message", &out->message);
    if (JsonValue a = cf.Object("author"); a.valid()) {
      Fields af(a, naive_offset_);
      af.String("name", &out->author_name);
      af.String("email", &out->author_email);
      af.Time("date", &out->authored_at);
      if (!af.status().ok()) cf.Fail("author", af.status().message());
    }
    if (JsonValue m = cf.Object("committer"); m.valid()) {
      Fields mf(m, naive_offset_);
      mf.String("name", &out->committer_name);
      mf.String("email", &out->committer_email);
      mf.Time("date", &out->committed_at);
      if (!mf.status().ok()) cf.Fail("committer", mf.status().message());
    }
    if (!cf.status().ok()) f.Fail("commit", cf.status().message());
  }
  if (JsonValue a = f.Object("author"); a.valid()) {
    Fields af(a);
    af.String("login", &out->author_login);
    if (!af.status().ok()) f.Fail("author", af.status().message());
  }
  return Annotate(f.status(), "commit " + out->sha.substr(0, 12));
}

Status BaseMapper::Map(const JsonValue& j, const Ref& pull, FileChange* out) const {
  *out = FileChange{};
  Fields f(j);
  out->repo = pull.repo;
  out->pr_number = pull.pull_number();
  f.String("filename", &out->filename);
  f.String("previous_filename", &out->previous_filename);
  f.String("status", &out->status);
  f.Int("additions", &out->additions);
  f.Int("deletions", &out->deletions);
  if (JsonValue patch = f.Get("patch"); patch.valid()) {
    if (patch.is_string()) {
      out->patch = patch.str();
    } else if (patch.is_object()) {
      Fields p(patch);
      p.String("diff", &out->patch);
      std::string old_path, new_path;
      p.String("old_path", &old_path);
      p.String("new_path", &new_path);
      std::optional<bool> renamed, added, deleted;
      p.Bool("renamed_file", &renamed);
      p.Bool("new_file", &added);
      p.Bool("deleted_file", &deleted);
      if (out->filename.empty()) out->filename = new_path;
      if (renamed.value_or(false) && out->previous_filename.empty())
        out->previous_filename = old_path;
      if (out->status.empty())
        out->status = added.value_or(false)     ? "added"
                      : deleted.value_or(false) ? "removed"
                      : renamed.value_or(false) ? "renamed"
                                                : "";
      if (!p.status().ok()) f.Fail("patch", p.status().message());
    } else {
      f.Fail("patch", std::string("expected a string or an object, found ") + patch.type_name());
    }
  }
  if (f.status().ok() && out->filename.empty()) f.Fail("filename", "missing file name");
  if (out->status.empty()) out->status = "modified";
  if (out->patch.size() > kMaxPatchBytes) out->patch.resize(kMaxPatchBytes);
  return Annotate(f.status(), "file " + out->filename);
}

Status BaseMapper::Map(const JsonValue& j, const Ref& parent, OperateLogEvent* out) const {
  *out = OperateLogEvent{};
  Fields f(j, naive_offset_);
  out->repo = parent.repo;
  out->parent_kind = parent.kind == RefKind::kIssue ? ParentKind::kIssue : ParentKind::kPull;
  out->parent_number = parent.number;
  f.Id("id", &out->id);
  f.String("action_type", &out->action_type);
  f.String("action", &out->action);
  f.String("content", &out->content);
  f.UserObject("user", &out->actor);
  f.Time("created_at", &out->created_at);
  if (f.status().ok() && out->id.empty()) f.Fail("id", "missing event id");
  return Annotate(f.status(), "operate log event " + out->id);
}

const std::string& OperateLogType(const OperateLogEvent& e) {
  return e.action_type.empty() ? e.action : e.action_type;
}

std::optional<PlatformLink> LinkFromOperateLog(const OperateLogEvent& e, bool* removed) {
  const std::string& t = OperateLogType(e);
  auto has = [&](const char* what) { return t.find(what) != std::string::npos; };
  bool add_issue = has("add_issue_mr_link") || has("add_issue_pr_link");
  bool del_issue = has("delete_issue_mr_link") || has("delete_issue_pr_link");
  bool add_pull = has("add_mr_issue_link") || has("add_pr_issue_link");
  bool del_pull = has("delete_mr_issue_link") || has("delete_pr_issue_link");
  bool issue_side = e.parent_kind == ParentKind::kIssue && (add_issue || del_issue);
  bool pull_side = e.parent_kind == ParentKind::kPull && (add_pull || del_pull);
  if (!issue_side && !pull_side) return std::nullopt;
  if (removed) *removed = del_issue || del_pull;
  // The other side's number follows the last '#' or '!'; "owner/repo" right
  // before the mark names another repository.
  size_t mark = e.content.find_last_of("#!");
  if (mark == std::string::npos) return std::nullopt;
  size_t end = mark + 1;
  while (end < e.content.size() && std::isalnum(static_cast<unsigned char>(e.content[end]))) ++end;
  std::string number = e.content.substr(mark + 1, end - mark - 1);
  RepoRef repo = e.repo;
  size_t start = mark;
  auto path_char = [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/';
  };
  while (start > 0 && path_char(static_cast<unsigned char>(e.content[start - 1]))) --start;
  std::string path = e.content.substr(start, mark - start);
  if (size_t slash = path.find('/');
      slash != std::string::npos && path.find('/', slash + 1) == std::string::npos) {
    RepoRef other{e.repo.platform, path.substr(0, slash), path.substr(slash + 1)};
    if (IsValidRepoSegment(other.owner) && IsValidRepoSegment(other.name)) repo = other;
  }
  PlatformLink link;
  link.source = "operate_log";
  if (e.parent_kind == ParentKind::kIssue) {
    if (!IsDecimal(number)) return std::nullopt;
    std::int64_t n = 0;
    std::from_chars(number.data(), number.data() + number.size(), n);
    link.issue = e.parent();
    link.pull = Ref::Pull(repo, n);
  } else {
    if (!IsValidIssueNumber(number)) return std::nullopt;
    link.issue = Ref::Issue(repo, number);
    link.pull = e.parent();
  }
  return link;
}

namespace {

// Time order: created_at (unset first), then id (numerically when both are
// decimal), then log order.
void SortByTime(std::vector<OperateLogEvent>* events) {
  std::stable_sort(events->begin(), events->end(),
                   [](const OperateLogEvent& a, const OperateLogEvent& b) {
                     if (a.created_at != b.created_at) return a.created_at < b.created_at;
                     if (IsDecimal(a.id) && IsDecimal(b.id) && a.id.size() != b.id.size())
                       return a.id.size() < b.id.size();
                     return a.id < b.id;
                   });
}

}  // namespace

std::vector<PlatformLink> LinksFromOperateLog(std::vector<OperateLogEvent> events) {
  SortByTime(&events);
  std::vector<PlatformLink> out;
  for (const OperateLogEvent& e : events) {
    bool removed = false;
    std::optional<PlatformLink> link = LinkFromOperateLog(e, &removed);
    if (!link) continue;
    auto same = [&](const PlatformLink& l) {
      return l.issue == link->issue && l.pull == link->pull;
    };
    out.erase(std::remove_if(out.begin(), out.end(), same), out.end());
    if (!removed) out.push_back(*link);
  }
  return out;
}

std::vector<PlatformLink> UnlinkedByOperateLog(std::vector<OperateLogEvent> events) {
  SortByTime(&events);
  std::vector<std::pair<PlatformLink, bool>> last;  // per pair, its last event: removed?
  for (const OperateLogEvent& e : events) {
    bool removed = false;
    std::optional<PlatformLink> link = LinkFromOperateLog(e, &removed);
    if (!link) continue;
    auto it = std::find_if(last.begin(), last.end(), [&](const auto& p) {
      return p.first.issue == link->issue && p.first.pull == link->pull;
    });
    if (it == last.end()) {
      last.emplace_back(*link, removed);
    } else {
      it->second = removed;
    }
  }
  std::vector<PlatformLink> out;
  for (auto& [link, removed] : last)
    if (removed) out.push_back(std::move(link));
  return out;
}

OptTime CloseTimeFromOperateLog(const std::vector<OperateLogEvent>& events) {
  std::vector<OperateLogEvent> sorted = events;
  SortByTime(&sorted);
  OptTime closed;
  for (const OperateLogEvent& e : sorted) {
    const std::string& t = OperateLogType(e);
    if (t == "closed" || t == "close") {
      closed = e.created_at;
    } else if (t == "opened" || t == "reopened" || t == "reopen") {
      closed.reset();
    }
  }
  return closed;
}

Status RelatedBranchEvents(const JsonValue& j, const Ref& issue,
                           std::vector<OperateLogEvent>* out) {
  out->clear();
  // Documented as an array of names; one name alone is taken too.
  auto one = [&](const JsonValue& v) -> Status {
    if (!v.is_string())
      return Status::Corruption(std::string("related_branches: expected branch names, found ") +
                                v.type_name());
    OperateLogEvent e;
    e.repo = issue.repo;
    e.parent_kind = ParentKind::kIssue;
    e.parent_number = issue.number;
    e.content = v.str();
    e.id = "related_branch:" + e.content;
    e.action_type = "related_branch";
    if (!e.content.empty()) out->push_back(std::move(e));
    return Status::OK();
  };
  if (!j.is_array()) return one(j);
  Status s;
  j.ForEachElement([&](const JsonValue& v) {
    if (s.ok()) s = one(v);
  });
  return s;
}

Status RelatedBranchEvents(const nlohmann::json& j, const Ref& issue,
                           std::vector<OperateLogEvent>* out) {
  JsonDoc doc;
  FG_RETURN_IF_ERROR(doc.ParseJson(j));
  return RelatedBranchEvents(doc.root(), issue, out);
}

}  // namespace fixgraph::ingest
