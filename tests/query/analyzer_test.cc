// The shared analyzer: identifiers and codes whole, parts, stemming, CJK
// bigrams, NFKC folding and any byte string.
#include "../../query/analyzer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fixgraph::query {
namespace {

std::vector<std::string> Texts(std::string_view text) {
  std::vector<std::string> out;
  for (const Term& t : Analyze(text)) out.push_back(t.text);
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(AnalyzerTest, IdentifiersAndCodesStayWhole) {
  auto t = Texts(
      "aclnnGroupedMatmulV3 failed with -1610252272, EZ9999 on 910B CANN 8.1.RC1 DTS2025030506797");
  for (const char* want :
       {"aclnngroupedmatmulv3", "-1610252272", "ez9999", "910b", "8.1.rc1", "dts2025030506797"})
    EXPECT_TRUE(Has(t, want)) << want;
  // Parts at the same position as the whole.
  for (const char* want : {"aclnn", "group", "matmul", "v3", "1610252272", "dts", "2025030506797"})
    EXPECT_TRUE(Has(t, want)) << want;
}

TEST(AnalyzerTest, PartsShareThePositionOfTheirWhole) {
  auto terms = Analyze("call torch_npu.npu_fusion_attention now");
  std::uint32_t whole_pos = 0;
  for (const Term& t : terms)
    if (t.text == "torch_npu.npu_fusion_attention") whole_pos = t.pos;
  ASSERT_NE(whole_pos, 0u);
  bool saw = false;
  for (const Term& t : terms)
    if (t.text == "npu_fusion_attention") {
      saw = true;
      EXPECT_EQ(t.pos, whole_pos);
      EXPECT_EQ(t.kind, TermKind::kPart);
    }
  EXPECT_TRUE(saw);
}

TEST(AnalyzerTest, EnglishWordsAreStemmedAndStopWordsDropped) {
  auto t = Texts("The training crashes when loading checkpoints");
  EXPECT_TRUE(Has(t, "crash"));
  EXPECT_TRUE(Has(t, "checkpoint"));
  EXPECT_TRUE(Has(t, "train"));
  EXPECT_FALSE(Has(t, "the"));
  EXPECT_FALSE(Has(t, "when"));
}

TEST(AnalyzerTest, CjkRunsBecomeBigrams) {
  auto t = Texts("显存不足导致崩溃");
  EXPECT_EQ(t, (std::vector<std::string>{"显存", "存不", "不足", "足导", "导致", "致崩", "崩溃"}));
  EXPECT_EQ(Texts("错"), std::vector<std::string>{"错"});
  auto mixed = Texts("910B芯片报错");
  EXPECT_TRUE(Has(mixed, "910b"));
  EXPECT_TRUE(Has(mixed, "芯片"));
  EXPECT_TRUE(Has(mixed, "报错"));
}

TEST(AnalyzerTest, ChineseFunctionWordsEndCjkRuns) {
  // No bigram spans a particle, which is dropped like an English stop word.
  EXPECT_EQ(Texts("结果的精度"), (std::vector<std::string>{"结果", "精度"}));
  EXPECT_EQ(Texts("这个算子和那个"), (std::vector<std::string>{"个算", "算子", "个"}));
  EXPECT_TRUE(Texts("的了吗").empty());
  // So a query with or without the particle has the same terms.
  EXPECT_EQ(Texts("精度的下降"), Texts("精度 下降"));
  // Characters that also make content words are no stop characters.
  EXPECT_EQ(Texts("是否存在"), (std::vector<std::string>{"是否", "否存", "存在"}));
}

TEST(AnalyzerTest, FullWidthFormsFoldToAscii) {
  EXPECT_EQ(Normalize("ＡＢＣ（１２３）"), "abc(123)");
  auto t = Texts("ＥＺ９９９９，９１０Ｂ");
  EXPECT_TRUE(Has(t, "ez9999"));
  EXPECT_TRUE(Has(t, "910b"));
}

TEST(AnalyzerTest, AnyBytesAreSafe) {
  std::string bad = "abc\xff\xfe\xc3 def \x80\x80 \xe6\x98";
  std::string n = Normalize(bad);
  EXPECT_NE(n.find("\xEF\xBF\xBD"), std::string::npos);
  auto t = Texts(bad);
  EXPECT_TRUE(Has(t, "abc"));
  EXPECT_TRUE(Has(t, "def"));
  EXPECT_TRUE(Texts("").empty());
  EXPECT_TRUE(Texts("!!! ??? ... ---").empty());
  std::string nul("a\0b", 3);
  EXPECT_NO_THROW(Texts(nul));
  // Over-long tokens are dropped rather than producing unusable terms.
  for (const Term& term : Analyze(std::string(500, 'x') + " ok"))
    EXPECT_LE(term.text.size(), kMaxTermBytes);
}

// Normalization maps text segment by segment around the code points it
// leaves alone; what composes across them must come out as when the whole
// text is mapped at once (expected values: utf8proc over the whole text).
TEST(AnalyzerTest, NormalizationComposesAcrossAsciiAndCjk) {
  // e + combining acute after ASCII, case folded or kept.
  EXPECT_EQ(Normalize("Cafe\xCC\x81 OK"), "caf\xC3\xA9 ok");
  EXPECT_EQ(NormalizeKeepCase("Cafe\xCC\x81 OK"), "Caf\xC3\xA9 OK");
  // A combining mark after a CJK ideograph stays (nothing to compose with).
  EXPECT_EQ(Normalize("\xE4\xB8\xAD\xCC\x81"), "\xE4\xB8\xAD\xCC\x81");
  // Hangul jamo L V T compose into one syllable before ASCII.
  EXPECT_EQ(Normalize("\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8x"), "\xEA\xB0\x81x");
  // Half-width katakana and its voiced mark compose to one full-width letter.
  EXPECT_EQ(Normalize("\xEF\xBD\xB6\xEF\xBE\x9E"), "\xE3\x82\xAC");
  // Compatibility forms: a roman numeral, full-width comma and letter + mark.
  EXPECT_EQ(Normalize("\xE2\x85\xAB"), "xii");
  EXPECT_EQ(NormalizeKeepCase("\xE2\x85\xAB"), "XII");
  EXPECT_EQ(Normalize("A\xCC\x8A\xE6\x98\xBE\xEF\xBC\x8C\xEF\xBC\xA1\xCC\x81"),
            "\xC3\xA5\xE6\x98\xBE,\xC3\xA1");
  EXPECT_EQ(NormalizeKeepCase("A\xCC\x8A\xE6\x98\xBE\xEF\xBC\x8C\xEF\xBC\xA1\xCC\x81"),
            "\xC3\x85\xE6\x98\xBE,\xC3\x81");
  // An invalid byte becomes U+FFFD; the mark after it stays.
  EXPECT_EQ(Normalize("x\xFF\xCC\x81y"), "x\xEF\xBF\xBD\xCC\x81y");
}

// AnalyzeTo hands a sink the terms Analyze returns, in the same order, also
// when the sink analyses text of its own on the way.
TEST(AnalyzerTest, SinkReceivesTheTermsAnalyzeReturns) {
  struct Collect final : TermSink {
    std::vector<Term> terms;
    bool nest = false;
    void Add(std::string_view text, std::uint32_t pos, TermKind kind) override {
      if (nest) {
        EXPECT_FALSE(Analyze("nested aclnnFoo 显存").empty());
      }
      terms.push_back(Term{std::string(text), pos, kind});
    }
  };
  const char* text =
      "aclnnGroupedMatmulV3 报错 -1610252272 on torch_npu.npu_fusion_attention, crashes "
      "ＥＺ９９９９";
  std::vector<Term> want = Analyze(text);
  ASSERT_GT(want.size(), 10u);
  for (bool nest : {false, true}) {
    Collect sink;
    sink.nest = nest;
    AnalyzeTo(text, &sink);
    ASSERT_EQ(sink.terms.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(sink.terms[i].text, want[i].text);
      EXPECT_EQ(sink.terms[i].pos, want[i].pos);
      EXPECT_EQ(sink.terms[i].kind, want[i].kind);
    }
  }
}

}  // namespace
}  // namespace fixgraph::query

#include "../../query/lexicon.h"

namespace fixgraph::query {
namespace {

Lexicon::Seq SeqOf(std::string_view text) { return SequenceOf(Analyze(text)); }

TEST(AnalyzerLexiconTest, EmbeddedLexiconKnowsHardwareTermsAndSynonyms) {
  const Lexicon& lex = Lexicon::Default();
  EXPECT_GT(lex.group_count(), 20u);
  for (const char* q :
       {"训练在 910B 上很慢", "Atlas A2 集群", "DVPP 解码", "HCCL_CONNECT_TIMEOUT 设置多少",
        "ASCEND_RT_VISIBLE_DEVICES", "CANN 8.1.RC1 编译", "ai core 利用率"})
    EXPECT_TRUE(lex.NamesHardware(SeqOf(q))) << q;
  for (const char* q : {"loss 不收敛", "import transformer_engine 报错", "README 链接失效"})
    EXPECT_FALSE(lex.NamesHardware(SeqOf(q))) << q;
  // Multi-term members match as a run: 显存不足 (three bigrams) and "out of memory".
  auto m = lex.FindSynonyms(SeqOf("推理时显存不足"));
  ASSERT_FALSE(m.empty());
  size_t oom_group = m.back().group;
  auto m2 = lex.FindSynonyms(SeqOf("CUDA out of memory"));
  ASSERT_FALSE(m2.empty());
  EXPECT_EQ(m2.back().group, oom_group);
  EXPECT_EQ(m2.back().length, 2u);  // "out" "memori" ("of" is a stop word)
}

TEST(AnalyzerLexiconTest, FromTextParsesGroupsAndPrefixes) {
  Lexicon lex = Lexicon::FromText("# c\nfoo | 报错 | bar baz\nlonely\n", "FOO_*\nxpu\n");
  EXPECT_EQ(lex.group_count(), 1u);
  EXPECT_TRUE(lex.NamesHardware(SeqOf("set FOO_BAR=1")));
  EXPECT_TRUE(lex.NamesHardware(SeqOf("XPU")));
  EXPECT_FALSE(lex.NamesHardware(SeqOf("FOO")));
  auto m = lex.FindSynonyms(SeqOf("x bar baz y"));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].start, 1u);
  EXPECT_EQ(m[0].length, 2u);
}

// The doc search's lexicon (docs_synonyms.txt) bridges the domain vocabulary
// of Ascend / CANN / torch_npu / vLLM between English and Chinese, by topic
// (issue 22, item 3); the issue search's lexicon does not hold it.
TEST(AnalyzerLexiconTest, DocLexiconBridgesDomainVocabulary) {
  const Lexicon& docs = Lexicon::ForDocs();
  const Lexicon& issues = Lexicon::Default();
  EXPECT_GT(docs.group_count(), issues.group_count() + 400);
  auto bridged = [](const Lexicon& lex, std::string_view en, std::string_view zh) {
    auto m = lex.FindSynonyms(SeqOf(en));
    if (m.size() != 1 || m[0].length != SeqOf(en).size()) return false;
    const auto& members = lex.Group(m[0].group);
    return std::find(members.begin(), members.end(), SeqOf(zh)) != members.end();
  };
  const std::pair<const char*, const char*> pairs[] = {{"memory pool", "内存池"},
                                                       {"framework", "框架"},
                                                       {"kernel launch", "算子下发"},
                                                       {"host side", "cpu侧"},
                                                       {"reduce-scatter", "reduce scatter"},
                                                       {"process group", "通信组"},
                                                       {"custom operator", "自定义算子"},
                                                       {"graph capture", "图捕获"},
                                                       {"tuning", "调优"},
                                                       {"mixed precision", "混合精度"},
                                                       {"build from source", "源码编译"},
                                                       {"prefix caching", "前缀缓存"},
                                                       {"calibration", "校准"},
                                                       {"data loading", "数据加载"},
                                                       {"illegal memory access", "非法内存访问"},
                                                       {"time to first token", "首字时延"}};
  for (const auto& [en, zh] : pairs) {
    EXPECT_TRUE(bridged(docs, en, zh)) << en << " | " << zh;
    EXPECT_TRUE(bridged(docs, zh, en)) << zh << " | " << en;
  }
  // A name word of API pages (npu_dynamic_block_quant) from the Chinese
  // ("block" itself also stems like "blocking", of another group).
  EXPECT_TRUE(bridged(docs, "分块", "block"));
  // Name words of a single page each (npu_dynamic_quant_asymmetric, npu_iou, npu_one_hot, ...).
  for (const auto& [zh, en] : {std::pair<const char*, const char*>{"非对称", "asymmetric"},
                               {"相乘", "mul"},
                               {"交并比", "iou"},
                               {"非极大值抑制", "nms"},
                               {"独热", "one hot"},
                               {"伪量化", "antiquant"},
                               {"看门狗", "watchdog"},
                               {"可变形卷积", "deform conv"}})
    EXPECT_TRUE(bridged(docs, zh, en)) << zh << " | " << en;
  // The corpus vocabulary block (session 37): frequent words of the pages with
  // no group before, in both directions.
  for (const auto& [en, zh] :
       {std::pair<const char*, const char*>{"keyword argument", "关键字参数"},
        {"standard deviation", "标准差"},
        {"sequence", "序列"}}) {
    EXPECT_TRUE(bridged(docs, en, zh)) << en << " | " << zh;
    EXPECT_TRUE(bridged(docs, zh, en)) << zh << " | " << en;
  }
  EXPECT_FALSE(bridged(issues, "kernel launch", "算子下发"));
  EXPECT_FALSE(bridged(issues, "memory pool", "内存池"));
}

// A member is matched after analysis, stop words dropped: "how to use" would
// be "use", "mean" is also the stem of "meaning". Question wording alone must
// not expand into the domain vocabulary.
TEST(AnalyzerLexiconTest, DocLexiconLeavesQuestionWordingAlone) {
  const Lexicon& docs = Lexicon::ForDocs();
  for (const char* q :
       {"how do I use it", "what does this setting mean", "what is the meaning of it",
        "which one should I pick", "is there a way to do that"})
    EXPECT_TRUE(docs.FindSynonyms(SeqOf(q)).empty()) << q;
}

}  // namespace
}  // namespace fixgraph::query
