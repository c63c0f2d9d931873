#include "fake_api.h"

#include "fixgraph/engine/time.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fixgraph::fakeapi {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '/') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::int64_t TimeOf(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return 0;
  auto t = ParseTimestamp(it->get<std::string>());
  return t.ok() && t->has_value() ? **t : 0;
}

bool IsOpenState(const json& j) {
  std::string s = j.value("state", std::string());
  return s == "open" || s == "opened" || s == "progressing";
}

}  // namespace

StatusOr<FakeFault> ParseFakeFault(const std::string& spec) {
  static const std::vector<std::string> kKinds = {"429",     "403rate", "418",      "500",   "502",
                                                  "503",     "slow",    "truncate", "reset", "html",
                                                  "badjson", "shift",   "unshift",  "404"};
  FakeFault f;
  size_t a = spec.find(':');
  f.kind = spec.substr(0, a);
  if (std::find(kKinds.begin(), kKinds.end(), f.kind) == kKinds.end())
    return Status::InvalidArgument("--fault " + spec + ": unknown kind \"" + f.kind + "\"");
  if (a != std::string::npos) {
    size_t b = spec.find(':', a + 1);
    std::string count = spec.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
    try {
      f.count = std::stoi(count);
    } catch (...) {
      return Status::InvalidArgument("--fault " + spec + ": COUNT must be an integer");
    }
    if (b != std::string::npos) f.match = spec.substr(b + 1);
  }
  return f;
}

StatusOr<FakeQuirk> ParseFakeQuirk(const std::string& name) {
  if (name == "action-only") return FakeQuirk::kActionOnly;
  if (name == "links-object") return FakeQuirk::kLinksObject;
  if (name == "naive-times") return FakeQuirk::kNaiveTimes;
  if (name == "no-close-time") return FakeQuirk::kNoCloseTime;
  return Status::InvalidArgument("--quirk " + name +
                                 ": unknown (expected action-only, links-object, naive-times, "
                                 "no-close-time)");
}

namespace {

// "2024-04-24T22:27:49+08:00" (or with a fraction) -> "2024-04-24 22:27:49".
void DropChinaOffsets(json* j) {
  if (j->is_string()) {
    const std::string& v = j->get_ref<const std::string&>();
    if (v.size() >= 25 && v[4] == '-' && v[10] == 'T' && v.compare(v.size() - 6, 6, "+08:00") == 0)
      *j = v.substr(0, 10) + " " + v.substr(11, 8);
    return;
  }
  if (j->is_array() || j->is_object())
    for (auto& e : *j) DropChinaOffsets(&e);
}

}  // namespace

struct FakeApi::Impl {
  std::string dump;
  httplib::Server server;
  std::thread thread;
  int port = 0;
  mutable std::mutex mu;
  std::string token;
  std::vector<FakeFault> faults;
  std::vector<FakeQuirk> quirks;
  std::vector<FakeRequest> log;
  std::map<std::string, std::shared_ptr<json>> cache;
  int shifted = 0;

  std::shared_ptr<json> Load(const std::string& path) {
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = cache.find(path);
      if (it != cache.end()) return it->second;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return nullptr;
    std::stringstream ss;
    ss << in.rdbuf();
    auto j = std::make_shared<json>(json::parse(ss.str(), nullptr, false));
    if (j->is_discarded()) return nullptr;
    std::lock_guard<std::mutex> lock(mu);
    cache[path] = j;
    return j;
  }

  // The platform folder of OWNER/REPO (or of OWNER alone when repo is "").
  std::string Resolve(const std::string& platform_hint, const std::string& owner,
                      const std::string& repo) {
    for (const char* p : {"gitcode", "gitee", "github"}) {
      if (!platform_hint.empty() && platform_hint != p) continue;
      fs::path d = fs::path(dump) / p / owner;
      if (!repo.empty()) d /= repo;
      std::error_code ec;
      if (fs::is_directory(d, ec)) return p;
    }
    return "";
  }

  void Error(const std::string& platform, int status, const std::string& msg,
             httplib::Response& res) {
    res.status = status;
    json body;
    if (platform == "gitcode") {
      body = {{"error_code", status},
              {"error_code_name", status == 404 ? "NOT_FOUND" : "ERROR"},
              {"error_message", msg}};
    } else if (platform == "github") {
      body = {{"message", msg}, {"documentation_url", "https://docs.github.com/rest"}};
    } else {
      body = {{"message", msg}};
    }
    res.set_content(body.dump(), "application/json");
  }

  // Pages `items` onto `res` with the platform's headers.
  void Paginate(const std::string& platform, const httplib::Request& req, const json& items,
                bool always, httplib::Response& res) {
    bool paged = always || req.has_param("page") || req.has_param("per_page");
    if (!paged) {
      res.set_content(items.dump(), "application/json");
      return;
    }
    long page = req.has_param("page") ? std::atol(req.get_param_value("page").c_str()) : 1;
    long per = req.has_param("per_page") ? std::atol(req.get_param_value("per_page").c_str()) : 20;
    page = std::max(1L, page);
    per = std::clamp(per, 1L, 100L);
    long total = static_cast<long>(items.size());
    long pages = std::max(1L, (total + per - 1) / per);
    json out = json::array();
    for (long i = (page - 1) * per; i < std::min(total, page * per); ++i) out.push_back(items[i]);
    if (platform == "github") {
      std::string base = "http://" + req.get_header_value("Host") + req.path +
                         "?per_page=" + std::to_string(per) + "&page=";
      std::string link;
      if (page < pages) link = "<" + base + std::to_string(page + 1) + ">; rel=\"next\", ";
      link += "<" + base + std::to_string(pages) + ">; rel=\"last\"";
      res.set_header("Link", link);
    } else if (platform == "gitee") {
      res.set_header("Total_count", std::to_string(total));
      res.set_header("Total_page", std::to_string(pages));
    } else {
      res.set_header("total_count", std::to_string(total));
      res.set_header("total_page", std::to_string(pages));
    }
    res.set_content(out.dump(), "application/json");
  }

  json FilterList(const httplib::Request& req, const json& all) {
    std::string state = req.has_param("state") ? req.get_param_value("state") : "all";
    std::string sort = req.has_param("sort") ? req.get_param_value("sort") : "created";
    std::string dir = req.has_param("direction") ? req.get_param_value("direction") : "desc";
    std::int64_t since = 0;
    if (req.has_param("since")) {
      auto t = ParseTimestamp(req.get_param_value("since"));
      if (t.ok() && t->has_value()) since = **t;
    }
    std::vector<std::pair<std::int64_t, size_t>> keyed;
    for (size_t i = 0; i < all.size(); ++i) {
      const json& j = all[i];
      if (state == "open" && !IsOpenState(j)) continue;
      if (state == "closed" && IsOpenState(j)) continue;
      if (since > 0 && TimeOf(j, "updated_at") < since) continue;
      keyed.emplace_back(TimeOf(j, sort == "updated" ? "updated_at" : "created_at"), i);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
      return dir == "asc" ? a.first < b.first : a.first > b.first;
    });
    json out = json::array();
    for (const auto& k : keyed) out.push_back(all[k.second]);
    return out;
  }

  // A new item, created before every other one, at the front of `list`.
  void ShiftIn(json& list, bool issues) {
    if (list.empty()) return;
    json item = list[0];
    std::int64_t earliest = TimeOf(list[0], "created_at");
    std::int64_t max_num = 0;
    for (const json& j : list) {
      earliest = std::min(earliest, TimeOf(j, "created_at"));
      const json n = j.is_object() ? j.value("number", json()) : json();
      if (n.is_number_integer()) max_num = std::max<std::int64_t>(max_num, n.get<std::int64_t>());
      if (n.is_string()) {
        try {
          max_num = std::max<std::int64_t>(max_num, std::stoll(n.get<std::string>()));
        } catch (...) {
        }
      }
    }
    ++shifted;
    std::int64_t num = max_num + 1000 + shifted;
    bool string_number = item["number"].is_string();
    std::string snum =
        string_number &&
                !std::isdigit(static_cast<unsigned char>(item["number"].get<std::string>()[0]))
            ? "ISHIFT" + std::to_string(shifted)
            : std::to_string(num);
    if (string_number || issues) {
      item["number"] = snum;
    } else {
      item["number"] = num;
    }
    if (item.contains("iid")) item["iid"] = num;
    if (item.contains("id") && item["id"].is_number_integer()) item["id"] = 900000000 + num;
    item["title"] = "appeared while listing " + std::to_string(shifted);
    item["created_at"] = FormatUtc(earliest - 86400);
    item["updated_at"] = FormatUtc(earliest - 86400);
    list.insert(list.begin(), item);
  }

  void Unshift(json& list) {
    if (list.empty()) return;
    size_t first = 0;
    for (size_t i = 1; i < list.size(); ++i)
      if (TimeOf(list[i], "created_at") < TimeOf(list[first], "created_at")) first = i;
    list.erase(list.begin() + static_cast<long>(first));
  }

  bool Authorized(const std::string& platform, const FakeRequest& r) {
    if (token.empty()) return true;
    if (r.authorization == "Bearer " + token) return true;
    if (platform == "gitcode") return r.private_token == token || r.access_token == token;
    if (platform == "gitee") return r.access_token == token;
    return false;
  }

  void Handle(const httplib::Request& req, httplib::Response& res) {
    FakeRequest r;
    r.path = req.path;
    for (const auto& [k, v] : req.params) {
      if (k == "access_token") continue;  // keep the log free of tokens
      r.query += (r.query.empty() ? "" : "&") + k + "=" + v;
    }
    r.private_token = req.get_header_value("PRIVATE-TOKEN");
    r.authorization = req.get_header_value("Authorization");
    r.access_token = req.has_param("access_token") ? req.get_param_value("access_token") : "";
    r.user_agent = req.get_header_value("User-Agent");

    // Faults.
    FakeFault fault;
    bool faulted = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      std::string target = r.path + "?" + r.query;
      for (FakeFault& f : faults) {
        if (f.count == 0) continue;
        if (!f.match.empty() && target.find(f.match) == std::string::npos) continue;
        if (f.count > 0) --f.count;
        fault = f;
        faulted = true;
        break;
      }
    }
    if (faulted) r.fault = fault.kind;
    auto finish = [&] {
      r.status = res.status == -1 ? 200 : res.status;
      std::lock_guard<std::mutex> lock(mu);
      log.push_back(r);
    };
    if (faulted) {
      const std::string& k = fault.kind;
      if (k == "429" || k == "403rate") {
        res.status = k == "429" ? 429 : 403;
        res.set_header("Retry-After", std::to_string(fault.retry_after_s));
        res.set_header("X-RateLimit-Remaining", "0");
        res.set_header("X-RateLimit-Reset",
                       std::to_string(std::time(nullptr) + fault.retry_after_s));
        res.set_content(k == "429" ? R"({"message":"Too Many Requests"})"
                                   : R"({"message":"API rate limit exceeded"})",
                        "application/json");
        return finish();
      }
      if (k == "418" || k == "500" || k == "502" || k == "503") {
        res.status = std::stoi(k);
        res.set_content(R"({"message":"injected fault"})", "application/json");
        return finish();
      }
      if (k == "404") {
        std::vector<std::string> seg = Split(req.path);
        auto rp = std::find(seg.begin(), seg.end(), "repos");
        std::string platform =
            rp != seg.end() && seg.end() - rp >= 3 ? Resolve(PlatformHint(seg), rp[1], rp[2]) : "";
        Error(platform.empty() ? "gitcode" : platform, 404, "404 Not Found", res);
        return finish();
      }
      if (k == "html") {
        res.status = 200;
        res.set_content("<!DOCTYPE html><html><body><h1>Service busy</h1></body></html>",
                        "text/html");
        return finish();
      }
      if (k == "slow") std::this_thread::sleep_for(std::chrono::milliseconds(fault.slow_ms));
    }

    Serve(req, r, res);
    ApplyQuirks(req.path, res);
    if (faulted && (fault.kind == "truncate" || fault.kind == "reset" || fault.kind == "badjson") &&
        (res.status == 200 || res.status == -1)) {
      std::string body = res.body;
      size_t keep = fault.kind == "reset" ? 0 : body.size() / 2;
      if (fault.kind == "badjson") {
        res.set_content(body.substr(0, keep), "application/json");
      } else {
        auto half = std::make_shared<std::string>(body.substr(0, keep));
        res.body.clear();
        res.set_content_provider(body.size(), "application/json",
                                 [half](size_t, size_t, httplib::DataSink& sink) {
                                   if (!half->empty()) sink.write(half->data(), half->size());
                                   return false;  // cut the connection short
                                 });
      }
    }
    if (faulted && (fault.kind == "shift" || fault.kind == "unshift")) {
      // Mutate the list just served (repos/O/R/issues|pulls).
      std::vector<std::string> seg = Split(req.path);
      auto rp = std::find(seg.begin(), seg.end(), "repos");
      if (rp != seg.end() && seg.end() - rp == 4 && (rp[3] == "issues" || rp[3] == "pulls")) {
        std::string platform = Resolve(PlatformHint(seg), rp[1], rp[2]);
        auto list = Load((fs::path(dump) / platform / rp[1] / rp[2] / (rp[3] + ".json")).string());
        if (list) {
          std::lock_guard<std::mutex> lock(mu);
          if (fault.kind == "shift") {
            ShiftIn(*list, rp[3] == "issues");
          } else {
            Unshift(*list);
          }
        }
      }
    }
    finish();
  }

  bool Has(FakeQuirk q) {
    std::lock_guard<std::mutex> lock(mu);
    return std::find(quirks.begin(), quirks.end(), q) != quirks.end();
  }

  // Rewrites a successful JSON answer per the quirks switched on.
  void ApplyQuirks(const std::string& path, httplib::Response& res) {
    if (res.status != 200 && res.status != -1) return;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (quirks.empty()) return;
    }
    json j = json::parse(res.body, nullptr, false);
    if (j.is_discarded()) return;
    std::vector<std::string> seg = Split(path);
    const std::string last = seg.empty() ? "" : seg.back();
    if (Has(FakeQuirk::kActionOnly) && last == "operate_logs" && j.is_array()) {
      for (json& e : j) {
        if (!e.is_object() || !e.contains("action_type")) continue;
        if (!e.contains("action") || e["action"].is_null()) e["action"] = e["action_type"];
        e.erase("action_type");
      }
    }
    if (Has(FakeQuirk::kLinksObject) && last == "pull_requests" && j.is_array() && j.size() == 1)
      j = j[0];
    if (Has(FakeQuirk::kNoCloseTime) && seg.size() >= 2 && seg[seg.size() - 2] != "pulls" &&
        last == "issues" && j.is_array()) {
      for (json& e : j) {
        if (!e.is_object() || e.value("state", std::string()) != "closed") continue;
        e["finished_at"] = "";
        e["closed_at"] = nullptr;
      }
    }
    if (Has(FakeQuirk::kNaiveTimes)) DropChinaOffsets(&j);
    res.set_content(j.dump(), "application/json");
  }

  static std::string PlatformHint(const std::vector<std::string>& seg) {
    if (!seg.empty() && (seg[0] == "gitcode" || seg[0] == "gitee" || seg[0] == "github"))
      return seg[0];
    return "";
  }

  void Serve(const httplib::Request& req, const FakeRequest& r, httplib::Response& res) {
    std::vector<std::string> seg = Split(req.path);
    std::string hint = PlatformHint(seg);
    auto orgs = std::find(seg.begin(), seg.end(), "orgs");
    auto rp = std::find(seg.begin(), seg.end(), "repos");
    if (orgs != seg.end() && seg.end() - orgs == 3 && orgs[2] == "repos") {
      std::string platform = Resolve(hint, orgs[1], "");
      if (platform.empty()) return Error("gitcode", 404, "404 Group Not Found", res);
      if (!Authorized(platform, r)) return Error(platform, 401, "401 Unauthorized", res);
      json out = json::array();
      std::error_code ec;
      std::vector<fs::path> dirs;
      for (fs::directory_iterator it(fs::path(dump) / platform / orgs[1], ec), end;
           !ec && it != end; it.increment(ec))
        if (it->is_directory()) dirs.push_back(it->path());
      std::sort(dirs.begin(), dirs.end());
      for (const fs::path& d : dirs) {
        auto repo = Load((d / "repo.json").string());
        std::string name = d.filename().string();
        json j = repo ? *repo : json{{"name", name}, {"path", name}};
        j["full_name"] = orgs[1] + "/" + name;  // the path form, as GitCode sends
        out.push_back(j);
      }
      return Paginate(platform, req, out, true, res);
    }
    if (rp == seg.end() || seg.end() - rp < 3) return Error("gitcode", 404, "404 Not Found", res);
    const std::string owner = rp[1];
    // /repos/O/issues/N/operate_logs?repo=R
    if (seg.end() - rp == 5 && rp[2] == "issues" && rp[4] == "operate_logs") {
      std::string repo = req.has_param("repo") ? req.get_param_value("repo") : "";
      std::string platform = Resolve(hint, owner, repo);
      if (platform.empty() || platform == "github")
        return Error(platform.empty() ? "gitcode" : platform, 404, "404 Project Not Found", res);
      if (!Authorized(platform, r)) return Error(platform, 401, "401 Unauthorized", res);
      return ServeDetail(platform, owner, repo, "issues", rp[3], "operate_logs", req, res);
    }
    const std::string repo = rp[2];
    std::string platform = Resolve(hint, owner, repo);
    if (platform.empty()) return Error("gitcode", 404, "404 Project Not Found", res);
    if (!Authorized(platform, r)) return Error(platform, 401, "401 Unauthorized", res);
    fs::path root = fs::path(dump) / platform / owner / repo;
    long n = seg.end() - rp;
    if (n == 3) {
      auto j = Load((root / "repo.json").string());
      if (!j) return Error(platform, 404, "404 Project Not Found", res);
      res.set_content(j->dump(), "application/json");
      return;
    }
    const std::string& list = rp[3];
    if (list != "issues" && list != "pulls") return Error(platform, 404, "404 Not Found", res);
    if (n == 4) {
      auto all = Load((root / (list + ".json")).string());
      json snapshot = json::array();
      if (all) {
        std::lock_guard<std::mutex> lock(mu);
        snapshot = *all;
      }
      json items = FilterList(req, snapshot);
      return Paginate(platform, req, items, true, res);
    }
    if (n == 5) {
      json item = FindItem(root, list, rp[4]);
      if (item.is_null()) return Error(platform, 404, "404 Not Found", res);
      res.set_content(item.dump(), "application/json");
      return;
    }
    if (n == 6) return ServeDetail(platform, owner, repo, list, rp[4], rp[5], req, res);
    return Error(platform, 404, "404 Not Found", res);
  }

  json FindItem(const fs::path& root, const std::string& list, const std::string& number) {
    auto all = Load((root / (list + ".json")).string());
    if (!all) return json();
    std::lock_guard<std::mutex> lock(mu);
    for (const json& j : *all) {
      const json& num = j.contains("number") ? j["number"] : json();
      std::string s = num.is_string()   ? num.get<std::string>()
                      : num.is_number() ? std::to_string(num.get<std::int64_t>())
                                        : "";
      if (s == number) return j;
    }
    return json();
  }

  void ServeDetail(const std::string& platform, const std::string& owner, const std::string& repo,
                   const std::string& list, const std::string& number, const std::string& what,
                   const httplib::Request& req, httplib::Response& res) {
    static const std::map<std::string, std::vector<std::string>> kIssue = {
        {"gitcode", {"comments", "operate_logs", "pull_requests", "related_branches"}},
        {"gitee", {"comments", "operate_logs"}},
        {"github", {"comments"}}};
    static const std::map<std::string, std::vector<std::string>> kPull = {
        {"gitcode", {"comments", "commits", "files", "issues", "operate_logs"}},
        {"gitee", {"comments", "commits", "files", "issues", "operate_logs"}},
        {"github", {"comments", "commits", "files"}}};
    const auto& allowed = (list == "issues" ? kIssue : kPull).at(platform);
    if (std::find(allowed.begin(), allowed.end(), what) == allowed.end())
      return Error(platform, 404, "404 Not Found", res);
    fs::path root = fs::path(dump) / platform / owner / repo;
    std::error_code ec;
    if (FindItem(root, list, number).is_null() && !fs::is_directory(root / list / number, ec))
      return Error(platform, 404, "404 Not Found", res);
    auto data = Load((root / list / number / (what + ".json")).string());
    if (data && !data->is_array()) {  // served as recorded (an object, as some docs show)
      res.set_content(data->dump(), "application/json");
      return;
    }
    Paginate(platform, req, data ? *data : json::array(), false, res);
  }
};

FakeApi::FakeApi(std::string dump_dir) : impl_(std::make_unique<Impl>()) {
  impl_->dump = std::move(dump_dir);
  impl_->server.set_tcp_nodelay(true);  // no Nagle stall between headers and body
  impl_->server.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
    impl_->Handle(req, res);
  });
}

FakeApi::~FakeApi() { Stop(); }

void FakeApi::RequireToken(const std::string& token) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->token = token;
}

void FakeApi::AddFault(const FakeFault& fault) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->faults.push_back(fault);
}

void FakeApi::AddQuirk(FakeQuirk quirk) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->quirks.push_back(quirk);
}

StatusOr<int> FakeApi::Start(const std::string& host, int port) {
  if (port == 0) {
    port = impl_->server.bind_to_any_port(host);
    if (port < 0) return Status::IOError("fake api: cannot bind " + host);
  } else if (!impl_->server.bind_to_port(host, port)) {
    return Status::IOError("fake api: cannot bind " + host + ":" + std::to_string(port));
  }
  impl_->port = port;
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  for (int i = 0; i < 200 && !impl_->server.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return port;
}

Status FakeApi::Listen(const std::string& host, int port, const std::function<void(int)>& bound) {
  if (port == 0) {
    port = impl_->server.bind_to_any_port(host);
    if (port < 0) return Status::IOError("cannot listen on " + host + " (any port)");
  } else if (!impl_->server.bind_to_port(host, port)) {
    return Status::IOError("cannot listen on " + host + ":" + std::to_string(port));
  }
  impl_->port = port;
  if (bound) bound(port);
  impl_->server.listen_after_bind();
  return Status::OK();
}

void FakeApi::Stop() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string FakeApi::BaseUrl() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + "/api/v5";
}

std::vector<FakeRequest> FakeApi::Requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->log;
}

void FakeApi::ClearRequests() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->log.clear();
}

void FakeApi::Reload() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->cache.clear();
}

}  // namespace fixgraph::fakeapi
