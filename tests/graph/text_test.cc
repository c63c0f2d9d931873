// Text features (graph/text.h, private to graph/: tested white-box).
#include "../../graph/text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <random>
#include <utility>
#include <vector>

namespace fixgraph::graph::text {
namespace {

bool Has(const TokenSet& s, const std::string& word) {
  return std::binary_search(s.begin(), s.end(), Hash(word));
}

TEST(Text, TokensAreWordsAndCjkBigrams) {
  TokenSet t = Tokens("补充免责声明 for OVERVIEW.md Skills");
  EXPECT_TRUE(Has(t, "补充"));
  EXPECT_TRUE(Has(t, "免责"));
  EXPECT_TRUE(Has(t, "声明"));
  EXPECT_TRUE(Has(t, "overview"));
  EXPECT_TRUE(Has(t, "skill"));  // plural folded
  EXPECT_FALSE(Has(t, "for"));   // stop word
  EXPECT_TRUE(Has(Tokens("的缺陷"), "缺陷"));
  EXPECT_FALSE(Has(Tokens("的缺陷"), "的缺"));      // function character
  EXPECT_TRUE(Has(Tokens("ＡＢＣ　修复"), "abc"));  // full width folded
}

// Every CJK bigram and lone character is hashed from its code points: the
// set is exactly the hashes of the strings (stop characters excluded).
TEST(Text, CjkTokensAreTheHashesOfTheirStrings) {
  TokenSet want;
  for (const char* w : {"精度", "度不", "不一", "一致", "问题", "修复", "复失", "失败", "㐀龥"})
    want.push_back(Hash(w));
  want.push_back(Hash("遇"));
  Normalize(&want);
  EXPECT_EQ(Tokens("精度不一致的问题，修复失败。㐀龥 遇"), want);
  TokenSet lone = Tokens("的");
  EXPECT_TRUE(lone.empty());
}

TEST(Text, Similarity) {
  TokenSet a = Tokens("新增MiniMax-H3音视频联合步数蒸馏训练");
  TokenSet b = Tokens("新增MiniMax-H3音视频联合步数蒸馏训练");
  EXPECT_DOUBLE_EQ(Dice(a, b), 1.0);
  EXPECT_DOUBLE_EQ(Coverage(a, b), 1.0);
  TokenSet c = Tokens("CI：升级依赖");
  EXPECT_LT(Dice(a, c), 0.1);
  EXPECT_EQ(Dice({}, {}), 0);
  EXPECT_TRUE(Intersects(a, b));
  EXPECT_FALSE(Intersects(a, c));
}

TEST(Text, SetOperationsOnSkewedSizes) {
  // Small against large takes the binary-search path, similar sizes the
  // merge: both must count like a plain membership test.
  TokenSet large, small{3, 40, 41, 998, 5000};
  for (std::uint64_t v = 0; v < 1000; v += 2) large.push_back(v);
  size_t want = 0;
  for (std::uint64_t x : small) want += std::binary_search(large.begin(), large.end(), x);
  EXPECT_EQ(want, 2u);  // 40 and 998
  EXPECT_EQ(Overlap(small, large), want);
  EXPECT_EQ(Overlap(large, small), want);
  EXPECT_TRUE(Intersects(small, large));
  EXPECT_FALSE(Intersects(TokenSet{1, 3, 2001}, large));
  EXPECT_FALSE(Intersects(TokenSet{}, large));
  EXPECT_DOUBLE_EQ(Coverage(small, large), 2.0 / 5.0);
  TokenSet similar{0, 2, 3, 5, 8};
  EXPECT_EQ(Overlap(similar, TokenSet{2, 4, 8, 9}), 2u);
}

TEST(Text, FoldWidthKeepsAsciiRunsAndFoldsTheRest) {
  EXPECT_EQ(FoldWidth("plain ascii"), "plain ascii");
  EXPECT_EQ(FoldWidth("ab\xE3\x80\x80\xEF\xBC\xA1\xEF\xBC\xA2\xE4\xB8\xAD"
                      "c d"),
            "ab AB\xE4\xB8\xAD"
            "c d");
  // A cut sequence at the end decodes as its one byte (re-encoded).
  EXPECT_EQ(FoldWidth("x\xE4"), "x\xC3\xA4");
}

TEST(Text, TokensFoldWidthThemselves) {
  // Tokens reads full-width forms and odd bytes as FoldWidth gives them.
  for (std::string s : {std::string("\xEF\xBC\xA6ix \xEF\xBC\xA1"
                                    "BC\xE3\x80\x80"
                                    "done"),
                        std::string("bad \x80\xC1\x81 byte\xE4\x61 \xF0\x9F\x98\x80 修复问题"),
                        std::string("truncated \xE4\xB8")}) {
    EXPECT_EQ(Tokens(s), Tokens(FoldWidth(s))) << s;
  }
  EXPECT_TRUE(Has(Tokens("\xEF\xBC\xA6\xEF\xBC\xA9\xEF\xBC\xB8"
                         "ED"),
                  "fixed"));  // "ＦＩＸED"
}

// Tokens classifies its bytes 64 at a time: a word, a separator run and a
// CJK run at every offset around those steps, long words (past a whole block)
// included, give the same tokens as at the start.
TEST(Text, TokensWhereverTheyFallAgainstTheBlocks) {
  std::string word70;
  for (int k = 0; k < 70; ++k) word70 += static_cast<char>('a' + k % 26);
  for (size_t pad = 0; pad < 140; ++pad) {
    for (const std::string& body :
         {std::string("Fused_Adam  kernels x 12 the 修复问题 Ｆix"), "ab" + word70 + "S",
          std::string("word\xEF\xBC\xA1") + word70 + " 的缺陷 " + word70 + "ss"}) {
      const std::string sep = pad % 3 == 0 ? " " : pad % 3 == 1 ? "\t\n" : "， ";
      EXPECT_EQ(Tokens(std::string(pad, ' ') + body), Tokens(body)) << pad;
      EXPECT_EQ(Tokens(std::string(pad, '-') + sep + body + sep), Tokens(body)) << pad;
      // After a word of `pad` letters: that word's token joins them.
      TokenSet want = Tokens(body);
      if (pad >= 2) want.push_back(Hash(std::string(pad, 'q')));
      Normalize(&want);
      EXPECT_EQ(Tokens(std::string(pad, 'q') + sep + body), want) << pad;
    }
  }
  TokenSet want{Hash("fused_adam"), Hash("kernel")};
  Normalize(&want);
  EXPECT_EQ(Tokens("fused_adam kernels x 12"), want);
}

// Every stop word is dropped in any case, with a plural "s" (when longer than
// three bytes) and in full width; words that only look like them are kept.
// ("this" and "does" lose their "s" as plurals first: they are kept as "thi"
// and "doe".)
TEST(Text, StopWordsDropped) {
  for (std::string s :
       {"an",   "to",   "of",   "in",    "on",    "or",     "is",     "no",    "be",   "by",
        "at",   "as",   "it",   "do",    "if",    "we",     "pr",     "mr",    "the",  "for",
        "and",  "are",  "not",  "can",   "but",   "you",    "bug",    "with",  "when", "that",
        "from", "into", "will", "after", "issue", "before", "should", "please"}) {
    std::string upper = s, full_width = "\xEF\xBC";
    upper[0] = static_cast<char>(upper[0] - 'a' + 'A');
    full_width += static_cast<char>(0xA1 + (s[0] - 'a'));  // Ａ..Ｚ
    full_width += s.substr(1);
    EXPECT_TRUE(Tokens(s).empty()) << s;
    EXPECT_TRUE(Tokens(upper).empty()) << s;
    EXPECT_TRUE(Tokens(full_width).empty()) << s;
    EXPECT_TRUE(Tokens(std::string(60, ' ') + upper + " " + s).empty()) << s;
    if (s.size() >= 3) {
      EXPECT_TRUE(Tokens(s + "s").empty()) << s;
    }
    std::string longer = s + "x", prefixed = "x" + s, underscored = s + "_";
    EXPECT_EQ(Tokens(longer), TokenSet{Hash(longer)}) << s;
    EXPECT_EQ(Tokens(prefixed), TokenSet{Hash(prefixed)}) << s;
    EXPECT_EQ(Tokens(underscored), TokenSet{Hash(underscored)}) << s;
  }
  EXPECT_EQ(Tokens("this"), TokenSet{Hash("thi")});
  EXPECT_EQ(Tokens("th"), TokenSet{Hash("th")});
  EXPECT_TRUE(Tokens("issues").empty());
  EXPECT_TRUE(Tokens("pleases").empty());
}

TEST(Text, StripTitleTags) {
  EXPECT_EQ(StripTitleTags("[release/v2.17] FusedAdam 支持 DTensor"), "FusedAdam 支持 DTensor");
  EXPECT_EQ(StripTitleTags("【社区任务】使用 Triton"), "使用 Triton");
  EXPECT_EQ(StripTitleTags("[RFC][WIP] x"), "x");
  EXPECT_EQ(StripTitleTags("[only a tag]"), "[only a tag]");
}

TEST(Text, IdentifiersAreCodeLikeTokens) {
  auto ids = Identifiers(
      "File \"transformer_engine/pytorch/module/grouped_linear.py\", CheckValidation, "
      "vllm_mindspore.entrypoints, --reuse-grad-buf-for-mxfp8-param-ag, A2/A3, v2.17, 8.3.RC1, "
      "torch_npu 2.6.0, https://gitcode.com/o/r/blob/master/docs/x.md, plain words");
  auto has = [&](const std::string& s) {
    return std::find(ids.begin(), ids.end(), s) != ids.end();
  };
  EXPECT_TRUE(has("transformer_engine/pytorch/module/grouped_linear.py"));
  EXPECT_TRUE(has("checkvalidation"));
  EXPECT_TRUE(has("vllm_mindspore.entrypoints"));
  EXPECT_TRUE(has("vllm_mindspore/entrypoints"));  // also as a path
  EXPECT_TRUE(has("reuse-grad-buf-for-mxfp8-param-ag"));
  EXPECT_FALSE(has("a2/a3"));      // alternatives, not a path
  EXPECT_FALSE(has("v2.17"));      // a version
  EXPECT_FALSE(has("torch_npu"));  // a package with its version: environment
  EXPECT_FALSE(has("docs/x.md"));  // inside a URL
  EXPECT_FALSE(has("plain"));
  auto no_paths = Identifiers("vllm_mindspore.entrypoints", false);
  EXPECT_EQ(no_paths, (std::vector<std::string>{"vllm_mindspore.entrypoints"}));
}

TEST(Text, IdentifiersAreSortedAndUnique) {
  // Ties on the 8-byte sort prefix ("fused_ad..."), a repeat in another case,
  // a prefix of another identifier, and a dotted path's path variant.
  auto ids = Identifiers(
      "fused_adamw_step Fused_Adam fused_adam_v2 fused_adam FusedAdam aa_b "
      "torch_npu.utils.stream fused_adamw_step");
  EXPECT_EQ(ids, (std::vector<std::string>{"aa_b", "fused_adam", "fused_adam_v2",
                                           "fused_adamw_step", "fusedadam",
                                           "torch_npu.utils.stream", "torch_npu/utils/stream"}));
}

TEST(Text, IdentifiersFoundWhereverTheirMarkFalls) {
  // The scan finds a token from its marked byte ('_', '.', '/', '-', an upper
  // case letter), 16 bytes at a time: every offset of the token and of its
  // mark against those steps gives the same identifiers.
  for (size_t pad = 0; pad < 40; ++pad) {
    const std::string word(pad, 'q');
    EXPECT_EQ(Identifiers(word + "_tail"), (std::vector<std::string>{word + "_tail"})) << pad;
    const std::string text = std::string(pad, ' ') +
                             "plain words fused_adam 中文 CheckValidation x.y " + word +
                             "tail.py lowercaseonlywordsherexx";
    std::vector<std::string> want = {"checkvalidation", "fused_adam", word + "tail.py"};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(Identifiers(text), want) << pad;
  }
  EXPECT_TRUE(Identifiers(std::string(100, 'a') + " " + std::string(50, '9')).empty());
}

TEST(Text, UrlsBlankedWhereverTheyFall) {
  // ASCII text is searched for "http" 16 positions a step: a URL at any
  // offset is blanked, its path not read as a file.
  for (size_t pad = 0; pad < 40; ++pad) {
    const std::string text = std::string(pad, ' ') + "see https://x.io/a/b_c.py and fused_adam";
    EXPECT_EQ(Identifiers(text), (std::vector<std::string>{"fused_adam"})) << pad;
    EXPECT_EQ(Identifiers(std::string(pad, 'x') + " http://q/load_me.py"),
              std::vector<std::string>{})
        << pad;
  }
  EXPECT_EQ(Identifiers("htt://q/load_me.py"), (std::vector<std::string>{"q/load_me.py"}));
}

TEST(Text, IdentifierBufferGivesTheUnionOfItsTexts) {
  const std::string a = "grouped_linear.py and CheckValidation, see fused_adam_v2";
  const std::string b =
      "在 https://x.io/a/b_c.py 见 ｆｕｓｅｄ＿ａｄａｍ and grouped_linear.py";  // full-width
                                                                                 // folded
  IdentifierBuffer buf;
  buf.Add("stale_identifier_before_clear");
  buf.Clear();
  buf.Add(a, false);
  buf.Add(b, false);
  std::span<const std::string_view> got = buf.Sorted();
  std::vector<std::string> want = Identifiers(a, false);
  for (const std::string& id : Identifiers(b, false)) want.push_back(id);
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  EXPECT_EQ(std::vector<std::string>(got.begin(), got.end()), want);
  EXPECT_EQ(want, (std::vector<std::string>{"checkvalidation", "fused_adam", "fused_adam_v2",
                                            "grouped_linear.py"}));
}

TEST(Text, PathHelpers) {
  // File extensions: known ones of one to five bytes, any case, after a
  // basename that does not start with the dot.
  for (const char* yes : {"a.py", "a.c", "dir.d/x.md", "x.ipynb", "A.PY", "fused_adam.Proto",
                          "a/b.c/x.cmake", "setup.cfg", "x.tar.json"}) {
    EXPECT_TRUE(IsPathLike(yes)) << yes;
  }
  for (const char* no :
       {".py", "a.", "x.ipynbb", "x.pyy", "xpy", "x.unknown", "py", "abc.d", "x..py.", "a.b.x"}) {
    EXPECT_FALSE(IsPathLike(no)) << no;
  }
  EXPECT_TRUE(IsPathLike("a/.py"));  // a '/' is enough
  EXPECT_TRUE(IsPathLike("a.b.c"));  // the last dot counts
  EXPECT_TRUE(IsPathLike("a/b"));
  EXPECT_TRUE(IsPathLike("fused_adam.py"));
  EXPECT_FALSE(IsPathLike("fused_adam"));
  EXPECT_EQ(Basename("a/b/c.py"), "c.py");
  EXPECT_TRUE(IsGenericFileName("README.md"));
  EXPECT_FALSE(IsGenericFileName("grouped_linear.py"));
  EXPECT_TRUE(IsCamelOnly("mindspore"));
  EXPECT_FALSE(IsCamelOnly("fully_shard"));
}

TEST(Text, ForMentionsSeparatesNumbersFromCjk) {
  EXPECT_EQ(ForMentions("同 #43，关闭"), "同 #43,关闭");  // "，" folds to ","
  EXPECT_EQ(ForMentions("见 #12的说明"), "见 #12 的说明");
  EXPECT_EQ(ForMentions("plain #5 text"), "plain #5 text");
}

TEST(Text, ClauseAt) {
  std::string s = "第一句。修复 PR：!12；问题由 !11 引入。";
  size_t at = s.find("!12");
  Clause c = ClauseAt(s, at);
  EXPECT_EQ(s.substr(c.begin, c.end - c.begin), "修复 PR：!12");
  at = s.find("!11");
  c = ClauseAt(s, at);
  EXPECT_EQ(s.substr(c.begin, c.end - c.begin), "问题由 !11 引入");
}

TEST(Text, ClauseAtReadsABoundedWindowOnCharacterBoundaries) {
  // One clause of 3,000 CJK characters (9,000 bytes) with a mention inside:
  // cut about kClauseWindow bytes each way, never inside a character.
  std::string s;
  for (int i = 0; i < 1500; ++i) s += "修";
  s += " !12 ";
  for (int i = 0; i < 1500; ++i) s += "复";
  const size_t at = s.find("!12");
  const Clause c = ClauseAt(s, at);
  EXPECT_LE(at - c.begin, kClauseWindow);
  EXPECT_GT(at - c.begin, kClauseWindow - 3);
  EXPECT_LE(c.end - at, kClauseWindow);
  EXPECT_GT(c.end - at, kClauseWindow - 3);
  EXPECT_EQ(s.substr(c.begin, 3), "修");
  EXPECT_EQ(s.substr(c.end - 3, 3), "复");
  // A delimiter inside the window still bounds the clause.
  const std::string t = s.substr(0, at - 30) + "。" + s.substr(at - 30);
  const Clause d = ClauseAt(t, t.find("!12"));
  EXPECT_EQ(d.begin, at - 30 + 3);
}

// ClauseAt restated: every delimiter compared at every byte, all spans
// found first.
Clause ClauseAtSlowly(std::string_view s, size_t offset) {
  static constexpr std::array<std::string_view, 9> kDelims = {
      "\n", "\xE3\x80\x82", "\xEF\xBC\x9B", ";", "\xEF\xBC\x81", "\xEF\xBC\x9F", "!", "?", "\r"};
  // First every delimiter's span, left to right, then the spans around offset.
  std::vector<std::pair<size_t, size_t>> spans;
  for (size_t i = 0; i < s.size();) {
    auto is_delim = [&](std::string_view d) {
      return s.substr(i).starts_with(d) && !((d == "!" || d == "?") && i + 1 < s.size() &&
                                             std::isalnum(static_cast<unsigned char>(s[i + 1])));
    };
    auto d = std::find_if(kDelims.begin(), kDelims.end(), is_delim);
    if (d == kDelims.end()) {
      ++i;
      continue;
    }
    spans.emplace_back(i, i + d->size());
    i += d->size();
  }
  offset = std::min(offset, s.size());
  Clause c{0, s.size()};
  for (const auto& [start, stop] : spans)
    if (stop <= offset) c.begin = stop;
  for (const auto& [start, stop] : spans) {
    if (start >= offset) {
      c.end = start;
      break;
    }
  }
  return c;
}

TEST(Text, ClauseAtAsComparingEveryDelimiter) {
  static const std::vector<std::string> kPieces = {"a",
                                                   "修复",
                                                   " ",
                                                   "\n",
                                                   "\r",
                                                   ";",
                                                   "!",
                                                   "?",
                                                   "!12",
                                                   "?x",
                                                   "! ",
                                                   "\xE3\x80\x82",
                                                   "\xEF\xBC\x9B",
                                                   "\xEF\xBC\x81",
                                                   "\xEF\xBC\x9F",
                                                   "\xE3\x80",
                                                   "\xEF\xBC",
                                                   "\xEF\xBC\x8C",
                                                   "\xE3\x80\x81",
                                                   "\xEF",
                                                   "#12"};
  std::mt19937_64 rng(5);
  for (int round = 0; round < 3000; ++round) {
    std::string s;
    for (int k = static_cast<int>(rng() % 14); k > 0; --k) s += kPieces[rng() % kPieces.size()];
    for (size_t at = 0; at <= s.size() + 1; ++at) {
      const Clause want = ClauseAtSlowly(s, at), got = ClauseAt(s, at);
      ASSERT_EQ(got.begin, want.begin) << s << " @" << at;
      ASSERT_EQ(got.end, want.end) << s << " @" << at;
    }
  }
}

TEST(Text, Helpers) {
  EXPECT_TRUE(CueSet({"fixed in"}).In("Fixed In CANN"));
  EXPECT_FALSE(CueSet({"", "abcd"}).In("abc"));
  EXPECT_TRUE(CueSet({"cann 侧"}).In("see CANN 侧"));   // upper case only in the text
  EXPECT_TRUE(CueSet({"CANN"}).In("cann 8.0 已修复"));  // only in the cue
  const CueSet cues{"ROOT cause", "根因"};
  EXPECT_TRUE(cues.In("The Root Cause is X"));
  EXPECT_FALSE(cues.In("the root of it"));
  // Found: one bit per list entry present, short and long cues alike.
  const CueSet list{"ab", "海思", "fixed in", "zz"};
  EXPECT_EQ(list.Found("AB and Fixed In 海思"), 0x7u);
  EXPECT_EQ(list.Found("nothing here"), 0u);
  EXPECT_EQ(list.Found("zz fixed in"), 0xCu);
  EXPECT_EQ(Lower("AbC"), "abc");
  EXPECT_EQ(VisibleLength("a b 中文"), 4u);
}

}  // namespace
}  // namespace fixgraph::graph::text
