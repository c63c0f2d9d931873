// RowBuilder: the bytes of record keys and secondary-index rows. Private to engine/.
//
// Contract: Key(record) returns the record's key in the "items"/"raw" families
// and Rows(record, key, emit) calls emit(row key, row value) for each row the
// record has in the "index" family (state, close/merge time, mentions found in
// its texts, the PR side of a platform link). The bytes are exactly those of
// store_keys.h's Join/Num/Time: the layout documented there is the on-disk
// format, so a change here is a schema change. Returned views are valid until
// the next call on the same builder. One builder per thread.
#pragma once

#include "record_codec.h"
#include "store_keys.h"

#include "fixgraph/engine/mentions.h"
#include "fixgraph/engine/model.h"
#include "fixgraph/engine/store.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace fixgraph::store_internal {

inline char ParentTag(ParentKind k) { return k == ParentKind::kIssue ? 'i' : 'p'; }

// Builds record keys and secondary-index rows in reused buffers: no string
// is allocated per key (the repository's text is kept between records). The
// bytes are those of store_keys.h's Join/Num/Time. Rows(record, key, emit)
// calls emit(key, value) for each index row of the record stored under `key`;
// the views are valid until the next call.
class RowBuilder {
 public:
  // The canonical text of `repo` (RepoRef::ToString), cached.
  const std::string& Repo(const RepoRef& repo) {
    if (!cached_ || repo.platform != repo_.platform || repo.owner != repo_.owner ||
        repo.name != repo_.name) {
      repo_ = repo;
      repo_text_ = repo.ToString();
      cached_ = true;
    }
    return repo_text_;
  }

  // Record keys (store_keys.h), into the builder's key buffer.
  std::string_view Key(const Repository& v) { return Start(&key_, keys::kRepoTag, v.ref); }
  std::string_view Key(const Issue& v) {
    Start(&key_, keys::kIssueTag, v.repo);
    Sep(&key_);
    keys::AppendNum(&key_, std::string_view(v.number));
    return key_;
  }
  std::string_view Key(const PullRequest& v) {
    Start(&key_, keys::kPullTag, v.repo);
    Sep(&key_);
    keys::AppendNum(&key_, v.number);
    return key_;
  }
  std::string_view Key(const Comment& v) {
    return Child(keys::kCommentTag, v.repo, v.parent_kind, v.parent_number, v.id);
  }
  std::string_view Key(const OperateLogEvent& v) {
    return Child(keys::kOplogTag, v.repo, v.parent_kind, v.parent_number, v.id);
  }
  std::string_view Key(const Commit& v) {
    return PullChild(keys::kCommitTag, v.repo, v.pr_number, v.sha);
  }
  std::string_view Key(const FileChange& v) {
    return PullChild(keys::kFileTag, v.repo, v.pr_number, v.filename);
  }
  std::string_view Key(const PlatformLink& v) {
    Start(&key_, keys::kLinkTag, v.issue.repo);
    Sep(&key_);
    keys::AppendNum(&key_, std::string_view(v.issue.number));
    Sep(&key_);
    key_ += v.pull.ToString();
    Sep(&key_);
    key_ += v.source;
    return key_;
  }

  template <typename Emit>
  void Rows(const Issue& v, std::string_view key, Emit&& emit) {
    const std::string& repo = Repo(v.repo);
    row_.assign(1, keys::kStateIndexTag);
    Part(&row_, repo);
    Part(&row_, "i");
    Sep(&row_);
    keys::AppendNum(&row_, std::string_view(v.number));
    emit(std::string_view(row_), std::string_view(v.state == IssueState::kClosed ? "c" : "o"));
    if (v.state == IssueState::kClosed && v.closed_at) {
      row_.assign(1, keys::kClosedIndexTag);
      Part(&row_, repo);
      Sep(&row_);
      keys::AppendTime(&row_, *v.closed_at);
      Sep(&row_);
      keys::AppendNum(&row_, std::string_view(v.number));
      emit(std::string_view(row_), std::string_view());
    }
    if (v.title.empty() && v.body.empty()) return;  // "\n" holds no mention
    text_.assign(v.title);
    text_ += '\n';
    text_ += v.body;
    Mentions(text_, v.repo, v.ref(), MentionSource::kIssueText, key, "", v.created_at, emit);
  }
  template <typename Emit>
  void Rows(const PullRequest& v, std::string_view key, Emit&& emit) {
    const std::string& repo = Repo(v.repo);
    const char* state = v.state == PullState::kMerged   ? "m"
                        : v.state == PullState::kClosed ? "c"
                                                        : "o";
    row_.assign(1, keys::kStateIndexTag);
    Part(&row_, repo);
    Part(&row_, "p");
    Sep(&row_);
    keys::AppendNum(&row_, v.number);
    emit(std::string_view(row_), std::string_view(state));
    if (v.merged() && v.merged_at) {
      row_.assign(1, keys::kMergedIndexTag);
      Part(&row_, repo);
      Sep(&row_);
      keys::AppendTime(&row_, *v.merged_at);
      Sep(&row_);
      keys::AppendNum(&row_, v.number);
      emit(std::string_view(row_), std::string_view());
    }
    Ref self = v.ref();
    Mentions(v.title, v.repo, self, MentionSource::kPullTitle, key, "", v.created_at, emit);
    Mentions(v.body, v.repo, self, MentionSource::kPullBody, key, "", v.created_at, emit);
  }
  template <typename Emit>
  void Rows(const Comment& v, std::string_view key, Emit&& emit) {
    if (v.body.empty()) return;
    Mentions(v.body, v.repo, v.parent(),
             v.parent_kind == ParentKind::kIssue ? MentionSource::kIssueComment
                                                 : MentionSource::kPullComment,
             key, v.id, v.created_at, emit);
  }
  template <typename Emit>
  void Rows(const Commit& v, std::string_view key, Emit&& emit) {
    if (v.message.empty()) return;
    Mentions(v.message, v.repo, Ref::Pull(v.repo, v.pr_number), MentionSource::kCommitMessage, key,
             v.sha, v.committed_at ? v.committed_at : v.authored_at, emit);
  }
  template <typename Emit>
  void Rows(const PlatformLink& v, std::string_view, Emit&& emit) {
    codec::Encode(v, &value_);
    row_.assign(1, keys::kLinkIndexTag);
    Part(&row_, v.pull.ToString());
    Part(&row_, v.issue.ToString());
    Part(&row_, v.source);
    emit(std::string_view(row_), std::string_view(value_));
  }
  template <typename Emit>
  void Rows(const FileChange&, std::string_view, Emit&&) {}
  template <typename Emit>
  void Rows(const OperateLogEvent&, std::string_view, Emit&&) {}
  template <typename Emit>
  void Rows(const Repository&, std::string_view, Emit&&) {}

 private:
  static void Sep(std::string* k) { k->push_back(keys::kSep); }
  static void Part(std::string* k, std::string_view p) {
    k->push_back(keys::kSep);
    k->append(p);
  }
  std::string_view Start(std::string* k, char tag, const RepoRef& repo) {
    const std::string& r = Repo(repo);
    k->assign(1, tag);
    Part(k, r);
    return *k;
  }
  // tag \0 repo \0 i|p \0 num \0 id
  std::string_view Child(char tag, const RepoRef& repo, ParentKind kind, std::string_view parent,
                         std::string_view id) {
    Start(&key_, tag, repo);
    Sep(&key_);
    key_ += ParentTag(kind);
    Sep(&key_);
    keys::AppendNum(&key_, parent);
    Sep(&key_);
    keys::AppendNum(&key_, id);
    return key_;
  }
  // tag \0 repo \0 pr number \0 part
  std::string_view PullChild(char tag, const RepoRef& repo, std::int64_t pr,
                             std::string_view part) {
    Start(&key_, tag, repo);
    Sep(&key_);
    keys::AppendNum(&key_, pr);
    Part(&key_, part);
    return key_;
  }

  template <typename Emit>
  void Mentions(std::string_view text, const RepoRef& context, const Ref& source_item,
                MentionSource source, std::string_view source_key, std::string_view source_id,
                OptTime at, Emit& emit) {
    if (text.empty()) return;
    for (Mention& m : FindMentions(text, context)) {
      if (m.target == source_item) continue;  // an item naming itself
      mention_.target = std::move(m.target);
      mention_.source_item = source_item;
      mention_.source = source;
      mention_.source_id.assign(source_id);
      mention_.form = m.form;
      mention_.keyword = m.keyword;
      mention_.mirror_host = m.mirror_host;
      mention_.text = std::move(m.text);
      mention_.at = at;
      codec::Encode(mention_, &value_);
      row_.assign(1, keys::kMentionIndexTag);
      Part(&row_, mention_.target.ToString());
      Part(&row_, source_key);
      Sep(&row_);
      row_ += static_cast<char>('0' + static_cast<int>(source));
      Sep(&row_);
      keys::AppendTime(&row_, static_cast<std::int64_t>(m.offset));
      emit(std::string_view(row_), std::string_view(value_));
    }
  }

  bool cached_ = false;
  RepoRef repo_;
  std::string repo_text_;
  std::string key_;    // record keys
  std::string row_;    // index row keys
  std::string value_;  // index row values
  std::string text_;   // an issue's title and body
  MentionRecord mention_;
};

}  // namespace fixgraph::store_internal
