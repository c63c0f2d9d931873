// The real documentation corpus (../shared/data/kg-corpus): import it and
// find the right page in the top 3 for environment-variable and operator
// questions.
#include "testutil/testutil.h"

#include "fixgraph/query/docs.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace fixgraph::query {
namespace {

class DocsCorpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    corpus_ = fixgraph::testing::SharedDir() + "/data/kg-corpus";
    if (!std::filesystem::exists(corpus_ + "/ascend-pytorch")) return;
    dir_ = new fixgraph::testing::TempDir();
    Status s = ImportDocs((*dir_) / "db", {corpus_}, &stats_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    auto src = OpenLocalDocSource((*dir_) / "db");
    ASSERT_TRUE(src.ok()) << src.status().ToString();
    source_ = src->release();
  }
  static void TearDownTestSuite() {
    delete source_;
    delete dir_;
    source_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (source_ == nullptr) GTEST_SKIP() << "shared corpus not found at " << corpus_;
  }

  static std::string corpus_;
  static fixgraph::testing::TempDir* dir_;
  static DocSource* source_;
  static DocImportStats stats_;
};

std::string DocsCorpus::corpus_;
fixgraph::testing::TempDir* DocsCorpus::dir_ = nullptr;
DocSource* DocsCorpus::source_ = nullptr;
DocImportStats DocsCorpus::stats_;

struct Case {
  const char* question;
  const char* page;  // path under kg-corpus/
};

void ExpectTop3(DocSource* src, const Case& c, bool want_hit) {
  auto hits = src->Search(c.question, 3);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  std::string want = std::string("kg-corpus/") + c.page;
  std::string got;
  bool found = false;
  for (const DocHit& h : *hits) {
    got += "\n  " + h.id + " " + std::to_string(h.score);
    if (h.id == want || h.id.rfind(want + "#", 0) == 0) found = true;
  }
  EXPECT_TRUE(found) << c.question << " -> want " << want << ", got:" << got;
  if (want_hit && !hits->empty()) {
    EXPECT_GT((*hits)[0].score, kDocNoiseScore) << c.question;
  }
}

TEST_F(DocsCorpus, ImportsEveryPage) {
  EXPECT_GT(stats_.files, 700u);
  EXPECT_GT(stats_.nodes, 3000u);
}

TEST_F(DocsCorpus, EnvironmentVariableQuestions) {
  const Case cases[] = {
      {"怎么让算子同步执行，报错时打印正确的调用栈",
       "ascend-pytorch/api/environment_variable/op_execution/ASCEND_LAUNCH_BLOCKING.md"},
      {"TASK_QUEUE_ENABLE 配置为2有什么效果",
       "ascend-pytorch/api/environment_variable/op_execution/TASK_QUEUE_ENABLE.md"},
      {"开启虚拟内存 expandable_segments 减少内存碎片",
       "ascend-pytorch/api/environment_variable/memory_management/PYTORCH_NPU_ALLOC_CONF.md"},
      {"点对点通信 isend irecv 缓冲区大小",
       "ascend-pytorch/api/environment_variable/collective_communication/P2P_HCCL_BUFFSIZE.md"},
      {"自动把torch.cuda接口替换成torch.npu接口的环境变量",
       "ascend-pytorch/api/environment_variable/device_management/TORCH_TRANSFER_TO_NPU.md"},
      {"OOM时保存内存快照",
       "ascend-pytorch/api/environment_variable/memory_management/OOM_SNAPSHOT_ENABLE.md"},
      {"Inf/NaN 饱和模式 溢出",
       "ascend-pytorch/api/environment_variable/op_execution/INF_NAN_MODE_ENABLE.md"},
      {"HCCL 等待event完成的超时时间",
       "ascend-pytorch/api/environment_variable/collective_communication/HCCL_EVENT_TIMEOUT.md"},
  };
  for (const Case& c : cases) ExpectTop3(source_, c, true);
}

TEST_F(DocsCorpus, OperatorQuestions) {
  const Case cases[] = {
      {"npu_top_k_top_p_sample topK topP 采样",
       "op-plugin/custom_APIs/torch_npu/torch_npu-npu_top_k_top_p_sample.md"},
      {"torch_npu.npu_moe_distribute_dispatch_v2 参数说明",
       "op-plugin/custom_APIs/torch_npu/torch_npu-npu_moe_distribute_dispatch_v2.md"},
      {"npu_sparse_flash_attention 约束说明",
       "op-plugin/custom_APIs/torch_npu/torch_npu-npu_sparse_flash_attention.md"},
  };
  for (const Case& c : cases) ExpectTop3(source_, c, true);
}

TEST_F(DocsCorpus, EnglishFeatureQuestions) {
  const Case cases[] = {
      {"offload model weights and discard the KV cache from NPU memory during RL training",
       "vllm-ascend/user_guide/feature_guide/sleep_mode.md"},
  };
  for (const Case& c : cases) ExpectTop3(source_, c, true);
}

TEST_F(DocsCorpus, UnrelatedQuestionsAreNoise) {
  for (const char* q : {"how do I renew a kubernetes ingress TLS certificate", "如何烤制全麦面包",
                        "React useEffect cleanup on unmount"}) {
    auto hits = source_->Search(q, 3);
    ASSERT_TRUE(hits.ok());
    for (const DocHit& h : *hits) EXPECT_LT(h.score, kDocNoiseScore) << q << " -> " << h.id;
  }
}

TEST_F(DocsCorpus, ProductTagsComeFromThePages) {
  auto hits = source_->Search("TASK_QUEUE_ENABLE", 1);
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->empty());
  const auto& p = (*hits)[0].products;
  for (const char* tag : {"A2", "A3", "training", "inference", "950", "800I A2"})
    EXPECT_NE(std::find(p.begin(), p.end(), tag), p.end()) << tag;
}

}  // namespace
}  // namespace fixgraph::query
