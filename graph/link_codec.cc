#include "link_codec.h"

#include "fixgraph/engine/byte_codec.h"

#include <nlohmann/json.hpp>

namespace fixgraph::graph {
namespace {

constexpr char kLinksTag = 'L';
constexpr char kPullLinksTag = 'P';

constexpr std::uint8_t kMaxEvidenceKind =
    static_cast<std::uint8_t>(EvidenceKind::kVerifyCommentClose);
constexpr std::uint8_t kMaxTier = static_cast<std::uint8_t>(Tier::kD);
constexpr std::uint8_t kMaxResolution = static_cast<std::uint8_t>(Resolution::kUnknown);
constexpr std::uint8_t kMaxFlag = static_cast<std::uint8_t>(Flag::kTraceless);
constexpr std::uint8_t kMaxState = static_cast<std::uint8_t>(IssueState::kClosed);

void Put(ByteWriter& w, const Evidence& e) {
  w.Byte(static_cast<std::uint8_t>(e.kind));
  w.Str(e.detail);
  w.Time(e.delta_s);
}

void Get(ByteReader& r, Evidence* e) {
  r.Enum(&e->kind, kMaxEvidenceKind);
  r.Str(&e->detail);
  r.Time(&e->delta_s);
}

void PutEvidence(ByteWriter& w, const std::vector<Evidence>& v) {
  w.Varint(v.size());
  for (const Evidence& e : v) Put(w, e);
}

void GetEvidence(ByteReader& r, std::vector<Evidence>* v) {
  v->resize(r.Count());
  for (Evidence& e : *v) Get(r, &e);
}

void Put(ByteWriter& w, const FixLink& f) {
  w.Str(f.pr);
  w.Byte(static_cast<std::uint8_t>(f.tier));
  w.Double(f.confidence);
  PutEvidence(w, f.evidence);
  w.Byte(f.in_store ? 1 : 0);
  w.Time(f.merged_at);
  w.Time(f.created_at);
  w.Str(f.state);
  w.Str(f.base_ref);
  w.Str(f.title);
  w.Str(f.backport_of);
  w.Byte(f.mirror_host ? 1 : 0);
}

void Get(ByteReader& r, FixLink* f) {
  r.Str(&f->pr);
  r.Enum(&f->tier, kMaxTier);
  f->confidence = r.Double();
  GetEvidence(r, &f->evidence);
  f->in_store = r.Bool();
  r.Time(&f->merged_at);
  r.Time(&f->created_at);
  r.Str(&f->state);
  r.Str(&f->base_ref);
  r.Str(&f->title);
  r.Str(&f->backport_of);
  f->mirror_host = r.Bool();
}

}  // namespace

void EncodeLinks(const IssueLinks& v, std::string* out) {
  ByteWriter w(out, kLinksTag);
  w.RefField(v.issue);
  w.Byte(static_cast<std::uint8_t>(v.state));
  w.Time(v.created_at);
  w.Time(v.closed_at);
  w.Byte(static_cast<std::uint8_t>(v.resolution));
  w.Varint(v.fixes.size());
  for (const FixLink& f : v.fixes) Put(w, f);
  w.Varint(v.flags.size());
  for (Flag f : v.flags) w.Byte(static_cast<std::uint8_t>(f));
  PutEvidence(w, v.evidence);
  w.Byte(v.answer ? 1 : 0);
  if (v.answer) {
    w.Str(v.answer->comment_id);
    w.Str(v.answer->author);
    w.Time(v.answer->created_at);
    w.Str(v.answer->text);
    w.Str(v.answer->kind);
  }
  w.Byte(v.duplicate_of ? 1 : 0);
  if (v.duplicate_of) w.RefField(*v.duplicate_of);
  w.Strings(v.false_leads);
  w.Strings(v.notes);
  // Added after the first binary form: a record that ends before it has none.
  w.Varint(v.suggested.size());
  for (const FixLink& f : v.suggested) Put(w, f);
}

Status DecodeLinks(std::string_view in, IssueLinks* out) {
  if (!in.empty() && in.front() == '{') {  // written by a build before the binary form
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return Status::Corruption("links record is not JSON");
    *out = IssueLinks();
    return FromJson(j, out);
  }
  ByteReader r(in, kLinksTag, "links");
  r.RefField(&out->issue);
  r.Enum(&out->state, kMaxState);
  r.Time(&out->created_at);
  r.Time(&out->closed_at);
  r.Enum(&out->resolution, kMaxResolution);
  out->fixes.resize(r.Count());
  for (FixLink& f : out->fixes) Get(r, &f);
  out->flags.resize(r.Count());
  for (Flag& f : out->flags) r.Enum(&f, kMaxFlag);
  GetEvidence(r, &out->evidence);
  out->answer.reset();
  if (r.Bool()) {
    Answer& a = out->answer.emplace();
    r.Str(&a.comment_id);
    r.Str(&a.author);
    r.Time(&a.created_at);
    r.Str(&a.text);
    r.Str(&a.kind);
  }
  out->duplicate_of.reset();
  if (r.Bool()) r.RefField(&out->duplicate_of.emplace());
  r.Strings(&out->false_leads);
  r.Strings(&out->notes);
  out->suggested.clear();
  if (!r.AtEnd()) {
    out->suggested.resize(r.Count());
    for (FixLink& f : out->suggested) Get(r, &f);
  }
  FG_RETURN_IF_ERROR(r.Finish());
  if (out->issue.kind != RefKind::kIssue) return Status::Corruption("links record: not an issue");
  return Status::OK();
}

void EncodePullLinks(const std::set<std::string>& issues, std::string* out) {
  ByteWriter w(out, kPullLinksTag);
  w.Varint(issues.size());
  for (const std::string& s : issues) w.Str(s);
}

Status DecodePullLinks(std::string_view in, std::set<std::string>* out) {
  out->clear();
  if (!in.empty() && in.front() == '[') {  // written by a build before the binary form
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_array()) return Status::Corruption("pull_links record is not a JSON array");
    for (const nlohmann::json& s : j) {
      if (!s.is_string()) return Status::Corruption("pull_links record: expected strings");
      out->insert(s.get<std::string>());
    }
    return Status::OK();
  }
  ByteReader r(in, kPullLinksTag, "pull_links");
  size_t n = r.Count();
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    r.Str(&s);
    out->insert(s);
  }
  return r.Finish();
}

}  // namespace fixgraph::graph
