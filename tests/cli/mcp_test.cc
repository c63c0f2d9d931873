// fixgraph mcp, end to end: a client runs the built binary, speaks MCP
// (2025-06-18, newline-delimited JSON-RPC) over pipes and checks the
// handshake, the tool list, tool results against the CLI's documents, tool
// failures as isError results, protocol errors as JSON-RPC errors, and that
// stdout carries nothing but protocol messages.
#include "serve_process.h"
#include "testutil/testutil.h"

#include "fixgraph/engine/version.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace fixgraph {
namespace {

using fixgraph::testing::BinaryPath;
using fixgraph::testing::ImportDemo;
using fixgraph::testing::ReadFile;
using fixgraph::testing::RunFixgraph;
using fixgraph::testing::Spawn;
using fixgraph::testing::TempDir;
using nlohmann::json;

class McpClient {
 public:
  explicit McpClient(const std::string& db) {
    int in[2], out[2];
    EXPECT_EQ(pipe(in), 0);
    EXPECT_EQ(pipe(out), 0);
    stderr_path_ = dir_ / "mcp.err";
    pid_ = Spawn({BinaryPath(), "--db", db, "mcp"}, {}, in[0], out[1], stderr_path_);
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~McpClient() { Close(); }

  void SendRaw(const std::string& line) {
    std::string l = line + "\n";
    ASSERT_EQ(write(to_, l.data(), l.size()), static_cast<ssize_t>(l.size()));
  }
  // Reads one line from the server's stdout (fails the test after 30 s).
  json ReadMessage() {
    while (true) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        lines_.push_back(line);
        return json::parse(line);  // throws (fails the test) on non-JSON output
      }
      pollfd p{from_, POLLIN, 0};
      if (poll(&p, 1, 30000) <= 0) {
        ADD_FAILURE() << "no answer from fixgraph mcp; stderr: " << ReadFile(stderr_path_);
        return nullptr;
      }
      char buf[65536];
      ssize_t n = read(from_, buf, sizeof buf);
      if (n <= 0) {
        ADD_FAILURE() << "fixgraph mcp closed stdout; stderr: " << ReadFile(stderr_path_);
        return nullptr;
      }
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }
  json Request(const std::string& method, const json& params) {
    json msg{{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}};
    SendRaw(msg.dump());
    json answer = ReadMessage();
    EXPECT_EQ(answer["id"], id_) << answer.dump();
    EXPECT_EQ(answer["jsonrpc"], "2.0");
    return answer;
  }
  json Call(const std::string& tool, const json& args) {
    return Request("tools/call", {{"name", tool}, {"arguments", args}});
  }
  // Closes stdin and waits: returns the exit status; the rest of stdout stays
  // in rest().
  int Close() {
    if (pid_ <= 0) return status_;
    close(to_);
    char buf[4096];
    ssize_t n;
    while ((n = read(from_, buf, sizeof buf)) > 0) buffer_.append(buf, static_cast<size_t>(n));
    close(from_);
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return status_;
  }
  const std::string& rest() const { return buffer_; }

 private:
  TempDir dir_;
  std::string stderr_path_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  int id_ = 0;
  int status_ = -1;
  std::string buffer_;
  std::vector<std::string> lines_;
};

class McpDemo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new TempDir();
    std::string err;
    ASSERT_EQ(ImportDemo(db_->path(), &err), 0) << err;
  }
  static void TearDownTestSuite() { delete db_; }
  static std::string Cli(const std::string& args) {
    std::string out, err;
    EXPECT_EQ(RunFixgraph(db_->path(), args, &out, &err), 0) << err;
    return out;
  }
  void Initialize(McpClient& c) {
    json init = c.Request("initialize", {{"protocolVersion", "2025-06-18"},
                                         {"capabilities", json::object()},
                                         {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
    ASSERT_TRUE(init.contains("result")) << init.dump();
    EXPECT_EQ(init["result"]["protocolVersion"], "2025-06-18");
    EXPECT_TRUE(init["result"]["capabilities"].contains("tools"));
    EXPECT_EQ(init["result"]["serverInfo"]["name"], "fixgraph");
    EXPECT_EQ(init["result"]["serverInfo"]["version"], fixgraph::kVersion);
    c.SendRaw(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }
  static TempDir* db_;
};
TempDir* McpDemo::db_ = nullptr;

TEST_F(McpDemo, HandshakeToolListAndPing) {
  McpClient c(db_->path());
  Initialize(c);
  json ping = c.Request("ping", json::object());
  EXPECT_EQ(ping["result"], json::object());
  json list = c.Request("tools/list", json::object());
  std::set<std::string> names;
  for (const json& t : list["result"]["tools"]) {
    names.insert(t["name"].get<std::string>());
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t.dump();
    EXPECT_FALSE(t["description"].get<std::string>().empty());
  }
  EXPECT_EQ(names, (std::set<std::string>{"lookup_symptom", "show_item", "find_fix", "list_links",
                                          "make_digest"}));
  EXPECT_EQ(c.Close(), 0);
  EXPECT_EQ(c.rest(), "");  // nothing but answers on stdout
}

TEST_F(McpDemo, ShowItemAndFindFixReturnTheCliDocuments) {
  McpClient c(db_->path());
  Initialize(c);
  const std::string ref = "gitcode:Ascend/MindSpeed-Ops#69";
  json r = c.Call("show_item", {{"ref", ref}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  json expected = json::parse(Cli("show --json '" + ref + "'"));
  EXPECT_EQ(r["result"]["isError"], false);
  EXPECT_EQ(r["result"]["structuredContent"], expected);
  ASSERT_EQ(r["result"]["content"][0]["type"], "text");
  EXPECT_EQ(json::parse(r["result"]["content"][0]["text"].get<std::string>()), expected);

  r = c.Call("find_fix", {{"ref", ref}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const json& fix = r["result"]["structuredContent"];
  EXPECT_EQ(fix["issue"], ref);
  if (expected["links"].is_null()) {
    EXPECT_EQ(fix["resolution"], "unknown");
  } else {
    EXPECT_EQ(fix["resolution"], expected["links"]["resolution"]);
    EXPECT_EQ(fix["fixes"], expected["links"]["fixes"]);
  }
}

TEST_F(McpDemo, LookupSymptomAndDigestAreTheCliDocuments) {
  McpClient c(db_->path());
  Initialize(c);
  json r = c.Call("lookup_symptom", {{"text", "catlass AttributeError pytest"}, {"limit", 3}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], false) << r.dump();
  json expected = json::parse(Cli("ask --json --limit 3 'catlass AttributeError pytest'"));
  EXPECT_EQ(r["result"]["structuredContent"], expected);
  ASSERT_FALSE(expected["hits"].empty());

  r = c.Call("find_fix", {{"text", "catlass AttributeError pytest"}, {"limit", 3}});
  const json& found = r["result"]["structuredContent"];
  ASSERT_EQ(found["fixes"].size(), expected["hits"].size()) << r.dump();
  EXPECT_EQ(found["fixes"][0]["issue"], expected["hits"][0]["issue"]);
  EXPECT_EQ(found["fixes"][0]["fixes"], expected["hits"][0]["fixes"]);

  r = c.Call("make_digest", {{"repos", {"gitcode:Ascend/MindSpeed-Ops"}}, {"until", "2026-09-30"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["structuredContent"],
            json::parse(Cli(
                "digest --repo gitcode:Ascend/MindSpeed-Ops --until 2026-09-30 --format json")));
  r = c.Call(
      "make_digest",
      {{"repos", {"gitcode:Ascend/MindSpeed-Ops"}}, {"until", "2026-09-30"}, {"format", "md"}});
  EXPECT_EQ(r["result"]["content"][0]["text"],
            Cli("digest --repo gitcode:Ascend/MindSpeed-Ops --until 2026-09-30 --format md"));
  r = c.Call("make_digest", {{"since", "someday"}});  // a malformed argument: -32602
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("someday"), std::string::npos);
  r = c.Call("lookup_symptom", {{"text", "!!"}});
  EXPECT_EQ(r["result"]["isError"], true);
}

// lookup_symptom takes min_score (ask's --min-score); out of range is -32602.
TEST_F(McpDemo, LookupSymptomTakesTheNoiseFloor) {
  McpClient c(db_->path());
  Initialize(c);
  json r = c.Call("lookup_symptom",
                  {{"text", "Segmentation fault 910B"}, {"limit", 10}, {"min_score", 0.3}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["structuredContent"],
            json::parse(Cli("ask --json --limit 10 --min-score 0.3 'Segmentation fault 910B'")));
  r = c.Call("lookup_symptom", {{"text", "x"}, {"min_score", 2}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  r = c.Call("lookup_symptom", {{"text", "x"}, {"min_score", "low"}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
}

TEST_F(McpDemo, ListLinksPagesTheCliLines) {
  McpClient c(db_->path());
  Initialize(c);
  std::string lines = Cli("links --json --repo gitcode:Ascend/MindSpeed-Ops");
  std::vector<json> expected;
  size_t pos = 0;
  while (pos < lines.size()) {
    size_t nl = lines.find('\n', pos);
    expected.push_back(json::parse(lines.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  ASSERT_GE(expected.size(), 3u);
  json r =
      c.Call("list_links", {{"repo", "gitcode:Ascend/MindSpeed-Ops"}, {"offset", 1}, {"limit", 2}});
  const json& doc = r["result"]["structuredContent"];
  EXPECT_EQ(doc["total"], expected.size());
  ASSERT_EQ(doc["issues"].size(), 2u);
  EXPECT_EQ(doc["issues"][0], expected[1]);
  EXPECT_EQ(doc["issues"][1], expected[2]);
  EXPECT_EQ(doc["truncated"], expected.size() > 3);
}

TEST_F(McpDemo, ToolFailuresAreResultsProtocolErrorsAreErrors) {
  McpClient c(db_->path());
  Initialize(c);
  // Tool failure: the tool ran, the item does not exist.
  json r = c.Call("show_item", {{"ref", "gitcode:Ascend/MindSpeed-Ops#424242"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_FALSE(r["result"]["content"][0]["text"].get<std::string>().empty());
  r = c.Call("list_links", {{"repo", "gitcode:Nobody/Nothing"}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("it holds 18 repositories"),
            std::string::npos)
      << r.dump();

  // Protocol errors.
  r = c.Call("no_such_tool", json::object());
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("no_such_tool"), std::string::npos);
  r = c.Call("show_item", json::object());
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("ref"), std::string::npos);
  r = c.Call("show_item", {{"ref", 69}});
  EXPECT_EQ(r["error"]["code"], -32602);
  r = c.Call("show_item", {{"ref", "x"}, {"extra", true}});
  EXPECT_EQ(r["error"]["code"], -32602);
  r = c.Call("list_links", {{"limit", 0}});
  EXPECT_EQ(r["error"]["code"], -32602);
  r = c.Request("resources/list", json::object());
  EXPECT_EQ(r["error"]["code"], -32601);

  c.SendRaw("{this is not json");
  r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32700);
  EXPECT_TRUE(r["id"].is_null());
  c.SendRaw(R"([{"jsonrpc":"2.0","id":99,"method":"ping"}])");
  r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32600);
  c.SendRaw(R"({"jsonrpc":"1.0","id":98,"method":"ping"})");
  r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32600);
  EXPECT_EQ(r["id"], 98);
  // Notifications get no answer: the next answer is the ping's.
  c.SendRaw(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})");
  json ping = c.Request("ping", json::object());
  EXPECT_EQ(ping["result"], json::object());
  EXPECT_EQ(c.Close(), 0);
  EXPECT_EQ(c.rest(), "");
}

// MCP 2025-06-18 lifecycle: before initialize only initialize and ping are
// answered; initialize is answered once.
TEST_F(McpDemo, LifecycleInitializeFirstAndOnce) {
  McpClient c(db_->path());
  json r = c.Request("tools/list", json::object());
  EXPECT_EQ(r["error"]["code"], -32002) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("initialize first"), std::string::npos);
  r = c.Call("show_item", {{"ref", "gitcode:Ascend/FlashGen#13"}});
  EXPECT_EQ(r["error"]["code"], -32002) << r.dump();
  r = c.Request("resources/list", json::object());
  EXPECT_EQ(r["error"]["code"], -32002) << r.dump();
  r = c.Request("ping", json::object());
  EXPECT_EQ(r["result"], json::object()) << r.dump();
  Initialize(c);
  r = c.Request("initialize", {{"protocolVersion", "2025-06-18"},
                               {"capabilities", json::object()},
                               {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
  EXPECT_EQ(r["error"]["code"], -32600) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("already initialized"),
            std::string::npos);
  r = c.Request("tools/list", json::object());
  EXPECT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(c.Close(), 0);
  EXPECT_EQ(c.rest(), "");
}

// Invalid arguments are -32602 for every tool, whether the schema says what
// is wrong (missing, mistyped, unknown, out of range) or the tool does (a
// malformed reference, date or cursor; find_fix without exactly one of
// ref and text).
TEST_F(McpDemo, InvalidArgumentsAreInvalidParamsForEveryTool) {
  McpClient c(db_->path());
  Initialize(c);
  struct Case {
    std::string tool;
    json args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"lookup_symptom", json::object(), "'text'"},
      {"lookup_symptom", {{"text", 5}}, "'text'"},
      {"lookup_symptom", {{"text", "x"}, {"limit", 101}}, "'limit'"},
      {"lookup_symptom", {{"text", "x"}, {"repo", "Ascend/FlashGen"}}, "Ascend/FlashGen"},
      {"lookup_symptom", {{"text", "x"}, {"bogus", 1}}, "'bogus'"},
      {"show_item", json::object(), "'ref'"},
      {"show_item", {{"ref", "no such thing"}}, "'ref'"},
      {"find_fix", json::object(), "exactly one of"},
      {"find_fix", {{"ref", "gitcode:Ascend/FlashGen#13"}, {"text", "x"}}, "exactly one of"},
      {"find_fix", {{"ref", "not a ref"}}, "'ref'"},
      {"find_fix", {{"text", "x"}, {"repo", "nonsense"}}, "nonsense"},
      {"list_links", {{"limit", 0}}, "'limit'"},
      {"list_links", {{"offset", -1}}, "'offset'"},
      {"list_links", {{"cursor", "gitcode:Ascend/FlashGen#13"}, {"offset", 0}}, "not both"},
      {"list_links", {{"cursor", "garbage"}}, "cursor \"garbage\""},
      {"list_links", {{"cursor", "gitcode:Ascend/FlashGen#99999"}}, "no such issue"},
      {"list_links", {{"repo", "bad"}}, "bad"},
      {"make_digest", {{"since", "someday"}}, "someday"},
      {"make_digest", {{"until", "2026-13-45"}}, "2026-13-45"},
      {"make_digest", {{"lang", "fr"}}, "'lang'"},
      {"make_digest", {{"repos", {"Ascend/FlashGen"}}}, "Ascend/FlashGen"},
  };
  for (const Case& k : cases) {
    json r = c.Call(k.tool, k.args);
    ASSERT_TRUE(r.contains("error")) << k.tool << " " << k.args.dump() << ": " << r.dump();
    EXPECT_EQ(r["error"]["code"], -32602) << k.tool << " " << k.args.dump();
    EXPECT_NE(r["error"]["message"].get<std::string>().find(k.says), std::string::npos)
        << k.tool << " " << k.args.dump() << ": " << r.dump();
  }
  // Well-formed arguments naming what the store lacks are tool failures.
  for (const Case& k :
       std::vector<Case>{{"show_item", {{"ref", "gitcode:Ascend/FlashGen#99999"}}, ""},
                         {"find_fix", {{"ref", "gitcode:Ascend/FlashGen#99999"}}, ""},
                         {"lookup_symptom", {{"text", "x"}, {"repo", "gitcode:No/Such"}}, ""},
                         {"make_digest", {{"repos", {"gitcode:No/Such"}}}, ""}}) {
    json r = c.Call(k.tool, k.args);
    EXPECT_EQ(r["result"]["isError"], true) << k.tool << ": " << r.dump();
  }
  EXPECT_EQ(c.Close(), 0);
}

// A small JSON Schema check (type, enum, required, properties, items, anyOf):
// what the tools' outputSchemas use. Returns "" or where the value differs.
std::string SchemaMismatch(const json& schema, const json& value, const std::string& at = "$") {
  if (schema.contains("anyOf")) {
    std::string why;
    bool any = false;
    for (const json& s : schema["anyOf"]) {
      std::string w = SchemaMismatch(s, value, at);
      any = any || w.empty();
      why += w + "; ";
    }
    if (!any) return at + ": matches no anyOf branch (" + why + ")";
  }
  if (schema.contains("type")) {
    auto is = [&value](const std::string& t) {
      return (t == "object" && value.is_object()) || (t == "array" && value.is_array()) ||
             (t == "string" && value.is_string()) || (t == "number" && value.is_number()) ||
             (t == "integer" && value.is_number_integer()) ||
             (t == "boolean" && value.is_boolean()) || (t == "null" && value.is_null());
    };
    bool ok = false;
    if (schema["type"].is_array()) {
      for (const json& t : schema["type"]) ok = ok || is(t.get<std::string>());
    } else {
      ok = is(schema["type"].get<std::string>());
    }
    if (!ok)
      return at + ": expected " + schema["type"].dump() + ", got " + value.dump().substr(0, 80);
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const json& e : schema["enum"]) found = found || e == value;
    if (!found) return at + ": " + value.dump() + " not in " + schema["enum"].dump();
  }
  if (value.is_object()) {
    if (schema.contains("required"))
      for (const json& r : schema["required"])
        if (!value.contains(r.get<std::string>())) return at + ": missing " + r.get<std::string>();
    if (schema.contains("properties"))
      for (const auto& [k, s] : schema["properties"].items())
        if (value.contains(k))
          if (std::string w = SchemaMismatch(s, value[k], at + "." + k); !w.empty()) return w;
  }
  if (value.is_array() && schema.contains("items"))
    for (size_t i = 0; i < value.size(); ++i)
      if (std::string w =
              SchemaMismatch(schema["items"], value[i], at + "[" + std::to_string(i) + "]");
          !w.empty())
        return w;
  return "";
}

// tools/list declares what each tool returns and that it only reads; what
// the tools return matches those schemas.
TEST_F(McpDemo, OutputSchemasAndAnnotationsDescribeTheTools) {
  McpClient c(db_->path());
  Initialize(c);
  json list = c.Request("tools/list", json::object());
  std::map<std::string, json> schemas;
  for (const json& t : list["result"]["tools"]) {
    std::string name = t["name"];
    const json& out = t["outputSchema"];
    EXPECT_EQ(out["type"], "object") << name;
    EXPECT_TRUE(out.contains("properties") || out.contains("anyOf")) << name << ": " << out.dump();
    EXPECT_GT(out.dump().size(), 100u)
        << name << ": " << out.dump();  // more than {"type":"object"}
    const json& a = t["annotations"];
    EXPECT_EQ(a["readOnlyHint"], true) << name;
    EXPECT_EQ(a["destructiveHint"], false) << name;
    EXPECT_EQ(a["idempotentHint"], true) << name;
    EXPECT_EQ(a["openWorldHint"], false) << name;
    EXPECT_EQ(a["title"], t["title"]) << name;
    schemas[name] = out;
  }
  ASSERT_EQ(schemas.size(), 5u);
  const std::vector<std::pair<std::string, json>> calls = {
      {"lookup_symptom", {{"text", "aclnnGroupedMatmulV3 报错"}}},
      {"lookup_symptom", {{"text", "910B HCCL timeout"}}},
      {"show_item", {{"ref", "gitcode:Ascend/MindSpeed-Ops#69"}}},
      {"show_item", {{"ref", "gitcode:Ascend/MindSpeed-Ops!166"}}},
      {"show_item", {{"ref", "gitcode:Ascend/MindSpeed-Ops"}}},
      {"find_fix", {{"ref", "gitcode:Ascend/FlashGen#13"}}},
      {"find_fix", {{"text", "catlass AttributeError pytest"}}},
      {"list_links", {{"limit", 5}}},
      {"list_links", {{"offset", 2}, {"limit", 3}}},
      {"make_digest", {{"repos", {"gitcode:Ascend/MindSpeed-Ops"}}}},
  };
  for (const auto& [tool, args] : calls) {
    json r = c.Call(tool, args);
    ASSERT_EQ(r["result"]["isError"], false) << tool << ": " << r.dump().substr(0, 300);
    EXPECT_EQ(SchemaMismatch(schemas[tool], r["result"]["structuredContent"]), "")
        << tool << " " << args.dump();
  }
  // The check can fail: a document without a required field does not match.
  EXPECT_NE(SchemaMismatch(schemas["list_links"], json{{"issues", json::array()}}), "");
  EXPECT_NE(SchemaMismatch(schemas["show_item"], json{{"kind", "commit"}}), "");
  EXPECT_EQ(c.Close(), 0);
}

// list_links pages by cursor like /api/v1/links: next_cursor until null,
// the pages together are the CLI's lines.
TEST_F(McpDemo, ListLinksPagesByCursor) {
  McpClient c(db_->path());
  Initialize(c);
  std::string lines = Cli("links --json");
  std::vector<json> expected;
  for (size_t pos = 0, nl; pos < lines.size(); pos = nl + 1) {
    nl = lines.find('\n', pos);
    expected.push_back(json::parse(lines.substr(pos, nl - pos)));
  }
  std::vector<json> got;
  json args{{"limit", 9}};
  for (int pages = 0; pages < 100; ++pages) {
    json r = c.Call("list_links", args);
    const json& doc = r["result"]["structuredContent"];
    ASSERT_TRUE(doc["issues"].is_array()) << r.dump();
    for (const json& i : doc["issues"]) got.push_back(i);
    EXPECT_EQ(doc["truncated"], !doc["next_cursor"].is_null());
    if (doc["next_cursor"].is_null()) break;
    args["cursor"] = doc["next_cursor"];
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(c.Close(), 0);
}

// Issue 21 finding 3: numbers out of range, deep nesting, fields of the wrong
// type and overlong lines are JSON-RPC errors naming the problem; the session
// goes on (before, 1e400 ended the process with an uncaught exception).
TEST_F(McpDemo, HostileMessagesGetErrorsAndTheSessionGoesOn) {
  McpClient c(db_->path());
  Initialize(c);
  c.SendRaw(R"({"jsonrpc":"2.0","id":1e400,"method":"ping"})");
  json r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32700) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("out of range"), std::string::npos)
      << r.dump();
  c.SendRaw(
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_links","arguments":{"limit":1e999}}})");
  r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32700) << r.dump();
  // 100,000 nested arrays: refused by depth, not by the stack.
  c.SendRaw(R"({"jsonrpc":"2.0","id":8,"method":"ping","params":)" + std::string(100000, '[') +
            std::string(100000, ']') + "}");
  r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32700) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("nested deeper than 64"),
            std::string::npos)
      << r.dump();
  // Brackets inside strings are text, not nesting (and not a reference).
  json deep_text = c.Call("show_item", {{"ref", std::string(1000, '[')}});
  EXPECT_EQ(deep_text["error"]["code"], -32602) << deep_text.dump();
  // Fields of the wrong type.
  c.SendRaw(R"({"jsonrpc":2,"id":9,"method":"ping"})");
  r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32600) << r.dump();
  EXPECT_EQ(r["id"], 9);
  c.SendRaw(R"({"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":3}})");
  r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_EQ(r["id"], 10);
  c.SendRaw(R"({"jsonrpc":"2.0","id":{"a":[1,2]},"method":"ping"})");
  r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32600) << r.dump();
  EXPECT_TRUE(r["id"].is_null());
  // A line beyond 4 MiB is skipped up to its newline.
  c.SendRaw(std::string(5 << 20, ' ') + "x");
  r = c.ReadMessage();
  EXPECT_EQ(r["error"]["code"], -32600) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("4 MiB"), std::string::npos);
  json ping = c.Request("ping", json::object());
  EXPECT_EQ(ping["result"], json::object()) << ping.dump();
  EXPECT_EQ(c.Close(), 0);
  EXPECT_EQ(c.rest(), "");
}

}  // namespace
}  // namespace fixgraph
