// fixgraph show REF [--json]
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "documents.h"
#include "fixgraph/engine/item_view.h"

namespace fixgraph::cli {
namespace {

using nlohmann::json;

constexpr size_t kBodyLines = 40;
constexpr size_t kCommentLines = 6;

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A stored UTC time shown in the display offset ("" when unset).
std::string When(const json& j, const char* key) {
  std::string s = Str(j, key);
  if (s.empty()) return "";
  auto t = ParseTimestamp(s);
  if (!t.ok() || !t->has_value()) return s;
  return FormatWithOffset(**t, DisplayOffsetMinutes());
}

void PrintIndented(std::ostream& out, const std::string& text, size_t max_lines,
                   const char* indent) {
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (n++ == max_lines) {
      out << indent << "[...]\n";
      return;
    }
    out << indent << line << "\n";
  }
}

std::string Who(const json& user) {
  std::string login = Str(user, "login");
  return login.empty() ? Str(user, "name") : login;
}

void PrintMentionedBy(std::ostream& out, const json& view) {
  const json& rows = view["mentioned_by"];
  if (rows.empty()) return;
  out << "\nMentioned by (" << rows.size() << "):\n";
  for (const json& m : rows) {
    out << "  " << Str(m, "source");
    std::string state = Str(m, "source_state");
    if (!state.empty()) {
      out << " [" << state;
      std::string merged = When(m, "source_merged_at");
      if (!merged.empty()) out << " " << merged;
      out << "]";
    }
    std::string title = Str(m, "source_title");
    if (!title.empty()) out << " \"" << title << "\"";
    out << ": " << Str(m, "in") << " has \"" << Str(m, "text") << "\"";
    std::string kw = Str(m, "keyword");
    if (kw != "none") out << " (" << kw << " keyword)";
    out << "\n";
  }
}

void PrintCommon(std::ostream& out, const json& view) {
  const json& comments = view["comments"];
  if (!comments.empty()) {
    out << "\nComments (" << comments.size() << "):\n";
    for (const json& c : comments) {
      out << "  " << When(c, "created_at") << "  " << Who(c["author"]) << ":\n";
      PrintIndented(out, Str(c, "body"), kCommentLines, "    ");
    }
  }
  const json& log = view["operate_log"];
  if (!log.empty()) {
    out << "\nOperate log (" << log.size() << "):\n";
    for (const json& e : log)
      out << "  " << When(e, "created_at") << "  " << Str(e, "action_type") << "  "
          << Str(e, "content") << "\n";
  }
  const json& links = view["platform_links"];
  if (!links.empty()) {
    out << "\nPlatform links (" << links.size() << "):\n";
    for (const json& l : links)
      out << "  " << Str(l, "issue") << " <-> " << Str(l, "pull") << "  (" << Str(l, "source")
          << ")\n";
  }
  PrintMentionedBy(out, view);
}

void PrintIssue(std::ostream& out, const json& view) {
  const json& i = view["issue"];
  out << Str(i, "ref") << "  [" << Str(i, "state") << "]\n" << Str(i, "title") << "\n"
      << Str(i, "html_url") << "\n";
  out << "opened " << When(i, "created_at") << " by " << Who(i["author"]);
  std::string closed = When(i, "closed_at");
  if (!closed.empty()) out << "; closed " << closed;
  out << "\n";
  if (!i["labels"].empty()) {
    out << "labels:";
    for (const json& l : i["labels"]) out << " " << l.get<std::string>();
    out << "\n";
  }
  if (view.contains("explanation")) {
    const json& l = view["links"];
    out << "resolution: " << Str(l, "resolution");
    if (!l["flags"].empty()) {
      out << "  flags:";
      for (const json& f : l["flags"]) out << " " << f.get<std::string>();
    }
    out << "\n";
    for (const json& line : view["explanation"]) out << "  " << line.get<std::string>() << "\n";
  }
  out << "\n";
  PrintIndented(out, Str(i, "body"), kBodyLines, "  ");
  PrintCommon(out, view);
}

void PrintPull(std::ostream& out, const json& view) {
  const json& p = view["pull"];
  out << Str(p, "ref") << "  [" << Str(p, "state") << "]\n" << Str(p, "title") << "\n"
      << Str(p, "html_url") << "\n";
  out << "opened " << When(p, "created_at") << " by " << Who(p["author"]);
  std::string merged = When(p, "merged_at");
  if (!merged.empty()) out << "; merged " << merged;
  else if (!When(p, "closed_at").empty()) out << "; closed unmerged " << When(p, "closed_at");
  out << "\nbranch " << Str(p, "head_ref") << " -> " << Str(p, "base_ref") << "\n\n";
  PrintIndented(out, Str(p, "body"), kBodyLines, "  ");
  if (!view["mentions"].empty()) {
    out << "\nMentions:";
    for (const json& m : view["mentions"]) {
      out << " " << Str(m, "target");
      if (Str(m, "keyword") != "none") out << " (" << Str(m, "keyword") << ")";
    }
    out << "\n";
  }
  if (!view["commits"].empty()) {
    out << "\nCommits (" << view["commits"].size() << "):\n";
    for (const json& c : view["commits"]) {
      std::string msg = Str(c, "message");
      out << "  " << Str(c, "sha").substr(0, 10) << "  " << msg.substr(0, msg.find('\n')) << "\n";
    }
  }
  if (!view["files"].empty()) {
    out << "\nFiles (" << view["files"].size() << "):\n";
    for (const json& f : view["files"])
      out << "  " << Str(f, "status") << "  " << Str(f, "filename") << "  +"
          << f.value("additions", 0) << " -" << f.value("deletions", 0) << "\n";
  }
  PrintCommon(out, view);
}

void PrintRepo(std::ostream& out, const json& view) {
  const json& r = view["repository"];
  const json& s = view["stats"];
  out << Str(r, "repo") << "\n";
  if (!Str(r, "description").empty()) out << Str(r, "description") << "\n";
  out << Str(r, "html_url") << "\n\n";
  out << "issues " << s["issues"]["total"] << " (" << s["issues"]["closed"] << " closed), "
      << "pull requests " << s["pulls"]["total"] << " (" << s["pulls"]["merged"] << " merged), "
      << "comments " << s["comments"] << "\n";
}

void RunShow(Context& ctx, const std::string& text, bool json_out) {
  auto ref = ParseRef(text);
  if (!ref.ok()) return ctx.Fail(ref.status());
  auto store = ctx.OpenForRead();
  if (!store.ok()) return ctx.Fail(store.status());
  auto view = ShowDocument(**store, text);
  if (!view.ok()) return ctx.Fail(view.status());
  if (json_out) {
    *ctx.out << view->dump() << "\n";
    return;
  }
  std::string kind = Str(*view, "kind");
  if (kind == "issue") PrintIssue(*ctx.out, *view);
  else if (kind == "pull") PrintPull(*ctx.out, *view);
  else PrintRepo(*ctx.out, *view);
}

}  // namespace

void AddShowCommand(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("show", "one item (issue, PR or repository) with what links to it");
  auto ref = std::make_shared<std::string>();
  auto json_out = std::make_shared<bool>(false);
  cmd->add_option("REF", *ref, "gitcode:OWNER/REPO#N, ...!N, a repository, or a web URL")
      ->required();
  cmd->add_flag("--json", *json_out, "print JSON");
  cmd->callback([&ctx, ref, json_out] { RunShow(ctx, *ref, *json_out); });
}

}  // namespace fixgraph::cli
