#include "fixgraph/engine/model_json.h"

namespace fixgraph {
namespace {

using nlohmann::json;

// Field readers for decoding our own records: strict about types.
class Reader {
 public:
  explicit Reader(const json& j) : j_(j) {
    if (!j_.is_object()) status_ = Status::Corruption("record is not a JSON object");
  }

  void Str(const char* key, std::string* out) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return;
    if (!v->is_string()) return Fail(key, "a string");
    *out = v->get<std::string>();
  }
  void Int(const char* key, std::int64_t* out) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return;
    if (!v->is_number_integer()) return Fail(key, "an integer");
    *out = v->get<std::int64_t>();
  }
  void Time(const char* key, OptTime* out) {
    std::string s;
    Str(key, &s);
    if (s.empty() || !status_.ok()) return;
    auto t = ParseTimestamp(s);
    if (!t.ok()) return Fail(key, "a timestamp");
    *out = *t;
  }
  void Strings(const char* key, std::vector<std::string>* out) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return;
    if (!v->is_array()) return Fail(key, "an array");
    for (const json& e : *v) {
      if (!e.is_string()) return Fail(key, "an array of strings");
      out->push_back(e.get<std::string>());
    }
  }
  void RepoField(const char* key, RepoRef* out) {
    std::string s;
    Str(key, &s);
    if (!status_.ok()) return;
    auto r = ParseRef(s);
    if (!r.ok() || r->kind != RefKind::kRepo) return Fail(key, "a repository reference");
    *out = r->repo;
  }
  void RefField(const char* key, Ref* out) {
    std::string s;
    Str(key, &s);
    if (!status_.ok()) return;
    auto r = ParseRef(s);
    if (!r.ok()) return Fail(key, "a reference");
    *out = *r;
  }
  void UserField(const char* key, User* out) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return;
    Status s = FromJson(*v, out);
    if (!s.ok() && status_.ok()) status_ = s.WithContext(key);
  }
  Status status() const { return status_; }

 private:
  const json* Find(const char* key) {
    if (!status_.ok()) return nullptr;
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  void Fail(const char* key, const char* expected) {
    if (status_.ok())
      status_ = Status::Corruption(std::string("field \"") + key + "\": expected " + expected);
  }
  const json& j_;
  Status status_;
};

const char* ParentKindName(ParentKind k) { return k == ParentKind::kIssue ? "issue" : "pull"; }

Status ParseParentKind(const std::string& s, ParentKind* out) {
  if (s == "issue")
    *out = ParentKind::kIssue;
  else if (s == "pull")
    *out = ParentKind::kPull;
  else
    return Status::Corruption("field \"parent_kind\": expected issue or pull");
  return Status::OK();
}

}  // namespace

json TimeToJson(const OptTime& t) { return t ? json(FormatUtc(*t)) : json(nullptr); }

json ToJson(const User& v) { return json{{"id", v.id}, {"login", v.login}, {"name", v.name}}; }

Status FromJson(const json& j, User* out) {
  Reader r(j);
  r.Str("id", &out->id);
  r.Str("login", &out->login);
  r.Str("name", &out->name);
  return r.status();
}

json ToJson(const Repository& v) {
  return json{{"repo", v.ref.ToString()},           {"full_name", v.full_name},
              {"display_name", v.display_name},     {"description", v.description},
              {"default_branch", v.default_branch}, {"html_url", v.html_url}};
}

Status FromJson(const json& j, Repository* out) {
  Reader r(j);
  r.RepoField("repo", &out->ref);
  r.Str("full_name", &out->full_name);
  r.Str("display_name", &out->display_name);
  r.Str("description", &out->description);
  r.Str("default_branch", &out->default_branch);
  r.Str("html_url", &out->html_url);
  return r.status();
}

json ToJson(const Issue& v) {
  return json{{"ref", v.ref().ToString()},
              {"repo", v.repo.ToString()},
              {"number", v.number},
              {"platform_id", v.platform_id},
              {"title", v.title},
              {"body", v.body},
              {"state", IssueStateName(v.state)},
              {"state_detail", v.state_detail},
              {"author", ToJson(v.author)},
              {"labels", v.labels},
              {"html_url", v.html_url},
              {"created_at", TimeToJson(v.created_at)},
              {"updated_at", TimeToJson(v.updated_at)},
              {"closed_at", TimeToJson(v.closed_at)},
              {"comment_count", v.comment_count},
              {"branch", v.branch}};
}

Status FromJson(const json& j, Issue* out) {
  Reader r(j);
  std::string state;
  r.RepoField("repo", &out->repo);
  r.Str("number", &out->number);
  r.Str("platform_id", &out->platform_id);
  r.Str("title", &out->title);
  r.Str("body", &out->body);
  r.Str("state", &state);
  r.Str("state_detail", &out->state_detail);
  r.UserField("author", &out->author);
  r.Strings("labels", &out->labels);
  r.Str("html_url", &out->html_url);
  r.Time("created_at", &out->created_at);
  r.Time("updated_at", &out->updated_at);
  r.Time("closed_at", &out->closed_at);
  r.Int("comment_count", &out->comment_count);
  r.Str("branch", &out->branch);
  out->state = state == "closed" ? IssueState::kClosed : IssueState::kOpen;
  return r.status();
}

json ToJson(const PullRequest& v) {
  json j{{"ref", v.ref().ToString()},
         {"repo", v.repo.ToString()},
         {"number", v.number},
         {"platform_id", v.platform_id},
         {"title", v.title},
         {"body", v.body},
         {"state", PullStateName(v.state)},
         {"author", ToJson(v.author)},
         {"labels", v.labels},
         {"html_url", v.html_url},
         {"created_at", TimeToJson(v.created_at)},
         {"updated_at", TimeToJson(v.updated_at)},
         {"merged_at", TimeToJson(v.merged_at)},
         {"closed_at", TimeToJson(v.closed_at)},
         {"head_ref", v.head_ref},
         {"head_sha", v.head_sha},
         {"head_repo", v.head_repo},
         {"base_ref", v.base_ref},
         {"merged_by", v.merged_by}};
  j["close_related_issue"] = v.close_related_issue ? json(*v.close_related_issue) : json(nullptr);
  return j;
}

Status FromJson(const json& j, PullRequest* out) {
  Reader r(j);
  std::string state;
  r.RepoField("repo", &out->repo);
  r.Int("number", &out->number);
  r.Str("platform_id", &out->platform_id);
  r.Str("title", &out->title);
  r.Str("body", &out->body);
  r.Str("state", &state);
  r.UserField("author", &out->author);
  r.Strings("labels", &out->labels);
  r.Str("html_url", &out->html_url);
  r.Time("created_at", &out->created_at);
  r.Time("updated_at", &out->updated_at);
  r.Time("merged_at", &out->merged_at);
  r.Time("closed_at", &out->closed_at);
  r.Str("head_ref", &out->head_ref);
  r.Str("head_sha", &out->head_sha);
  r.Str("head_repo", &out->head_repo);
  r.Str("base_ref", &out->base_ref);
  r.Str("merged_by", &out->merged_by);
  if (auto it = j.find("close_related_issue"); it != j.end() && it->is_boolean())
    out->close_related_issue = it->get<bool>();
  out->state = state == "merged"   ? PullState::kMerged
               : state == "closed" ? PullState::kClosed
                                   : PullState::kOpen;
  return r.status();
}

json ToJson(const Comment& v) {
  return json{{"parent", v.parent().ToString()},
              {"repo", v.repo.ToString()},
              {"parent_kind", ParentKindName(v.parent_kind)},
              {"parent_number", v.parent_number},
              {"id", v.id},
              {"author", ToJson(v.author)},
              {"body", v.body},
              {"kind", v.kind},
              {"path", v.path},
              {"created_at", TimeToJson(v.created_at)},
              {"updated_at", TimeToJson(v.updated_at)}};
}

Status FromJson(const json& j, Comment* out) {
  Reader r(j);
  std::string kind;
  r.RepoField("repo", &out->repo);
  r.Str("parent_kind", &kind);
  r.Str("parent_number", &out->parent_number);
  r.Str("id", &out->id);
  r.UserField("author", &out->author);
  r.Str("body", &out->body);
  r.Str("kind", &out->kind);
  r.Str("path", &out->path);
  r.Time("created_at", &out->created_at);
  r.Time("updated_at", &out->updated_at);
  FG_RETURN_IF_ERROR(r.status());
  return ParseParentKind(kind, &out->parent_kind);
}

json ToJson(const Commit& v) {
  return json{{"repo", v.repo.ToString()},
              {"pr_number", v.pr_number},
              {"sha", v.sha},
              {"message", v.message},
              {"author_name", v.author_name},
              {"author_email", v.author_email},
              {"author_login", v.author_login},
              {"committer_name", v.committer_name},
              {"committer_email", v.committer_email},
              {"authored_at", TimeToJson(v.authored_at)},
              {"committed_at", TimeToJson(v.committed_at)}};
}

Status FromJson(const json& j, Commit* out) {
  Reader r(j);
  r.RepoField("repo", &out->repo);
  r.Int("pr_number", &out->pr_number);
  r.Str("sha", &out->sha);
  r.Str("message", &out->message);
  r.Str("author_name", &out->author_name);
  r.Str("author_email", &out->author_email);
  r.Str("author_login", &out->author_login);
  r.Str("committer_name", &out->committer_name);
  r.Str("committer_email", &out->committer_email);
  r.Time("authored_at", &out->authored_at);
  r.Time("committed_at", &out->committed_at);
  return r.status();
}

json ToJson(const FileChange& v) {
  return json{{"repo", v.repo.ToString()}, {"pr_number", v.pr_number},
              {"filename", v.filename},    {"previous_filename", v.previous_filename},
              {"status", v.status},        {"additions", v.additions},
              {"deletions", v.deletions},  {"patch", v.patch}};
}

Status FromJson(const json& j, FileChange* out) {
  Reader r(j);
  r.RepoField("repo", &out->repo);
  r.Int("pr_number", &out->pr_number);
  r.Str("filename", &out->filename);
  r.Str("previous_filename", &out->previous_filename);
  r.Str("status", &out->status);
  r.Int("additions", &out->additions);
  r.Int("deletions", &out->deletions);
  r.Str("patch", &out->patch);
  return r.status();
}

json ToJson(const OperateLogEvent& v) {
  return json{{"parent", v.parent().ToString()},
              {"repo", v.repo.ToString()},
              {"parent_kind", ParentKindName(v.parent_kind)},
              {"parent_number", v.parent_number},
              {"id", v.id},
              {"action_type", v.action_type},
              {"action", v.action},
              {"content", v.content},
              {"actor", ToJson(v.actor)},
              {"created_at", TimeToJson(v.created_at)}};
}

Status FromJson(const json& j, OperateLogEvent* out) {
  Reader r(j);
  std::string kind;
  r.RepoField("repo", &out->repo);
  r.Str("parent_kind", &kind);
  r.Str("parent_number", &out->parent_number);
  r.Str("id", &out->id);
  r.Str("action_type", &out->action_type);
  r.Str("action", &out->action);
  r.Str("content", &out->content);
  r.UserField("actor", &out->actor);
  r.Time("created_at", &out->created_at);
  FG_RETURN_IF_ERROR(r.status());
  return ParseParentKind(kind, &out->parent_kind);
}

json ToJson(const PlatformLink& v) {
  return json{{"issue", v.issue.ToString()}, {"pull", v.pull.ToString()}, {"source", v.source}};
}

Status FromJson(const json& j, PlatformLink* out) {
  Reader r(j);
  r.RefField("issue", &out->issue);
  r.RefField("pull", &out->pull);
  r.Str("source", &out->source);
  return r.status();
}

}  // namespace fixgraph
