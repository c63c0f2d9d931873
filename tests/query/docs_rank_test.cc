// Pieces of the doc ranking (query/docs_rank.h) on their own: the words of an
// API page's name, the sibling-page choice, the API action lexicon that feeds
// it, and the snippet's line probes.
#include "../../query/docs_rank.h"

#include "../../query/analyzer.h"
#include "../../query/lexicon.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace fixgraph::query::docs {
namespace {

using Words = std::set<std::string>;

TEST(NameWords, LastComponentOfTheTitleSplitIntoWords) {
  EXPECT_EQ(NameWords("torch.npu.reset_stream_limit"), (Words{"reset", "stream", "limit"}));
  // camelCase splits (the stored title terms are lower-cased: this reads the title)
  EXPECT_EQ(NameWords("（beta）c10_npu::getCurrentNPUStream"),
            (Words{"get", "current", "npu", "stream"}));
  // a trailing call and a (beta) mark are not part of the name; namespaces are left out
  EXPECT_EQ(NameWords("（beta）torch_npu.npu_convolution()"), (Words{"npu", "convolut"}));
  EXPECT_EQ(NameWords("ASCEND_LAUNCH_BLOCKING"), (Words{"ascend", "launch", "block"}));
  // stop words in a name are not name words (no question holds them)
  EXPECT_EQ(NameWords("c10_npu::getNPUStreamFromPool"), (Words{"get", "npu", "stream", "pool"}));
  EXPECT_EQ(NameWords("npu_max_with_sum"), (Words{"npu", "max", "sum"}));
  EXPECT_TRUE(NameWords("快速入门").empty());
  EXPECT_TRUE(NameWords("").empty());
  // a trailing underscore names the in-place variant (PyTorch's convention); a dunder does not
  EXPECT_EQ(NameWords("torch_npu.scatter_update_"), (Words{"scatter", "updat", InPlaceWord()}));
  EXPECT_EQ(InPlaceWord(), "inplac");
  EXPECT_EQ(NameWords("torch_npu.scatter_update"), (Words{"scatter", "updat"}));
  EXPECT_EQ(NameWords("Module.__call__").count(InPlaceWord()), 0u);
  // a method's class is part of its name; a module or namespace is not
  EXPECT_EQ(NameWords("torch_npu.npu.ExternalEvent().reset()"),
            (Words{"extern", "event", "reset"}));
  EXPECT_EQ(NameWords("c10_npu::NPUStreamGuard::current_stream"),
            (Words{"npu", "stream", "guard", "current"}));
  EXPECT_EQ(NameWords("torch_npu.npu.mstx.range_end"), (Words{"rang", "end"}));
  EXPECT_EQ(NameWords("torch_npu.contrib.module.ChannelShuffle"), (Words{"channel", "shuffl"}));
}

TEST(NameWords, StoredListSplitsBack) {
  EXPECT_EQ(SplitWords("get current npu stream"), (Words{"get", "current", "npu", "stream"}));
  EXPECT_EQ(SplitWords(" a  b "), (Words{"a", "b"}));
  EXPECT_TRUE(SplitWords("").empty());
}

TEST(SiblingAsked, TheWordThatTellsSiblingsApartDecides) {
  Words reset = NameWords("torch.npu.reset_stream_limit");
  Words set = NameWords("torch.npu.set_stream_limit");
  auto asks = [](Words w) { return [w](const std::string& t) { return w.count(t) > 0; }; };
  EXPECT_TRUE(SiblingAsked(reset, set, asks({"reset", "stream"})));
  EXPECT_FALSE(SiblingAsked(set, reset, asks({"reset", "stream"})));
  // neither word asked, or both: no preference
  EXPECT_FALSE(SiblingAsked(reset, set, asks({"stream"})));
  EXPECT_FALSE(SiblingAsked(reset, set, asks({"reset", "set"})));
  // both asked for some of their own words: more of them decides ("my own
  // fused SGD optimizer: is there a base class?" asks for optimizer and base)
  Words base = NameWords("torch_npu.optim.NpuFusedOptimizerBase");
  Words sgd = NameWords("torch_npu.optim.NpuFusedSGD");
  EXPECT_TRUE(SiblingAsked(base, sgd, asks({"fuse", "sgd", "optim", "base"})));
  EXPECT_FALSE(SiblingAsked(sgd, base, asks({"fuse", "sgd", "optim", "base"})));
  EXPECT_FALSE(SiblingAsked(base, sgd, asks({"fuse", "sgd", "base"})));
  // names that share fewer than kSiblingShared words are not siblings
  Words slice = NameWords("torch_npu.npu_slice");
  Words indexing = NameWords("torch_npu.npu_indexing");
  EXPECT_FALSE(SiblingAsked(slice, indexing, asks({"slice"})));
  // the plain name over one with a qualifier the question does not ask for
  Words conv = NameWords("torch_npu.npu_convolution");
  Words conv_t = NameWords("torch_npu.npu_convolution_transpose");
  EXPECT_TRUE(SiblingAsked(conv, conv_t, asks({"convolut"})));
  EXPECT_FALSE(SiblingAsked(conv, conv_t, asks({"convolut", "transpos"})));
  EXPECT_TRUE(SiblingAsked(conv_t, conv, asks({"convolut", "transpos"})));
  // the in-place variant when the question asks for in-place work, else the plain one
  Words update = NameWords("torch_npu.scatter_update");
  Words update_ = NameWords("torch_npu.scatter_update_");
  EXPECT_TRUE(SiblingAsked(update_, update, asks({"scatter", InPlaceWord()})));
  EXPECT_TRUE(SiblingAsked(update, update_, asks({"scatter"})));
  EXPECT_FALSE(SiblingAsked(update, update_, asks({"scatter", InPlaceWord()})));
  // two in-place operations are not siblings by being in-place
  Words quant_scatter_ = NameWords("torch_npu.npu_quant_scatter_");
  EXPECT_FALSE(SiblingAsked(quant_scatter_, update_, asks({"quant", "scatter", InPlaceWord()})));
  // names differing by more than kSiblingWords words are not siblings
  Words far = NameWords("torch_npu.npu_convolution_transpose_backward_fused_v2");
  EXPECT_FALSE(SiblingAsked(conv, far, asks({"convolut"})));
}

// What a question refuses is blanked, byte for byte; the rest is kept.
TEST(DropNegated, BlanksWhatTheQuestionSaysItDoesNotWant) {
  auto kept = [](const std::string& q) {
    std::string out = DropNegated(q);
    EXPECT_EQ(out.size(), q.size()) << q;
    // Spaces collapsed, to compare the words.
    std::string words;
    for (char c : out)
      if (c != ' ' || (!words.empty() && words.back() != ' ')) words += c;
    while (!words.empty() && words.back() == ' ') words.pop_back();
    return words;
  };
  EXPECT_EQ(kept("combine op (the plain one, without the residual-add/RMSNorm fusion), can I"),
            "combine op (the plain one, ), can I");
  // up to four words, not past a conjunction, a preposition or a sentence's end;
  // "torch.compile" is one word
  EXPECT_EQ(kept("replay kernels without torch.compile. How?"), "replay kernels . How?");
  EXPECT_EQ(kept("decorate it instead of calling start/end markers by hand. Is there"),
            "decorate it by hand. Is there");
  EXPECT_EQ(kept("IoF instead of IoU between the boxes"), "IoF between the boxes");
  EXPECT_EQ(kept("Rather than latency and cost, what split"), "and cost, what split");
  EXPECT_EQ(kept("no cue except"), "no cue");
  // a cue inside a word is none ("withoutput" is no word either)
  EXPECT_EQ(kept("exceptional withoutput"), "exceptional withoutput");
  EXPECT_EQ(kept("key不做稀疏化，反向梯度"), "key ，反向梯度");
  EXPECT_EQ(kept("不想改原来的张量也行"), "也行");
  // 要不要 asks; the span ends at a space or a mark
  EXPECT_EQ(kept("D节点要不要一起配？"), "D节点要不要一起配？");
  EXPECT_EQ(kept("不改代码 怎么跑"), "怎么跑");
  EXPECT_EQ(kept("plain question"), "plain question");
}

TEST(ApiActions, QuestionsAskForNameWordsInOtherWords) {
  const Lexicon& actions = Lexicon::ApiActions();
  auto asked = [&](const std::string& q) {
    Words out;
    for (const Lexicon::Match& m : actions.FindSynonyms(SequenceOf(Analyze(q))))
      for (const Lexicon::Seq& member : actions.Group(m.group))
        out.insert(member.begin(), member.end());
    return out;
  };
  EXPECT_EQ(asked("现在想恢复默认配置，用什么接口").count("reset"), 1u);
  EXPECT_EQ(asked("the call that makes a stream the current one").count("set"), 1u);
  EXPECT_EQ(asked("how do I turn off the check").count("disabl"), 1u);
  EXPECT_EQ(asked("查询当前流").count("get"), 1u);
  EXPECT_TRUE(asked("what does this operator compute").empty());
  // the issue search's lexicon does not hold these
  EXPECT_TRUE(Lexicon::Default().FindSynonyms(SequenceOf(Analyze("恢复默认"))).empty());
}

TEST(MakeSnippet, PicksTheLineWithTheMostQueryWeight) {
  std::map<std::string, double> w = {{"通信", 2.0}, {"超时", 3.0}, {"timeout", 1.0}};
  // The first line holds 通 and 超 but not the bigrams; the third holds both.
  std::string text =
      "通过超级节点部署。\n无关的一行。\n通信超时后任务退出。\nset a timeout value\n";
  EXPECT_EQ(MakeSnippet(text, w).rfind("通信超时后任务退出。", 0), 0u) << MakeSnippet(text, w);
  EXPECT_EQ(MakeSnippet("only timeout here\n", w), "only timeout here");
}

}  // namespace
}  // namespace fixgraph::query::docs
