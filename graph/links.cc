#include "fixgraph/graph/links.h"

#include "fixgraph/engine/model_json.h"

#include <array>
#include <cmath>

namespace fixgraph::graph {
namespace {

using nlohmann::json;

constexpr std::array<const char*, 10> kEvidenceNames = {
    "close_at_merge", "closing_keyword", "explicit_url", "explicit_ref",  "platform_link",
    "branch_name",    "comment_ref",     "title_match",  "patch_overlap", "verify_comment_close"};
constexpr std::array<const char*, 4> kTierNames = {"A", "B", "C", "D"};
constexpr std::array<const char*, 8> kResolutionNames = {
    "fixed", "fixed_elsewhere", "answered", "duplicate", "wontfix", "stale", "open", "unknown"};
constexpr std::array<const char*, 6> kFlagNames = {
    "fix_before_issue", "close_lag", "false_lead", "backport", "cross_platform", "traceless"};

template <typename E, size_t N>
StatusOr<E> ParseName(std::string_view name, const std::array<const char*, N>& names,
                      const char* what) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<E>(i);
  return Status::InvalidArgument("unknown " + std::string(what) + " '" + std::string(name) + "'");
}

Status TimeField(const json& j, const char* field, OptTime* out) {
  out->reset();
  if (!j.contains(field) || j[field].is_null()) return Status::OK();
  if (!j[field].is_string()) return Status::Corruption(std::string(field) + ": expected a time");
  auto t = ParseTimestamp(j[field].get<std::string>());
  if (!t.ok()) return Status::Corruption(std::string(field) + ": " + t.status().message());
  *out = *t;
  return Status::OK();
}

Status StringField(const json& j, const char* field, std::string* out, bool required) {
  if (!j.contains(field) || j[field].is_null()) {
    if (required) return Status::Corruption(std::string("missing field ") + field);
    out->clear();
    return Status::OK();
  }
  if (!j[field].is_string()) return Status::Corruption(std::string(field) + ": expected a string");
  *out = j[field].get<std::string>();
  return Status::OK();
}

// Absent or null: false.
Status BoolField(const json& j, const char* field, bool* out) {
  *out = false;
  if (!j.contains(field) || j[field].is_null()) return Status::OK();
  if (!j[field].is_boolean())
    return Status::Corruption(std::string(field) + ": expected a boolean");
  *out = j[field].get<bool>();
  return Status::OK();
}

Status EvidenceFromJson(const json& j, Evidence* out) {
  if (!j.is_object()) return Status::Corruption("evidence: expected an object");
  std::string kind;
  FG_RETURN_IF_ERROR(StringField(j, "kind", &kind, true));
  auto k = ParseEvidenceKind(kind);
  if (!k.ok()) return Status::Corruption(k.status().message());
  out->kind = *k;
  FG_RETURN_IF_ERROR(StringField(j, "detail", &out->detail, false));
  out->delta_s.reset();
  if (j.contains("delta_s") && !j["delta_s"].is_null()) {
    if (!j["delta_s"].is_number_integer())
      return Status::Corruption("delta_s: expected an integer");
    out->delta_s = j["delta_s"].get<std::int64_t>();
  }
  return Status::OK();
}

Status FixFromJson(const json& j, FixLink* out) {
  if (!j.is_object()) return Status::Corruption("fix: expected an object");
  FG_RETURN_IF_ERROR(StringField(j, "pr", &out->pr, true));
  std::string tier;
  FG_RETURN_IF_ERROR(StringField(j, "tier", &tier, true));
  auto t = ParseTier(tier);
  if (!t.ok()) return Status::Corruption(t.status().message());
  out->tier = *t;
  if (!j.contains("confidence") || !j["confidence"].is_number())
    return Status::Corruption("confidence: expected a number");
  out->confidence = j["confidence"].get<double>();
  out->evidence.clear();
  if (j.contains("evidence")) {
    if (!j["evidence"].is_array()) return Status::Corruption("evidence: expected an array");
    for (const json& e : j["evidence"]) {
      Evidence ev;
      FG_RETURN_IF_ERROR(EvidenceFromJson(e, &ev));
      out->evidence.push_back(std::move(ev));
    }
  }
  FG_RETURN_IF_ERROR(BoolField(j, "in_store", &out->in_store));
  FG_RETURN_IF_ERROR(TimeField(j, "merged_at", &out->merged_at));
  FG_RETURN_IF_ERROR(TimeField(j, "created_at", &out->created_at));
  FG_RETURN_IF_ERROR(StringField(j, "state", &out->state, false));
  FG_RETURN_IF_ERROR(StringField(j, "base_ref", &out->base_ref, false));
  FG_RETURN_IF_ERROR(StringField(j, "title", &out->title, false));
  FG_RETURN_IF_ERROR(StringField(j, "backport_of", &out->backport_of, false));
  FG_RETURN_IF_ERROR(BoolField(j, "mirror_host", &out->mirror_host));
  return Status::OK();
}

Status StringList(const json& j, const char* field, std::vector<std::string>* out) {
  out->clear();
  if (!j.contains(field) || j[field].is_null()) return Status::OK();
  if (!j[field].is_array()) return Status::Corruption(std::string(field) + ": expected an array");
  for (const json& v : j[field]) {
    if (!v.is_string()) return Status::Corruption(std::string(field) + ": expected strings");
    out->push_back(v.get<std::string>());
  }
  return Status::OK();
}

}  // namespace

const char* EvidenceKindName(EvidenceKind k) { return kEvidenceNames[static_cast<size_t>(k)]; }
const char* TierName(Tier t) { return kTierNames[static_cast<size_t>(t)]; }
const char* ResolutionName(Resolution r) { return kResolutionNames[static_cast<size_t>(r)]; }
const char* FlagName(Flag f) { return kFlagNames[static_cast<size_t>(f)]; }

StatusOr<EvidenceKind> ParseEvidenceKind(std::string_view name) {
  return ParseName<EvidenceKind>(name, kEvidenceNames, "evidence kind");
}
StatusOr<Tier> ParseTier(std::string_view name) {
  return ParseName<Tier>(name, kTierNames, "tier");
}
StatusOr<Resolution> ParseResolution(std::string_view name) {
  return ParseName<Resolution>(name, kResolutionNames, "resolution");
}
StatusOr<Flag> ParseFlag(std::string_view name) {
  return ParseName<Flag>(name, kFlagNames, "flag");
}

bool FixLink::Has(EvidenceKind k) const {
  for (const Evidence& e : evidence)
    if (e.kind == k) return true;
  return false;
}

bool IssueLinks::HasFlag(Flag f) const {
  for (Flag g : flags)
    if (g == f) return true;
  return false;
}

const FixLink* IssueLinks::FindFix(std::string_view pr) const {
  for (const FixLink& f : fixes)
    if (f.pr == pr) return &f;
  return nullptr;
}

std::vector<const FixLink*> IssueLinks::Likely() const {
  std::vector<const FixLink*> out;
  for (const FixLink& f : fixes)
    if (!f.Trusted()) out.push_back(&f);
  for (const FixLink& f : suggested) out.push_back(&f);
  std::stable_sort(out.begin(), out.end(), [](const FixLink* a, const FixLink* b) {
    return a->confidence > b->confidence;
  });
  return out;
}

json ToJson(const Evidence& v) {
  json j{{"kind", EvidenceKindName(v.kind)}, {"detail", v.detail}};
  if (v.delta_s) j["delta_s"] = *v.delta_s;
  return j;
}

json ToJson(const FixLink& v) {
  json ev = json::array();
  for (const Evidence& e : v.evidence) ev.push_back(ToJson(e));
  // Rounded so that equal inputs print equal bytes.
  double conf = static_cast<double>(std::llround(v.confidence * 100)) / 100;
  return json{{"pr", v.pr},
              {"tier", TierName(v.tier)},
              {"confidence", conf},
              {"evidence", std::move(ev)},
              {"in_store", v.in_store},
              {"merged_at", TimeToJson(v.merged_at)},
              {"created_at", TimeToJson(v.created_at)},
              {"state", v.state},
              {"base_ref", v.base_ref},
              {"title", v.title},
              {"backport_of", v.backport_of.empty() ? json(nullptr) : json(v.backport_of)},
              {"mirror_host", v.mirror_host}};
}

json ToJson(const Answer& v) {
  return json{{"comment_id", v.comment_id},
              {"author", v.author},
              {"created_at", TimeToJson(v.created_at)},
              {"text", v.text},
              {"kind", v.kind}};
}

json ToJson(const IssueLinks& v) {
  json fixes = json::array(), suggested = json::array(), flags = json::array(),
       evidence = json::array();
  // Trusted links (A-C) under "fixes"; the likely ones, tier D, under
  // "suggested", most probable first (links.h).
  for (const FixLink& f : v.fixes)
    if (f.Trusted()) fixes.push_back(ToJson(f));
  for (const FixLink* f : v.Likely()) suggested.push_back(ToJson(*f));
  for (Flag f : v.flags) flags.push_back(FlagName(f));
  for (const Evidence& e : v.evidence) evidence.push_back(ToJson(e));
  return json{{"issue", v.issue.ToString()},
              {"state", IssueStateName(v.state)},
              {"resolution", ResolutionName(v.resolution)},
              {"fixes", std::move(fixes)},
              {"suggested", std::move(suggested)},
              {"flags", std::move(flags)},
              {"evidence", std::move(evidence)},
              {"answer", v.answer ? ToJson(*v.answer) : json(nullptr)},
              {"duplicate_of", v.duplicate_of ? json(v.duplicate_of->ToString()) : json(nullptr)},
              {"false_leads", v.false_leads},
              {"notes", v.notes},
              {"created_at", TimeToJson(v.created_at)},
              {"closed_at", TimeToJson(v.closed_at)}};
}

Status FromJson(const json& j, IssueLinks* out) {
  if (!j.is_object()) return Status::Corruption("links record: expected an object");
  std::string text;
  FG_RETURN_IF_ERROR(StringField(j, "issue", &text, true));
  auto ref = ParseRef(text);
  if (!ref.ok() || ref->kind != RefKind::kIssue)
    return Status::Corruption("issue: expected an issue reference, got '" + text + "'");
  out->issue = *ref;
  FG_RETURN_IF_ERROR(StringField(j, "state", &text, true));
  if (text != "open" && text != "closed") return Status::Corruption("state: '" + text + "'");
  out->state = text == "open" ? IssueState::kOpen : IssueState::kClosed;
  FG_RETURN_IF_ERROR(StringField(j, "resolution", &text, true));
  auto res = ParseResolution(text);
  if (!res.ok()) return Status::Corruption(res.status().message());
  out->resolution = *res;
  for (const char* field : {"fixes", "suggested"}) {
    std::vector<FixLink>& list = std::string_view(field) == "fixes" ? out->fixes : out->suggested;
    list.clear();
    if (!j.contains(field)) continue;
    if (!j[field].is_array()) return Status::Corruption(std::string(field) + ": expected an array");
    for (const json& f : j[field]) {
      FixLink fix;
      FG_RETURN_IF_ERROR(FixFromJson(f, &fix).WithContext(field));
      list.push_back(std::move(fix));
    }
  }
  std::vector<std::string> names;
  FG_RETURN_IF_ERROR(StringList(j, "flags", &names));
  out->flags.clear();
  for (const std::string& n : names) {
    auto f = ParseFlag(n);
    if (!f.ok()) return Status::Corruption(f.status().message());
    out->flags.push_back(*f);
  }
  out->evidence.clear();
  if (j.contains("evidence") && j["evidence"].is_array()) {
    for (const json& e : j["evidence"]) {
      Evidence ev;
      FG_RETURN_IF_ERROR(EvidenceFromJson(e, &ev));
      out->evidence.push_back(std::move(ev));
    }
  }
  out->answer.reset();
  if (j.contains("answer") && !j["answer"].is_null()) {
    const json& a = j["answer"];
    if (!a.is_object()) return Status::Corruption("answer: expected an object");
    Answer ans;
    FG_RETURN_IF_ERROR(StringField(a, "comment_id", &ans.comment_id, false));
    FG_RETURN_IF_ERROR(StringField(a, "author", &ans.author, false));
    FG_RETURN_IF_ERROR(TimeField(a, "created_at", &ans.created_at));
    FG_RETURN_IF_ERROR(StringField(a, "text", &ans.text, false));
    FG_RETURN_IF_ERROR(StringField(a, "kind", &ans.kind, false));
    out->answer = std::move(ans);
  }
  out->duplicate_of.reset();
  FG_RETURN_IF_ERROR(StringField(j, "duplicate_of", &text, false));
  if (!text.empty()) {
    auto d = ParseRef(text);
    if (!d.ok()) return Status::Corruption("duplicate_of: " + d.status().message());
    out->duplicate_of = *d;
  }
  FG_RETURN_IF_ERROR(StringList(j, "false_leads", &out->false_leads));
  FG_RETURN_IF_ERROR(StringList(j, "notes", &out->notes));
  FG_RETURN_IF_ERROR(TimeField(j, "created_at", &out->created_at));
  FG_RETURN_IF_ERROR(TimeField(j, "closed_at", &out->closed_at));
  return Status::OK();
}

}  // namespace fixgraph::graph
