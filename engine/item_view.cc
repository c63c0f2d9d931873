#include "fixgraph/engine/item_view.h"

#include "fixgraph/engine/model_json.h"

namespace fixgraph {
namespace {

using nlohmann::json;

template <typename T>
json ArrayOf(const std::vector<T>& items) {
  json a = json::array();
  for (const T& v : items) a.push_back(ToJson(v));
  return a;
}

// Mentions of `target`, each with the state of the PR that holds it.
StatusOr<json> MentionedBy(const Store& store, const Ref& target) {
  std::vector<MentionRecord> rows;
  FG_RETURN_IF_ERROR(store.MentionsOf(target, &rows));
  json out = json::array();
  for (const MentionRecord& m : rows) {
    json j = ToJson(m);
    if (m.source_item.kind == RefKind::kPull) {
      auto pr = store.GetPull(m.source_item);
      if (pr.ok()) {
        j["source_title"] = pr->title;
        j["source_state"] = PullStateName(pr->state);
        j["source_merged_at"] = TimeToJson(pr->merged_at);
      } else if (!pr.status().IsNotFound()) {
        return pr.status();
      }
    } else if (m.source_item.kind == RefKind::kIssue) {
      auto issue = store.GetIssue(m.source_item);
      if (issue.ok()) {
        j["source_title"] = issue->title;
        j["source_state"] = IssueStateName(issue->state);
      } else if (!issue.status().IsNotFound()) {
        return issue.status();
      }
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

json ToJson(const MentionRecord& m) {
  return json{{"target", m.target.ToString()},
              {"source", m.source_item.ToString()},
              {"in", MentionSourceName(m.source)},
              {"source_id", m.source_id},
              {"form", MentionFormName(m.form)},
              {"keyword", MentionKeywordName(m.keyword)},
              {"mirror_host", m.mirror_host},
              {"text", m.text},
              {"at", TimeToJson(m.at)}};
}

json ToJson(const RepoStats& s) {
  return json{{"repo", s.repo.ToString()},
              {"issues",
               {{"open", s.issues_open},
                {"closed", s.issues_closed},
                {"total", s.issues_open + s.issues_closed}}},
              {"pulls",
               {{"merged", s.pulls_merged},
                {"open", s.pulls_open},
                {"closed", s.pulls_closed},
                {"total", s.pulls_merged + s.pulls_open + s.pulls_closed}}},
              {"comments", s.comments},
              {"commits", s.commits},
              {"files", s.files},
              {"operate_logs", s.operate_logs},
              {"platform_links", s.platform_links}};
}

StatusOr<json> BuildItemView(const Store& store, const Ref& ref) {
  json view;
  switch (ref.kind) {
    case RefKind::kDoc:
      return Status::InvalidArgument("doc references are served by `fixgraph docs`, not show");
    case RefKind::kRepo: {
      FG_ASSIGN_OR_RETURN(Repository repo, store.GetRepository(ref.repo));
      FG_ASSIGN_OR_RETURN(RepoStats stats, store.Stats(ref.repo));
      view = {{"kind", "repo"}, {"repository", ToJson(repo)}, {"stats", ToJson(stats)}};
      return view;
    }
    case RefKind::kIssue: {
      FG_ASSIGN_OR_RETURN(Issue issue, store.GetIssue(ref));
      view = {{"kind", "issue"}, {"issue", ToJson(issue)}};
      break;
    }
    case RefKind::kPull: {
      FG_ASSIGN_OR_RETURN(PullRequest pull, store.GetPull(ref));
      view = {{"kind", "pull"}, {"pull", ToJson(pull)}};
      std::vector<Commit> commits;
      std::vector<FileChange> files;
      FG_RETURN_IF_ERROR(store.ListCommits(ref, &commits));
      FG_RETURN_IF_ERROR(store.ListFiles(ref, &files));
      view["commits"] = ArrayOf(commits);
      view["files"] = ArrayOf(files);
      json mentions = json::array();
      for (const std::string* text : {&pull.title, &pull.body}) {
        for (const Mention& m : FindMentions(*text, pull.repo)) {
          mentions.push_back({{"target", m.target.ToString()},
                              {"form", MentionFormName(m.form)},
                              {"keyword", MentionKeywordName(m.keyword)},
                              {"text", m.text}});
        }
      }
      view["mentions"] = std::move(mentions);
      break;
    }
  }
  std::vector<Comment> comments;
  std::vector<OperateLogEvent> log;
  std::vector<PlatformLink> links;
  FG_RETURN_IF_ERROR(store.ListComments(ref, &comments));
  FG_RETURN_IF_ERROR(store.ListOperateLog(ref, &log));
  FG_RETURN_IF_ERROR(store.ListPlatformLinks(ref, &links));
  view["comments"] = ArrayOf(comments);
  view["operate_log"] = ArrayOf(log);
  view["platform_links"] = ArrayOf(links);
  FG_ASSIGN_OR_RETURN(view["mentioned_by"], MentionedBy(store, ref));
  return view;
}

}  // namespace fixgraph
