// The local KG doc index: import, replacement, atomicity, and the score
// calibration on the KG scale (> 0.83 hit, < 0.70 noise).
#include "testutil/testutil.h"

#include "fixgraph/query/docs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph::query {
namespace {

using fixgraph::testing::SourceDir;
using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;

std::vector<DocHit> Search(const std::string& db, const std::string& q, size_t limit = 5) {
  auto src = OpenLocalDocSource(db);
  EXPECT_TRUE(src.ok()) << src.status().ToString();
  if (!src.ok()) return {};
  auto hits = (*src)->Search(q, limit);
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  return hits.ok() ? *hits : std::vector<DocHit>{};
}

void WriteTree(const TempDir& dir) {
  WriteFile(dir / "tree/env/TASK_QUEUE_ENABLE.md",
            "# TASK\\_QUEUE\\_ENABLE\n\n## "
            "功能描述\n\n通过此环境变量配置task_queue算子下发队列是否开启及优化等级。"
            "配置为2时开启Level 2优化，将workspace相关任务迁移至二级流水。\n\n"
            "## 配置示例\n\n```bash\nexport TASK_QUEUE_ENABLE=2\n```\n\n"
            "## 支持的型号\n\n- <term>Atlas A2 训练系列产品</term>\n");
  WriteFile(
      dir / "tree/env/ASCEND_LAUNCH_BLOCKING.md",
      "# ASCEND\\_LAUNCH\\_BLOCKING\n\n## "
      "功能描述\n\n控制算子执行时是否启用同步模式，设置为1时打印正确的调用栈。"
      "此时TASK_QUEUE_ENABLE不生效。\n\n## 支持的型号\n\n- <term>Atlas 训练系列产品</term>\n");
  WriteFile(dir / "tree/guide/install.md",
            "# Installing the driver\n\n## Steps\n\nDownload the driver package, run the installer "
            "as root and reboot the server.\n");
}

TEST(DocsLocal, ImportAndFindTheRightSection) {
  TempDir dir;
  WriteTree(dir);
  DocImportStats st;
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "tree"}, &st).ok());
  EXPECT_EQ(st.files, 3u);
  EXPECT_EQ(st.nodes, 4u);  // product sections are not nodes
  // Beside the curated set, so term statistics are those of a real corpus.
  ASSERT_TRUE(ImportDocs(dir / "db", {SourceDir() + "/data/kg"}, nullptr).ok());
  auto hits = Search(dir / "db", "TASK_QUEUE_ENABLE 配置为2 有什么作用");
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].id, "tree/env/TASK_QUEUE_ENABLE.md#功能描述");
  EXPECT_EQ(hits[0].title, "TASK_QUEUE_ENABLE > 功能描述");
  EXPECT_EQ(hits[0].source, "local");
  EXPECT_EQ(hits[0].products, std::vector<std::string>{"A2"});
  EXPECT_GT(hits[0].score, kDocHitScore);
  EXPECT_NE(hits[0].snippet.find("Level 2"), std::string::npos) << hits[0].snippet;
  for (size_t i = 1; i < hits.size(); ++i) EXPECT_GE(hits[i - 1].score, hits[i].score);
}

// A server's workers share one source: searches from many threads at once
// (each on a handle of its own) answer exactly as one at a time, and the
// debug lines they write stay whole.
TEST(DocsLocal, ConcurrentSearchesAnswerAsOneAtATime) {
  TempDir dir;
  WriteTree(dir);
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "tree"}, nullptr).ok());
  ASSERT_TRUE(ImportDocs(dir / "db", {SourceDir() + "/data/kg"}, nullptr).ok());
  const std::vector<std::string> questions = {"TASK_QUEUE_ENABLE 配置为2 有什么作用",
                                              "同步模式 打印调用栈", "how do I install the driver",
                                              "Atlas 训练系列产品 支持吗"};
  auto answer = [](const std::vector<DocHit>& hits) {
    std::string out;
    for (const DocHit& h : hits) out += h.id + " " + std::to_string(h.score) + "\n";
    return out;
  };
  std::ostringstream debug;
  auto src = OpenLocalDocSource(dir / "db", LocalDocOptions{"", &debug});
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  std::vector<std::string> expected;
  for (const std::string& q : questions) {
    auto hits = (*src)->Search(q, 5);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    ASSERT_FALSE(hits->empty()) << q;
    expected.push_back(answer(*hits));
  }
  debug.str("");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const size_t q = static_cast<size_t>(t + i) % questions.size();
        auto hits = (*src)->Search(questions[q], 5);
        if (!hits.ok() || answer(*hits) != expected[q]) ++wrong;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  std::istringstream lines(debug.str());
  size_t n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    const std::string word = line.substr(0, line.find(' '));
    EXPECT_TRUE(word == "group" || word == "alt" || word == "named" || word == "scope" ||
                word == "cand")
        << line;
  }
  EXPECT_GT(n, 160u);
}

TEST(DocsLocal, ScoresAreCalibrated) {
  TempDir dir;
  WriteTree(dir);
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "tree", SourceDir() + "/data/kg"}, nullptr).ok());
  // Clearly matching: the node naming the variable in its title.
  auto strong = Search(dir / "db", "ASCEND_LAUNCH_BLOCKING");
  ASSERT_FALSE(strong.empty());
  EXPECT_EQ(strong[0].id.rfind("tree/env/ASCEND_LAUNCH_BLOCKING.md", 0) == 0 ||
                strong[0].id == "fixgraph-kg/torch-npu/ascend-launch-blocking",
            true)
      << strong[0].id;
  EXPECT_GT(strong[0].score, kDocHitScore);
  // Unrelated questions: nothing, or only noise.
  for (const char* q :
       {"how do I renew a kubernetes ingress certificate", "React useEffect cleanup function",
        "如何烤制全麦面包", "sourdough starter feeding schedule"}) {
    for (const DocHit& h : Search(dir / "db", q))
      EXPECT_LT(h.score, kDocNoiseScore) << q << " -> " << h.id << " " << h.score;
  }
  // A word most nodes hold is no evidence for any of them.
  auto common = Search(dir / "db", "NPU");
  EXPECT_FALSE(common.empty());
  for (const DocHit& h : common) EXPECT_LT(h.score, kDocNoiseScore) << h.id << " " << h.score;
  // A lone letter names nothing, even when a node holds it ("4 x 2^n").
  EXPECT_TRUE(Search(dir / "db", "x").empty());
  for (const DocHit& h : Search(dir / "db", "a b x"))
    EXPECT_LT(h.score, kDocNoiseScore) << h.id << " " << h.score;
  // A name the corpus does not know pulls every node down.
  for (const DocHit& h : Search(dir / "db", "TASK_QUEUE_ENABLE QWERTY_UNKNOWN_FLAG ZXCV_OTHER"))
    EXPECT_LT(h.score, kDocHitScore) << h.id << " " << h.score;
}

// The rank key weighs BM25, page coverage and length beside the score, so a
// node ranked second may cover more of the question than the first; its
// reported score is then held to the first's. A reader takes the first hit as
// the surest, and merges by score (a remote KG source beside the local one,
// issue hits in `ask`) keep the ranker's order. Questions in the users' voice
// over the curated nodes, where half of such lists rose before the cap.
TEST(DocsLocal, ScoresNeverRiseDownTheList) {
  TempDir dir;
  ASSERT_TRUE(ImportDocs(dir / "db", {SourceDir() + "/data/kg"}, nullptr).ok());
  for (const char* q : {"显存不够报 OOM 的时候想自动把当时的内存使用情况存下来分析",
                        "I want HCCL wait() to block until the collective really finishes, which "
                        "setting controls that",
                        "error output is flooded with CANN internal call stacks, can I get a "
                        "shorter error message?",
                        "how many streams does the stream pool keep per device and can I change it",
                        "多机训练卡住后想知道是哪个 rank 没跟上，有没有分析通信超时的开关",
                        "buffer size for point to point send/recv between ranks"}) {
    auto hits = Search(dir / "db", q, 10);
    ASSERT_GE(hits.size(), 2u) << q;
    for (size_t i = 0; i < hits.size(); ++i) {
      EXPECT_STREQ(hits[i].band.c_str(), DocBand(hits[i].score)) << q << " #" << i;
      if (i > 0) {
        EXPECT_LE(hits[i].score, hits[i - 1].score)
            << q << " #" << i << " " << hits[i].id << " under " << hits[i - 1].id;
      }
    }
  }
}

struct SeedCase {
  const char* question;
  const char* expected_id;
};

TEST(DocsLocal, CuratedNodesAnswerTheSeedTopics) {
  TempDir dir;
  DocImportStats st;
  ASSERT_TRUE(ImportDocs(dir / "db", {SourceDir() + "/data/kg"}, &st).ok());
  EXPECT_GE(st.nodes, 25u);
  const SeedCase cases[] = {
      {"纯NPU环境残留 torch.cuda 调用，transfer_to_npu 会替换吗",
       "fixgraph-kg/torch-npu/transfer-to-npu"},
      {"h264_ascend 设置 -max_bit_rate 30000 后 4K 输出码率仍然超限",
       "fixgraph-kg/dvpp/venc-max-bit-rate"},
      {"h264_ascend -rc_mode 0 CBR, mediainfo still shows VBR", "fixgraph-kg/dvpp/venc-rc-mode"},
      {"ASCEND_CUSTOM_OPP_PATH custom operator package not found",
       "fixgraph-kg/cann/ascend-custom-opp-path"},
      {"aclrtMemsetAsync 清显存很慢 16ms", "fixgraph-kg/cann/acl-memset-vs-memcpy-async"},
      {"aclnnScatterAdd index 含负数 崩溃", "fixgraph-kg/aclnn/scatter-index"},
      {"aclnnGroupedMatmulV3 shape [1,1] misjudged as transposed",
       "fixgraph-kg/aclnn/grouped-matmul-transpose"},
      {"msMemScope 是什么工具", "fixgraph-kg/mindstudio/msmemscope"},
      {"HCCL_SOCKET_IFNAME 多网卡", "fixgraph-kg/hccl/socket-ifname"},
      {"HCCL_CONNECT_TIMEOUT 建链超时", "fixgraph-kg/hccl/timeouts"},
      {"PYTORCH_NPU_ALLOC_CONF expandable_segments", "fixgraph-kg/torch-npu/alloc-conf"},
  };
  for (const SeedCase& c : cases) {
    auto hits = Search(dir / "db", c.question, 3);
    ASSERT_FALSE(hits.empty()) << c.question;
    EXPECT_EQ(hits[0].id, c.expected_id) << c.question;
    EXPECT_GT(hits[0].score, kDocHitScore) << c.question << " -> " << hits[0].id;
  }
}

TEST(DocsLocal, ReimportReplacesTheTree) {
  TempDir dir;
  WriteTree(dir);
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "tree"}, nullptr).ok());
  DocImportStats st;
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "tree"}, &st).ok());
  EXPECT_EQ(st.nodes, 4u);
  EXPECT_EQ(st.removed, 4u);
  auto hits = Search(dir / "db", "driver installer reboot", 10);
  ASSERT_EQ(hits.size(), 1u);
  // A page removed from the tree disappears on re-import.
  std::filesystem::remove(dir / "tree/guide/install.md");
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "tree"}, &st).ok());
  EXPECT_EQ(st.nodes, 3u);
  EXPECT_TRUE(Search(dir / "db", "driver installer reboot", 10).empty());
  // The same node edited: one copy, new text.
  WriteFile(dir / "tree/env/ASCEND_LAUNCH_BLOCKING.md",
            "# ASCEND\\_LAUNCH\\_BLOCKING\n\n## 功能描述\n\nsynchronous mode zebra\n");
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "tree"}, &st).ok());
  auto z = Search(dir / "db", "zebra", 10);
  ASSERT_EQ(z.size(), 1u);
  EXPECT_EQ(z[0].id, "tree/env/ASCEND_LAUNCH_BLOCKING.md#功能描述");
}

TEST(DocsLocal, MalformedJsonlWritesNothing) {
  TempDir dir;
  WriteTree(dir);
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "tree"}, nullptr).ok());
  WriteFile(
      dir / "bad/nodes.jsonl",
      "{\"id\":\"n1\",\"title\":\"zebra crossing\",\"text\":\"zebra\"}\n{\"id\":\"n2\",\"title\":");
  // The tree changes too, but the import fails as a whole.
  std::filesystem::remove(dir / "tree/guide/install.md");
  Status s = ImportDocs(dir / "db", {dir / "tree", dir / "bad"}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("nodes.jsonl:2: "), std::string::npos) << s.message();
  EXPECT_TRUE(Search(dir / "db", "zebra").empty());
  EXPECT_EQ(Search(dir / "db", "driver installer reboot").size(), 1u);
}

TEST(DocsLocal, BadPathsAndEmptyQueries) {
  TempDir dir;
  EXPECT_TRUE(ImportDocs(dir / "db", {dir / "missing"}, nullptr).IsNotFound());
  WriteFile(dir / "x.txt", "hello");
  EXPECT_TRUE(ImportDocs(dir / "db", {dir / "x.txt"}, nullptr).IsInvalidArgument());
  EXPECT_TRUE(OpenLocalDocSource(dir / "db").status().IsNotFound());
  WriteTree(dir);
  ASSERT_TRUE(ImportDocs(dir / "db", {dir / "tree"}, nullptr).ok());
  EXPECT_TRUE(Search(dir / "db", "").empty());
  EXPECT_TRUE(Search(dir / "db", "   the of and  ").empty());
  EXPECT_TRUE(Search(dir / "db", "TASK_QUEUE_ENABLE", 0).empty());
}

}  // namespace
}  // namespace fixgraph::query
