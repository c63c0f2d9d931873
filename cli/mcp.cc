// fixgraph mcp: a Model Context Protocol server (spec 2025-06-18) on stdio.
//
// Transport: JSON-RPC 2.0, one message per line on stdin/stdout. stdout
// carries nothing but protocol messages; diagnostics go to stderr.
// Methods: initialize, notifications/initialized (and other notifications,
// ignored), ping, tools/list, tools/call.
// Lifecycle: until `initialize` has been answered only `initialize` and
// `ping` are served (anything else: -32002 "not initialized"); a second
// `initialize` is refused (-32600).
// Protocol errors are JSON-RPC errors: -32700 parse error, -32600 invalid
// request (also batches, which 2025-06-18 removed), -32601 unknown method,
// -32602 unknown tool or invalid arguments: what the inputSchema says (a
// missing, unknown or mistyped argument, a value out of range) and what it
// cannot say (find_fix needs exactly one of ref and text; a ref, repo, cursor
// or date that is not well formed), the same for every tool. A tool that runs
// and fails (an item or repository not in the store, nothing searchable, no
// ask index) returns a result with isError true and the message as text, so
// the model can read it and try again.
//
// Tools return their document as structuredContent and the same JSON as one
// text content item; the documents are the CLI's (cli/documents.h).
#include "mcp.h"

#include "commands.h"
#include "documents.h"
#include "serve_backend.h"

#include "fixgraph/engine/version.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace fixgraph::cli {
namespace {

using nlohmann::json;

constexpr const char* kProtocolVersion = "2025-06-18";
constexpr size_t kMaxLineBytes = size_t{4} * 1024 * 1024;
constexpr size_t kMaxListLinks = kMaxLinksPage;
constexpr int kNotInitialized = -32002;  // implementation-defined server error (JSON-RPC)

json Tool(const char* name, const char* title, const char* description, json properties,
          json required, json output) {
  json schema{
      {"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = std::move(required);
  // Every tool only reads the local store and indexes: nothing is changed,
  // a repeated call gives the same answer on the same data.
  json annotations{{"title", title},
                   {"readOnlyHint", true},
                   {"destructiveHint", false},
                   {"idempotentHint", true},
                   {"openWorldHint", false}};
  return {{"name", name},
          {"title", title},
          {"description", description},
          {"inputSchema", std::move(schema)},
          {"outputSchema", std::move(output)},
          {"annotations", std::move(annotations)}};
}

// JSON Schemas of what the tools return (structuredContent). They name the
// fields an agent relies on and leave room for more (no
// additionalProperties: false), so adding a field is not a breaking change.
json Str() { return {{"type", "string"}}; }
json StrOrNull() { return {{"type", {"string", "null"}}}; }
json Num() { return {{"type", "number"}}; }
json Int() { return {{"type", "integer"}, {"minimum", 0}}; }
json Bool() { return {{"type", "boolean"}}; }
json ArrayOf(json items) { return {{"type", "array"}, {"items", std::move(items)}}; }
json Obj(json properties, json required) {
  return {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

json FixSchema() {
  json evidence = Obj({{"kind", Str()}, {"detail", Str()}, {"delta_s", Num()}}, {"kind", "detail"});
  return Obj({{"pr", Str()},
              {"tier", {{"type", "string"}, {"enum", {"A", "B", "C", "D"}}}},
              {"confidence", Num()},
              {"evidence", ArrayOf(evidence)},
              {"title", Str()},
              {"state", Str()},
              {"merged_at", StrOrNull()},
              {"in_store", Bool()}},
             {"pr", "tier", "confidence", "evidence"});
}

// One line of `links --json` (graph ToJson(IssueLinks)).
json LinksSchema() {
  return Obj({{"issue", Str()},
              {"state", Str()},
              {"resolution", Str()},
              {"fixes", ArrayOf(FixSchema())},
              {"suggested", ArrayOf(FixSchema())},
              {"flags", ArrayOf(Str())},
              {"answer", {{"type", {"object", "null"}}}},
              {"duplicate_of", StrOrNull()},
              {"false_leads", {{"type", "array"}}}},
             {"issue", "resolution", "fixes", "flags"});
}

// The `ask --json` document.
json AskSchema() {
  json hit = Obj({{"issue", Str()},
                  {"title", Str()},
                  {"score", Num()},
                  {"resolution", Str()},
                  {"state", Str()},
                  {"answer", Str()},
                  {"answer_source", Str()},
                  {"band", Str()},
                  {"fixes", ArrayOf(FixSchema())},
                  {"suggested", ArrayOf(FixSchema())},
                  {"flags", ArrayOf(Str())},
                  {"url", Str()}},
                 {"issue", "title", "score", "resolution", "state", "fixes", "flags"});
  json doc = Obj({{"id", Str()},
                  {"title", Str()},
                  {"source", Str()},
                  {"score", Num()},
                  {"snippet", Str()},
                  {"products", ArrayOf(Str())},
                  {"asked_products", {{"type", "object"}, {"additionalProperties", Bool()}}},
                  {"band", Str()},
                  {"page_kind", Str()},
                  {"section_kind", Str()},
                  {"url", Str()}},
                 {"id", "title", "score"});
  return Obj({{"query", Str()},
              {"searched", Str()},
              {"fallback", Bool()},
              {"min_score", Num()},
              {"dropped", Int()},
              {"hits", ArrayOf(hit)},
              {"docs", ArrayOf(doc)}},
             {"query", "hits", "docs", "fallback"});
}

// The `show --json` document: an issue, a pull request or a repository.
json ShowSchema() {
  json item =
      Obj({{"ref", Str()}, {"title", Str()}, {"state", Str()}, {"html_url", Str()}}, {"ref"});
  return Obj({{"kind", {{"type", "string"}, {"enum", {"issue", "pull", "repo"}}}},
              {"issue", item},
              {"links", {{"anyOf", {LinksSchema(), {{"type", "null"}}}}}},
              {"explanation", ArrayOf(Str())},
              {"pull", item},
              {"repository", {{"type", "object"}}},
              {"stats", {{"type", "object"}}},
              {"comments", {{"type", "array"}}},
              {"operate_log", {{"type", "array"}}},
              {"platform_links", {{"type", "array"}}},
              {"mentioned_by", {{"type", "array"}}}},
             {"kind"});
}

json FindFixSchema() {
  json by_ref = Obj({{"issue", Str()},
                     {"title", Str()},
                     {"url", Str()},
                     {"state", Str()},
                     {"resolution", Str()},
                     {"fixes", ArrayOf(FixSchema())},
                     {"flags", ArrayOf(Str())},
                     {"explanation", ArrayOf(Str())},
                     {"note", Str()}},
                    {"issue", "resolution", "fixes", "flags"});
  json hit = Obj({{"issue", Str()},
                  {"title", Str()},
                  {"score", Num()},
                  {"resolution", Str()},
                  {"answer", Str()},
                  {"fixes", ArrayOf(FixSchema())}},
                 {"issue", "score", "resolution", "fixes"});
  json by_text = Obj({{"query", Str()}, {"fixes", ArrayOf(hit)}}, {"query", "fixes"});
  return {{"type", "object"}, {"anyOf", {by_ref, by_text}}};
}

json ListLinksSchema() {
  return Obj({{"issues", ArrayOf(LinksSchema())},
              {"next_cursor", StrOrNull()},
              {"truncated", Bool()},
              {"offset", Int()},
              {"total", Int()}},
             {"issues", "next_cursor", "truncated"});
}

// The digest JSON (query/include/fixgraph/query/digest.h).
json DigestSchema() {
  return Obj({{"version", {{"type", "integer"}}},
              {"selection", {{"type", "object"}}},
              {"overview", {{"type", "array"}}},
              {"repos",
               ArrayOf(Obj({{"repo", Str()}, {"cases", {{"type", "array"}}}}, {"repo", "cases"}))},
              {"themes", {{"type", "array"}}},
              {"troubleshooting", {{"type", "array"}}},
              {"disclosure", {{"type", "object"}}}},
             {"version", "selection", "repos", "disclosure"});
}

json ToolList() {
  json ref_prop{
      {"type", "string"},
      {"description",
       "An item reference: gitcode:OWNER/REPO#N (issue), gitcode:OWNER/REPO!N (pull "
       "request), gitcode:OWNER/REPO (repository), gitee:..., github:..., or its web URL"}};
  json repo_prop{{"type", "string"},
                 {"description", "Only this repository, e.g. gitcode:Ascend/MindSpeed-Ops"}};
  json limit_prop{{"type", "integer"},
                  {"minimum", 1},
                  {"maximum", 100},
                  {"description", "At most this many hits (default 5)"}};
  json floor_prop{
      {"type", "number"},
      {"minimum", 0},
      {"maximum", 1},
      {"description", "Drop hits scoring below this (default " +
                          std::to_string(query::kDefaultMinScore).substr(0, 4) + "; 0 keeps all)"}};
  json tools = json::array();
  tools.push_back(Tool(
      "lookup_symptom", "Look up a symptom",
      "Search past Ascend/MindSpore issues for an error message, symptom, API name or error code "
      "(Chinese or English) and return the closest issues with their resolution, fix pull "
      "requests (tier A strongest .. D weakest), an extracted answer, and KG documentation hits "
      "(score > 0.83 hit, 0.70-0.83 ambiguous, below noise).",
      {{"text", {{"type", "string"}, {"description", "The symptom or error text, as seen"}}},
       {"limit", limit_prop},
       {"repo", repo_prop},
       {"min_score", floor_prop}},
      {"text"}, AskSchema()));
  tools.push_back(
      Tool("show_item", "Show an issue, pull request or repository",
           "One item with its comments, operate log, platform links, who mentions it, and for an "
           "issue its fix links with the evidence chain and an explanation.",
           {{"ref", ref_prop}}, {"ref"}, ShowSchema()));
  tools.push_back(
      Tool("find_fix", "Find the fix",
           "Given an issue reference, return its resolution, fix pull requests with tiers and "
           "evidence, and flags. Given symptom text instead, return the fixes of the best matching "
           "issues. Give exactly one of ref or text.",
           {{"ref", ref_prop},
            {"text", {{"type", "string"}, {"description", "Symptom text (instead of ref)"}}},
            {"limit", limit_prop},
            {"repo", repo_prop},
            {"min_score", floor_prop}},
           json::array(), FindFixSchema()));
  tools.push_back(Tool(
      "list_links", "List issue-to-fix links",
      "Every linked issue (optionally of one repository): resolution, fixes with tier, "
      "confidence and evidence, and timeline flags. Paged: pass next_cursor back as cursor "
      "until it is null (or use offset).",
      {{"repo", repo_prop},
       {"cursor",
        {{"type", "string"},
         {"description", "The next_cursor of the page before (not with offset)"}}},
       {"offset", {{"type", "integer"}, {"minimum", 0}, {"description", "Skip this many issues"}}},
       {"limit",
        {{"type", "integer"},
         {"minimum", 1},
         {"maximum", kMaxListLinks},
         {"description", "At most this many issues (default 100)"}}}},
      json::array(), ListLinksSchema()));
  tools.push_back(Tool(
      "make_digest", "Write a curated digest",
      "A digest of the chosen repositories and time window: overview, per-repository cases with "
      "resolution and evidence, themes, troubleshooting table, disclosure of tiers and traps.",
      {{"repos",
        {{"type", "array"},
         {"items", {{"type", "string"}}},
         {"description", "Repositories (empty: all)"}}},
       {"since", {{"type", "string"}, {"description", "Start date, e.g. 2026-09-01"}}},
       {"until", {{"type", "string"}, {"description", "End date, e.g. 2026-09-30"}}},
       {"lang",
        {{"type", "string"},
         {"enum", {"zh", "en"}},
         {"description", "Language of the written sentences: zh (default) or en"}}},
       {"format",
        {{"type", "string"},
         {"enum", {"json", "md"}},
         {"description", "json (default) or md (Markdown in the text item)"}}}},
      json::array(), DigestSchema()));
  return tools;
}

// Checks `args` against the declared schema: known properties, types, ranges.
// Returns "" when valid, else what is wrong.
std::string ValidateArgs(const json& tool, const json& args) {
  if (!args.is_object()) return "arguments must be an object";
  const json& schema = tool["inputSchema"];
  const json& props = schema["properties"];
  for (const auto& [key, value] : args.items()) {
    if (!props.contains(key)) return "unknown argument '" + key + "'";
    const json& p = props[key];
    std::string type = p["type"];
    if (type == "string" && !value.is_string()) return "argument '" + key + "' must be a string";
    if (type == "integer") {
      if (!value.is_number_integer()) return "argument '" + key + "' must be an integer";
      long long v = value.get<long long>();
      if (p.contains("minimum") && v < p["minimum"].get<long long>())
        return "argument '" + key + "' must be at least " + p["minimum"].dump();
      if (p.contains("maximum") && v > p["maximum"].get<long long>())
        return "argument '" + key + "' must be at most " + p["maximum"].dump();
    }
    if (type == "number") {
      if (!value.is_number()) return "argument '" + key + "' must be a number";
      double v = value.get<double>();
      if (p.contains("minimum") && !(v >= p["minimum"].get<double>()))
        return "argument '" + key + "' must be at least " + p["minimum"].dump();
      if (p.contains("maximum") && !(v <= p["maximum"].get<double>()))
        return "argument '" + key + "' must be at most " + p["maximum"].dump();
    }
    if (type == "array") {
      if (!value.is_array()) return "argument '" + key + "' must be an array";
      for (const json& item : value)
        if (!item.is_string()) return "argument '" + key + "' must be an array of strings";
    }
    if (p.contains("enum")) {
      bool found = false;
      for (const json& e : p["enum"]) found = found || e == value;
      if (!found) return "argument '" + key + "' must be one of " + p["enum"].dump();
    }
  }
  if (schema.contains("required")) {
    for (const json& r : schema["required"])
      if (!args.contains(r.get<std::string>()))
        return "missing required argument '" + r.get<std::string>() + "'";
  }
  return "";
}

// An argument the schema allows but the tool cannot take (a malformed
// reference, ref and text together): answered -32602 like a schema mismatch.
struct InvalidParams {
  std::string message;
};

// The checks of each tool's arguments the inputSchema cannot express.
// Throws InvalidParams naming the argument.
void CheckToolArgs(const std::string& name, const json& args) {
  auto check_ref = [&](const char* key) {
    if (!args.contains(key)) return;
    auto ref = ParseRef(args[key].get<std::string>());
    if (!ref.ok())
      throw InvalidParams{name + ": argument '" + key + "': " + ref.status().message()};
  };
  if (args.contains("repo")) {
    RepoRef r;
    bool has = false;
    if (Status s = ParseRepoFilter(args["repo"].get<std::string>(), "argument 'repo'", &r, &has);
        !s.ok())
      throw InvalidParams{name + ": " + s.message()};
  }
  if (name == "show_item") check_ref("ref");
  if (name == "find_fix") {
    if (args.contains("ref") == args.contains("text"))
      throw InvalidParams{
          "find_fix: give exactly one of the arguments 'ref' (an issue) and 'text' (a symptom)"};
    check_ref("ref");
  }
  if (name == "list_links" && args.contains("cursor") && args.contains("offset"))
    throw InvalidParams{"list_links: give 'cursor' or 'offset', not both"};
  if (name == "make_digest") {
    DigestRequest d;
    if (args.contains("repos"))
      for (const json& r : args["repos"]) d.repos.push_back(r.get<std::string>());
    d.since = args.value("since", "");
    d.until = args.value("until", "");
    d.lang = args.value("lang", "zh");
    if (Status s = CheckDigestRequest(d, ""); !s.ok())
      throw InvalidParams{"make_digest: " + s.message()};
  }
}

json ToolResult(const json& doc) {
  std::string text = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  return {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})},
          {"structuredContent", doc},
          {"isError", false}};
}

json ToolError(const std::string& message) {
  return {{"content", json::array({{{"type", "text"}, {"text", message}}})}, {"isError", true}};
}

class McpServer {
 public:
  McpServer(const std::string& db_dir, std::ostream& out, std::ostream& log,
            const query::DocSourceConfig& docs)
      : backend_(db_dir, std::chrono::milliseconds(200), docs),
        out_(out),
        log_(log),
        tools_(ToolList()) {}

  void Serve(std::istream& in) {
    std::string line;
    bool too_long = false;
    size_t line_no = 0;
    while (ReadLine(in, &line, &too_long)) {
      ++line_no;
      if (too_long) {
        Send(Error(nullptr, -32600, "message larger than 4 MiB"));
        continue;
      }
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      auto msg = ParseClientJson(line, "line " + std::to_string(line_no));
      if (!msg.ok()) {
        Send(Error(nullptr, -32700, "parse error: " + msg.status().message()));
        continue;
      }
      // Handle checks every field it reads; this is the last guard that keeps
      // one odd message from ending the session.
      try {
        Handle(*msg);
      } catch (const std::exception& e) {
        log_ << "fixgraph mcp: internal error: " << e.what() << "\n";
        Send(Error(RequestId(*msg), -32603, std::string("internal error: ") + e.what()));
      }
    }
  }

 private:
  // Reads one line (without the newline) of at most kMaxLineBytes; a longer
  // line is consumed up to its newline without being kept (*too_long).
  static bool ReadLine(std::istream& in, std::string* line, bool* too_long) {
    line->clear();
    *too_long = false;
    std::streambuf* buf = in.rdbuf();
    bool any = false;
    while (true) {
      int c = buf->sbumpc();
      if (c == std::char_traits<char>::eof()) {
        in.setstate(std::ios::eofbit);
        return any;
      }
      any = true;
      if (c == '\n') return true;
      if (line->size() >= kMaxLineBytes) {
        *too_long = true;
        line->clear();
      }
      if (!*too_long) line->push_back(static_cast<char>(c));
    }
  }

  // The id of a request when it is one JSON-RPC allows (string, integer), else null.
  static json RequestId(const json& msg) {
    if (!msg.is_object() || !msg.contains("id")) return nullptr;
    const json& id = msg["id"];
    return id.is_string() || id.is_number_integer() ? id : json(nullptr);
  }

  void Send(const json& msg) {
    out_ << msg.dump(-1, ' ', false, json::error_handler_t::replace) << "\n" << std::flush;
  }

  static json Error(const json& id, int code, const std::string& message) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
  }
  static json Result(const json& id, json result) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
  }

  void Handle(const json& msg) {
    if (msg.is_array()) {
      Send(Error(nullptr, -32600, "batches are not supported (MCP 2025-06-18)"));
      return;
    }
    if (!msg.is_object() || !msg.contains("jsonrpc") || msg["jsonrpc"] != "2.0" ||
        !msg.contains("method") || !msg["method"].is_string()) {
      // A response from the client (we send no requests) is ignored.
      if (msg.is_object() && (msg.contains("result") || msg.contains("error"))) return;
      Send(Error(RequestId(msg), -32600,
                 "invalid request: expected a JSON-RPC 2.0 object with a method"));
      return;
    }
    const std::string method = msg["method"];
    if (!msg.contains("id")) {
      // Notifications get no answer.
      return;
    }
    const json& id = msg["id"];
    if (!id.is_string() && !id.is_number_integer()) {
      Send(Error(nullptr, -32600, "invalid request: id must be a string or an integer"));
      return;
    }
    json params = msg.contains("params") ? msg["params"] : json::object();
    if (!params.is_object()) {
      Send(Error(id, -32602, "params must be an object"));
      return;
    }
    if (method == "initialize") {
      if (!params.contains("protocolVersion") || !params["protocolVersion"].is_string() ||
          params["protocolVersion"].get<std::string>().empty()) {
        Send(Error(id, -32602, "initialize: protocolVersion (a string) is required"));
        return;
      }
      if (initialized_)
        return Send(Error(id, -32600,
                          "initialize: this session is already initialized; send initialize once"));
      Send(Result(id, {{"protocolVersion", kProtocolVersion},
                       {"capabilities", {{"tools", {{"listChanged", false}}}}},
                       {"serverInfo",
                        {{"name", "fixgraph"},
                         {"title", "fixgraph issue triage"},
                         {"version", fixgraph::kVersion}}},
                       {"instructions",
                        "Look up symptoms of Ascend/MindSpore problems in past issues and their "
                        "fixes. Trust tier A/B fixes; treat C/D as leads to verify."}}));
      initialized_ = true;
      return;
    }
    if (method == "ping") return Send(Result(id, json::object()));
    if (!initialized_)
      return Send(Error(id, kNotInitialized,
                        "not initialized: send initialize first (before it only initialize and "
                        "ping are answered)"));
    if (method == "tools/list") return Send(Result(id, {{"tools", tools_}}));
    if (method == "tools/call") return CallTool(id, params);
    Send(Error(id, -32601, "method not found: " + method));
  }

  void CallTool(const json& id, const json& params) {
    if (!params.contains("name") || !params["name"].is_string())
      return Send(Error(id, -32602, "tools/call: name (a string) is required"));
    std::string name = params["name"];
    const json* tool = nullptr;
    for (const json& t : tools_)
      if (t["name"] == name) tool = &t;
    if (tool == nullptr) return Send(Error(id, -32602, "unknown tool: " + name));
    json args = params.contains("arguments") ? params["arguments"] : json::object();
    if (args.is_null()) args = json::object();
    if (std::string bad = ValidateArgs(*tool, args); !bad.empty())
      return Send(Error(id, -32602, name + ": " + bad));
    json result;
    try {
      CheckToolArgs(name, args);
      result = Run(name, args);
    } catch (const InvalidParams& e) {
      return Send(Error(id, -32602, e.message));
    } catch (const std::exception& e) {
      log_ << "fixgraph mcp: " << name << ": " << e.what() << "\n";
      result = ToolError(name + " failed: " + e.what());
    }
    Send(Result(id, std::move(result)));
  }

  json Run(const std::string& name, const json& args) {
    if (name == "lookup_symptom") return LookupSymptom(args);
    if (name == "show_item") {
      auto store = backend_.Acquire();
      if (!store.ok()) return ToolError(store.status().message());
      auto doc = ShowDocument(**store, args["ref"].get<std::string>());
      if (!doc.ok()) return ToolError(doc.status().message());
      return ToolResult(*doc);
    }
    if (name == "find_fix") return FindFix(args);
    if (name == "list_links") return ListLinks(args);
    if (name == "make_digest") return MakeDigest(args);
    return ToolError("unknown tool " + name);
  }

  StatusOr<json> AskDoc(const json& args) {
    size_t limit = args.contains("limit") ? args["limit"].get<size_t>() : 5;
    std::string repo = args.value("repo", "");
    RepoRef r;
    bool has = false;
    if (Status s = ParseRepoFilter(repo, "repo", &r, &has); !s.ok()) return s;
    if (has) {  // an unknown repository fails, as on the CLI, instead of matching nothing
      auto store = backend_.Acquire();
      if (!store.ok()) return store.status();
      FG_RETURN_IF_ERROR(RequireRepository(**store, r));
    }
    double min_score =
        args.contains("min_score") ? args["min_score"].get<double>() : query::kDefaultMinScore;
    return backend_.Ask(args["text"].get<std::string>(), limit, has ? r.ToString() : "", min_score);
  }

  json LookupSymptom(const json& args) {
    auto doc = AskDoc(args);
    if (!doc.ok()) return ToolError(doc.status().message());
    return ToolResult(*doc);
  }

  json FindFix(const json& args) {
    if (args.contains("ref")) {
      auto store = backend_.Acquire();
      if (!store.ok()) return ToolError(store.status().message());
      auto doc = ShowDocument(**store, args["ref"].get<std::string>());
      if (!doc.ok()) return ToolError(doc.status().message());
      if ((*doc)["kind"] != "issue")
        return ToolError("find_fix: " + args["ref"].get<std::string>() +
                         " is not an issue; fixes are found for issues");
      json out{{"issue", (*doc)["issue"].value("ref", "")},
               {"title", (*doc)["issue"].value("title", "")},
               {"url", (*doc)["issue"].value("html_url", "")},
               {"state", (*doc)["issue"].value("state", "")}};
      const json& links = (*doc)["links"];
      if (links.is_null()) {
        out["resolution"] = "unknown";
        out["fixes"] = json::array();
        out["flags"] = json::array();
        out["note"] = "this issue has not been linked yet (run fixgraph link)";
      } else {
        out["resolution"] = links.value("resolution", "unknown");
        out["fixes"] = links.value("fixes", json::array());
        out["flags"] = links.value("flags", json::array());
        out["explanation"] = (*doc)["explanation"];
      }
      return ToolResult(out);
    }
    auto doc = AskDoc(args);
    if (!doc.ok()) return ToolError(doc.status().message());
    json out{{"query", (*doc)["query"]}, {"fixes", json::array()}};
    for (const json& hit : (*doc)["hits"]) {
      out["fixes"].push_back({{"issue", hit["issue"]},
                              {"title", hit.value("title", "")},
                              {"score", hit["score"]},
                              {"resolution", hit["resolution"]},
                              {"answer", hit.value("answer", "")},
                              {"fixes", hit.value("fixes", json::array())}});
    }
    return ToolResult(out);
  }

  json ListLinks(const json& args) {
    RepoRef repo;
    bool has_repo = false;
    if (Status s = ParseRepoFilter(args.value("repo", ""), "repo", &repo, &has_repo); !s.ok())
      return ToolError(s.message());
    auto store = backend_.Acquire();
    if (!store.ok()) return ToolError(store.status().message());
    if (has_repo) {
      if (Status s = RequireRepository(**store, repo); !s.ok()) return ToolError(s.message());
    }
    size_t limit = args.contains("limit") ? args["limit"].get<size_t>() : kDefaultLinksPage;
    if (!args.contains("offset")) {
      // Pages by cursor, as /api/v1/links does: {"issues", "next_cursor", "truncated"}.
      auto page = LinksPage(**store, has_repo ? &repo : nullptr, args.value("cursor", ""), limit);
      if (!page.ok()) {
        if (page.status().IsInvalidArgument())
          throw InvalidParams{"list_links: argument " + page.status().message()};
        return ToolError(page.status().message());
      }
      json out = page->ToJson();
      out["truncated"] = page->next_cursor.has_value();
      return ToolResult(out);
    }
    size_t offset = args["offset"].get<size_t>();
    json out{{"issues", json::array()}, {"offset", offset}, {"total", 0}, {"next_cursor", nullptr}};
    size_t n = 0;
    Status s = ForEachLinksDocument(**store, has_repo ? &repo : nullptr, [&](const json& doc) {
      if (n >= offset && n < offset + limit) out["issues"].push_back(doc);
      ++n;
      return true;
    });
    if (!s.ok()) return ToolError(s.message());
    out["total"] = n;
    out["truncated"] = offset + limit < n;
    if (offset + limit < n && !out["issues"].empty())
      out["next_cursor"] = out["issues"].back()["issue"];
    return ToolResult(out);
  }

  json MakeDigest(const json& args) {
    auto store = backend_.Acquire();
    if (!store.ok()) return ToolError(store.status().message());
    DigestRequest d;
    if (args.contains("repos"))
      for (const json& r : args["repos"]) d.repos.push_back(r.get<std::string>());
    d.since = args.value("since", "");
    d.until = args.value("until", "");
    d.lang = args.value("lang", "zh");
    d.format = "json";
    auto text = DigestText(**store, d);
    if (!text.ok()) return ToolError(text.status().message());
    json doc = json::parse(*text);
    if (args.value("format", "json") == "md") {
      d.format = "md";
      auto md = DigestText(**store, d);
      if (!md.ok()) return ToolError(md.status().message());
      return {{"content", json::array({{{"type", "text"}, {"text", *md}}})},
              {"structuredContent", doc},
              {"isError", false}};
    }
    return ToolResult(doc);
  }

  Backend backend_;
  std::ostream& out_;
  std::ostream& log_;
  json tools_;
  bool initialized_ = false;
};

}  // namespace

void RunMcp(const std::string& db_dir, std::istream& in, std::ostream& out, std::ostream& log,
            const query::DocSourceConfig& docs) {
  McpServer server(db_dir, out, log, docs);
  server.Serve(in);
}

void AddMcpCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("mcp", "Model Context Protocol server on stdio (for AI agents)");
  cmd->callback([&ctx] { RunMcp(ctx.db_dir, std::cin, *ctx.out, *ctx.err, ctx.env.docs); });
}

}  // namespace fixgraph::cli
