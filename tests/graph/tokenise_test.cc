// The tokenisers as they were before the one-pass rewrite (h/linkrun), kept as
// the reference the new ones must match: Tokens and Identifiers of random
// texts, of texts cut at random bytes (invalid UTF-8) and of the demo dump's
// texts must be equal, and TokensOfLines must give the tokens of the joined
// text. The helpers the rewrite kept unchanged (character classes, URL
// blanking) are restated here in another form, so that the reference does
// not share their code.
#include "../../graph/text.h"
#include "testutil/testutil.h"

#include "fixgraph/engine/cjk.h"
#include "fixgraph/engine/utf8.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

namespace fixgraph::graph::text {
namespace reference {
namespace {

// Decodes one UTF-8 code point at s[i]; advances i. Invalid bytes decode as
// themselves (one byte).
char32_t Next(std::string_view s, size_t* i) {
  unsigned char c = static_cast<unsigned char>(s[*i]);
  int n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (*i + n > s.size()) n = 1;
  char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += n;
  return cp;
}

// The vocabulary is shared (engine/cjk.h); the tokenising is what this
// reference restates.
bool IsCjk(char32_t cp) { return IsCjkIdeographBmp(cp); }
bool IsStopChar(char32_t cp) { return IsCjkLinkStopChar(cp); }

// Hash of the UTF-8 bytes of `n` CJK code points: encoded, then hashed as any
// text (the tokeniser hashes them without building the string).
std::uint64_t HashCjk(const char32_t* cps, size_t n) {
  std::string utf8;
  for (size_t k = 0; k < n; ++k) AppendUtf8(&utf8, cps[k]);
  return Hash(utf8);
}

bool IsStopWord(std::string_view w) {
  static constexpr std::array<std::string_view, 40> kStop = {
      "the",  "an",   "to",   "of",    "in",     "on",     "for",  "and", "or",    "is",
      "are",  "with", "when", "not",   "no",     "be",     "by",   "at",  "as",    "it",
      "this", "that", "from", "after", "before", "into",   "does", "do",  "can",   "should",
      "will", "if",   "but",  "we",    "you",    "please", "pr",   "mr",  "issue", "bug"};
  if (w.size() > 6) return false;  // the longest stop word ("should", "before")
  return std::find(kStop.begin(), kStop.end(), w) != kStop.end();
}

// The character classes, restated with <cctype> (the program runs in the "C"
// locale) rather than copied from text_internal.h.
bool AllAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}
bool AsciiLower(char32_t c) { return c < 0x80 && std::islower(static_cast<int>(c)) != 0; }
bool AsciiUpper(char32_t c) { return c < 0x80 && std::isupper(static_cast<int>(c)) != 0; }
bool AsciiAlnum(char32_t c) { return c < 0x80 && std::isalnum(static_cast<int>(c)) != 0; }
char AsciiToLower(char c) {
  return static_cast<unsigned char>(c) < 0x80 ? static_cast<char>(std::tolower(c)) : c;
}

bool IsIdentChar(char c) {
  // ASCII classes: the program runs in the "C" locale (no setlocale call).
  return AsciiAlnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '-';
}

bool HasLetter(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return AsciiLower(c) || AsciiUpper(c); });
}

// Empty, or a digit first, or v/r and a digit ("v2.1", "r1").
bool LooksLikeVersion(std::string_view s) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (s.empty() || digit(s.front())) return true;
  return s.size() > 1 && std::string_view("vVrR").find(s.front()) != std::string_view::npos &&
         digit(s[1]);
}

bool HasFileExtension(std::string_view s) {
  std::string_view base = Basename(s);
  size_t dot = base.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= base.size()) return false;
  std::string_view ext = base.substr(dot + 1);
  if (ext.size() > 5) return false;
  static constexpr std::array<std::string_view, 34> kExt = {
      "py",    "cc",   "cpp", "c",   "h",    "hpp", "cu", "md",  "rst", "txt",  "yaml",  "yml",
      "json",  "toml", "cfg", "ini", "sh",   "js",  "ts", "go",  "rs",  "java", "proto", "cmake",
      "ipynb", "so",   "whl", "xml", "html", "mk",  "in", "pyi", "bat", "sql"};
  char buf[5];
  for (size_t i = 0; i < ext.size(); ++i) buf[i] = AsciiToLower(ext[i]);
  std::string_view e(buf, ext.size());
  return std::find(kExt.begin(), kExt.end(), e) != kExt.end();
}

bool IsCamel(std::string_view s) {
  for (size_t i = 1; i < s.size(); ++i) {
    bool lower_upper = AsciiLower(s[i - 1]) && AsciiUpper(s[i]);
    bool upper_upper_lower =
        i + 1 < s.size() && AsciiUpper(s[i - 1]) && AsciiUpper(s[i]) && AsciiLower(s[i + 1]);
    if (lower_upper || upper_upper_lower) return true;
  }
  return false;
}

// Blanks out http(s) URLs so their paths are not read as file paths: a URL
// runs from "http://" or "https://" to the first space, non-ASCII byte, ')' or
// ']'. Restated position by position (the tokeniser searches for "http").
std::string WithoutUrls(std::string out) {
  auto url_at = [&out](size_t i) {
    std::string_view rest = std::string_view(out).substr(i);
    return rest.starts_with("http://") || rest.starts_with("https://");
  };
  auto ends_url = [](char c) {
    return static_cast<unsigned char>(c) >= 0x80 || std::isspace(static_cast<unsigned char>(c)) ||
           c == ')' || c == ']';
  };
  size_t i = 0;
  while (i < out.size()) {
    if (!url_at(i)) {
      ++i;
      continue;
    }
    for (; i < out.size() && !ends_url(out[i]); ++i) out[i] = ' ';
  }
  return out;
}

// True if a '/'-separated segment of `tok` has 4 characters or more and a letter.
bool HasPathSegment(std::string_view tok) {
  std::istringstream in{std::string(tok)};
  std::string seg;
  while (std::getline(in, seg, '/'))
    if (seg.size() >= 4 && HasLetter(seg)) return true;
  return false;
}

std::string Lower(std::string_view s) {
  std::string out;
  std::transform(s.begin(), s.end(), std::back_inserter(out), AsciiToLower);
  return out;
}

std::string FoldWidth(std::string_view s) {
  std::string out;
  if (AllAscii(s)) return out.assign(s);  // nothing to fold
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    // ASCII bytes decode and encode as themselves: copied a run at a time.
    size_t ascii = i;
    while (ascii < s.size() && static_cast<unsigned char>(s[ascii]) < 0x80) ++ascii;
    if (ascii > i) {
      out.append(s.data() + i, ascii - i);
      i = ascii;
      if (i == s.size()) break;
    }
    char32_t cp = Next(s, &i);
    if (cp >= 0xFF01 && cp <= 0xFF5E) cp = cp - 0xFF01 + 0x21;
    if (cp == 0x3000) cp = ' ';
    AppendUtf8(&out, cp);
  }
  return out;
}

TokenSet Tokens(std::string_view s) {
  TokenSet out;
  size_t i = 0;
  std::string word;
  std::vector<char32_t> run;
  auto flush_word = [&] {
    if (word.size() >= 2 && HasLetter(word)) {
      if (word.size() > 3 && word.back() == 's' && word[word.size() - 2] != 's') word.pop_back();
      if (!IsStopWord(word)) out.push_back(Hash(word));
    }
    word.clear();
  };
  auto flush_run = [&] {
    // A lone character is a unigram; otherwise every bigram without a stop
    // character (the hashes of their UTF-8 bytes, as Hash gives them).
    if (run.size() == 1 && !IsStopChar(run[0])) out.push_back(HashCjk(run.data(), 1));
    bool stop = !run.empty() && IsStopChar(run[0]);
    for (size_t k = 0; k + 1 < run.size(); ++k) {
      bool next_stop = IsStopChar(run[k + 1]);
      if (!stop && !next_stop) out.push_back(HashCjk(&run[k], 2));
      stop = next_stop;
    }
    run.clear();
  };
  while (i < s.size()) {
    // Code points as FoldWidth(s) would give them (it re-encodes exactly
    // what Next decodes), folded here without the copy.
    char32_t cp =
        static_cast<unsigned char>(s[i]) < 0x80 ? static_cast<unsigned char>(s[i++]) : Next(s, &i);
    if (cp >= 0xFF01 && cp <= 0xFF5E) cp = cp - 0xFF01 + 0x21;
    if (cp == 0x3000) cp = ' ';
    if (cp < 0x80 && (AsciiAlnum(cp) || cp == '_')) {
      if (!run.empty()) flush_run();
      word.push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp - 'A' + 'a' : cp));
    } else if (IsCjk(cp)) {
      flush_word();
      run.push_back(cp);
    } else {
      flush_word();
      flush_run();
    }
  }
  flush_word();
  flush_run();
  text::Normalize(&out);
  return out;
}

std::vector<std::string> Identifiers(std::string_view input, bool path_variants) {
  std::vector<std::string> out;
  std::string s = WithoutUrls(FoldWidth(input));
  size_t i = 0;
  while (i < s.size()) {
    if (!IsIdentChar(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && IsIdentChar(s[j])) ++j;
    std::string_view tok(s.data() + i, j - i);
    i = j;
    // "torch_npu 2.6.0", "transformer_engine==1.9": a package and its
    // version (an environment line), not what the issue is about.
    size_t k = j;
    while (k < s.size() && (s[k] == ' ' || s[k] == '=' || s[k] == '\t')) ++k;
    if (k < s.size() && k > j &&
        (std::isdigit(static_cast<unsigned char>(s[k])) ||
         ((s[k] == 'v' || s[k] == 'V') && k + 1 < s.size() &&
          std::isdigit(static_cast<unsigned char>(s[k + 1])))))
      continue;
    while (!tok.empty() && (tok.front() == '.' || tok.front() == '/' || tok.front() == '-'))
      tok.remove_prefix(1);
    while (!tok.empty() && (tok.back() == '.' || tok.back() == '/' || tok.back() == '-'))
      tok.remove_suffix(1);
    if (tok.size() < 4 || !HasLetter(tok) || LooksLikeVersion(tok)) continue;
    bool underscore = tok.find('_') != std::string_view::npos;
    bool slash = tok.find('/') != std::string_view::npos;
    bool file = HasFileExtension(tok);
    bool dotted = !file && tok.find('.') != std::string_view::npos;
    bool hyphen = tok.find('-') != std::string_view::npos && tok.size() >= 8;
    bool camel = IsCamel(tok);
    if (!(underscore || slash || file || dotted || hyphen || camel)) continue;
    // "A2/A3", "CPU/GPU": short alternatives, not a path; "e.g", "torch.cuda":
    // only module paths of 8 characters or more with an identifier part.
    if (slash && !file && !underscore && !HasPathSegment(tok)) continue;
    if (dotted && !underscore && !camel && !slash && tok.size() < 8) continue;
    std::string id = Lower(tok);
    out.push_back(id);
    if (dotted && !slash && path_variants) {
      std::string path = id;
      std::replace(path.begin(), path.end(), '.', '/');
      out.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string ForMentions(std::string_view input) {
  std::string s = FoldWidth(input);
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    out.push_back(s[i]);
    if (c < 0x80 && std::isalnum(c) && i + 1 < s.size() &&
        static_cast<unsigned char>(s[i + 1]) >= 0xC0)
      out.push_back(' ');
  }
  return out;
}

}  // namespace
}  // namespace reference

namespace {

// Random text drawn from pieces that exercise every branch: words (plurals,
// stop words, CamelCase, snake_case), paths, versions, URLs, CJK (with stop
// characters), full-width forms, separators and, when `raw`, stray bytes.
std::string RandomText(std::mt19937_64& rng, bool raw) {
  static const std::vector<std::string> kPieces = {
      "the",
      "is",
      "fails",
      "class",
      "process",
      "bugs",
      "tests",
      "ss",
      "ops",
      "Issue",
      "PLEASE",
      "MindSpore",
      "CheckValidation",
      "HTTPServer",
      "prelu_grad",
      "torch_npu",
      "a_b",
      "x1",
      "12",
      "v2.17",
      "8.3.RC1",
      "r1",
      "transformer_engine/pytorch/module/grouped_linear.py",
      "fused_adam.py",
      "README.md",
      "a/b",
      "CPU/GPU",
      "A2/A3",
      "vllm_mindspore.entrypoints",
      "torch.cuda",
      "e.g",
      "reuse-grad-buf-for-mxfp8",
      "--flag",
      "-x-",
      "./run.sh",
      "foo.PY",
      "bar.tar.gz",
      "x.ipynb",
      "https://gitcode.com/a/b/issues/1",
      "http://x.y/z.py",
      "httpd",
      "http",
      "==",
      "=",
      " ",
      "  ",
      "\t",
      "\n",
      "\r\n",
      ".",
      ",",
      ";",
      "/",
      "-",
      "_",
      "(",
      ")",
      "[",
      "]",
      "#12",
      "!34",
      "修复",
      "的",
      "问题",
      "了",
      "算子",
      "是",
      "在",
      "内存泄漏",
      "数",
      "【社区】",
      "。",
      "，",
      "！",
      "\xEF\xBC\xA1\xEF\xBD\x82\xEF\xBD\x83" /* ＡｂＣ */,
      "\xE3\x80\x80" /* ideographic space */,
      "\xEF\xBC\x91\xEF\xBC\x92" /* １２ */,
      "\xEF\xBC\xBF" /* ＿ */,
      "é",
      "ß",
      "😀",
      "Ω"};
  std::string s;
  int n = static_cast<int>(rng() % 40);
  for (int i = 0; i < n; ++i) {
    if (raw && rng() % 12 == 0) {
      s.push_back(static_cast<char>(0x80 + rng() % 0x80));  // a lead or continuation byte alone
      continue;
    }
    s += kPieces[rng() % kPieces.size()];
    if (rng() % 3 == 0) s += ' ';
  }
  return s;
}

// Every string value of the demo dump's JSON files (titles, bodies,
// comments, patches): real-looking texts.
std::vector<std::string> DemoTexts() {
  std::vector<std::string> out;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(testing::SourceDir() + "/data/demo")) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string file = ss.str();
    out.push_back(file);
    // Each line on its own as well (whole files are long).
    std::string_view v(file);
    for (size_t a = 0; a < v.size();) {
      size_t b = v.find('\n', a);
      if (b == std::string_view::npos) b = v.size();
      out.emplace_back(v.substr(a, b - a));
      a = b + 1;
    }
  }
  return out;
}

void ExpectSame(const std::string& s) {
  ASSERT_EQ(ForMentions(s), reference::ForMentions(s)) << s;
  ASSERT_EQ(Tokens(s), reference::Tokens(s)) << s;
  ASSERT_EQ(Identifiers(s), reference::Identifiers(s, true)) << s;
  ASSERT_EQ(Identifiers(s, false), reference::Identifiers(s, false)) << s;
}

TEST(Tokenise, SameAsReferenceOnRandomTexts) {
  std::mt19937_64 rng(20261130);
  for (int i = 0; i < 20000; ++i) ExpectSame(RandomText(rng, i % 2 == 1));
}

TEST(Tokenise, SameAsReferenceOnLongTexts) {
  // Texts of several 64-byte blocks (AppendTokens classifies its bytes 64 at
  // a time): words and separator runs across every block boundary.
  std::mt19937_64 rng(20261201);
  for (int i = 0; i < 400; ++i) {
    std::string s;
    while (s.size() < 64 * (1 + rng() % 8)) s += RandomText(rng, i % 2 == 1);
    ExpectSame(s);
  }
}

TEST(Tokenise, SameAsReferenceOnTextsCutAtAnyByte) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string s = RandomText(rng, false);
    for (size_t cut = 0; cut <= s.size(); ++cut) ExpectSame(s.substr(0, cut));
  }
}

TEST(Tokenise, SameAsReferenceOnDemoTexts) {
  std::vector<std::string> texts = DemoTexts();
  ASSERT_GT(texts.size(), 100u);
  for (const std::string& s : texts) ExpectSame(s);
}

TEST(Tokenise, TokensOfLinesAreTheTokensOfTheJoinedText) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    std::string a = RandomText(rng, i % 2 == 1), b = RandomText(rng, i % 3 == 1);
    if (i % 5 == 0 && !a.empty()) a.resize(rng() % a.size());  // maybe cut inside a code point
    ASSERT_EQ(TokensOfLines({a, b}), Tokens(a + "\n" + b)) << a << "|" << b;
  }
  // A part ending in a cut-short code point: the newline is decoded into it.
  std::string cut = "abc \xE4\xBF";
  EXPECT_EQ(TokensOfLines({cut, "word"}), Tokens(cut + "\nword"));
  EXPECT_EQ(TokensOfLines({"one", "two", "three"}), Tokens("one\ntwo\nthree"));
  EXPECT_EQ(TokensOfLines({}), Tokens(""));
  // As the patches are tokenised: each followed by a newline (an empty last part).
  std::vector<std::string_view> patches = {"+ fixed_bug()", cut, "-old 的问题", ""};
  EXPECT_EQ(TokensOfLines(patches), Tokens("+ fixed_bug()\n" + cut + "\n-old 的问题\n"));
}

// What CueSet answers, the slow way: each cue searched for in the folded text.
size_t NaiveCount(std::string_view hay, const std::vector<std::string_view>& cues) {
  std::string h = Lower(hay);
  size_t n = 0;
  for (std::string_view c : cues) n += !c.empty() && h.find(Lower(c)) != std::string::npos;
  return n;
}

TEST(Tokenise, CueSetAnswersAsAFoldedSearch) {
  const std::vector<std::string_view> cues = {"已修复",
                                              "修复",
                                              "fixed in",
                                              "Fixed By",
                                              "is fixed",
                                              "fix",
                                              "x",
                                              "已",
                                              "根因",
                                              "root cause",
                                              "use ",
                                              "CANN",
                                              "\xEF\xBC\xA1" /* Ａ */,
                                              "a",
                                              "dts",
                                              "won't fix",
                                              "not_planned",
                                              "ok",
                                              "fixed in"};
  CueSet set(cues);
  std::mt19937_64 rng(5);
  static const std::vector<std::string> kBits = {
      "已修复", "修",  "复",    "Fixed",      " IN",         "fixed in", "FIX",  "x",
      "已",     "根",  "因",    "Root Cause", "USE ",        "use",      "cann", "Ａ",
      "A",      "DTS", "won't", " fix",       "not_planned", "OK",       "o",    " ",
      "\n",     "。",  "ß",     "\xE5",       "\xB7"};
  for (int i = 0; i < 50000; ++i) {
    std::string h;
    for (int k = static_cast<int>(rng() % 12); k > 0; --k) h += kBits[rng() % kBits.size()];
    ASSERT_EQ(set.In(h), NaiveCount(h, cues) > 0) << h;
    ASSERT_EQ(set.Count(h), NaiveCount(h, cues)) << h;
  }
  EXPECT_FALSE(CueSet({}).In("anything"));
  EXPECT_FALSE(CueSet({""}).In("anything"));              // an empty cue never matches
  EXPECT_EQ(CueSet({"ab", "AB", "b"}).Count("xAb"), 3u);  // list entries, repeats counted
  std::vector<std::string_view> many(65, "x");
  EXPECT_THROW(CueSet{many}, std::length_error);
}

// Pieces of cues and texts for the random CueSet tests: ASCII in both cases,
// CJK, cues sharing their first bytes, lone UTF-8 lead and continuation bytes.
const std::vector<std::string> kCuePieces = {
    "fix",  "Fix", "FIXED", "fixed in", "is ",  "by",    "root", " cause", "已",
    "修复", "修",  "复",    "已修复",   "根因", "原因",  "use",  "USE ",   "try",
    "a",    "b",   "ab",    "CANN",     "cann", "won't", " ",    "\n",     "。",
    "x",    "xy",  "xyz",   "\xE5",     "\xB7", "é",     "ß"};

// Random cue lists (one to 64 entries, one to nine bytes, ASCII in both
// cases, CJK, cues sharing their first bytes, repeats) against random texts
// made of the same pieces: the one-pass search of the longer cues and the
// memmem of the shorter ones answer as the naive folded search.
TEST(Tokenise, CueSetAnswersAsAFoldedSearchOnRandomLists) {
  const std::vector<std::string>& kPieces = kCuePieces;
  std::mt19937_64 rng(30);
  for (int round = 0; round < 400; ++round) {
    std::vector<std::string> owned;
    size_t n_cues = 1 + rng() % 64;
    for (size_t k = 0; k < n_cues; ++k) {
      std::string c;
      for (int parts = 1 + static_cast<int>(rng() % 3); parts > 0; --parts)
        c += kPieces[rng() % kPieces.size()];
      if (rng() % 4 == 0)
        c = c.substr(0, 1 + rng() % c.size());  // cut short, maybe inside a character
      owned.push_back(c);
    }
    std::vector<std::string_view> cues(owned.begin(), owned.end());
    CueSet set(cues);
    for (int t = 0; t < 50; ++t) {
      std::string h;
      for (int k = static_cast<int>(rng() % 30); k > 0; --k) h += kPieces[rng() % kPieces.size()];
      ASSERT_EQ(set.In(h), NaiveCount(h, cues) > 0) << h;
      ASSERT_EQ(set.Count(h), NaiveCount(h, cues)) << h;
    }
  }
}

}  // namespace
}  // namespace fixgraph::graph::text

namespace fixgraph::graph::text {
namespace {

// A grouped CueSet (more than 64 cues, in up to 64 groups, a cue in several
// groups, repeated cues): bit g of Found is set exactly when some cue of
// group g is in the text, as the naive folded search finds it.
TEST(Tokenise, GroupedCueSetAnswersPerGroup) {
  const std::vector<std::string>& kPieces = kCuePieces;
  std::mt19937_64 rng(41);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> owned;
    std::vector<unsigned> groups;
    size_t n_cues = 1 + rng() % 120;
    unsigned n_groups = 1 + static_cast<unsigned>(rng() % 64);
    for (size_t k = 0; k < n_cues; ++k) {
      std::string c;
      for (int parts = 1 + static_cast<int>(rng() % 3); parts > 0; --parts)
        c += kPieces[rng() % kPieces.size()];
      if (rng() % 4 == 0) c = c.substr(0, 1 + rng() % c.size());
      if (rng() % 8 == 0) c.clear();  // an empty cue never matches
      owned.push_back(c);
      groups.push_back(static_cast<unsigned>(rng() % n_groups));
    }
    std::vector<CueSet::Grouped> list;
    for (size_t k = 0; k < owned.size(); ++k) list.push_back({owned[k], groups[k]});
    CueSet set(list);
    for (int t = 0; t < 50; ++t) {
      std::string h;
      for (int k = static_cast<int>(rng() % 30); k > 0; --k) h += kPieces[rng() % kPieces.size()];
      std::uint64_t want = 0;
      for (size_t k = 0; k < owned.size(); ++k)
        if (NaiveCount(h, {owned[k]}) > 0) want |= std::uint64_t{1} << groups[k];
      ASSERT_EQ(set.Found(h), want) << h;
      ASSERT_EQ(set.In(h), want != 0) << h;
    }
  }
  EXPECT_THROW(CueSet(std::vector<CueSet::Grouped>{{"x", 64}}), std::length_error);
  EXPECT_EQ(CueSet(std::vector<CueSet::Grouped>{{"已修复", 0}, {"已修复", 5}, {"FIX", 2}})
                .Found("已修复 fix"),
            std::uint64_t{0x25});
}

}  // namespace
}  // namespace fixgraph::graph::text

namespace fixgraph::graph::text {
namespace {

// FoldWidth the slow way: every code point decoded (as the tokeniser decodes
// them, invalid bytes one at a time) and encoded again.
std::string FoldWidthSlowly(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    if (i + n > s.size()) n = 1;
    char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += n;
    if (cp >= 0xFF01 && cp <= 0xFF5E) cp = cp - 0xFF01 + 0x21;
    if (cp == 0x3000) cp = ' ';
    AppendUtf8(&out, cp);
  }
  return out;
}

// The run-at-a-time copies of FoldWidth give what decoding and encoding every
// code point gives, on valid and invalid UTF-8 alike.
TEST(Tokenise, FoldWidthAsDecodingEveryCodePoint) {
  static const std::vector<std::string> kPieces = {"a",
                                                   "Z",
                                                   " ",
                                                   "中",
                                                   "文",
                                                   "。",
                                                   "，",
                                                   "\xEF\xBC\xA1" /* Ａ */,
                                                   "\xEF\xBD\x9E" /* ～ */,
                                                   "\xEF\xBD\x9F" /* ｟ */,
                                                   "\xEF\xBC\x80",
                                                   "\xE3\x80\x80" /* U+3000 */,
                                                   "\xE3\x80\x81" /* 、 */,
                                                   "\xE0\x80\x80" /* overlong */,
                                                   "\xE0\xA0\x80",
                                                   "\xED\xA0\x80" /* surrogate */,
                                                   "\xE4",
                                                   "\xB8",
                                                   "\xE4\xB8",
                                                   "\xC3\xA9" /* é */,
                                                   "\xF0\x9F\x98\x80" /* emoji */,
                                                   "\xFF",
                                                   "\xE4\x41\x42"};
  std::mt19937_64 rng(77);
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    for (int k = static_cast<int>(rng() % 12); k > 0; --k) s += kPieces[rng() % kPieces.size()];
    ASSERT_EQ(FoldWidth(s), FoldWidthSlowly(s)) << s;
  }
  EXPECT_EQ(FoldWidth("中\xEF\xBC\xA1文\xE3\x80\x80x"), "中A文 x");
  // Long CJK runs (copied 15 bytes a step where SSE2 is there) with one odd
  // piece at every character position, after every ASCII offset.
  for (size_t pad = 0; pad < 16; ++pad) {
    for (size_t at = 0; at < 24; ++at) {
      for (const std::string& odd : kPieces) {
        std::string s(pad, 'x');
        for (size_t k = 0; k < 24; ++k) s += k == at ? odd : (k % 2 ? "文" : "中");
        ASSERT_EQ(FoldWidth(s), FoldWidthSlowly(s)) << s;
      }
    }
  }
}

}  // namespace
}  // namespace fixgraph::graph::text

namespace fixgraph::graph::text {
namespace {

// ForMentions the slow way: a byte at a time over the folded text.
std::string ForMentionsSlowly(std::string_view input) {
  std::string s = FoldWidthSlowly(input), out;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    out.push_back(s[i]);
    if (c < 0x80 && std::isalnum(c) && i + 1 < s.size() &&
        static_cast<unsigned char>(s[i + 1]) >= 0xC0)
      out.push_back(' ');
  }
  return out;
}

TEST(Tokenise, ForMentionsAsAByteAtATime) {
  static const std::vector<std::string> kPieces = {"#",
                                                   "43",
                                                   "a",
                                                   "Z",
                                                   " ",
                                                   "!",
                                                   "同",
                                                   "的",
                                                   "，",
                                                   "\xEF\xBC\x83" /* ＃ */,
                                                   "\xEF\xBC\x94" /* ４ */,
                                                   "\xC3\xA9",
                                                   "\xE4",
                                                   "\xB8",
                                                   "\xFF",
                                                   "_",
                                                   "x1"};
  std::mt19937_64 rng(91);
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    for (int k = static_cast<int>(rng() % 12); k > 0; --k) s += kPieces[rng() % kPieces.size()];
    ASSERT_EQ(ForMentions(s), ForMentionsSlowly(s)) << s;
  }
  EXPECT_EQ(ForMentions("同 #43，见#12的"), "同 #43,见#12 的");  // ， folded, a space before 的
  // Long texts: the leads are found 16 bytes a step.
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    for (int k = static_cast<int>(rng() % 80); k > 0; --k) s += kPieces[rng() % kPieces.size()];
    ASSERT_EQ(ForMentions(s), ForMentionsSlowly(s)) << s;
  }
}

}  // namespace
}  // namespace fixgraph::graph::text
