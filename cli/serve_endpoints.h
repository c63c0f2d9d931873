// The endpoints of `fixgraph serve` (cli/serve.cc) that answer from the
// request and the store alone, and the helpers that write every JSON answer.
// Private to cli/.
//
// Each Answer* function checks the request (unknown or repeated parameters,
// malformed values: 400 naming the parameter) and writes the whole answer,
// the error document (serve_backend.h, ErrorDocument) included, into `res`.
// The ask endpoints only check and take the request apart: the answer is
// `ask`'s (the server's, which also checks the limit and the query's size).
#pragma once

#include "fixgraph/engine/status.h"
#include "fixgraph/engine/store.h"

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace fixgraph::cli {

// `doc` as the answer with HTTP `status`, followed by a newline.
void SendJson(httplib::Response& res, int status, const nlohmann::json& doc);
// The error document {"error": {"status", "code", "message"}} with `status`.
void SendError(httplib::Response& res, int status, const std::string& message);
// The error document for `s` (serve_backend.h, HttpStatusFor).
void SendStatus(httplib::Response& res, const Status& s);
// Rejects parameters the endpoint does not know, naming them, and any but
// "repo" given more than once: false after answering 400.
bool CheckParams(const httplib::Request& req, httplib::Response& res,
                 const std::set<std::string>& known);

// GET /api/v1/show?ref=REF: `fixgraph show REF --json`.
void AnswerShow(const Store& store, const httplib::Request& req, httplib::Response& res);
// GET /api/v1/links[?repo=]: the bytes of `links --json` (JSON Lines); with
// cursor= or limit= one page {"issues", "next_cursor"} and a Link header to
// the next.
void AnswerLinks(const Store& store, const httplib::Request& req, httplib::Response& res);
// GET /api/v1/stats: `fixgraph stats --json`.
void AnswerStats(const Store& store, const httplib::Request& req, httplib::Response& res);
// GET /api/v1/digest[?repo=&org=&since=&until=&format=&lang=&min_tier=]:
// `fixgraph digest` with the same flags, as Markdown, JSON or HTML.
void AnswerDigest(const Store& store, const httplib::Request& req, httplib::Response& res);

// Answers an ask: the query text, the limit as given ("5" when absent; "-"
// for a negative one, which the limit check refuses), the repository filter
// ("" for none) and the minimum score.
using AskFn =
    std::function<void(const std::string& q, const std::string& limit, const std::string& repo,
                       httplib::Response& res, double min_score)>;
// GET /api/v1/ask?q=&limit=&repo=&min_score=
void AnswerAskQuery(const httplib::Request& req, httplib::Response& res, const AskFn& ask);
// POST /api/v1/ask with a JSON object {"q", "limit", "repo", "min_score"}.
void AnswerAskBody(const httplib::Request& req, httplib::Response& res, const AskFn& ask);

}  // namespace fixgraph::cli
