#include "fixgraph/engine/mentions.h"

#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstring>

namespace fixgraph {
namespace {

constexpr std::string_view kFullWidthHash = "\xEF\xBC\x83";  // ＃

bool IsWordByte(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }
bool IsAsciiAlnum(unsigned char c) { return std::isalnum(c) != 0; }

// Replaces [begin, end) with spaces, keeping newlines.
void Blank(std::string* s, size_t begin, size_t end) {
  for (size_t i = begin; i < end && i < s->size(); ++i)
    if ((*s)[i] != '\n') (*s)[i] = ' ';
}

bool EndsWithIgnoreCase(std::string_view s, std::string_view suffix) {
  if (suffix.size() > s.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) !=
        std::tolower(static_cast<unsigned char>(suffix[i])))
      return false;
  }
  return true;
}

// Strips fillers between a keyword and its mention: blanks, ':', '：', '-',
// "issue(s)", "bug", "the", "问题", "的", "pr"/"mr" are not stripped here.
std::string_view TrimFillers(std::string_view before) {
  // "(" and "[" cover "fix(#12):" and "fix [#12]"; 了 covers "修复了 #12".
  static constexpr std::array<std::string_view, 17> kFillers = {
      " ",
      "\t",
      ":",
      "\xEF\xBC\x9A" /* ： */,
      "-",
      "issues",
      "issue",
      "bug",
      "the",
      "\xE9\x97\xAE\xE9\xA2\x98" /* 问题 */,
      "\xE7\x9A\x84" /* 的 */,
      "*",
      "(",
      "[",
      "\xEF\xBC\x88" /* （ */,
      "\xE3\x80\x90" /* 【 */,
      "\xE4\xBA\x86" /* 了 */};
  bool changed = true;
  while (changed && !before.empty()) {
    changed = false;
    for (std::string_view f : kFillers) {
      if (EndsWithIgnoreCase(before, f)) {
        // A word filler must stand alone.
        if (IsAsciiAlnum(static_cast<unsigned char>(f[0])) && before.size() > f.size() &&
            IsAsciiAlnum(static_cast<unsigned char>(before[before.size() - f.size() - 1])))
          continue;
        before.remove_suffix(f.size());
        changed = true;
      }
    }
  }
  return before;
}

MentionKeyword KeywordBefore(std::string_view text, size_t offset) {
  // The keyword stands right before the mention, past fillers: the line's
  // last 256 bytes hold it (a long line must not cost its length for every
  // mention).
  constexpr size_t kLookBack = 256;
  const size_t floor = offset > kLookBack ? offset - kLookBack : 0;
  size_t line_start = text.substr(floor, offset - floor).rfind('\n');
  line_start = line_start == std::string_view::npos ? floor : floor + line_start + 1;
  std::string_view before = TrimFillers(text.substr(line_start, offset - line_start));
  static constexpr std::array<std::string_view, 14> kClosing = {
      "fixes",
      "fixed",
      "fix",
      "closes",
      "closed",
      "close",
      "resolves",
      "resolved",
      "resolve",
      "\xE4\xBF\xAE\xE5\xA4\x8D" /* 修复 */,
      "\xE8\xA7\xA3\xE5\x86\xB3" /* 解决 */,
      "\xE5\x85\xB3\xE9\x97\xAD" /* 关闭 */,
      "\xE4\xBF\xAE\xE6\xAD\xA3" /* 修正 */,
      "\xE4\xBF\xAE\xE6\x94\xB9" /* 修改 */};
  static constexpr std::array<std::string_view, 11> kRelating = {
      "related",
      "relates to",
      "relate",
      "refs",
      "ref",
      "see",
      "re",
      "\xE5\x85\xB3\xE8\x81\x94" /* 关联 */,
      "\xE5\x8F\x82\xE8\x80\x83" /* 参考 */,
      "\xE5\x90\x8C" /* 同 */,
      "\xE8\xA7\x81" /* 见 */};
  auto standalone = [&](std::string_view kw) {
    if (!EndsWithIgnoreCase(before, kw)) return false;
    if (!IsAsciiAlnum(static_cast<unsigned char>(kw[0]))) return true;
    return before.size() == kw.size() ||
           !IsAsciiAlnum(static_cast<unsigned char>(before[before.size() - kw.size() - 1]));
  };
  for (std::string_view kw : kClosing)
    if (standalone(kw)) return MentionKeyword::kClosing;
  for (std::string_view kw : kRelating)
    if (standalone(kw)) return MentionKeyword::kRelating;
  return MentionKeyword::kNone;
}

// True when `gap`, the text between two mentions, only joins them into one
// list ("#12, #13 and #14", "#12、#13 和 #14"): the second then shares the
// first one's keyword.
bool JoinsList(std::string_view gap) {
  static constexpr std::array<std::string_view, 14> kSeparators = {" ",
                                                                   "\t",
                                                                   ",",
                                                                   "\xEF\xBC\x8C" /* ， */,
                                                                   "\xE3\x80\x81" /* 、 */,
                                                                   "&",
                                                                   "/",
                                                                   "and",
                                                                   "\xE5\x92\x8C" /* 和 */,
                                                                   "\xE5\x8F\x8A" /* 及 */,
                                                                   "\xE4\xBB\xA5" /* 以 (以及) */,
                                                                   "\xE4\xB8\x8E" /* 与 */,
                                                                   "issue",
                                                                   "issues"};
  if (gap.find('\n') != std::string_view::npos) return false;
  bool changed = true;
  while (changed && !gap.empty()) {
    changed = false;
    for (std::string_view sep : kSeparators) {
      if (!EndsWithIgnoreCase(gap, sep)) continue;
      if (IsAsciiAlnum(static_cast<unsigned char>(sep[0])) && gap.size() > sep.size() &&
          IsAsciiAlnum(static_cast<unsigned char>(gap[gap.size() - sep.size() - 1])))
        continue;  // a word separator stands alone
      gap.remove_suffix(sep.size());
      changed = true;
    }
  }
  return gap.empty();
}

// A mention without a keyword of its own that continues a list after a
// mention with one takes that keyword.
void InheritListKeyword(std::string_view text, const std::vector<Mention>& before, Mention* m) {
  if (m->keyword != MentionKeyword::kNone || before.empty()) return;
  const Mention& prev = before.back();
  size_t prev_end = prev.offset + prev.text.size();
  if (prev.keyword == MentionKeyword::kNone || prev_end > m->offset) return;
  if (JoinsList(text.substr(prev_end, m->offset - prev_end))) m->keyword = prev.keyword;
}

// True when `s` holds `cue` (ASCII case folded; `s` is folded already) at a
// word start: "skip" in "Skipped", not in "unskip"... which is its own cue.
bool HasCue(std::string_view folded, std::string_view cue) {
  for (size_t at = folded.find(cue); at != std::string_view::npos; at = folded.find(cue, at + 1)) {
    if (at == 0 || !IsAsciiAlnum(static_cast<unsigned char>(cue[0])) ||
        !IsAsciiAlnum(static_cast<unsigned char>(folded[at - 1])))
      return true;
  }
  return false;
}

template <size_t N>
bool HasAnyCue(std::string_view folded, const std::array<std::string_view, N>& cues) {
  return std::any_of(cues.begin(), cues.end(),
                     [&](std::string_view cue) { return HasCue(folded, cue); });
}

// How far from a mention its sentence is read for a reason (bytes, each way).
constexpr size_t kReasonWindow = 400;

// Where the sentence holding byte `at` of `text` starts (`backward`) or ends:
// a line break, ". ", "; ", "! ", "? " or a full-width 。；！？ bounds it, or
// the window's edge.
size_t SentenceBound(std::string_view text, size_t at, bool backward) {
  static constexpr std::array<std::string_view, 4> kFullWidthEnds = {
      "\xE3\x80\x82" /* 。 */, "\xEF\xBC\x9B" /* ； */, "\xEF\xBC\x81" /* ！ */,
      "\xEF\xBC\x9F" /* ？ */};
  auto ends_at = [&](size_t i) -> size_t {  // length of the sentence end at i, or 0
    char c = text[i];
    if (c == '\n') return 1;
    if ((c == '.' || c == ';' || c == '!' || c == '?') &&
        (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\t'))
      return 1;
    for (std::string_view e : kFullWidthEnds)
      if (text.compare(i, e.size(), e) == 0) return e.size();
    return 0;
  };
  // At most kReasonWindow bytes away: a text of one long line with many
  // mentions must not cost its length for every mention.
  if (backward) {
    const size_t floor = at > kReasonWindow ? at - kReasonWindow : 0;
    for (size_t i = at; i > floor; --i)
      if (size_t len = ends_at(i - 1); len != 0 && i - 1 + len <= at) return i - 1 + len;
    return floor;
  }
  const size_t ceiling = std::min(text.size(), at + kReasonWindow);
  for (size_t i = at; i < ceiling; ++i)
    if (ends_at(i) != 0) return i;
  return ceiling;
}

// See mentions.h: the mention at [offset, end) is named as the reason for a
// skip or a temporary switch-off.
bool CitedAsReason(std::string_view text, size_t offset, size_t end, MentionKeyword keyword) {
  if (keyword == MentionKeyword::kClosing) return false;
  size_t begin = SentenceBound(text, offset, /*backward=*/true);
  // A mention that opens its line, as "(URL)" under the words that give it,
  // belongs to the line before's last sentence too.
  if (TrimFillers(text.substr(begin, offset - begin)).empty() && begin > 0 &&
      text[begin - 1] == '\n')
    begin = SentenceBound(text, begin - 1, /*backward=*/true);
  size_t stop = SentenceBound(text, end, /*backward=*/false);
  const std::string folded = LowerAscii(text.substr(begin, stop - begin));
  const std::string_view lead = std::string_view(folded).substr(0, offset - begin);
  static constexpr std::array<std::string_view, 4> kSkip = {"skip", "xfail",
                                                            "\xE8\xB7\xB3\xE8\xBF\x87" /* 跳过 */,
                                                            "\xE5\xB1\x8F\xE8\x94\xBD" /* 屏蔽 */};
  static constexpr std::array<std::string_view, 2> kDisable = {
      "disable", "\xE7\xA6\x81\xE7\x94\xA8" /* 禁用 */};
  static constexpr std::array<std::string_view, 4> kForNow = {
      "temporar", "for now", "\xE4\xB8\xB4\xE6\x97\xB6" /* 临时 */,
      "\xE6\x9A\x82\xE6\x97\xB6" /* 暂时 */};
  if (!HasAnyCue(folded, kSkip) && !(HasAnyCue(folded, kDisable) && HasAnyCue(folded, kForNow)))
    return false;
  static constexpr std::array<std::string_view, 14> kWhy = {"due to",
                                                            "because",
                                                            "until",
                                                            "once ",
                                                            "blocked by",
                                                            "blocked on",
                                                            "pending",
                                                            "wait for",
                                                            "waiting for",
                                                            "\xE7\x94\xB1\xE4\xBA\x8E" /* 由于 */,
                                                            "\xE5\x9B\xA0\xE4\xB8\xBA" /* 因为 */,
                                                            "\xE5\xBE\x85" /* 待 */,
                                                            "\xE7\x9B\xB4\xE5\x88\xB0" /* 直到 */,
                                                            "caused by"};
  if (keyword != MentionKeyword::kRelating && !HasAnyCue(folded, kWhy)) return false;
  static constexpr std::array<std::string_view, 10> kUndoes = {
      "fix",
      "resolve",
      "re-enable",
      "reenable",
      "unskip",
      "remove the skip",
      "\xE4\xBF\xAE\xE5\xA4\x8D" /* 修复 */,
      "\xE8\xA7\xA3\xE5\x86\xB3" /* 解决 */,
      "\xE6\x81\xA2\xE5\xA4\x8D" /* 恢复 */,
      "\xE6\x94\xBE\xE5\xBC\x80" /* 放开 */};
  return !HasAnyCue(lead, kUndoes);
}

bool LooksLikeGiteeIssue(std::string_view s) {
  // Gitee idents: 'I' then 5-7 upper-case letters/digits, at least one digit or letter mix.
  if (s.size() < 6 || s.size() > 8 || s[0] != 'I') return false;
  return std::all_of(s.begin() + 1, s.end(),
                     [](unsigned char c) { return std::isdigit(c) || std::isupper(c); });
}

// True when the characters before `pos` say "PR", "MR" or "pull request" (so #N is a PR).
bool PullWordBefore(std::string_view text, size_t pos) {
  std::string_view before = text.substr(0, pos);
  while (!before.empty() && before.back() == ' ') before.remove_suffix(1);
  for (std::string_view w : {"pr", "mr", "pull request", "merge request", "pull"}) {
    if (EndsWithIgnoreCase(before, w) &&
        (before.size() == w.size() ||
         !IsAsciiAlnum(static_cast<unsigned char>(before[before.size() - w.size() - 1]))))
      return true;
  }
  return false;
}

size_t UrlEnd(std::string_view text, size_t start) {
  size_t i = start;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c <= ' ' || c >= 0x80 || c == ')' || c == ']' || c == '>' || c == '<' || c == '"' ||
        c == '\'' || c == '`' || c == '|')
      break;
    ++i;
  }
  while (i > start &&
         (text[i - 1] == '.' || text[i - 1] == ',' || text[i - 1] == ';' || text[i - 1] == ':'))
    --i;
  return i;
}

// Reads a repository path "owner/repo" ending right before text[end].
bool CrossRepoBefore(std::string_view text, size_t end, RepoRef* repo, size_t* start) {
  size_t i = end;
  int slashes = 0;
  while (i > 0) {
    auto c = static_cast<unsigned char>(text[i - 1]);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
      --i;
    } else if (c == '/' && slashes == 0) {
      ++slashes;
      --i;
    } else {
      break;
    }
  }
  if (slashes != 1 || i == end) return false;
  if (i > 0) {
    auto p = static_cast<unsigned char>(text[i - 1]);
    if (p == '/' || p == ':' || IsWordByte(p)) return false;  // part of a URL or path
  }
  std::string_view full = text.substr(i, end - i);
  size_t slash = full.find('/');
  std::string_view owner = full.substr(0, slash), name = full.substr(slash + 1);
  if (!IsValidRepoSegment(owner) || !IsValidRepoSegment(name)) return false;
  repo->owner = std::string(owner);
  repo->name = std::string(name);
  *start = i;
  return true;
}

}  // namespace

const char* MentionFormName(MentionForm f) {
  switch (f) {
    case MentionForm::kHash:
      return "hash";
    case MentionForm::kBang:
      return "bang";
    case MentionForm::kCrossRepo:
      return "cross_repo";
    case MentionForm::kUrl:
      return "url";
  }
  return "unknown";
}

const char* MentionKeywordName(MentionKeyword k) {
  switch (k) {
    case MentionKeyword::kNone:
      return "none";
    case MentionKeyword::kClosing:
      return "closing";
    case MentionKeyword::kRelating:
      return "relating";
    case MentionKeyword::kReason:
      return "reason";
  }
  return "unknown";
}

std::string MaskCode(std::string_view text) {
  std::string s(text);
  // Fenced blocks: a line starting (after up to 3 spaces) with ``` or ~~~.
  size_t pos = 0;
  while (pos < s.size()) {
    size_t eol = s.find('\n', pos);
    if (eol == std::string::npos) eol = s.size();
    size_t p = pos;
    while (p < eol && p - pos < 3 && s[p] == ' ') ++p;
    if (eol - p >= 3 && (s.compare(p, 3, "```") == 0 || s.compare(p, 3, "~~~") == 0)) {
      std::string fence = s.substr(p, 3);
      size_t close = s.find('\n', eol);
      size_t search = eol;
      size_t block_end = s.size();
      while (close != std::string::npos && search < s.size()) {
        size_t line = search + 1;
        size_t line_end = s.find('\n', line);
        if (line_end == std::string::npos) line_end = s.size();
        size_t q = line;
        while (q < line_end && s[q] == ' ') ++q;
        if (line_end - q >= 3 && s.compare(q, 3, fence) == 0) {
          block_end = line_end;
          break;
        }
        search = line_end;
        if (line_end >= s.size()) break;
      }
      Blank(&s, pos, block_end);
      pos = block_end + 1;
      continue;
    }
    pos = eol + 1;
  }
  // Inline code spans: `...` on one line (or up to the matching backtick run).
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '`') continue;
    size_t run = 1;
    while (i + run < s.size() && s[i + run] == '`') ++run;
    std::string ticks(run, '`');
    size_t close = s.find(ticks, i + run);
    if (close == std::string::npos) {
      i += run - 1;
      continue;
    }
    Blank(&s, i, close + run);
    i = close + run - 1;
  }
  return s;
}

std::vector<Mention> FindMentions(std::string_view original, const RepoRef& context) {
  std::vector<Mention> out;
  // Every mention starts at '#', '!' or "http" (masking code only blanks
  // bytes): a text with none of them needs no masked copy and no scan.
  if (original.empty()) return out;
  if (std::memchr(original.data(), '#', original.size()) == nullptr &&
      std::memchr(original.data(), '!', original.size()) == nullptr &&
      original.find("http") == std::string_view::npos &&
      original.find(kFullWidthHash) == std::string_view::npos)
    return out;
  // Code is fenced with ``` or ~~~ or spanned by backticks: a text without
  // '`' and '~' is its own masked form.
  std::string masked;
  std::string_view text = original;
  if (std::memchr(original.data(), '`', original.size()) != nullptr ||
      std::memchr(original.data(), '~', original.size()) != nullptr) {
    masked = MaskCode(original);
    text = masked;
  }
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    // URLs.
    if ((c == 'h' || c == 'H') &&
        (text.compare(i, 7, "http://") == 0 || text.compare(i, 8, "https://") == 0)) {
      size_t end = UrlEnd(text, i);
      std::string_view url = text.substr(i, end - i);
      if (auto u = ParseWebUrl(url); u && u->ref.kind != RefKind::kRepo) {
        Mention m;
        m.target = u->ref;
        m.form = MentionForm::kUrl;
        m.mirror_host = u->mirror;
        m.offset = i;
        m.text = std::string(url);
        m.keyword = KeywordBefore(text, i);
        InheritListKeyword(text, out, &m);
        if (CitedAsReason(text, i, end, m.keyword)) m.keyword = MentionKeyword::kReason;
        out.push_back(std::move(m));
      }
      i = std::max(end, i + 1);
      continue;
    }
    // "＃12" (a full-width sign, as Chinese input methods type it) is "#12".
    size_t sign = 1;
    if (c == kFullWidthHash[0] && text.compare(i, kFullWidthHash.size(), kFullWidthHash) == 0) {
      c = '#';
      sign = kFullWidthHash.size();
    } else if (c != '#' && c != '!') {
      ++i;
      continue;
    }
    // Read the token after the sign.
    size_t j = i + sign;
    while (j < text.size() && IsAsciiAlnum(static_cast<unsigned char>(text[j]))) ++j;
    std::string_view token = text.substr(i + sign, j - i - sign);
    // After the number any non-ASCII byte (CJK text or full-width punctuation: "#69，") ends it.
    bool next_ok = j >= text.size() || !(IsAsciiAlnum(static_cast<unsigned char>(text[j])) ||
                                         text[j] == '_' || text[j] == '-' ||
                                         (text[j] == '.' && j + 1 < text.size() &&
                                          std::isdigit(static_cast<unsigned char>(text[j + 1]))));
    if (token.empty() || !next_ok) {
      i = j > i + sign ? j : i + sign;
      continue;
    }
    bool digits =
        std::all_of(token.begin(), token.end(), [](unsigned char ch) { return std::isdigit(ch); });
    bool gitee_issue = !digits && c == '#' && LooksLikeGiteeIssue(token);
    if ((!digits && !gitee_issue) || token.size() > 12) {
      i = j;
      continue;
    }
    Mention m;
    m.offset = i;
    RepoRef repo = context;
    size_t start = i;
    unsigned char prev = i > 0 ? static_cast<unsigned char>(text[i - 1]) : ' ';
    if (IsAsciiAlnum(prev) || prev == '_' || prev == '.' || prev == '-' || prev == '/') {
      RepoRef other;
      other.platform = context.platform;
      if (CrossRepoBefore(text, i, &other, &start)) {
        repo = other;
        m.form = MentionForm::kCrossRepo;
      } else {
        // Glued to a word ("v1.2#3", "PR#12" is handled below).
        if (!(c == '#' && PullWordBefore(text, i))) {
          i = j;
          continue;
        }
      }
    } else if (prev == '&' || prev == '#' || prev == '!' || prev == '\\') {
      i = j;
      continue;
    }
    if (m.form != MentionForm::kCrossRepo)
      m.form = c == '#' ? MentionForm::kHash : MentionForm::kBang;
    bool is_pull = c == '!' || (c == '#' && digits && PullWordBefore(text, i));
    if (c == '!' && !digits) {
      i = j;
      continue;
    }
    if (is_pull) {
      std::int64_t n = 0;
      std::from_chars(token.data(), token.data() + token.size(), n);
      m.target = Ref::Pull(repo, n);
    } else {
      m.target = Ref::Issue(repo, std::string(token));
    }
    m.offset = start;
    m.text = std::string(original.substr(start, j - start));
    m.keyword = KeywordBefore(text, start);
    InheritListKeyword(text, out, &m);
    if (CitedAsReason(text, start, j, m.keyword)) m.keyword = MentionKeyword::kReason;
    out.push_back(std::move(m));
    i = j;
  }
  return out;
}

}  // namespace fixgraph
