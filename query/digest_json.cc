// Digest JSON: ToJson and the streamed RenderJson (digest.h).
#include "digest_render.h"
#include "digest_text.h"

#include "fixgraph/engine/time.h"
#include "fixgraph/query/digest.h"

#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::query {

namespace {

namespace dt = digest_text;
using nlohmann::json;

// One repository's entry of the "repos" array.
json CaseJson(const Digest& d, const DigestRepo& r, const DigestCase& c) {
  json cj = graph::ToJson(c.links);
  for (const char* list : {"fixes", "suggested"}) {
    for (json& f : cj[list]) {
      const std::string pr = f["pr"].get<std::string>();
      f["short"] = dt::ShortPr(pr, r.repo);
      auto url = c.pr_urls.find(pr);
      f["url"] = url == c.pr_urls.end() ? std::string() : url->second;
    }
  }
  cj["number"] = c.number;
  cj["title"] = c.title;
  cj["url"] = c.url;
  cj["problem"] = c.problem;
  cj["tier"] = c.tier;
  cj["fix_note"] = c.note_pr.empty()
                       ? json(nullptr)
                       : json{{"pr", c.note_pr}, {"cause", c.cause}, {"change", c.change}};
  cj["summary"] = {{"zh", CaseSummary(d, c, Lang::kZh)}, {"en", CaseSummary(d, c, Lang::kEn)}};
  return cj;
}

// One repository's entry of the "repos" array; its cases too when with_cases.
json RepoJson(const Digest& d, const DigestRepo& r, bool with_cases) {
  json cases = json::array();
  if (with_cases)
    for (const DigestCase& c : r.cases) cases.push_back(CaseJson(d, r, c));
  return {{"repo", r.repo.ToString()},
          {"name", r.name},
          {"role", r.role},
          {"role_text", {{"zh", RepoRole(r, Lang::kZh)}, {"en", RepoRole(r, Lang::kEn)}}},
          {"url", r.url},
          {"cases", std::move(cases)}};
}

// Appends `text` with `spaces` more spaces at the start of each of its lines.
void AppendIndented(std::string_view text, size_t spaces, std::string* out) {
  const std::string pad(spaces, ' ');
  *out += pad;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string_view::npos; start = nl + 1) {
    out->append(text, start, nl + 1 - start);
    *out += pad;
  }
  out->append(text, start);
}

// `doc`, printed by dump(2), with the empty array of member `key` at depth
// `indent` filled with `items`: the elements' text, already indented to the
// element depth and joined by ",\n", as dump(2) prints a non-empty array.
StatusOr<std::string> FillArray(const std::string& doc, const std::string& key, size_t indent,
                                const std::string& items) {
  // (Built by appends: GCC 12 warns falsely (-Wrestrict) on "\n" + std::string here.)
  std::string slot(1, '\n');
  slot.append(indent, ' ');
  slot += '"';
  slot += key;
  slot += "\": []";
  size_t at = doc.find(slot);
  if (at == std::string::npos) return Status::Internal("digest JSON: no \"" + key + "\" array");
  if (items.empty()) return doc;
  std::string out;
  out.reserve(doc.size() + items.size() + indent + 8);
  out.append(doc, 0, at + slot.size() - 1);  // up to and without the ']'
  out += "\n";
  out += items;
  out += '\n';
  out.append(indent, ' ');
  out += ']';
  out.append(doc, at + slot.size(), std::string::npos);
  return out;
}

// RepoJson(d, r, true).dump(2), one case tree at a time.
StatusOr<std::string> RepoJsonText(const Digest& d, const DigestRepo& r) {
  std::string cases;
  for (size_t i = 0; i < r.cases.size(); ++i) {
    if (i > 0) cases += ",\n";
    AppendIndented(CaseJson(d, r, r.cases[i]).dump(2), 4, &cases);
  }
  return FillArray(RepoJson(d, r, /*with_cases=*/false).dump(2), "cases", 2, cases);
}

// The document; "repos" holds the repositories' entries when with_repos,
// else an empty array.
json DigestJson(const Digest& d, bool with_repos) {
  json j;
  j["version"] = 1;
  json sel;
  json repos = json::array();
  for (const RepoRef& r : d.options.repos) repos.push_back(r.ToString());
  sel["repos"] = repos;
  sel["org"] = d.options.org;
  sel["since"] = d.options.since ? FormatUtc(*d.options.since) : "";
  sel["until"] = d.options.until ? FormatUtc(*d.options.until) : "";
  sel["min_tier"] = d.options.rules.min_tier;
  sel["as_of"] = d.as_of;
  j["selection"] = sel;
  json overview = json::array();
  json rj = json::array();
  for (const DigestRepo& r : d.repos) {
    overview.push_back(
        {{"repo", r.repo.ToString()},
         {"name", r.name},
         {"role", r.role},
         {"role_text", {{"zh", RepoRole(r, Lang::kZh)}, {"en", RepoRole(r, Lang::kEn)}}},
         {"included", r.cases.size()}});
    if (with_repos) rj.push_back(RepoJson(d, r, /*with_cases=*/true));
  }
  j["overview"] = overview;
  j["repos"] = rj;
  json themes = json::array();
  for (const DigestTheme& t : d.themes)
    themes.push_back({{"id", t.id},
                      {"terms", t.terms},
                      {"repos", t.repos},
                      {"issues", t.issues},
                      {"via", t.via}});
  j["themes"] = themes;
  json trouble = json::array();
  for (const DigestTroubleRow& r : d.troubleshooting)
    trouble.push_back(
        {{"symptom", r.symptom}, {"action", r.action}, {"source", r.source}, {"cases", r.cases}});
  j["troubleshooting"] = trouble;
  DisclosureCounts k = CountDisclosure(d);
  json disc;
  disc["links_by_tier"] = k.links_by_tier;
  disc["links_by_evidence"] = k.links_by_evidence;
  disc["issues_by_tier"] = k.issues_by_tier;
  disc["resolutions"] = k.resolutions;
  disc["traps"] = k.traps;
  disc["traceless"] = k.traceless;
  json ex = json::array();
  json likely = json::array();
  for (const DigestExcluded& e : d.excluded) {
    ex.push_back(
        {{"issue", e.issue}, {"title", e.title}, {"reason", e.reason}, {"detail", e.detail}});
    if (e.suggested.empty()) continue;
    json fixes = json::array();
    for (const graph::FixLink& f : e.suggested) fixes.push_back(graph::ToJson(f));
    likely.push_back({{"issue", e.issue}, {"title", e.title}, {"suggested", std::move(fixes)}});
  }
  j["likely_fixes"] = likely;
  disc["excluded"] = ex;
  disc["candidates"] = {{"considered", d.considered},
                        {"included", static_cast<std::int64_t>(d.Cases().size())},
                        {"excluded", static_cast<std::int64_t>(d.excluded.size())},
                        {"by_reason", k.excluded_by_reason}};
  j["disclosure"] = disc;
  return j;
}

}  // namespace

json ToJson(const Digest& d) { return DigestJson(d, /*with_repos=*/true); }

StatusOr<std::string> RenderJson(const Digest& d) {
  // ToJson(d).dump(2) without holding the whole tree: the document without
  // the repositories' entries, then each entry printed one case tree at a
  // time, the repositories side by side, and filled in.
  try {
    std::string doc = DigestJson(d, /*with_repos=*/false).dump(2);
    std::vector<Status> errors(d.repos.size());
    std::string entries = RenderInOrder(d.repos.size(), [&](size_t i, std::string* out) {
      StatusOr<std::string> text = std::string();
      try {
        text = RepoJsonText(d, d.repos[i]);
      } catch (const json::exception& e) {
        text = Status::Internal(std::string("digest JSON: ") + e.what());
      }
      if (!text.ok()) {
        errors[i] = text.status().WithContext(d.repos[i].repo.ToString());
        return;
      }
      if (i > 0) *out += ",\n";
      AppendIndented(*text, 4, out);
    });
    for (const Status& e : errors) FG_RETURN_IF_ERROR(e);
    FG_ASSIGN_OR_RETURN(std::string out, FillArray(doc, "repos", 2, entries));
    entries = std::string();
    out += "\n";
    return out;
  } catch (const json::exception& e) {
    return Status::Internal(std::string("digest JSON: ") + e.what());
  }
}

}  // namespace fixgraph::query
