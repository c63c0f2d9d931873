// The field mapping shared by the three platforms; each platform's mapper
// (gitcode_mapper.cc, gitee_mapper.cc, github_mapper.cc) overrides the hooks
// where its API differs. Private to ingest/.
#pragma once

#include "json_fields.h"

#include "fixgraph/ingest/mapper.h"

namespace fixgraph::ingest {

class BaseMapper : public Mapper {
 public:
  Status Map(const JsonValue& j, const RepoRef& repo, Repository* out) const override;
  Status Map(const JsonValue& j, const RepoRef& repo, Issue* out) const override;
  Status Map(const JsonValue& j, const RepoRef& repo, PullRequest* out) const override;
  Status Map(const JsonValue& j, const Ref& parent, Comment* out) const override;
  Status Map(const JsonValue& j, const Ref& pull, Commit* out) const override;
  Status Map(const JsonValue& j, const Ref& pull, FileChange* out) const override;
  Status Map(const JsonValue& j, const Ref& parent, OperateLogEvent* out) const override;
  bool IsPullInList(const JsonValue&) const override { return false; }

 protected:
  // The issue's close time. Default: finished_at, then closed_at.
  virtual void IssueClosedAt(Fields& f, OptTime* out) const;
  // Platform-specific extras after the common issue/PR fields are read.
  virtual void IssueExtras(Fields&, Issue*) const {}
  virtual void PullExtras(Fields&, PullRequest*) const {}
};

// Longest patch text kept in a mapped FileChange (the raw payload keeps all).
inline constexpr size_t kMaxPatchBytes = size_t{64} * 1024;

}  // namespace fixgraph::ingest
