// Markdown/JSONL parsing of KG doc nodes and product normalisation.
#include "../../query/docs_node.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fixgraph::query::docs {
namespace {

std::vector<std::string> V(std::initializer_list<const char*> l) {
  return std::vector<std::string>(l.begin(), l.end());
}

TEST(DocsProducts, NormalisesNamesToStableTags) {
  EXPECT_EQ(ProductTags("Atlas A2 训练系列产品"), V({"A2"}));
  EXPECT_EQ(ProductTags("<term> Atlas A3 训练系列产品 </term>"), V({"A3"}));
  EXPECT_EQ(ProductTags("Atlas A2 训练系列产品/Atlas A2 推理系列产品"), V({"A2"}));
  EXPECT_EQ(ProductTags("Atlas 训练系列产品"), V({"training"}));
  EXPECT_EQ(ProductTags("Atlas 推理系列产品"), V({"inference"}));
  EXPECT_EQ(ProductTags("Atlas 推理系列加速卡产品"), V({"inference"}));
  EXPECT_EQ(ProductTags("Atlas 800I A2 推理产品"), V({"800I A2", "A2"}));
  // An edge product: a model tag, not the A2 training generation.
  EXPECT_EQ(ProductTags("Atlas 200I/500 A2 推理产品"), V({"200I/500 A2", "inference"}));
  EXPECT_EQ(ProductTags("Ascend 950PR/Ascend 950DT"), V({"950"}));
  EXPECT_EQ(ProductTags("Atlas A2 training series (Atlas 800T A2, Atlas 900 A2 PoD)"),
            V({"800T A2", "900 A2", "A2"}));
  EXPECT_EQ(ProductTags("Atlas 300I DUO"), V({"300I DUO", "inference"}));
  EXPECT_EQ(ProductTags("Atlas inference series"), V({"inference"}));
  EXPECT_EQ(ProductTags("910B"), V({"A2"}));
  EXPECT_EQ(ProductTags("Ascend 910_93"), V({"A3"}));
  EXPECT_EQ(ProductTags("FA3 currently requires Ascend Atlas A2 and A3 inference NPUs."),
            V({"A2", "A3"}));
  EXPECT_TRUE(ProductTags("NVIDIA A100").empty());
  EXPECT_TRUE(ProductTags("training loop").empty());
  EXPECT_TRUE(ProductTags("A20 is not A2").size() == 1);  // only the token "A2"
}

TEST(DocsProducts, EveryModelTagComesWithAFamilyTag) {
  for (const char* name :
       {"Atlas A2 训练系列产品", "Atlas 800I A2 推理产品", "Atlas 200I/500 A2 推理产品",
        "Atlas 300I DUO", "Ascend 950PR/Ascend 950DT", "Atlas 训练系列产品", "Ascend 910_93",
        "Atlas A2 training series (Atlas 800T A2, Atlas 900 A2 PoD)"}) {
    std::vector<std::string> tags = ProductTags(name);
    ASSERT_FALSE(tags.empty()) << name;
    EXPECT_TRUE(std::any_of(tags.begin(), tags.end(), IsProductFamily)) << name;
  }
  for (std::string_view family : kProductFamilies) EXPECT_TRUE(IsProductFamily(family));
  EXPECT_FALSE(IsProductFamily("300I DUO"));
  EXPECT_FALSE(IsProductFamily("a2"));
}

TEST(DocsMarkdown, EnvVarPage) {
  std::string md =
      "\xEF\xBB\xBF# TASK\\_QUEUE\\_ENABLE\r\n\r\n## 功能描述\r\n\r\n配置下发队列。\r\n\r\n"
      "```bash\r\n# not a heading\r\nexport TASK_QUEUE_ENABLE=2\r\n```\r\n\r\n"
      "## 配置示例<a id=\"配置示例\"></a>\r\n\r\n见[图1](#x)与![](a.png)。\r\n\r\n"
      "## 支持的型号\r\n\r\n- <term>Atlas 训练系列产品</term>\r\n- <term>Atlas A2 "
      "训练系列产品</term>\r\n";
  auto nodes = ParseMarkdown("kg/op/TASK_QUEUE_ENABLE.md", md);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].id, "kg/op/TASK_QUEUE_ENABLE.md#功能描述");
  EXPECT_EQ(nodes[0].title, "TASK_QUEUE_ENABLE");
  EXPECT_EQ(nodes[0].section, "功能描述");
  EXPECT_NE(nodes[0].text.find("export TASK_QUEUE_ENABLE=2"), std::string::npos);
  EXPECT_NE(nodes[0].text.find("# not a heading"), std::string::npos);
  EXPECT_EQ(nodes[1].id, "kg/op/TASK_QUEUE_ENABLE.md#配置示例");
  EXPECT_EQ(nodes[1].text, "见图1与。");
  EXPECT_EQ(nodes[0].products, V({"A2", "training"}));
  EXPECT_EQ(nodes[1].product_names, V({"Atlas 训练系列产品", "Atlas A2 训练系列产品"}));
}

TEST(DocsMarkdown, OpPageWithSupportTableAndAnchoredTitle) {
  std::string md =
      "# torch\\_npu.npu\\_top\\_k<a name=\"ZH-CN_TOPIC_1\"></a>\n\n## 产品支持情况\n\n"
      "| 产品 | 是否支持 |\n| :--- | :---: |\n"
      "| <term>Atlas A3 训练系列产品/Atlas A3 推理系列产品</term> | √ |\n"
      "| <term>Atlas 推理系列产品</term> | x |\n\n"
      "## 功能说明\n\n计算topK。\n\n### 细节\n\n更多。\n\n## 功能说明\n\n重复的标题。\n";
  auto nodes = ParseMarkdown("op/top_k.md", md);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].title, "torch_npu.npu_top_k");
  EXPECT_EQ(nodes[0].products, V({"A3"}));                       // the x row is left out
  EXPECT_NE(nodes[0].text.find("### 细节"), std::string::npos);  // H3 stays in its H2
  EXPECT_EQ(nodes[1].id, "op/top_k.md#功能说明-2");
}

TEST(DocsMarkdown, FrontMatterNoH1AndVllmStyle) {
  std::string md =
      "---\nhide: [navigation]\n---\n\nIntro text.\n\n## 5 Online Service Deployment {: #5-online "
      "}\n\n"
      "Run it.\n\n### Supported Devices\n\n- Atlas A2 training series (Atlas 800T A2)\n- Atlas "
      "300I DUO\n";
  auto nodes = ParseMarkdown("vllm/index.md", md);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].id, "vllm/index.md");
  EXPECT_EQ(nodes[0].title, "index");
  EXPECT_EQ(nodes[1].section, "Online Service Deployment");
  EXPECT_EQ(nodes[1].id, "vllm/index.md#online-service-deployment");
  EXPECT_EQ(nodes[1].products, V({"300I DUO", "800T A2", "A2", "inference"}));
}

TEST(DocsMarkdown, SlugKeepsCjkAndDropsPunctuation) {
  EXPECT_EQ(Slug("Hello, World (beta)"), "hello-world-beta");
  EXPECT_EQ(Slug("使用 约束"), "使用-约束");
  EXPECT_EQ(Slug("npu_fusion.attention"), "npu_fusion.attention");
}

TEST(DocsJsonl, ParsesNodesAndNormalisesProducts) {
  auto nodes = ParseJsonl("kg.jsonl",
                          "{\"id\":\"a\",\"title\":\"T\",\"text\":\"x\",\"products\":[\"Atlas A2 "
                          "训练系列产品\",\"inference\",\"910B\"]}\n\n"
                          "{\"id\":\"b\",\"title\":\"U\",\"text\":\"y\",\"section\":\"S\",\"url\":"
                          "\"https://e.org\"}\n");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0].products, V({"A2", "inference"}));
  EXPECT_EQ((*nodes)[1].section, "S");
  EXPECT_EQ((*nodes)[1].url, "https://e.org");
}

TEST(DocsJsonl, ErrorsNameFileAndLine) {
  auto bad = ParseJsonl("kg.jsonl", "{\"id\":\"a\",\"title\":\"T\",\"text\":\"x\"}\n\n{\"id\": 3");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("kg.jsonl:3: ", 0), 0u) << bad.status().message();
  auto missing = ParseJsonl("f.jsonl", "{\"id\":\"a\",\"title\":\"T\"}\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("f.jsonl:1: missing \"text\""), std::string::npos);
  auto dup = ParseJsonl("f.jsonl",
                        "{\"id\":\"a\",\"title\":\"T\",\"text\":\"x\"}\n{\"id\":\"a\",\"title\":"
                        "\"T\",\"text\":\"y\"}\n");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("f.jsonl:2: duplicate id"), std::string::npos);
  auto type =
      ParseJsonl("f.jsonl", "{\"id\":\"a\",\"title\":\"T\",\"text\":\"x\",\"products\":\"A2\"}");
  ASSERT_FALSE(type.ok());
  EXPECT_NE(type.status().message().find("products"), std::string::npos);
}

TEST(DocsText, Utf8TruncateNeverSplitsACharacter) {
  EXPECT_EQ(Utf8Truncate("abc", 5), "abc");
  EXPECT_EQ(Utf8Truncate("显存不足", 4), "显...");
}

}  // namespace
}  // namespace fixgraph::query::docs
