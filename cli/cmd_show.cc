// fixgraph show REF [--json] [--tz OFFSET|local]
//
// Times: every time the text shows (the item's, the comments', the operate
// log's and those inside the linker's explanation, which were written at link
// time) is printed in one zone: --tz, else $FIXGRAPH_TZ, else +08:00 (the
// display offset of engine/time.h); `--tz local` is the machine's zone (TZ,
// /etc/localtime). The header says which. Markdown code fences in bodies and
// comments are rendered as indented blocks.
#include "commands.h"
#include "documents.h"

#include "fixgraph/engine/item_view.h"
#include "fixgraph/engine/json_field.h"

#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fixgraph::cli {
namespace {

using nlohmann::json;

constexpr size_t kBodyLines = 40;
constexpr size_t kCommentLines = 6;

// The string at `key`, "" when absent.
std::string Str(const json& j, const char* key) { return StringOrEmpty(j, key); }

// The zone every time is shown in.
struct Zone {
  bool local = false;  // the machine's zone, offset per instant (DST)
  int offset = 0;      // minutes east of UTC otherwise
  std::string why;     // "--tz", "FIXGRAPH_TZ", "default"

  int OffsetAt(UnixSeconds t) const {
    if (!local) return offset;
    auto tt = static_cast<time_t>(t);
    struct tm tm {};
    if (localtime_r(&tt, &tm) == nullptr) return 0;
    return static_cast<int>(tm.tm_gmtoff / 60);
  }
  std::string Format(UnixSeconds t) const { return FormatWithOffset(t, OffsetAt(t)); }
};

// `--tz` text (validated by the option), or the display offset
// ($FIXGRAPH_TZ, `env_tz`, applied in cli.cc).
Zone ChooseZone(const std::string& tz, const std::string& env_tz) {
  Zone z;
  if (tz == "local") {
    z.local = true;
    z.why = "--tz local";
  } else if (!tz.empty()) {
    z.offset = *ParseUtcOffset(tz);
    z.why = "--tz";
  } else {
    z.offset = DisplayOffsetMinutes();
    z.why = !env_tz.empty() && ParseUtcOffset(env_tz).ok() ? "FIXGRAPH_TZ" : "the default";
  }
  return z;
}

std::string OffsetText(int minutes) {
  // FormatWithOffset ends with the offset: "... +08:00".
  std::string s = FormatWithOffset(0, minutes);
  return s.substr(s.rfind(' ') + 1);
}

// A stored UTC time shown in the chosen zone ("" when unset).
std::string When(const Zone& zone, const json& j, const char* key) {
  std::string s = Str(j, key);
  if (s.empty()) return "";
  auto t = ParseTimestamp(s);
  if (!t.ok() || !t->has_value()) return s;
  return zone.Format(**t);
}

bool Digits(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t i = at; i < at + n; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

// `text` with every time written in it ("2026-09-15 11:35:56 +08:00",
// "2026-09-15T03:35:56Z", "2026-09-15T11:35:56+08:00") shown in the chosen
// zone: the linker wrote its notes at link time, in that run's zone.
std::string Rezone(const Zone& zone, const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    // YYYY-MM-DD?HH:MM:SS
    if (Digits(text, i, 4) && text.compare(i + 4, 1, "-") == 0 && Digits(text, i + 5, 2) &&
        text.compare(i + 7, 1, "-") == 0 && Digits(text, i + 8, 2) && i + 10 < text.size() &&
        (text[i + 10] == ' ' || text[i + 10] == 'T') && Digits(text, i + 11, 2) &&
        text.compare(i + 13, 1, ":") == 0 && Digits(text, i + 14, 2) &&
        text.compare(i + 16, 1, ":") == 0 && Digits(text, i + 17, 2)) {
      size_t end = i + 19;
      std::string written;  // the offset as written
      if (end < text.size() && text[end] == 'Z') {
        written = "Z";
        end += 1;
      } else {
        size_t z = end + (end < text.size() && text[end] == ' ' ? 1 : 0);
        if (z < text.size() && (text[z] == '+' || text[z] == '-') && Digits(text, z + 1, 2) &&
            text.compare(z + 3, 1, ":") == 0 && Digits(text, z + 4, 2)) {
          written = text.substr(z, 6);
          end = z + 6;
        }
      }
      if (!written.empty()) {
        std::string iso = text.substr(i, 10) + "T" + text.substr(i + 11, 8) + written;
        auto t = ParseTimestamp(iso);
        if (t.ok() && t->has_value()) {
          out += zone.Format(**t);
          i = end;
          continue;
        }
      }
    }
    out += text[i++];
  }
  return out;
}

// Prints a body or comment, `max_lines` lines at most: Markdown code fences
// (``` or ~~~) are not printed; the code between them is indented four more
// spaces, as a code block.
void PrintIndented(std::ostream& out, const std::string& text, size_t max_lines,
                   const char* indent) {
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  bool code = false;
  std::string fence;  // the fence that opened the block
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t lead = line.find_first_not_of(" \t");
    std::string_view t =
        lead == std::string::npos ? std::string_view() : std::string_view(line).substr(lead);
    bool is_fence = t.rfind("```", 0) == 0 || t.rfind("~~~", 0) == 0;
    if (is_fence && (!code || t.substr(0, 3) == fence)) {
      code = !code;
      fence = std::string(t.substr(0, 3));
      continue;
    }
    if (n++ == max_lines) {
      out << indent << "[...]\n";
      return;
    }
    out << indent << (code ? "    " : "") << line << "\n";
  }
}

std::string Who(const json& user) {
  std::string login = Str(user, "login");
  return login.empty() ? Str(user, "name") : login;
}

// "opened TIME by LOGIN", each part only when the record has it (recorded
// threads may lack either): "opened (time unknown)" when neither is known.
std::string Opened(const Zone& zone, const json& item) {
  std::string when = When(zone, item, "created_at");
  std::string who = Who(item["author"]);
  if (when.empty() && who.empty()) return "opened (time unknown)";
  std::string s = "opened";
  if (!when.empty()) s += " " + when;
  if (!who.empty()) s += " by " + who;
  return s;
}

void PrintMentionedBy(std::ostream& out, const json& view, const Zone& zone) {
  const json& rows = view["mentioned_by"];
  if (rows.empty()) return;
  out << "\nMentioned by (" << rows.size() << "):\n";
  for (const json& m : rows) {
    out << "  " << Str(m, "source");
    std::string state = Str(m, "source_state");
    if (!state.empty()) {
      out << " [" << state;
      std::string merged = When(zone, m, "source_merged_at");
      if (!merged.empty()) out << " " << merged;
      out << "]";
    }
    std::string title = Str(m, "source_title");
    if (!title.empty()) out << " \"" << title << "\"";
    out << ": " << Str(m, "in") << " has \"" << Str(m, "text") << "\"";
    std::string kw = Str(m, "keyword");
    if (kw == "reason")
      out << " (named as the reason for a skip, not as fixed)";
    else if (kw != "none")
      out << " (" << kw << " keyword)";
    out << "\n";
  }
}

void PrintCommon(std::ostream& out, const json& view, const Zone& zone) {
  const json& comments = view["comments"];
  if (!comments.empty()) {
    out << "\nComments (" << comments.size() << "):\n";
    for (const json& c : comments) {
      out << "  " << When(zone, c, "created_at") << "  " << Who(c["author"]) << ":\n";
      PrintIndented(out, Str(c, "body"), kCommentLines, "    ");
    }
  }
  const json& log = view["operate_log"];
  if (!log.empty()) {
    out << "\nOperate log (" << log.size() << "):\n";
    for (const json& e : log)
      out << "  " << When(zone, e, "created_at") << "  " << Str(e, "action_type") << "  "
          << Rezone(zone, Str(e, "content")) << "\n";
  }
  const json& links = view["platform_links"];
  if (!links.empty()) {
    out << "\nPlatform links (" << links.size() << "):\n";
    for (const json& l : links)
      out << "  " << Str(l, "issue") << " <-> " << Str(l, "pull") << "  (" << Str(l, "source")
          << ")\n";
  }
  PrintMentionedBy(out, view, zone);
}

void PrintIssue(std::ostream& out, const json& view, const Zone& zone) {
  const json& i = view["issue"];
  out << Str(i, "ref") << "  [" << Str(i, "state") << "]\n"
      << Str(i, "title") << "\n"
      << Str(i, "html_url") << "\n";
  std::string closed = When(zone, i, "closed_at");
  out << Opened(zone, i) << (closed.empty() ? "" : "; closed " + closed) << "\n";
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
    for (const json& line : view["explanation"])
      out << "  " << Rezone(zone, line.get<std::string>()) << "\n";
  }
  out << "\n";
  PrintIndented(out, Str(i, "body"), kBodyLines, "  ");
  PrintCommon(out, view, zone);
}

void PrintPull(std::ostream& out, const json& view, const Zone& zone) {
  const json& p = view["pull"];
  out << Str(p, "ref") << "  [" << Str(p, "state") << "]\n"
      << Str(p, "title") << "\n"
      << Str(p, "html_url") << "\n";
  out << Opened(zone, p);
  std::string merged = When(zone, p, "merged_at");
  if (!merged.empty())
    out << "; merged " << merged;
  else if (!When(zone, p, "closed_at").empty())
    out << "; closed unmerged " << When(zone, p, "closed_at");
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
  PrintCommon(out, view, zone);
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

// "times in +08:00 (FIXGRAPH_TZ)".
std::string ZoneLine(const Zone& z) {
  if (z.local) {
    auto now = static_cast<UnixSeconds>(::time(nullptr));
    return "times in the local zone (now " + OffsetText(z.OffsetAt(now)) + "; --tz local)";
  }
  return "times in " + OffsetText(z.offset) + " (" + z.why +
         (z.why == "--tz" ? "" : "; --tz to change") + ")";
}

void RunShow(Context& ctx, const std::string& text, bool json_out, const std::string& tz) {
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
  Zone zone = ChooseZone(tz, ctx.env.tz);
  std::string kind = Str(*view, "kind");
  if (kind == "issue")
    PrintIssue(*ctx.out, *view, zone);
  else if (kind == "pull")
    PrintPull(*ctx.out, *view, zone);
  else
    PrintRepo(*ctx.out, *view);
  *ctx.out << "\n" << ZoneLine(zone) << "\n";
}

}  // namespace

void AddShowCommand(CLI::App& app, Context& ctx) {
  auto* cmd =
      app.add_subcommand("show", "one item (issue, PR or repository) with what links to it");
  auto ref = std::make_shared<std::string>();
  auto json_out = std::make_shared<bool>(false);
  cmd->add_option("REF", *ref, "gitcode:OWNER/REPO#N, ...!N, a repository, or a web URL")
      ->required();
  auto tz = std::make_shared<std::string>();
  cmd->add_flag("--json", *json_out, "print JSON");
  cmd->add_option("--tz", *tz,
                  "time zone of every time shown: an offset (+08:00, -05:00, Z, UTC) or 'local' "
                  "(default: $FIXGRAPH_TZ, else +08:00)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            if (v == "local" || ParseUtcOffset(v).ok()) return "";
            return "\"" + v + "\": expected an offset such as +08:00, -05:00, Z or UTC, or 'local'";
          },
          "OFFSET|local", "tz"));
  cmd->callback([&ctx, ref, json_out, tz] { RunShow(ctx, *ref, *json_out, *tz); });
}

}  // namespace fixgraph::cli
