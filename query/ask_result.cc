// What an ask result becomes once searched (ask.h): the noise floor, the one
// ranking of issue and doc hits, and its JSON (ToJson, and ToJsonText, which
// writes the same bytes without building the document).
#include "fixgraph/query/ask.h"
#include "fixgraph/query/docs.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

namespace fixgraph::query {

using nlohmann::json;

namespace {

// The hit's fixes split in two: its trusted ones (tiers A-C) and its
// inferred ones (tier D: likely, not verified), `suggested`. The index keeps
// both in one list, read once here.
struct SplitFixes {
  json trusted = json::array();
  json suggested = json::array();
};

SplitFixes FixesJson(const AskHit& h) {
  json all = json::array();
  if (h.fixes.empty() && !h.fixes_json.empty()) {
    all = json::parse(h.fixes_json, nullptr, false);
    if (!all.is_array()) all = json::array();
  } else {
    for (const graph::FixLink& f : h.fixes) all.push_back(graph::ToJson(f));
  }
  SplitFixes out;
  for (json& f : all) {
    // (A tier that is not a string, in a damaged index document, is no tier.)
    auto tier = f.is_object() ? f.find("tier") : f.end();
    bool d = tier != f.end() && tier->is_string() && *tier == "D";
    (d ? out.suggested : out.trusted).push_back(std::move(f));
  }
  return out;
}

json FlagsJson(const AskHit& h) {
  json flags = json::array();
  for (graph::Flag f : h.flags) flags.push_back(graph::FlagName(f));
  return flags;
}

// The single ranking: [{"kind": "issue"|"doc", "index", "score", "band"}].
json RankedJson(const AskResult& r) {
  json out = json::array();
  for (const RankedRef& e : r.ranked)
    out.push_back({{"band", e.band},
                   {"index", e.index},
                   {"kind", e.doc ? "doc" : "issue"},
                   {"score", e.score}});
  return out;
}

void AppendJson(std::string* out, const json& v) {
  *out += v.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

void ApplyNoiseFloor(AskResult* r, double min_score) {
  r->min_score = std::max(0.0, min_score);
  const size_t before = r->hits.size() + r->docs.size();
  std::erase_if(r->hits, [&](const AskHit& h) { return h.score < r->min_score; });
  std::erase_if(r->docs, [&](const DocHit& d) { return d.score < r->min_score; });
  r->dropped += before - r->hits.size() - r->docs.size();
  r->fallback = r->fallback && !r->docs.empty();
}

void MergeRanking(AskResult* r) {
  r->ranked.clear();
  size_t i = 0, d = 0;
  while (i < r->hits.size() || d < r->docs.size()) {
    bool take_doc =
        i >= r->hits.size() || (d < r->docs.size() && r->docs[d].score > r->hits[i].score);
    RankedRef e;
    e.doc = take_doc;
    e.index = take_doc ? d++ : i++;
    e.score = take_doc ? r->docs[e.index].score : r->hits[e.index].score;
    e.band = DocBand(e.score);
    r->ranked.push_back(e);
  }
  r->docs_first = !r->ranked.empty() && r->ranked.front().doc;
}

json ToJson(const AskResult& r) {
  json hits = json::array();
  for (const AskHit& h : r.hits) {
    SplitFixes fixes = FixesJson(h);
    hits.push_back({{"issue", h.issue.ToString()},
                    {"title", h.title},
                    {"score", h.score},
                    {"resolution", graph::ResolutionName(h.resolution)},
                    {"answer", h.answer},
                    {"answer_source", h.answer_source},
                    {"band", DocBand(h.score)},
                    {"fixes", std::move(fixes.trusted)},
                    {"suggested", std::move(fixes.suggested)},
                    {"url", h.url},
                    {"state", h.state},
                    {"flags", FlagsJson(h)}});
  }
  json docs = json::array();
  for (const DocHit& d : r.docs) docs.push_back(ToJson(d));
  json out = {{"query", r.query},           {"hits", std::move(hits)},  {"docs", std::move(docs)},
              {"fallback", r.fallback},     {"searched", r.searched},   {"ranked", RankedJson(r)},
              {"docs_first", r.docs_first}, {"min_score", r.min_score}, {"dropped", r.dropped}};
  if (!r.missing_shards.empty()) {
    out["degraded"] = true;
    out["missing_shards"] = r.missing_shards;
  }
  return out;
}

std::string ToJsonText(const AskResult& r) {
  // Keys in the order dump() prints them (sorted), values dumped one by one.
  std::string out = "{";
  if (!r.missing_shards.empty()) out += "\"degraded\":true,";
  out += "\"docs\":";
  json docs = json::array();
  for (const DocHit& d : r.docs) docs.push_back(ToJson(d));
  AppendJson(&out, docs);
  out += ",\"docs_first\":";
  out += r.docs_first ? "true" : "false";
  out += ",\"dropped\":";
  AppendJson(&out, r.dropped);
  out += ",\"fallback\":";
  out += r.fallback ? "true" : "false";
  out += ",\"hits\":[";
  for (size_t i = 0; i < r.hits.size(); ++i) {
    const AskHit& h = r.hits[i];
    if (i > 0) out += ',';
    out += "{\"answer\":";
    AppendJson(&out, h.answer);
    out += ",\"answer_source\":";
    AppendJson(&out, h.answer_source);
    out += ",\"band\":";
    AppendJson(&out, DocBand(h.score));
    out += ",\"fixes\":";
    // Fixes as the index stores them (compact JSON) with no suggestion in
    // them are copied as they are, and the hit suggests nothing: no parse.
    const bool as_stored =
        h.fixes.empty() &&
        (h.fixes_json.empty() || h.fixes_json.find(R"("tier":"D")") == std::string::npos);
    SplitFixes fixes;  // parsed only when they are not copied as stored
    if (as_stored) {
      out += h.fixes_json.empty() ? "[]" : h.fixes_json;
    } else {
      fixes = FixesJson(h);
      AppendJson(&out, fixes.trusted);
    }
    out += ",\"flags\":";
    AppendJson(&out, FlagsJson(h));
    out += ",\"issue\":";
    AppendJson(&out, h.issue.ToString());
    out += ",\"resolution\":";
    AppendJson(&out, graph::ResolutionName(h.resolution));
    out += ",\"score\":";
    AppendJson(&out, h.score);
    out += ",\"state\":";
    AppendJson(&out, h.state);
    out += ",\"suggested\":";
    if (as_stored)
      out += "[]";
    else
      AppendJson(&out, fixes.suggested);
    out += ",\"title\":";
    AppendJson(&out, h.title);
    out += ",\"url\":";
    AppendJson(&out, h.url);
    out += '}';
  }
  out += "],\"min_score\":";
  AppendJson(&out, r.min_score);
  if (!r.missing_shards.empty()) {
    out += ",\"missing_shards\":";
    AppendJson(&out, json(r.missing_shards));
  }
  out += ",\"query\":";
  AppendJson(&out, r.query);
  out += ",\"ranked\":";
  AppendJson(&out, RankedJson(r));
  out += ",\"searched\":";
  AppendJson(&out, r.searched);
  out += '}';
  return out;
}

}  // namespace fixgraph::query
