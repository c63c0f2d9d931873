// ExtractAnswerPassage (query/ask_answer.h): the whole diagnosis-and-steps
// passage of a resolving comment or fix PR description. The texts are written
// for these tests.
#include "../../query/ask_answer.h"

#include "../../query/issue_index.h"

#include <gtest/gtest.h>

#include <string>

namespace fixgraph::query {
namespace {

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(AnswerPassageTest, KeepsTheDiagnosisAndEveryStepOfAChineseComment) {
  const std::string body =
      "这个报错是因为编译扩展时用的 torch 和运行时加载的 torch 不是同一个版本。\n"
      "1. 确认 `python -c 'import torch; print(torch.__version__)'` 与编译环境一致；\n"
      "2. 先 `pip uninstall -y apex_ext` 删除旧的 so；\n"
      "3. 用 `pip install -v --no-build-isolation .` 重新编译安装。\n"
      "\n"
      "第 3 步的 `--no-build-isolation` 是关键，否则 pip 会在临时环境里另装一个 torch。\n";
  std::string a = ExtractAnswerPassage(body);
  EXPECT_EQ(a.rfind("这个报错是因为", 0), 0u) << a;  // starts with the diagnosis, not at step 2
  EXPECT_TRUE(Has(a, "1. 确认")) << a;
  EXPECT_TRUE(Has(a, "2. 先")) << a;
  EXPECT_TRUE(Has(a, "3. 用")) << a;
  EXPECT_TRUE(Has(a, "第 3 步")) << a;
  // In document order, one line per block line.
  EXPECT_LT(a.find("1. 确认"), a.find("2. 先"));
  EXPECT_LT(a.find("2. 先"), a.find("3. 用"));
}

TEST(AnswerPassageTest, PrefersTheCauseAndChangeSectionsOverTheTestSection) {
  const std::string body =
      "### 问题原因\n"
      "流水线并行开启 overlap 时，send/recv 的 stream 没有等待前一个 micro batch 的计算完成，"
      "导致读取到尚未写完的激活值，loss 出现 NaN。\n"
      "\n"
      "### 修改\n"
      "1. 在 send 之前插入 event 等待计算 stream；\n"
      "2. recv 完成后再释放缓冲区；\n"
      "3. 新增 overlap 场景的用例。\n"
      "\n"
      "### 测试\n"
      "新增测试用例 `tests/test_pp_overlap.py` 通过，CI 全部通过。\n";
  std::string a = ExtractAnswerPassage(body);
  EXPECT_TRUE(Has(a, "导致读取到尚未写完的激活值")) << a;
  EXPECT_TRUE(Has(a, "1. 在 send 之前插入 event")) << a;
  EXPECT_TRUE(Has(a, "3. 新增 overlap 场景的用例。")) << a;  // the list stays whole
  EXPECT_FALSE(Has(a, "CI 全部通过")) << a;                  // the test notes do not
  EXPECT_FALSE(Has(a, "###")) << a;
  EXPECT_LT(a.find("导致"), a.find("1. 在 send"));
}

TEST(AnswerPassageTest, EnglishCommentWithALeadInAndCodeSteps) {
  const std::string body =
      "Thanks for the detailed report!\n"
      "\n"
      "The root cause is that the HCCL timeout defaults to 120 s, which is shorter than the first "
      "compilation of the graph on 64 cards, so the collective gives up before every rank "
      "arrives.\n"
      "\n"
      "To work around it:\n"
      "1. Raise the timeout before launching:\n"
      "```bash\n"
      "export HCCL_CONNECT_TIMEOUT=1200\n"
      "```\n"
      "2. Enable the compile cache so later runs skip the long compilation.\n"
      "\n"
      "I also added a test for the new default in our CI.\n";
  std::string a = ExtractAnswerPassage(body);
  EXPECT_TRUE(Has(a, "The root cause is")) << a;
  EXPECT_TRUE(Has(a, "1. Raise the timeout")) << a;
  EXPECT_TRUE(Has(a, "    export HCCL_CONNECT_TIMEOUT=1200"))
      << a;  // code kept, indented, no fences
  EXPECT_TRUE(Has(a, "2. Enable the compile cache")) << a;
  EXPECT_FALSE(Has(a, "```")) << a;
  EXPECT_FALSE(Has(a, "Thanks for")) << a;
  EXPECT_FALSE(Has(a, "added a test")) << a;
}

TEST(AnswerPassageTest, ALongListIsCutAtAnItemBoundaryFromItsFirstStep) {
  std::string body = "原因：依赖版本不匹配。\n";
  for (int i = 1; i <= 40; ++i)
    body += std::to_string(i) + ". 执行第 " + std::to_string(i) + " 步检查，确认配置项 `OPTION_" +
            std::to_string(i) + "` 已设置为推荐值。\n";
  std::string a = ExtractAnswerPassage(body, 600);
  EXPECT_LE(a.size(), 600u);
  EXPECT_TRUE(Has(a, "1. 执行第 1 步")) << a;
  EXPECT_FALSE(Has(a, "40. 执行")) << a;
  // Whole items only: the passage ends with the end of an item.
  EXPECT_EQ(a.substr(a.size() - std::string("推荐值。").size()), "推荐值。") << a;
}

TEST(AnswerPassageTest, QuotesTemplatesAndReferencesAreNotTheAnswer) {
  const std::string body =
      "> 请问是版本不配套导致的吗？\n"
      "\n"
      "是的。将 `mindspore` 升级到 2.6.0 即可，旧版本的 `ops.Custom` 不支持这个 dtype。\n"
      "\n"
      "fix #123\n";
  std::string a = ExtractAnswerPassage(body);
  EXPECT_TRUE(Has(a, "升级到 2.6.0")) << a;
  EXPECT_FALSE(Has(a, "请问")) << a;
  EXPECT_FALSE(Has(a, "#123")) << a;
}

TEST(AnswerPassageTest, TextWithoutCuesGivesItsFirstParagraph) {
  EXPECT_EQ(ExtractAnswerPassage("已在 r2.5 分支合入。\n\n后续版本会带上。"),
            "已在 r2.5 分支合入。");
  EXPECT_EQ(ExtractAnswerPassage(""), "");
  EXPECT_EQ(ExtractAnswerPassage("```\nonly code\n```\n"), "    only code");
}

TEST(AnswerPassageTest, CodeKeepsItsIndentBeyondTheBlocksLeast) {
  // DeepSpeed's PR 8177: a Python loop read flat was another program.
  const std::string a = ExtractAnswerPassage(
      "Continue the search on a `None` result instead:\n\n```python\n"
      "    for v in d.values():\n        if isinstance(v, dict):\n"
      "            r = get_val_by_key(v, k)\n\n            if r:  \n"
      "                return r\n```\n");
  EXPECT_TRUE(Has(a,
                  "\n    for v in d.values():\n        if isinstance(v, dict):\n"
                  "            r = get_val_by_key(v, k)\n            if r:\n"
                  "                return r"))
      << a;
}

TEST(AnswerPassageTest, AWrappedListItemHangsUnderItsMarker) {
  const std::string a = ExtractAnswerPassage(
      "- Add a helper that checks process health every\n10 seconds while waiting\n"
      "- Add a timeout to join()\n");
  EXPECT_EQ(a,
            "- Add a helper that checks process health every\n  10 seconds while waiting\n"
            "- Add a timeout to join()");
}

TEST(AnswerPassageTest, APrDescriptionGivesCauseAndChangeNotTheTemplate) {
  const std::string body =
      "**What type of PR is this?**\n"
      "/kind bug\n"
      "\n"
      "**What this PR does / why we need it:**\n"
      "The dataset iterator reset the shard index on every epoch, because `reset()` rebuilt the "
      "sampler "
      "without the saved offset. This change keeps the offset and rebuilds only the buffer.\n"
      "\n"
      "**Which issue(s) this PR fixes:**\n"
      "Fixes #88\n"
      "\n"
      "**Special notes for your reviewer:**\n"
      "- [ ] docs updated\n";
  std::string a = ExtractPrAnswer("keep shard offset", body);
  EXPECT_TRUE(Has(a, "because `reset()` rebuilt the sampler")) << a;
  EXPECT_TRUE(Has(a, "This change keeps the offset")) << a;
  EXPECT_FALSE(Has(a, "/kind")) << a;
  EXPECT_FALSE(Has(a, "Fixes #88")) << a;
  EXPECT_FALSE(Has(a, "docs updated")) << a;
}

}  // namespace
}  // namespace fixgraph::query
