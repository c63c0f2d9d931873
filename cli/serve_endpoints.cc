#include "serve_endpoints.h"

#include "documents.h"
#include "serve_backend.h"

#include "fixgraph/query/ask.h"

#include <cstdlib>
#include <utility>

namespace fixgraph::cli {
namespace {

using nlohmann::json;

// The page size of /api/v1/links?limit= (1 to kMaxLinksPage).
bool ParseLinksPageLimit(const std::string& text, size_t* out, std::string* error) {
  if (text.empty() || text.size() > 6 ||
      text.find_first_not_of("0123456789") != std::string::npos || std::stol(text) < 1 ||
      static_cast<size_t>(std::stol(text)) > kMaxLinksPage) {
    *error = "limit \"" + text.substr(0, 20) + "\": expected a whole number from 1 to " +
             std::to_string(kMaxLinksPage);
    return false;
  }
  *out = static_cast<size_t>(std::stol(text));
  return true;
}

}  // namespace

void SendJson(httplib::Response& res, int status, const json& doc) {
  res.status = status;
  res.set_content(doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n",
                  "application/json; charset=utf-8");
}

void SendError(httplib::Response& res, int status, const std::string& message) {
  SendJson(res, status, ErrorDocument(status, message));
}

void SendStatus(httplib::Response& res, const Status& s) {
  SendError(res, HttpStatusFor(s), s.message());
}

bool CheckParams(const httplib::Request& req, httplib::Response& res,
                 const std::set<std::string>& known) {
  for (const auto& [key, value] : req.params) {
    if (known.count(key) == 0) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      SendError(res, 400,
                "unknown query parameter '" + key + "' for " + req.path +
                    (list.empty() ? " (it takes none)" : " (known: " + list + ")"));
      return false;
    }
    if (req.get_param_value_count(key) > 1 && key != "repo") {
      SendError(res, 400, "query parameter '" + key + "' given more than once");
      return false;
    }
  }
  return true;
}

void AnswerShow(const Store& store, const httplib::Request& req, httplib::Response& res) {
  if (!CheckParams(req, res, {"ref"})) return;
  std::string ref = req.get_param_value("ref");
  if (ref.empty())
    return SendError(res, 400, "missing query parameter 'ref' (e.g. ref=gitcode:Ascend/X%2369)");
  auto doc = ShowDocument(store, ref);
  if (!doc.ok()) return SendStatus(res, doc.status());
  SendJson(res, 200, *doc);
}

void AnswerLinks(const Store& store, const httplib::Request& req, httplib::Response& res) {
  if (!CheckParams(req, res, {"repo", "cursor", "limit"})) return;
  if (req.get_param_value_count("repo") > 1)
    return SendError(res, 400, "query parameter 'repo' given more than once");
  RepoRef repo;
  bool has_repo = false;
  if (Status s = ParseRepoFilter(req.get_param_value("repo"), "repo", &repo, &has_repo); !s.ok())
    return SendStatus(res, s);
  if (has_repo) {
    if (Status s = RequireRepository(store, repo); !s.ok()) return SendStatus(res, s);
  }
  if (req.has_param("cursor") || req.has_param("limit")) {
    // One page: {"issues": [...], "next_cursor": "..." or null}.
    size_t limit = kDefaultLinksPage;
    if (req.has_param("limit")) {
      std::string error;
      if (!ParseLinksPageLimit(req.get_param_value("limit"), &limit, &error))
        return SendError(res, 400, error);
    }
    auto page = LinksPage(store, has_repo ? &repo : nullptr, req.get_param_value("cursor"), limit);
    if (!page.ok()) return SendStatus(res, page.status());
    if (page->next_cursor) {
      std::string next =
          "/api/v1/links?cursor=" + httplib::detail::encode_query_param(*page->next_cursor) +
          "&limit=" + std::to_string(limit) +
          (has_repo ? "&repo=" + httplib::detail::encode_query_param(repo.ToString()) : "");
      res.set_header("Link", "<" + next + ">; rel=\"next\"");
    }
    return SendJson(res, 200, page->ToJson());
  }
  // JSON Lines, one object per issue: the bytes of `links --json`.
  std::string body;
  Status s = ForEachLinksDocument(store, has_repo ? &repo : nullptr, [&](const json& doc) {
    body += doc.dump(-1, ' ', false, json::error_handler_t::replace);
    body += "\n";
    return true;
  });
  if (!s.ok()) return SendStatus(res, s);
  res.status = 200;
  res.set_content(body, "application/x-ndjson; charset=utf-8");
}

void AnswerStats(const Store& store, const httplib::Request& req, httplib::Response& res) {
  if (!CheckParams(req, res, {})) return;
  auto doc = StatsDocument(store);
  if (!doc.ok()) return SendStatus(res, doc.status());
  SendJson(res, 200, *doc);
}

void AnswerDigest(const Store& store, const httplib::Request& req, httplib::Response& res) {
  if (!CheckParams(req, res, {"repo", "org", "since", "until", "format", "lang", "min_tier"}))
    return;
  DigestRequest d;
  for (size_t i = 0; i < req.get_param_value_count("repo"); ++i)
    d.repos.push_back(req.get_param_value("repo", i));
  d.org = req.get_param_value("org");
  d.since = req.get_param_value("since");
  d.until = req.get_param_value("until");
  d.min_tier = req.get_param_value("min_tier");
  if (req.has_param("lang")) d.lang = req.get_param_value("lang");
  if (req.has_param("format")) d.format = req.get_param_value("format");
  auto text = DigestText(store, d);
  if (!text.ok()) return SendStatus(res, text.status());
  res.status = 200;
  const char* type = d.format == "json"   ? "application/json; charset=utf-8"
                     : d.format == "html" ? "text/html; charset=utf-8"
                                          : "text/markdown; charset=utf-8";
  res.set_content(*text, type);
}

void AnswerAskQuery(const httplib::Request& req, httplib::Response& res, const AskFn& ask) {
  if (!CheckParams(req, res, {"q", "limit", "repo", "min_score"})) return;
  if (req.get_param_value_count("repo") > 1)
    return SendError(res, 400, "query parameter 'repo' given more than once");
  if (!req.has_param("q")) return SendError(res, 400, "missing query parameter 'q'");
  std::string limit = req.has_param("limit") ? req.get_param_value("limit") : "5";
  double min_score = query::kDefaultMinScore;
  if (req.has_param("min_score")) {
    const std::string text = req.get_param_value("min_score");
    char* end = nullptr;
    min_score = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(min_score >= 0 && min_score <= 1))
      return SendError(
          res, 400, "query parameter 'min_score' \"" + text + "\": expected a number from 0 to 1");
  }
  ask(req.get_param_value("q"), limit, req.get_param_value("repo"), res, min_score);
}

void AnswerAskBody(const httplib::Request& req, httplib::Response& res, const AskFn& ask) {
  if (!CheckParams(req, res, {})) return;
  std::string type = req.get_header_value("Content-Type");
  if (!type.empty() && type.find("json") == std::string::npos)
    return SendError(res, 415, "Content-Type " + type + ": expected application/json");
  auto parsed = ParseClientJson(req.body, "request body");
  if (!parsed.ok()) return SendStatus(res, parsed.status());
  json body = std::move(*parsed);
  if (!body.is_object())
    return SendError(res, 400, R"(request body: expected a JSON object {"q", "limit", "repo"})");
  for (const auto& [key, value] : body.items()) {
    if (key != "q" && key != "limit" && key != "repo" && key != "min_score")
      return SendError(
          res, 400, "request body: unknown field '" + key + "' (known: q, limit, repo, min_score)");
  }
  if (!body.contains("q") || !body["q"].is_string())
    return SendError(res, 400, "request body: field 'q' (a string) is required");
  std::string limit = "5";
  if (body.contains("limit") && !body["limit"].is_null()) {
    if (!body["limit"].is_number_integer())
      return SendError(res, 400, "request body: field 'limit' must be a whole number");
    limit = std::to_string(body["limit"].get<long long>());
    if (body["limit"].get<long long>() < 0) limit = "-";
  }
  std::string repo;
  if (body.contains("repo") && !body["repo"].is_null()) {
    if (!body["repo"].is_string())
      return SendError(res, 400, "request body: field 'repo' must be a string");
    repo = body["repo"].get<std::string>();
  }
  double min_score = query::kDefaultMinScore;
  if (body.contains("min_score") && !body["min_score"].is_null()) {
    if (!body["min_score"].is_number() || !(body["min_score"].get<double>() >= 0) ||
        body["min_score"].get<double>() > 1)
      return SendError(res, 400, "request body: field 'min_score' must be a number from 0 to 1");
    min_score = body["min_score"].get<double>();
  }
  ask(body["q"].get<std::string>(), limit, repo, res, min_score);
}

}  // namespace fixgraph::cli
