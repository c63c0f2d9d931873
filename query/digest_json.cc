// Digest JSON: ToJson and the streamed RenderJson (digest.h).
#include "digest_render.h"
#include "digest_text.h"

#include "fixgraph/engine/parallel.h"
#include "fixgraph/engine/time.h"
#include "fixgraph/query/digest.h"

#include <algorithm>
#include <functional>
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

// dump(2), with any invalid UTF-8 in a string replaced by U+FFFD (as every
// other JSON writer of fixgraph does) rather than thrown as an error.
std::string Pretty(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }

// Where the empty array of member `key` at depth `indent` of `doc` (printed
// by dump(2)) closes: the offset of its ']'.
StatusOr<size_t> EmptyArrayEnd(const std::string& doc, const std::string& key, size_t indent) {
  // (Built by appends: GCC 12 warns falsely (-Wrestrict) on "\n" + std::string here.)
  std::string slot(1, '\n');
  slot.append(indent, ' ');
  slot += '"';
  slot += key;
  slot += "\": []";
  size_t at = doc.find(slot);
  if (at == std::string::npos) return Status::Internal("digest JSON: no \"" + key + "\" array");
  return at + slot.size() - 1;
}

// Writes `doc` to `sink` with that array filled by `fill`, which writes the
// elements' text, already indented to the element depth and joined by ",\n",
// as dump(2) prints a non-empty array; `doc` as it is when `empty`.
Status WriteFilled(const std::string& doc, const std::string& key, size_t indent, bool empty,
                   const std::function<Status(const TextSink&)>& fill, const TextSink& sink) {
  FG_ASSIGN_OR_RETURN(size_t end, EmptyArrayEnd(doc, key, indent));
  if (empty) return sink(doc);
  FG_RETURN_IF_ERROR(sink(std::string_view(doc).substr(0, end)));  // without the ']'
  FG_RETURN_IF_ERROR(sink("\n"));
  FG_RETURN_IF_ERROR(fill(sink));
  std::string close(1, '\n');
  close.append(indent, ' ');
  FG_RETURN_IF_ERROR(sink(close));
  return sink(std::string_view(doc).substr(end));
}

// RepoJson(d, r, true).dump(2), one case tree at a time.
StatusOr<std::string> RepoJsonText(const Digest& d, const DigestRepo& r) {
  auto cases = [&](const TextSink& sink) -> Status {
    std::string text;
    for (size_t i = 0; i < r.cases.size(); ++i) {
      text.assign(i > 0 ? ",\n" : "");
      AppendIndented(Pretty(CaseJson(d, r, r.cases[i])), 4, &text);
      FG_RETURN_IF_ERROR(sink(text));
    }
    return Status::OK();
  };
  std::string out;
  FG_RETURN_IF_ERROR(WriteFilled(Pretty(RepoJson(d, r, /*with_cases=*/false)), "cases", 2,
                                 r.cases.empty(), cases, AppendTo(&out)));
  return out;
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

Status WriteJson(const Digest& d, const TextSink& sink) {
  try {
    // A few repositories at a time, each on a thread of its own, written in
    // order: what is held is the texts of one batch.
    auto repos = [&d](const TextSink& out) -> Status {
      const size_t batch = std::max<size_t>(HardwareThreads(), 1);
      for (size_t first = 0; first < d.repos.size(); first += batch) {
        const size_t n = std::min(batch, d.repos.size() - first);
        std::vector<std::string> texts(n);
        std::vector<Status> errors(n);
        ParallelFor(n, n, [&](size_t k, size_t) {
          const size_t i = first + k;
          StatusOr<std::string> text = std::string();
          try {
            text = RepoJsonText(d, d.repos[i]);
          } catch (const json::exception& e) {
            text = Status::Internal(std::string("digest JSON: ") + e.what());
          }
          if (!text.ok()) {
            errors[k] = text.status().WithContext(d.repos[i].repo.ToString());
            return;
          }
          if (i > 0) texts[k] += ",\n";
          AppendIndented(*text, 4, &texts[k]);
        });
        for (size_t k = 0; k < n; ++k) {
          FG_RETURN_IF_ERROR(errors[k]);
          FG_RETURN_IF_ERROR(out(texts[k]));
          std::string().swap(texts[k]);
        }
      }
      return Status::OK();
    };
    FG_RETURN_IF_ERROR(WriteFilled(Pretty(DigestJson(d, /*with_repos=*/false)), "repos", 2,
                                   d.repos.empty(), repos, sink));
    return sink("\n");
  } catch (const json::exception& e) {
    return Status::Internal(std::string("digest JSON: ") + e.what());
  }
}

TextSink AppendTo(std::string* out) {
  return [out](std::string_view piece) {
    out->append(piece);
    return Status::OK();
  };
}

StatusOr<std::string> RenderJson(const Digest& d) {
  std::string out;
  FG_RETURN_IF_ERROR(WriteJson(d, AppendTo(&out)));
  return out;
}

}  // namespace fixgraph::query
