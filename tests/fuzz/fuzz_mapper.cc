// libFuzzer harness: one platform's mapper (FUZZ_PLATFORM: gitcode, gitee or
// github), every record kind, on any JSON value the reader accepts. The
// mappers must return a Status for any shape, never crash or throw.
#include "fixgraph/engine/model.h"
#include "fixgraph/ingest/json_reader.h"
#include "fixgraph/ingest/mapper.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

using namespace fixgraph;
using fixgraph::ingest::JsonDoc;

#ifndef FUZZ_PLATFORM
#error "FUZZ_PLATFORM must name the platform"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Platform platform = *ParsePlatform(FUZZ_PLATFORM);
  static const std::unique_ptr<ingest::Mapper> mapper = ingest::NewMapper(platform);
  std::string_view text(reinterpret_cast<const char*>(data), size);
  JsonDoc doc;
  if (!doc.Parse(text).ok()) return 0;
  RepoRef repo{platform, "owner", "repo"};
  Ref issue = Ref::Issue(repo, "7");
  Ref pull = Ref::Pull(repo, 8);
  // Each element of an array is a record, as in a dump file; else the value.
  auto map_all = [&](const ingest::JsonValue& v) {
    Repository r;
    (void)mapper->Map(v, repo, &r);
    Issue i;
    (void)mapper->Map(v, repo, &i);
    PullRequest p;
    (void)mapper->Map(v, repo, &p);
    Comment c;
    (void)mapper->Map(v, issue, &c);
    (void)mapper->Map(v, pull, &c);
    Commit k;
    (void)mapper->Map(v, pull, &k);
    FileChange f;
    (void)mapper->Map(v, pull, &f);
    OperateLogEvent e;
    (void)mapper->Map(v, issue, &e);
    (void)mapper->Map(v, pull, &e);
    (void)mapper->IsPullInList(v);
    std::int64_t n = 0;
    (void)mapper->LinkedPullNumber(v, &n);
    std::string number;
    (void)mapper->LinkedIssueNumber(v, &number);
  };
  if (doc.root().is_array()) {
    doc.root().ForEachElement(map_all);
  } else {
    map_all(doc.root());
  }
  // Sync's path: the same records from nlohmann values.
  nlohmann::json j;
  if (!ingest::ParseJsonLimited(text, &j).ok()) return 0;
  Issue i;
  (void)mapper->MapIssue(j, repo, &i);
  PullRequest p;
  (void)mapper->MapPull(j, repo, &p);
  Comment c;
  (void)mapper->MapComment(j, issue, &c);
  OperateLogEvent e;
  (void)mapper->MapOperateLog(j, pull, &e);
  Commit k;
  (void)mapper->MapCommit(j, pull, &k);
  FileChange f;
  (void)mapper->MapFile(j, pull, &f);
  Repository r;
  (void)mapper->MapRepository(j, repo, &r);
  return 0;
}
