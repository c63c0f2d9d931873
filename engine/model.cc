#include "fixgraph/engine/model.h"

namespace fixgraph {

Ref Comment::parent() const {
  return parent_kind == ParentKind::kIssue ? Ref::Issue(repo, parent_number)
                                           : Ref{RefKind::kPull, repo, parent_number};
}

Ref OperateLogEvent::parent() const {
  return parent_kind == ParentKind::kIssue ? Ref::Issue(repo, parent_number)
                                           : Ref{RefKind::kPull, repo, parent_number};
}

const char* IssueStateName(IssueState s) { return s == IssueState::kOpen ? "open" : "closed"; }

const char* PullStateName(PullState s) {
  switch (s) {
    case PullState::kOpen:
      return "open";
    case PullState::kClosed:
      return "closed";
    case PullState::kMerged:
      return "merged";
  }
  return "unknown";
}

}  // namespace fixgraph
