#include "record_codec.h"

#include "fixgraph/engine/byte_codec.h"

#include <cstdint>

namespace fixgraph::codec {
namespace {

// Type bytes: part of the on-disk format.
enum Tag : char {
  kRepositoryTag = 'r',
  kIssueTag = 'i',
  kPullTag = 'p',
  kCommentTag = 'c',
  kCommitTag = 'k',
  kFileTag = 'f',
  kOplogTag = 'o',
  kLinkTag = 'l',
  kMentionTag = 'm',
};

}  // namespace

void Encode(const Repository& v, std::string* out) {
  ByteWriter w(out, kRepositoryTag);
  w.Repo(v.ref);
  w.Str(v.full_name);
  w.Str(v.display_name);
  w.Str(v.description);
  w.Str(v.default_branch);
  w.Str(v.html_url);
}

Status Decode(std::string_view in, Repository* out) {
  ByteReader r(in, kRepositoryTag, "repository");
  r.Repo(&out->ref);
  r.Str(&out->full_name);
  r.Str(&out->display_name);
  r.Str(&out->description);
  r.Str(&out->default_branch);
  r.Str(&out->html_url);
  return r.Finish();
}

void Encode(const Issue& v, std::string* out) {
  ByteWriter w(out, kIssueTag);
  w.Repo(v.repo);
  w.Str(v.number);
  w.Str(v.platform_id);
  w.Str(v.title);
  w.Str(v.body);
  w.Byte(static_cast<std::uint8_t>(v.state));
  w.Str(v.state_detail);
  w.UserField(v.author);
  w.Strings(v.labels);
  w.Str(v.html_url);
  w.Time(v.created_at);
  w.Time(v.updated_at);
  w.Time(v.closed_at);
  w.Int(v.comment_count);
  w.Str(v.branch);
}

Status Decode(std::string_view in, Issue* out) {
  ByteReader r(in, kIssueTag, "issue");
  r.Repo(&out->repo);
  r.Str(&out->number);
  r.Str(&out->platform_id);
  r.Str(&out->title);
  r.Str(&out->body);
  r.Enum(&out->state, static_cast<std::uint8_t>(IssueState::kClosed));
  r.Str(&out->state_detail);
  r.UserField(&out->author);
  r.Strings(&out->labels);
  r.Str(&out->html_url);
  r.Time(&out->created_at);
  r.Time(&out->updated_at);
  r.Time(&out->closed_at);
  out->comment_count = r.Int();
  r.Str(&out->branch);
  return r.Finish();
}

void Encode(const PullRequest& v, std::string* out) {
  ByteWriter w(out, kPullTag);
  w.Repo(v.repo);
  w.Int(v.number);
  w.Str(v.platform_id);
  w.Str(v.title);
  w.Str(v.body);
  w.Byte(static_cast<std::uint8_t>(v.state));
  w.UserField(v.author);
  w.Strings(v.labels);
  w.Str(v.html_url);
  w.Time(v.created_at);
  w.Time(v.updated_at);
  w.Time(v.merged_at);
  w.Time(v.closed_at);
  w.Str(v.head_ref);
  w.Str(v.head_sha);
  w.Str(v.head_repo);
  w.Str(v.base_ref);
  w.Byte(!v.close_related_issue ? 0 : *v.close_related_issue ? 2 : 1);
  w.Str(v.merged_by);
}

Status Decode(std::string_view in, PullRequest* out) {
  ByteReader r(in, kPullTag, "pull request");
  r.Repo(&out->repo);
  out->number = r.Int();
  r.Str(&out->platform_id);
  r.Str(&out->title);
  r.Str(&out->body);
  r.Enum(&out->state, static_cast<std::uint8_t>(PullState::kMerged));
  r.UserField(&out->author);
  r.Strings(&out->labels);
  r.Str(&out->html_url);
  r.Time(&out->created_at);
  r.Time(&out->updated_at);
  r.Time(&out->merged_at);
  r.Time(&out->closed_at);
  r.Str(&out->head_ref);
  r.Str(&out->head_sha);
  r.Str(&out->head_repo);
  r.Str(&out->base_ref);
  std::uint8_t cri = 0;
  r.Enum(&cri, 2);
  out->close_related_issue.reset();
  if (cri != 0) out->close_related_issue = cri == 2;
  r.Str(&out->merged_by);
  return r.Finish();
}

void Encode(const Comment& v, std::string* out) {
  ByteWriter w(out, kCommentTag);
  w.Repo(v.repo);
  w.Byte(static_cast<std::uint8_t>(v.parent_kind));
  w.Str(v.parent_number);
  w.Str(v.id);
  w.UserField(v.author);
  w.Str(v.body);
  w.Str(v.kind);
  w.Str(v.path);
  w.Time(v.created_at);
  w.Time(v.updated_at);
}

Status Decode(std::string_view in, Comment* out) {
  ByteReader r(in, kCommentTag, "comment");
  r.Repo(&out->repo);
  r.Enum(&out->parent_kind, static_cast<std::uint8_t>(ParentKind::kPull));
  r.Str(&out->parent_number);
  r.Str(&out->id);
  r.UserField(&out->author);
  r.Str(&out->body);
  r.Str(&out->kind);
  r.Str(&out->path);
  r.Time(&out->created_at);
  r.Time(&out->updated_at);
  return r.Finish();
}

void Encode(const Commit& v, std::string* out) {
  ByteWriter w(out, kCommitTag);
  w.Repo(v.repo);
  w.Int(v.pr_number);
  w.Str(v.sha);
  w.Str(v.message);
  w.Str(v.author_name);
  w.Str(v.author_email);
  w.Str(v.author_login);
  w.Str(v.committer_name);
  w.Str(v.committer_email);
  w.Time(v.authored_at);
  w.Time(v.committed_at);
}

Status Decode(std::string_view in, Commit* out) {
  ByteReader r(in, kCommitTag, "commit");
  r.Repo(&out->repo);
  out->pr_number = r.Int();
  r.Str(&out->sha);
  r.Str(&out->message);
  r.Str(&out->author_name);
  r.Str(&out->author_email);
  r.Str(&out->author_login);
  r.Str(&out->committer_name);
  r.Str(&out->committer_email);
  r.Time(&out->authored_at);
  r.Time(&out->committed_at);
  return r.Finish();
}

void Encode(const FileChange& v, std::string* out) {
  ByteWriter w(out, kFileTag);
  w.Repo(v.repo);
  w.Int(v.pr_number);
  w.Str(v.filename);
  w.Str(v.previous_filename);
  w.Str(v.status);
  w.Int(v.additions);
  w.Int(v.deletions);
  w.Str(v.patch);
}

Status Decode(std::string_view in, FileChange* out) {
  ByteReader r(in, kFileTag, "file");
  r.Repo(&out->repo);
  out->pr_number = r.Int();
  r.Str(&out->filename);
  r.Str(&out->previous_filename);
  r.Str(&out->status);
  out->additions = r.Int();
  out->deletions = r.Int();
  r.Str(&out->patch);
  return r.Finish();
}

void Encode(const OperateLogEvent& v, std::string* out) {
  ByteWriter w(out, kOplogTag);
  w.Repo(v.repo);
  w.Byte(static_cast<std::uint8_t>(v.parent_kind));
  w.Str(v.parent_number);
  w.Str(v.id);
  w.Str(v.action_type);
  w.Str(v.action);
  w.Str(v.content);
  w.UserField(v.actor);
  w.Time(v.created_at);
}

Status Decode(std::string_view in, OperateLogEvent* out) {
  ByteReader r(in, kOplogTag, "operate log");
  r.Repo(&out->repo);
  r.Enum(&out->parent_kind, static_cast<std::uint8_t>(ParentKind::kPull));
  r.Str(&out->parent_number);
  r.Str(&out->id);
  r.Str(&out->action_type);
  r.Str(&out->action);
  r.Str(&out->content);
  r.UserField(&out->actor);
  r.Time(&out->created_at);
  return r.Finish();
}

void Encode(const PlatformLink& v, std::string* out) {
  ByteWriter w(out, kLinkTag);
  w.RefField(v.issue);
  w.RefField(v.pull);
  w.Str(v.source);
}

Status Decode(std::string_view in, PlatformLink* out) {
  ByteReader r(in, kLinkTag, "platform link");
  r.RefField(&out->issue);
  r.RefField(&out->pull);
  r.Str(&out->source);
  return r.Finish();
}

void Encode(const MentionRecord& v, std::string* out) {
  ByteWriter w(out, kMentionTag);
  w.RefField(v.target);
  w.RefField(v.source_item);
  w.Byte(static_cast<std::uint8_t>(v.source));
  w.Str(v.source_id);
  w.Byte(static_cast<std::uint8_t>(v.form));
  w.Byte(static_cast<std::uint8_t>(v.keyword));
  w.Byte(v.mirror_host ? 1 : 0);
  w.Str(v.text);
  w.Time(v.at);
}

Status Decode(std::string_view in, MentionRecord* out) {
  ByteReader r(in, kMentionTag, "mention");
  r.RefField(&out->target);
  r.RefField(&out->source_item);
  r.Enum(&out->source, static_cast<std::uint8_t>(MentionSource::kBranchName));
  r.Str(&out->source_id);
  r.Enum(&out->form, static_cast<std::uint8_t>(MentionForm::kUrl));
  r.Enum(&out->keyword, static_cast<std::uint8_t>(MentionKeyword::kRelating));
  std::uint8_t mirror = 0;
  r.Enum(&mirror, 1);
  out->mirror_host = mirror == 1;
  r.Str(&out->text);
  r.Time(&out->at);
  return r.Finish();
}

}  // namespace fixgraph::codec
