// fixgraph_gen_dump: writes a synthetic recorded dump for fixgraph benchmarks.
//
// The output follows the offline dump layout (docs/design.md section 3) and the field
// shapes each platform's API returns (reference/api.md section 2):
//
//   OUT/<platform>/<owner>/repo-<i>/repo.json
//                                   issues.json                    every issue, newest first
//                                   pulls.json                     every PR, newest first
//                                   issues/<number>/comments.json  every issue (some are [])
//                                   pulls/<number>/comments.json   some PRs
//                                   pulls/<number>/commits.json    merged PRs (1-3 commits)
//                                   pulls/<number>/files.json      merged PRs (1-4 files)
//
// The content is a workload for import, linking and search: Chinese and English issues
// (about half each) about Ascend/MindSpore problems (aclnn APIs, 910B/310P, CANN
// versions, error codes, stack traces), about 60% of closed issues fixed by a merged PR
// with graded evidence (closing keyword, bare reference, issue URL, branch name, close
// time equal to the merge time, comments pointing at the PR, restated titles), and noise
// (PRs referencing nothing, numbers inside code blocks, other repositories' URLs, `!N`
// PR references, closed-unmerged PRs claiming a fix, backports, late and batch closes,
// fixes merged before their issue was filed).
//
// Usage:
//   fixgraph_gen_dump --out DIR [--repos N=1] [--issues M=1000] [--prs K=M]
//                     [--comments C=3] [--seed S=1] [--platform gitcode|gitee|github]
//                     [--owner NAME=synth] [--truth FILE]
//
// Repositories are repo-1 .. repo-N. C is the average number of comments per issue
// (geometric, so many issues have none). An existing DIR/<platform>/<owner>/repo-<i>
// that looks like an earlier dump is replaced. --truth writes the answer key for linker
// benchmarks (per issue: outcome, fixing PR, how it closed; per PR: kind, issues fixed)
// as JSON lines, outside the dump. A one-line summary goes to stderr.
//
// Determinism: the output depends only on the options. Every decision about an item
// comes from a random stream keyed by (seed, repository, purpose, item index): cheap
// SplitMix64 streams for plans that other items must recompute (which PR fixes which
// issue, when a PR merges), std::mt19937_64 streams for text. Distributions are written
// here with integer arithmetic, because the standard ones are implementation-defined.
//
// Memory: issues.json and pulls.json are streamed one element at a time, and an issue's
// fixing PR is recomputed rather than stored, so RSS stays at a few MB for any size.

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;  // keeps the field order the APIs use
using std::int64_t;
using std::size_t;
using std::uint32_t;
using std::uint64_t;
using Pool = std::span<const std::string_view>;

// ---------------------------------------------------------------------------------------
// Constants

constexpr int64_t kMinute = 60;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;
constexpr int64_t kChinaUtcOffset = 8 * kHour;

// Items are spread over two years that end at the snapshot, the moment the dump was
// "recorded" (2026-04-01T00:00:00+08:00). Anything due later has not happened yet.
constexpr int64_t kTimelineStart =
    static_cast<int64_t>(
        std::chrono::sys_days{std::chrono::year{2024} / 4 / 1}.time_since_epoch().count()) *
        kDay -
    kChinaUtcOffset;
constexpr int64_t kTimelineSpan = 730 * kDay;
constexpr int64_t kSnapshot = kTimelineStart + kTimelineSpan;

// Limits that keep ids unique and creation times distinct.
constexpr uint64_t kMaxRepos = 500;
constexpr uint64_t kMaxItemsPerRepo = 5'000'000;
constexpr double kMaxAverageComments = 50.0;

// Ids: one block of kMaxItemsPerRepo per repository; comment id = item id * 64 + k.
constexpr int64_t kRepoIdBase = 9'000'000;
constexpr int64_t kIssueIdBase = 1'000'000'000;
constexpr int64_t kPrIdBase = 5'000'000'000;
constexpr int64_t kIdsPerRepo = static_cast<int64_t>(kMaxItemsPerRepo);
constexpr int64_t kCommentIdsPerItem = 64;
constexpr uint32_t kMaxComments = 60;  // < kCommentIdsPerItem
// Commit SHA keys per PR: 0 the merge commit, 1-2 earlier commits, 3 the head.
constexpr uint64_t kCommitKeysPerPr = 4;
constexpr uint64_t kMergeCommitKey = 0;
constexpr uint64_t kHeadCommitKey = 3;

// Text lengths in code points. Text grows a whole piece at a time until it reaches a
// target, and targets stay kLongestPiece below the maximum.
constexpr size_t kTitleMin = 20;
constexpr size_t kTitleMax = 80;
constexpr size_t kBodyMin = 200;
constexpr size_t kBodyMax = 2000;
constexpr size_t kCommentMin = 50;
constexpr size_t kCommentMax = 600;
constexpr size_t kLongestPiece = 400;
constexpr size_t kMaxTraceLines = 24;

// Users: kHumanUsers people (the first kMaintainers of them maintain every repo), then a bot.
constexpr uint32_t kHumanUsers = 240;
constexpr uint32_t kMaintainers = 16;
constexpr uint32_t kBotUser = kHumanUsers;

// Gitee issue numbers ("I4CD5P"): base 36, increasing with the index, unique per repo.
constexpr uint64_t kGiteeNumberBase = 4ULL * 36 * 36 * 36 * 36;
constexpr uint64_t kGiteeRepoShift = 36ULL * 36 * 7;
constexpr uint64_t kGiteeStride = 37;

// Random stream purposes.
enum StreamTag : uint64_t {
  kTagSlotJitter = 1,
  kTagIssueFate,
  kTagIssuePlan,
  kTagIssueTitle,
  kTagIssueText,
  kTagPrTiming,
  kTagPrPlan,
  kTagPrText,
  kTagCommitSha,
  kTagFileSha,
  kTagDiscussion,
  kTagUser,
};

// ---------------------------------------------------------------------------------------
// Workload shape

enum class Outcome { kOpen, kFixed, kAnswered, kDuplicate, kStale, kWontfix, kVerified };
// Percent of all issues, in Outcome order; closed ones are fixed about 47/78 = 60% of
// the time.
constexpr std::array<uint32_t, 7> kOutcomeWeights = {22, 47, 14, 5, 6, 3, 3};

// How a fixed issue closes relative to its fix's merge, in CloseMode order.
enum class CloseMode { kAtMerge, kSecondsAfter, kWeeksAfter, kFixedBeforeFiled };
constexpr std::array<uint32_t, 4> kCloseModeWeights = {72, 12, 12, 4};

struct SpanBucket {
  uint32_t weight;
  int64_t lo;
  int64_t hi;
};
// Issue filed -> fixing PR opened.
constexpr std::array<SpanBucket, 3> kFixLag = {
    {{35, 1 * kHour, 1 * kDay}, {40, 1 * kDay, 7 * kDay}, {25, 7 * kDay, 45 * kDay}}};
// PR opened -> merged or closed.
constexpr std::array<SpanBucket, 5> kPrDuration = {{{15, 10 * kMinute, 1 * kHour},
                                                    {25, 1 * kHour, 6 * kHour},
                                                    {25, 6 * kHour, 1 * kDay},
                                                    {20, 1 * kDay, 4 * kDay},
                                                    {15, 4 * kDay, 14 * kDay}}};
// Issue filed -> closed, for outcomes without a PR.
constexpr std::array<SpanBucket, 3> kCloseWithoutPr = {
    {{40, 1 * kHour, 2 * kDay}, {40, 2 * kDay, 20 * kDay}, {20, 20 * kDay, 90 * kDay}}};
constexpr int64_t kSecondsAfterMax = 5;
constexpr int64_t kWeeksAfterMin = 7 * kDay;
constexpr int64_t kWeeksAfterMax = 40 * kDay;
constexpr int64_t kFiledAfterFixMax = 30 * kMinute;

// A fix PR is at most kMaxLagSlots slots after its issue (slot = one item of the time
// line), or, when the fix came first, up to kMaxLeadPrs PRs before it.
constexpr uint64_t kMaxLagSlots = 192;
constexpr uint64_t kMaxLeadPrs = 3;

// A bot closes inactive issues in sweeps: everything idle for kStaleAfter closes at the
// next sweep, all in the same second.
constexpr int64_t kStaleAfter = 90 * kDay;
constexpr int64_t kStaleSweepPeriod = 30 * kDay;
constexpr int64_t kStaleSweepOffset = 3 * kHour + 17 * kMinute;

enum class PrState { kOpen, kClosed, kMerged };
enum class PrKind { kFix, kBackport, kFalseLead, kOther };
// States of PRs that fix nothing, in PrState order.
constexpr std::array<uint32_t, 3> kOtherPrStateWeights = {25, 20, 55};
constexpr uint32_t kBackportPercent = 10;
// A backport cherry-picks the fix that was open this long before it (when merged by then).
constexpr int64_t kBackportLagMin = 1 * kDay;
constexpr int64_t kBackportLagMax = 10 * kDay;
constexpr uint32_t kFalseLeadPercent = 40;
constexpr uint64_t kFalseLeadReach = 30;
constexpr uint64_t kDuplicateReach = 200;

enum class Evidence { kKeyword, kRef, kUrl, kKeywordUrl, kBranch, kSilent };
// In Evidence order.
constexpr std::array<uint32_t, 6> kEvidenceWeights = {35, 15, 15, 10, 10, 15};

constexpr uint32_t kChinesePercent = 50;
constexpr uint32_t kRestateTitlePercent = 25;
constexpr uint32_t kFixedByCommentPercent = 45;
constexpr uint32_t kPendingCommentPercent = 30;
constexpr uint32_t kCommitKeywordPercent = 30;
constexpr uint32_t kPrCommentsPercent = 40;
constexpr uint32_t kCodeBlockNoisePercent = 15;
constexpr uint32_t kForeignUrlNoisePercent = 10;
constexpr uint32_t kPrRefNoisePercent = 10;

// ---------------------------------------------------------------------------------------
// Vocabulary (Ascend / MindSpore)
// Data tables, laid out by hand.
// clang-format off

constexpr std::string_view kApis[] = {
    "aclnnGroupedMatmulV3", "aclnnGroupedMatmulV4", "aclnnFlashAttentionScore",
    "aclnnFlashAttentionScoreGrad", "aclnnIncreFlashAttentionV4", "aclnnPromptFlashAttentionV3",
    "aclnnFusedInferAttentionScore", "aclnnMatmul", "aclnnBatchMatMul", "aclnnQuantMatmulV4",
    "aclnnWeightQuantBatchMatmulV2", "aclnnAddRmsNorm", "aclnnRmsNorm",
    "aclnnRotaryPositionEmbedding", "aclnnApplyRotaryPosEmb", "aclnnMoeInitRouting",
    "aclnnMoeGatingTopKSoftmax", "aclnnMoeFinalizeRouting", "aclnnSwiGlu", "aclnnLayerNorm",
    "aclnnSoftmax", "aclnnCast", "aclnnIndexPutImpl", "aclnnScatterUpdate", "aclnnTopk",
    "aclnnAllGatherMatmul", "aclnnMatmulReduceScatter", "aclnnGroupNorm", "aclnnConvolution",
    "aclnnEmbedding"};
constexpr std::string_view kTorchOps[] = {
    "torch_npu.npu_fusion_attention", "torch_npu.npu_rms_norm", "torch_npu.npu_rotary_mul",
    "torch_npu.npu_grouped_matmul", "torch_npu.npu_moe_init_routing", "torch_npu.npu_swiglu",
    "torch_npu.npu_incre_flash_attention", "torch_npu.npu_quant_matmul",
    "torch.nn.functional.silu", "torch.distributed.all_reduce", "torch.Tensor.index_put_"};
constexpr std::string_view kMindSporeOps[] = {
    "mindspore.ops.FlashAttentionScore", "mindspore.mint.matmul", "mindspore.ops.MatMul",
    "mindspore.mint.nn.functional.gelu", "mindspore.ops.AllReduce", "mindspore.ops.RmsNorm",
    "mindspore.mint.softmax"};
constexpr std::string_view kHardware[] = {
    "910B", "910B3", "910B4", "Atlas 800T A2", "Atlas 800I A2", "Atlas 900 A3 SuperPoD",
    "310P", "310P3", "Atlas 300I Duo", "Atlas 300I Pro"};
constexpr std::string_view kCann[] = {"7.0.0", "8.0.RC2", "8.0.RC3", "8.0.0",
                                      "8.1.RC1", "8.2.RC1", "8.3.RC1"};
constexpr std::string_view kTorchNpu[] = {"2.1.0.post8", "2.1.0.post10", "2.3.1.post4",
                                          "2.4.0", "2.5.1", "2.6.0"};
constexpr std::string_view kMindSpore[] = {"2.3.1", "2.4.0", "2.4.10", "2.5.0", "2.6.0"};
constexpr std::string_view kErrorCodes[] = {
    "EZ9999", "EE9999", "EI9999", "EI0006", "EL0004", "EZ1001", "EE1001", "E40021", "E89999",
    "507033", "507035", "507015", "507014", "507053", "107002", "561003", "-1610252272",
    "ERR99999"};
constexpr std::string_view kErrorMessages[] = {
    "call {api} failed, detail:{code}: Inner Error!",
    "NPU out of memory. Tried to allocate {gb}.00 GiB (NPU 0; 60.96 GiB total capacity)",
    "The error from device(chipId:0, dieId:0), serial number is {n}, there is an aivec error "
    "exception",
    "HCCL function error: HcclAllReduce(...), error code is 7",
    "ACL stream synchronize failed, error code:{code}",
    "Failed to compile Op [{api}], the reason is: shape {shape} is not supported",
    "Parse dynamic kernel config fail.",
    "aicore execution is abnormal, kernel name: {api}",
    "Cannot find bin of op {api}, integral key 0/1/|{dtype}/ND/",
    "dtype {dtype} is not supported on {hw}",
    "Tiling failed, ret = 1, op type: {api}"};
constexpr std::string_view kModels[] = {
    "Qwen2.5-7B", "Qwen2.5-72B", "Qwen3-32B", "Llama-3-8B", "Llama-3.1-70B", "DeepSeek-V3",
    "DeepSeek-R1-Distill-Qwen-14B", "GLM-4-9B", "Baichuan2-13B", "InternLM2-20B",
    "Mixtral-8x7B", "ChatGLM3-6B", "Stable Diffusion XL", "Wan2.1-T2V-14B"};
constexpr std::string_view kComponents[] = {
    "MindSpeed", "MindSpeed-LLM", "MindSpeed-MM", "mindformers", "vllm-ascend", "torch_npu",
    "MindIE", "ATB", "op-plugin", "ops-transformer", "HCCL", "MindSpore Lite", "msprof",
    "Ascend Docker Runtime"};
constexpr std::string_view kFiles[] = {
    "op_host/grouped_matmul_tiling.cpp", "op_kernel/grouped_matmul.h",
    "op_host/flash_attention_score_tiling.cpp", "op_host/rms_norm_tiling.cpp",
    "torch_npu/csrc/aten/ops/op_api/FlashAttentionKernelNpuOpApi.cpp",
    "torch_npu/utils/_module.py", "mindspeed/core/transformer/moe/moe_utils.py",
    "mindformers/models/llama/llama.py", "vllm_ascend/attention/attention_v1.py",
    "vllm_ascend/worker/model_runner_v1.py",
    "mindspore/ops/kernel/ascend/pyboost/customize/matmul.cc", "src/transformer/ffn/ffn_tiling.cpp",
    "hccl/src/algorithm/all_reduce_ring.cc", "scripts/install_deps.sh", "docs/zh/quick_start.md",
    "tests/ut/test_grouped_matmul.py", "mindspeed_llm/tasks/checkpoint/convert_ckpt.py"};
constexpr std::string_view kDtypes[] = {"bfloat16", "float16", "float32", "int8", "int32"};
constexpr std::string_view kDims[] = {"1", "2", "8", "16", "32", "64", "128", "256",
                                      "1024", "2048", "4096", "7168", "8192"};
constexpr std::string_view kEnvSettings[] = {
    "ASCEND_LAUNCH_BLOCKING=1", "HCCL_CONNECT_TIMEOUT=1200", "HCCL_EXEC_TIMEOUT=1800",
    "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True", "TORCH_TRANSFER_TO_NPU=1",
    "ASCEND_GLOBAL_LOG_LEVEL=0", "ASCEND_RT_VISIBLE_DEVICES=0,1,2,3", "HCCL_BUFFSIZE=400",
    "TASK_QUEUE_ENABLE=2", "INF_NAN_MODE_ENABLE=1", "CPU_AFFINITY_CONF=1"};
constexpr std::string_view kPythons[] = {"3.8", "3.9", "3.10", "3.11"};
constexpr std::string_view kOses[] = {"openEuler 22.03 LTS", "Ubuntu 22.04", "EulerOS 2.10",
                                      "CentOS 7.6", "Kylin V10 SP2"};
constexpr std::string_view kSymptomsZh[] = {
    "报错", "精度异常", "精度不达标", "显存溢出", "性能劣化", "卡死", "进程挂起",
    "出现 coredump", "输出全为 NaN", "loss 不收敛", "编译失败", "结果与 CPU 不一致",
    "训练中断", "推理结果乱码", "显存占用持续增长"};
constexpr std::string_view kSymptomsEn[] = {
    "fails", "returns NaN", "runs out of memory", "hangs", "crashes with a coredump",
    "shows an accuracy drop", "is 3x slower than on GPU", "fails to compile",
    "produces garbled output", "leaks device memory"};
constexpr std::string_view kPyFiles[] = {
    "torch_npu/utils/_module.py", "torch/nn/modules/module.py", "torch_npu/npu/utils.py",
    "mindspore/common/api.py", "vllm_ascend/worker/model_runner_v1.py",
    "mindspeed/core/transformer/attention.py"};
constexpr std::string_view kFuncs[] = {"forward", "_call_impl", "__call__", "synchronize",
                                       "compile_and_run", "execute_model", "run_op"};
constexpr std::string_view kReleaseBranches[] = {
    "br_release_cann_8.0.RC3_20241230", "br_release_cann_8.1.RC1", "release/v0.9.1",
    "release/v2.5.1", "r2.5", "v2.1.0-6.0.0"};
constexpr std::string_view kRepoDescriptions[] = {
    "训练业务自定义算子集（CATLASS/tilelang-ascend），随 CANN 版本配套发布",
    "Ascend adapter for PyTorch: torch_npu operators, memory allocator and distributed backend",
    "大模型分布式训练加速库，支持 MoE、长序列与 FP8 训练",
    "vLLM hardware plugin for Ascend NPU (910B / Atlas A3)",
    "MindSpore 大模型套件：预训练、微调与推理的一站式工具"};
constexpr std::string_view kForeignRepos[] = {"Ascend/pytorch", "Ascend/MindSpeed",
                                              "mindspore/mindspore", "vllm-project/vllm"};

// Issue titles.
constexpr std::string_view kIssueTitlesZh[] = {
    "{api} 在 {hw} 上{sym_zh}，错误码 {code}",
    "{model} 训练{sym_zh}：{api} 调用失败",
    "升级 CANN {cann} 后 {op} {sym_zh}",
    "【{comp}】{op} 算子在 {dtype} 下{sym_zh}",
    "{hw} 多卡训练 HCCL 通信超时，报错 {code}",
    "{comp} 推理 {model} 时{sym_zh}（{hw}）",
    "使用 torch_npu {tv} 运行 {model} 出现 {code} 报错",
    "{api} 输入 shape {shape} 时 tiling 失败",
    "{op} 与 GPU 结果对比精度不一致，{dtype} 误差超过 1e-3",
    "MindSpore {msv} 静态图模式下 {op} {sym_zh}"};
constexpr std::string_view kIssueTitlesEn[] = {
    "{api} fails on {hw} with error {code}",
    "[Bug] {op} {sym_en} with {dtype} inputs on CANN {cann}",
    "{model} training {sym_en} after upgrading to CANN {cann}",
    "HCCL allreduce timeout on {hw} x{n} cards ({code})",
    "{comp}: {api} returns wrong results for shape {shape}",
    "RuntimeError {code} when calling {op} on {hw}",
    "[{comp}] device memory leak in {op} in long inference runs",
    "Accuracy mismatch between {hw} and GPU for {op} ({dtype})"};
constexpr std::string_view kTitleSuffixZh = "（{hw}，CANN {cann}）";
constexpr std::string_view kTitleSuffixEn = " ({hw}, CANN {cann})";

// Issue bodies.
struct Sections {
  std::string_view description, environment, hardware, cann, framework_torch, framework_ms,
      python, os, reproduce, log, extra;
};
constexpr Sections kSectionsZh = {"### 问题描述\n", "\n\n### 环境信息\n", "- 硬件：",
                                  "- CANN 版本：", "- torch_npu 版本：", "- MindSpore 版本：",
                                  "- Python：", "- 操作系统：", "\n\n### 复现步骤\n",
                                  "\n\n### 报错信息\n", "\n\n### 补充说明\n"};
constexpr Sections kSectionsEn = {"### Describe the bug\n", "\n\n### Environment\n",
                                  "- Hardware: ", "- CANN: ", "- torch_npu: ", "- MindSpore: ",
                                  "- Python: ", "- OS: ", "\n\n### Steps to reproduce\n",
                                  "\n\n### Error log\n", "\n\n### Additional context\n"};
constexpr std::string_view kIssueSentencesZh[] = {
    "在 {hw} 上使用 {comp} 运行 {model}，调用 {api} 时报错 {code}。",
    "同样的脚本在 GPU 上运行正常，迁移到 NPU 后{sym_zh}。",
    "CANN 版本为 {cann}，回退到 {cann2} 后问题消失。",
    "设置 {env} 后仍可复现，报错堆栈见下方。",
    "batch size 调到 {n} 以上必现，显存占用约 {gb}GB。",
    "查看 plog 发现 {file} 第 {line} 行附近 tiling 失败。",
    "单卡正常，{n} 卡训练时 HCCL 初始化卡住，最终超时报 {code}。",
    "输入 dtype 为 {dtype}，shape 为 {shape}。",
    "怀疑是 {op} 在 {dtype} 下的实现有问题，与 CPU 结果相比最大误差 {err}。",
    "已尝试重新安装 toolkit 和 kernels 包，问题依旧。",
    "日志路径：~/ascend/log/debug/plog/plog-{pid}_{date}.log。",
    "开启 profiling 后发现 {api} 耗时占比超过 {pct}%。",
    "使用 msprobe 做精度比对，第一个异常的 API 是 {api}。",
    "请问这是已知问题吗？有没有规避方法？"};
constexpr std::string_view kRelatedIssueZh = "现象和 {issue_ref} 类似，但那里的规避方法无效。";
constexpr std::string_view kRelatedIssueEn =
    "This looks like {issue_ref}, but the workaround there does not help.";
constexpr std::string_view kIssueSentencesEn[] = {
    "Running {model} with {comp} on {hw}, the call to {api} fails with {code}.",
    "The same script works on GPU; after moving to NPU it {sym_en}.",
    "CANN is {cann}; rolling back to {cann2} makes the problem go away.",
    "It still reproduces with {env}; the stack trace is below.",
    "It always happens with batch size {n} or more, at about {gb} GB of device memory.",
    "The plog shows tiling failing near line {line} of {file}.",
    "A single card works, but with {n} cards HCCL init hangs and times out with {code}.",
    "Inputs are {dtype} with shape {shape}.",
    "I suspect the {dtype} path of {op}: the max error against CPU is {err}.",
    "Reinstalling the toolkit and kernels packages did not help.",
    "Log file: ~/ascend/log/debug/plog/plog-{pid}_{date}.log.",
    "Profiling shows {api} taking more than {pct}% of the step time.",
    "msprobe accuracy comparison points at {api} as the first abnormal API.",
    "Is this a known issue? Is there a workaround?"};
// In the order a reproduction goes; a few are picked, order kept.
constexpr std::string_view kReproStepsZh[] = {
    "安装 CANN {cann} 与 {fw}", "拉取 {comp} master 分支最新代码",
    "执行 `python train.py --model {model} --dtype {dtype}`",
    "使用 8 卡启动：`bash scripts/pretrain_8p.sh`", "等待约 {n} 个 step 后报错"};
constexpr std::string_view kReproStepsEn[] = {
    "Install CANN {cann} and {fw}", "Check out the latest {comp} master",
    "Run `python train.py --model {model} --dtype {dtype}`",
    "Launch on 8 cards: `bash scripts/pretrain_8p.sh`", "Wait about {n} steps"};
constexpr std::string_view kReproCodeTorch =
    "```python\nimport torch\nimport torch_npu\nx = torch.randn({dims}, "
    "dtype=torch.{dtype}).npu()\nout = {op}(x)\ntorch.npu.synchronize()\n```";
constexpr std::string_view kReproCodeMindSpore =
    "```python\nimport numpy as np\nimport mindspore as ms\n"
    "ms.set_context(device_target=\"Ascend\", mode=ms.GRAPH_MODE)\n"
    "x = ms.Tensor(np.random.randn({dims}), ms.{dtype})\nout = {op}(x)\nprint(out.asnumpy())\n```";
// A pasted log, in order; optional lines are sometimes left out.
struct LogLine {
  std::string_view text;
  bool optional;
};
constexpr LogLine kLogLines[] = {
    {"[INFO] {logdate} | rank {rank} | iteration {n} | loss: nan | grad norm: nan", true},
    {"Traceback (most recent call last):", false},
    {"  File \"/home/ma-user/work/train.py\", line {line}, in <module>", false},
    {"  File \"/usr/local/python3.9/lib/python3.9/site-packages/{pyfile}\", line {line}, in "
     "{func}",
     true},
    {"  File \"/usr/local/python3.9/lib/python3.9/site-packages/{pyfile}\", line {line}, in "
     "{func}",
     false},
    {"RuntimeError: {errmsg}", false},
    {"[ERROR] {logdate} (PID:{pid}, Device:{dev}, RankID:{rank}) ERR01100 OPS call acl api failed",
     true},
    {"[ERROR] RUNTIME({pid},python):{logdate} [stream.cc:{line}]{pid} Synchronize: Stream "
     "synchronize failed, error code:{code}",
     true},
    {"{code}: Inner Error!", false},
    {"        TraceBack (most recent call last):", true},
    {"        {api} tiling failed [FUNC:TilingFunc][FILE:{file}][LINE:{line}]", false},
    {"[W compiler_depend.ts:{line}] Warning: Device do not support double dtype now, dtype cast "
     "replace with float.",
     true}};
constexpr uint32_t kSkipOptionalLogLinePercent = 40;
constexpr std::string_view kBacktraceFrame =
    "  0x0000ffff{addr} in {func} () from /usr/local/Ascend/ascend-toolkit/latest/lib64/"
    "libopapi.so";

// Issue comments by kind.
enum class CommentKind {
  kAsk, kReply, kAnalysis, kMeToo, kFixedBy, kPending, kAnswer, kDuplicate, kStale,
  kWontfix, kVerify, kReview,
};
constexpr std::string_view kAskZh[] = {
    "请提供完整的 plog 日志和复现脚本，日志默认在 ~/ascend/log/debug/plog/ 下。",
    "请补充 CANN 和 torch_npu 版本信息，以及 npu-smi info 的输出。",
    "能否设置 {env} 后再跑一次，看看首个报错点？",
    "麻烦确认一下驱动和固件版本是否与 CANN {cann} 配套。",
    "请问是在容器内还是物理机上运行？驱动版本是多少？",
    "方便提供一下 msprof 采集的 profiling 数据吗？"};
constexpr std::string_view kAskEn[] = {
    "Please attach the full plog and a minimal repro; logs are under ~/ascend/log/debug/plog/.",
    "Which CANN and torch_npu versions are you on? Please paste the output of npu-smi info.",
    "Could you rerun with {env} and check the first error?",
    "Please check that the driver and firmware match CANN {cann}.",
    "Are you running in a container or on bare metal? Which driver version?",
    "Could you share profiling data collected with msprof?"};
constexpr std::string_view kReplyZh[] = {
    "日志已上传，附件是 plog。", "补充一下：{hw} 单卡也能复现。", "试了 {env}，问题依旧。",
    "版本信息：CANN {cann}，{fw}，Python {py}。", "shape 改成 {shape} 后不报错了。",
    "容器内运行，驱动 24.1.RC3。", "profiling 数据已上传到附件。", "换成 {dtype} 之后也一样。"};
constexpr std::string_view kReplyEn[] = {
    "Logs uploaded, the plog is attached.", "Also reproduces on a single {hw} card.",
    "Tried {env}, no change.", "Versions: CANN {cann}, {fw}, Python {py}.",
    "With shape {shape} the error goes away.", "Inside a container, driver 24.1.RC3.",
    "Profiling data is attached.", "Same result with {dtype}."};
constexpr std::string_view kAnalysisZh[] = {
    "已复现，{hw} + CANN {cann} 下 {api} 在 shape {shape} 时 tiling 失败，正在定位。",
    "初步定位是 {file} 中 workspace 计算没有考虑 {dtype}。",
    "根因是 {op} 在 {dtype} 下累加溢出，{cann2} 会修改为 float32 累加。",
    "看日志是 HCCL 建链超时，建议先排查网络配置和 {env}。",
    "从 profiling 看 {api} 的 AI Core 利用率只有 {pct}%，存在大量尾块。",
    "对比 {cann} 和 {cann2} 的 {file}，发现 tiling 分核策略有变化。"};
constexpr std::string_view kAnalysisEn[] = {
    "Reproduced on {hw} with CANN {cann}: {api} tiling fails for shape {shape}. Investigating.",
    "Looks like the workspace size in {file} ignores {dtype}.",
    "Root cause: {op} overflows when accumulating in {dtype}; {cann2} accumulates in float32.",
    "The log shows an HCCL link setup timeout; please check the network and {env}.",
    "Profiling shows {api} at only {pct}% AI Core utilisation, with many tail blocks.",
    "Between {cann} and {cann2} the core split in {file} changed."};
constexpr std::string_view kMeTooZh[] = {"我这边在 {hw} 上也遇到了同样的问题，CANN {cann}。",
                                         "+1，{model} 也有这个报错。"};
constexpr std::string_view kMeTooEn[] = {"Same here on {hw} with CANN {cann}.",
                                         "+1, {model} hits the same error."};
constexpr std::string_view kFixedByZh[] = {"已通过 {pr_ref} 修复，已合入 master。",
                                           "修复 PR：{pr_url}", "{pr_ref} 已合入，请更新代码后验证。"};
constexpr std::string_view kFixedByEn[] = {"Fixed by {pr_ref}, please verify with the latest code.",
                                           "Fix PR: {pr_url}", "{pr_ref} is merged, please retry."};
constexpr std::string_view kPendingZh[] = {"修复方案见 {pr_ref}，还在评审中。"};
constexpr std::string_view kPendingEn[] = {"A fix is under review in {pr_ref}."};
constexpr std::string_view kAnswerZh[] = {
    "这是预期行为：{hw} 不支持 {dtype}，请改用 float16。",
    "CANN {cann2} 已修复此问题，请升级后重试。",
    "可以先设置 {env} 规避，正式修复会在后续版本合入。"};
constexpr std::string_view kAnswerEn[] = {
    "This is expected: {hw} does not support {dtype}, please use float16.",
    "This is fixed in CANN {cann2}; please upgrade and retry.",
    "As a workaround set {env}; a proper fix comes in a later release."};
constexpr std::string_view kDuplicateZh[] = {"重复问题，见 {issue_ref}。"};
constexpr std::string_view kDuplicateEn[] = {"Duplicate of {issue_ref}."};
constexpr std::string_view kStaleZh[] = {
    "由于该 issue 超过 90 天无更新，将自动关闭。如仍有问题请重新打开。"};
constexpr std::string_view kStaleEn[] = {
    "This issue has been automatically closed because it has not had recent activity."};
constexpr std::string_view kWontfixZh[] = {"当前版本暂不支持该特性，已记录需求，后续版本评估。"};
constexpr std::string_view kWontfixEn[] = {"This is out of scope for {comp}; closing as won't fix."};
constexpr std::string_view kVerifyZh[] = {"已验证，问题解决，关闭 issue。",
                                          "在 {hw} + CANN {cann2} 上验证通过，关闭。"};
constexpr std::string_view kVerifyEn[] = {"Verified, the problem is gone. Closing.",
                                          "Verified on {hw} with CANN {cann2}, closing."};
constexpr std::string_view kReviewZh[] = {
    "/lgtm", "/approve", "CI 失败：codecheck 告警 {n} 个，请修复。", "{hw} 验证通过，可以合入。",
    "请补充 {op} 的 UT。", "这个改动会影响 {hw} 吗？", "编译通过，{hw} 上用例全部通过。",
    "这里建议加上 {dtype} 的 dtype 校验。", "/retest", "检视意见已全部修改。"};
constexpr std::string_view kReviewEn[] = {
    "/lgtm", "/approve", "LGTM, thanks!", "Please rebase onto master.",
    "Please add a UT for {op}.", "Does this change affect {hw}?", "Builds fine; all tests pass on {hw}.",
    "Nit: please check the {dtype} path too.", "/retest", "All review comments addressed."};
// Pads comments that settle an issue.
constexpr std::string_view kClosingZh[] = {
    "如仍有问题请重新打开 issue。", "该修复会随 CANN {cann2} 一起发布。",
    "修改点在 {file}，补充了 {dtype} 场景的 shape 校验。", "感谢反馈！",
    "规避方法：设置 {env} 后重新运行。", "后续会在 {hw} 上补充对应的看护用例。",
    "已在 {comp} 的 FAQ 中补充说明。"};
constexpr std::string_view kClosingEn[] = {
    "Feel free to reopen if it still happens.", "The fix ships with CANN {cann2}.",
    "The change is in {file}: it validates shapes for {dtype}.", "Thanks for the report!",
    "Workaround: set {env} and rerun.", "We will add a regression case on {hw}.",
    "The {comp} FAQ now covers this."};

// Pull requests.
constexpr std::string_view kFixTitlesZh[] = {
    "修复 {api} 在 {hw} 上{sym_zh}的问题", "修复 {op} 在 {dtype} 下的精度问题",
    "【{comp}】修复 {api} tiling 计算错误", "修复 HCCL 建链超时问题", "修复 {code} 报错"};
constexpr std::string_view kFixTitlesEn[] = {
    "[Bugfix] {api} {sym_en} on {hw}", "fix {op} precision issue for {dtype}",
    "[{comp}] fix tiling of {api} for shape {shape}", "Fix HCCL link timeout on {hw}",
    "Fix {code} when calling {api}"};
constexpr std::string_view kOtherTitlesZh[] = {
    "新增 {api} 的 {dtype} 支持", "{comp} 适配 CANN {cann}", "更新 README 中的安装说明",
    "重构 {file} 中的 tiling 逻辑", "补充 {op} 的 UT 用例", "优化 {api} 在 {hw} 上的性能"};
constexpr std::string_view kOtherTitlesEn[] = {
    "Add {dtype} support for {api}", "Bump CANN to {cann} in CI", "Refactor tiling logic in {file}",
    "Update docs for {hw}", "Add UT for {op}", "Improve {api} performance on {hw}"};
constexpr std::string_view kFixSentencesZh[] = {
    "修复 {api} 在 {dtype} 场景下 tiling 计算错误的问题。",
    "在 {file} 中补充 shape 校验，避免越界访问。",
    "修正 {op} 反向计算时 workspace 大小计算错误。",
    "HCCL 建链超时时间改为读取 HCCL_CONNECT_TIMEOUT。",
    "补充 {hw} 上的精度用例。",
    "{api} 的 tiling 改为按 {n} 核切分。",
    "删除 {file} 中多余的同步操作，性能提升 {pct}%。",
    "{dtype} 输入改为 float32 累加，与 CPU 标杆误差降到 1e-4 以内。"};
constexpr std::string_view kFixSentencesEn[] = {
    "Fix the tiling computation of {api} for {dtype}.",
    "Validate shapes in {file} to avoid out-of-bounds access.",
    "Fix the workspace size of the {op} backward pass.",
    "Read the HCCL link timeout from HCCL_CONNECT_TIMEOUT.",
    "Add accuracy cases on {hw}.",
    "Split the {api} tiling over {n} cores.",
    "Drop a redundant synchronisation in {file}, {pct}% faster.",
    "Accumulate {dtype} inputs in float32; error against the CPU golden is now below 1e-4."};
constexpr std::string_view kOtherSentencesZh[] = {
    "新增 {api} 对 {dtype} 的支持，并补充 UT。", "适配 CANN {cann} 的接口变更。",
    "更新安装文档与 {hw} 配套表。", "重构 {file}，无功能变化。",
    "补充 {op} 的中文文档。", "CI 中新增 {hw} 的冒烟用例。"};
constexpr std::string_view kOtherSentencesEn[] = {
    "Add {dtype} support to {api} with unit tests.", "Adapt to the interface changes in CANN {cann}.",
    "Update the install guide and the {hw} support matrix.", "Refactor {file}; no functional change.",
    "Add docs for {op}.", "Add a {hw} smoke test to CI."};
constexpr std::string_view kTestTableZh =
    "| 用例 | {hw} | 结果 |\n|---|---|---|\n| test_{api} | CANN {cann} | PASS |\n";
constexpr std::string_view kTestTableEn =
    "| case | {hw} | result |\n|---|---|---|\n| test_{api} | CANN {cann} | PASS |\n";
constexpr std::string_view kKeywordsZh[] = {"fix", "修复", "close", "resolve", "解决", "fixed"};
constexpr std::string_view kKeywordsEn[] = {"Fixes", "fix", "Closes", "Resolves", "Fixed"};
constexpr std::string_view kRefWordsZh[] = {"关联", "关联 issue", "相关", "ref"};
constexpr std::string_view kRefWordsEn[] = {"Related", "Related to", "ref", "See"};
constexpr std::string_view kUrlLeadsZh[] = {"关联 issue：", "问题单：", ""};
constexpr std::string_view kUrlLeadsEn[] = {"Issue: ", "Related issue: ", ""};
constexpr std::string_view kBranchTemplates[] = {"fix_{api}", "dev_{date}", "feature/{dtype}_support",
                                                 "bugfix_{n}", "master_{date}", "opt_{api}"};
constexpr std::string_view kCommitMessages[] = {
    "update ut", "fix codecheck", "review comments", "修改检视意见", "补充 UT", "fix typo",
    "clean code"};
constexpr std::string_view kCppLines[] = {
    "    if (shape.GetDimNum() < 2) {", "        return ge::GRAPH_FAILED;",
    "    uint64_t workspaceSize = tilingData.get_blockDim() * blockSize;",
    "    OP_CHECK_DTYPE_NOT_SUPPORT(x, supportList, return nullptr);",
    "    tiling.set_coreNum(aicNum);", "    int64_t tailLen = totalLen % ubFactor;",
    "    OP_LOGE(context->GetNodeName(), \"input dim %zu is invalid\", dimNum);"};
constexpr std::string_view kPyLines[] = {
    "    attn = torch_npu.npu_fusion_attention(q, k, v, head_num, input_layout=\"BSND\")[0]",
    "    if not torch.npu.is_available():", "        hidden_states = hidden_states.to(torch.float32)",
    "    return x * torch.rsqrt(variance + self.eps)",
    "    group = dist.new_group(ranks, backend=\"hccl\")"};
constexpr std::string_view kTextLines[] = {
    "source /usr/local/Ascend/ascend-toolkit/set_env.sh", "export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3",
    "pip install torch_npu==2.5.1", "| 910B | CANN 8.1.RC1 | 支持 |",
    "bash build.sh --pkg --soc=ascend910b"};

// Users and labels.
struct NamePart {
  std::string_view latin, han;
};
constexpr NamePart kSurnames[] = {
    {"zhang", "张"}, {"wang", "王"}, {"li", "李"}, {"liu", "刘"}, {"chen", "陈"}, {"yang", "杨"},
    {"huang", "黄"}, {"zhao", "赵"}, {"wu", "吴"}, {"zhou", "周"}, {"xu", "徐"}, {"sun", "孙"},
    {"ma", "马"}, {"zhu", "朱"}, {"hu", "胡"}, {"guo", "郭"}};
constexpr NamePart kGivenNames[] = {
    {"wei", "伟"}, {"fang", "芳"}, {"min", "敏"}, {"jing", "静"}, {"lei", "磊"},
    {"jun", "军"}, {"yang", "洋"}, {"tao", "涛"}, {"ming", "明"}, {"chao", "超"},
    {"hui", "慧"}, {"qiang", "强"}, {"xin", "鑫"}, {"yu", "宇"}, {"hao", "浩"}};
constexpr std::string_view kLoginSuffixes[] = {"", "_ascend", "2023", "-hw", "123", "_npu", "666",
                                               "_dev"};
static_assert(std::size(kSurnames) * std::size(kGivenNames) >= kHumanUsers,
              "logins must be unique");

struct LabelDef {
  std::string_view name, color;
};
enum LabelIndex { kLabelBug, kLabelQuestion, kLabelEnhancement, kLabelDuplicate, kLabelWontfix,
                  kLabelStale, kFirstTopicLabel };
constexpr LabelDef kLabels[] = {
    {"bug", "D73A4A"}, {"question", "D876E3"}, {"enhancement", "A2EEEF"},
    {"duplicate", "CFD3D7"}, {"wontfix", "FFFFFF"}, {"stale", "EDEDED"},
    {"精度问题", "2865E0"}, {"性能问题", "E99695"}, {"显存问题", "FBCA04"}, {"910B", "0E8A16"},
    {"310P", "1D76DB"}, {"CANN", "5319E7"}, {"good first issue", "7057FF"},
    {"sig/ops", "BFDADC"}};
constexpr uint32_t kLabelCount = std::size(kLabels);
constexpr std::array<uint32_t, 3> kKindLabelWeights = {60, 25, 15};  // bug, question, enhancement

// clang-format on

// ---------------------------------------------------------------------------------------
// Deterministic randomness

constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;

constexpr uint64_t Finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

constexpr uint64_t Mix64(uint64_t x) { return Finalize(x + kGoldenGamma); }

// Names one independent random stream.
constexpr uint64_t StreamKey(uint64_t seed, uint64_t repo, uint64_t tag, uint64_t item) {
  return Mix64(Mix64(Mix64(Mix64(seed) ^ repo) ^ tag) ^ item);
}

// SplitMix64 as a UniformRandomBitGenerator: one word of state, so the keyed plan streams
// that are recomputed many times cost nothing to create.
class SplitMix64 {
 public:
  using result_type = uint64_t;
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return Finalize(state_ += kGoldenGamma); }

 private:
  uint64_t state_;
};

// Distributions over any 64-bit engine, with integer arithmetic only.
template <class Engine>
class Rng {
  static_assert(Engine::min() == 0 && Engine::max() == std::numeric_limits<uint64_t>::max());

 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t Bits() { return engine_(); }
  // Uniform in [0, n), n > 0. Rejection removes the modulo bias.
  uint64_t Below(uint64_t n) {
    const uint64_t reject_under = (0 - n) % n;
    for (;;) {
      const uint64_t x = engine_();
      if (x >= reject_under) return x % n;
    }
  }
  // Uniform in [lo, hi].
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo) + 1));
  }
  bool Percent(uint32_t percent) { return Below(100) < percent; }
  // In [lo, hi), skewed towards lo (minimum of two uniforms).
  size_t Skewed(size_t lo, size_t hi) { return lo + std::min(Below(hi - lo), Below(hi - lo)); }
  template <class Seq>
  const auto& Pick(const Seq& seq) {
    return seq[Below(std::size(seq))];
  }
  template <size_t N>
  size_t Weighted(const std::array<uint32_t, N>& weights) {
    uint64_t total = 0;
    for (const uint32_t w : weights) total += w;
    uint64_t x = Below(total);
    for (size_t i = 0; i < N; ++i) {
      if (x < weights[i]) return i;
      x -= weights[i];
    }
    return N - 1;
  }
  template <size_t N>
  int64_t Span(const std::array<SpanBucket, N>& buckets) {
    std::array<uint32_t, N> weights{};
    for (size_t i = 0; i < N; ++i) weights[i] = buckets[i].weight;
    const SpanBucket& b = buckets[Weighted(weights)];
    return Between(b.lo, b.hi);
  }

 private:
  Engine engine_;
};

using PlanRng = Rng<SplitMix64>;
using TextRng = Rng<std::mt19937_64>;

// ---------------------------------------------------------------------------------------
// Small text helpers

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

void TruncateCodePoints(std::string& s, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (n++ == max) {
      s.resize(i);
      return;
    }
  }
}

void AppendInt(std::string& out, int64_t v) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, result.ptr);
}

std::string IntString(int64_t v) {
  std::string s;
  AppendInt(s, v);
  return s;
}

void AppendHex(std::string& out, uint64_t v, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) out += kHex[(v >> (4 * i)) & 0xF];
}

// 40 hex digits (a git SHA) or fewer, from a key.
std::string HexId(uint64_t key, int digits) {
  std::string s;
  for (uint64_t k = 0; digits > 0; ++k, digits -= 16)
    AppendHex(s, Mix64(key + k), std::min(digits, 16));
  return s;
}

// Gitee-style issue number: "I" and at least five base-36 digits.
std::string GiteeStyleNumber(uint64_t v) {
  constexpr size_t kMinDigits = 5;
  std::string digits;
  while (v > 0 || digits.size() < kMinDigits) {
    digits += "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[v % 36];
    v /= 36;
  }
  std::reverse(digits.begin(), digits.end());
  return "I" + digits;
}

std::string Lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Time

enum class Platform { kGitCode, kGitee, kGitHub };

struct CivilTime {
  int year;
  unsigned month, day;
  int64_t hour, minute, second;
};

CivilTime ToCivil(int64_t seconds) {
  const int64_t days = seconds / kDay;  // the time line is after 1970
  const int64_t rest = seconds - days * kDay;
  const std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  return {static_cast<int>(ymd.year()),     static_cast<unsigned>(ymd.month()),
          static_cast<unsigned>(ymd.day()), rest / kHour,
          rest % kHour / kMinute,           rest % kMinute};
}

void AppendDigits(std::string& out, int64_t value, int width) {
  char digits[8];
  for (int i = width - 1; i >= 0; --i, value /= 10) digits[i] = static_cast<char>('0' + value % 10);
  out.append(digits, static_cast<size_t>(width));
}

// "2026-03-01T10:00:00+08:00" (GitCode, Gitee) or "2026-03-01T02:00:00Z" (GitHub).
std::string FormatTime(int64_t utc, Platform platform) {
  const bool china = platform != Platform::kGitHub;
  const CivilTime t = ToCivil(utc + (china ? kChinaUtcOffset : 0));
  std::string s;
  s.reserve(25);
  AppendDigits(s, t.year, 4);
  s += '-';
  AppendDigits(s, t.month, 2);
  s += '-';
  AppendDigits(s, t.day, 2);
  s += 'T';
  AppendDigits(s, t.hour, 2);
  s += ':';
  AppendDigits(s, t.minute, 2);
  s += ':';
  AppendDigits(s, t.second, 2);
  s += china ? "+08:00" : "Z";
  return s;
}

// ---------------------------------------------------------------------------------------
// Options

struct Options {
  fs::path out;
  uint64_t repos = 1;
  uint64_t issues = 1000;
  uint64_t prs = 1000;
  bool prs_given = false;
  double comments = 3.0;
  uint64_t seed = 1;
  Platform platform = Platform::kGitCode;
  std::string owner = "synth";
  fs::path truth;  // optional answer key, outside the dump
};

constexpr std::string_view kUsage =
    "usage: fixgraph_gen_dump --out DIR [--repos N=1] [--issues M=1000] [--prs K=M]\n"
    "                         [--comments C=3] [--seed S=1]\n"
    "                         [--platform gitcode|gitee|github] [--owner NAME=synth]\n"
    "                         [--truth FILE]\n"
    "Writes DIR/<platform>/<owner>/repo-<i>/ (i = 1..N): repo.json, issues.json, pulls.json,\n"
    "issues/<n>/comments.json and pulls/<n>/{comments,commits,files}.json.\n"
    "--truth FILE also writes the answer key, one JSON object per issue and per PR.\n";

std::string_view PlatformName(Platform p) {
  switch (p) {
    case Platform::kGitCode:
      return "gitcode";
    case Platform::kGitee:
      return "gitee";
    case Platform::kGitHub:
      return "github";
  }
  return "";
}

std::string_view WebRoot(Platform p) {
  switch (p) {
    case Platform::kGitCode:
      return "https://gitcode.com/";
    case Platform::kGitee:
      return "https://gitee.com/";
    case Platform::kGitHub:
      return "https://github.com/";
  }
  return "";
}

uint64_t ParseCount(std::string_view flag, std::string_view text, uint64_t max) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) {
    throw std::invalid_argument(std::string(flag) + ": expected an integer in [0, " +
                                IntString(static_cast<int64_t>(max)) + "], got '" +
                                std::string(text) + "'");
  }
  return value;
}

double ParseAverage(std::string_view flag, std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value >= 0) ||
      value > kMaxAverageComments) {
    throw std::invalid_argument(std::string(flag) + ": expected a number in [0, " +
                                IntString(static_cast<int64_t>(kMaxAverageComments)) + "], got '" +
                                std::string(text) + "'");
  }
  return value;
}

bool IsSafeName(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  bool have_out = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (i + 1 >= argc) throw std::invalid_argument(std::string(flag) + ": missing value");
    const std::string_view value = argv[++i];
    if (flag == "--out") {
      o.out = fs::path(value);
      have_out = true;
    } else if (flag == "--repos") {
      o.repos = ParseCount(flag, value, kMaxRepos);
    } else if (flag == "--issues") {
      o.issues = ParseCount(flag, value, kMaxItemsPerRepo);
    } else if (flag == "--prs") {
      o.prs = ParseCount(flag, value, kMaxItemsPerRepo);
      o.prs_given = true;
    } else if (flag == "--comments") {
      o.comments = ParseAverage(flag, value);
    } else if (flag == "--seed") {
      o.seed = ParseCount(flag, value, std::numeric_limits<uint64_t>::max());
    } else if (flag == "--platform") {
      if (value == "gitcode")
        o.platform = Platform::kGitCode;
      else if (value == "gitee")
        o.platform = Platform::kGitee;
      else if (value == "github")
        o.platform = Platform::kGitHub;
      else
        throw std::invalid_argument("--platform: expected gitcode, gitee or github");
    } else if (flag == "--truth") {
      o.truth = fs::path(value);
    } else if (flag == "--owner") {
      if (!IsSafeName(value)) throw std::invalid_argument("--owner: use [A-Za-z0-9._-]");
      o.owner = std::string(value);
    } else {
      throw std::invalid_argument("unknown option " + std::string(flag));
    }
  }
  if (!have_out) throw std::invalid_argument("--out is required");
  if (!o.prs_given) o.prs = o.issues;
  return o;
}

// ---------------------------------------------------------------------------------------
// Output files

struct Stats {
  uint64_t repos = 0, issues = 0, prs = 0, comments = 0, files = 0, bytes = 0;
};

// A file written through stdio and closed by its owner; errors name the path.
class OutputFile {
 public:
  OutputFile(const fs::path& path, size_t buffer_size) : path_(path) {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) throw std::runtime_error("cannot create " + path.string());
    // Unbuffered (0) suits a file written in one piece: no buffer, no fstat, one write.
    std::setvbuf(file_, nullptr, buffer_size > 0 ? _IOFBF : _IONBF, buffer_size);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() {
    if (file_ != nullptr) std::fclose(file_);
  }

  void Write(std::string_view text) {
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) Fail();
    bytes_ += text.size();
  }
  // Returns the bytes written.
  uint64_t Close() {
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (rc != 0) Fail();
    return bytes_;
  }

 private:
  [[noreturn]] void Fail() const { throw std::runtime_error("cannot write " + path_.string()); }

  fs::path path_;
  std::FILE* file_ = nullptr;
  uint64_t bytes_ = 0;
};

// Streams one JSON array to a file, element by element.
class JsonArrayFile {
 public:
  static constexpr size_t kBufferSize = 1 << 20;

  JsonArrayFile(const fs::path& path, Stats& stats) : file_(path, kBufferSize), stats_(stats) {
    file_.Write("[");
  }

  void Add(const Json& element) {
    if (count_++ > 0) file_.Write(",");
    file_.Write(element.dump());
  }
  void Finish() {
    file_.Write("]\n");
    stats_.bytes += file_.Close();
    ++stats_.files;
  }

 private:
  OutputFile file_;
  Stats& stats_;
  uint64_t count_ = 0;
};

void WriteJsonFile(const fs::path& path, const Json& value, Stats& stats) {
  std::string text = value.dump();
  text += '\n';
  OutputFile file(path, 0);
  file.Write(text);
  stats.bytes += file.Close();
  ++stats.files;
}

// The answer key: JSON lines, streamed; does nothing without a path.
class TruthFile {
 public:
  explicit TruthFile(const fs::path& path) {
    if (path.empty()) return;
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
    file_ = std::make_unique<OutputFile>(path, JsonArrayFile::kBufferSize);
  }
  bool enabled() const { return file_ != nullptr; }
  void Add(const Json& line) {
    file_->Write(line.dump());
    file_->Write("\n");
  }
  void Finish() {
    if (enabled()) file_->Close();
  }

 private:
  std::unique_ptr<OutputFile> file_;
};

// ---------------------------------------------------------------------------------------
// Catalog: users and labels, rendered once per platform

struct Catalog {
  std::vector<Json> users;  // kHumanUsers people, then the bot
  std::vector<std::string> logins, names;
  std::vector<Json> labels;
};

Catalog BuildCatalog(Platform platform) {
  Catalog c;
  for (uint32_t u = 0; u <= kHumanUsers; ++u) {
    std::string login, name;
    if (u == kBotUser) {
      login = platform == Platform::kGitHub ? "github-actions[bot]" : "ascend-robot";
      name = login;
    } else {
      const NamePart& sur = kSurnames[u % std::size(kSurnames)];
      const NamePart& given = kGivenNames[u / std::size(kSurnames)];
      login = std::string(sur.latin) + std::string(given.latin) +
              std::string(kLoginSuffixes[Mix64(u) % std::size(kLoginSuffixes)]);
      name = std::string(sur.han) + std::string(given.han);
    }
    Json user;
    switch (platform) {
      case Platform::kGitCode:
        user["id"] = HexId(StreamKey(0, 0, kTagUser, u), 24);
        user["login"] = login;
        user["name"] = name;
        break;
      case Platform::kGitee:
        user["id"] = 1'500'000 + int64_t{u} * 7919;
        user["login"] = login;
        user["name"] = name;
        break;
      case Platform::kGitHub:
        user["login"] = login;
        user["id"] = 40'000'000 + int64_t{u} * 104'729;
        user["type"] = u == kBotUser ? "Bot" : "User";
        break;
    }
    c.users.push_back(std::move(user));
    c.logins.push_back(std::move(login));
    c.names.push_back(std::move(name));
  }
  for (uint32_t l = 0; l < kLabelCount; ++l) {
    std::string color(kLabels[l].color);
    if (platform == Platform::kGitCode) color.insert(0, "#");
    if (platform == Platform::kGitHub) color = Lowercase(color);
    Json label;
    label["id"] = 300'000 + int64_t{l} * 11;
    label["name"] = kLabels[l].name;
    label["color"] = color;
    c.labels.push_back(std::move(label));
  }
  return c;
}

// ---------------------------------------------------------------------------------------
// Time line: issues and PRs share slots 1..N (N = issues + PRs), interleaved evenly
// (Bresenham), so creation times increase with the number. On GitHub, where issues and
// PRs share one number space, the slot is also the number.

class Timeline {
 public:
  Timeline(uint64_t issues, uint64_t prs, uint64_t key)
      : issues_(issues),
        prs_(prs),
        total_(issues + prs),
        width_(std::max<int64_t>(
            1, kTimelineSpan / static_cast<int64_t>(std::max<uint64_t>(total_, 1)))),
        key_(key) {}

  uint64_t issues() const { return issues_; }
  uint64_t prs() const { return prs_; }
  int64_t slot_seconds() const { return width_; }

  uint64_t IssueSlot(uint64_t i) const { return i * total_ / issues_ + 1; }
  uint64_t PrSlot(uint64_t j) const { return ((j + 1) * total_ + prs_ - 1) / prs_; }
  // The first PR whose slot is >= slot; prs() when there is none.
  uint64_t FirstPrFrom(uint64_t slot) const { return std::min(prs_, (slot - 1) * prs_ / total_); }
  // The slot whose time span holds t, clamped to the time line.
  uint64_t SlotAt(int64_t t) const {
    if (t <= kTimelineStart) return 1;
    return std::min(total_, static_cast<uint64_t>((t - kTimelineStart) / width_) + 1);
  }
  // An issue index at or before the first issue whose slot is >= slot.
  uint64_t IssueNear(uint64_t slot) const {
    return std::min(issues_, (slot - 1) * issues_ / total_);
  }
  // Strictly increasing in slot.
  int64_t SlotTime(uint64_t slot) const {
    return kTimelineStart + static_cast<int64_t>(slot - 1) * width_ +
           static_cast<int64_t>(Mix64(key_ ^ slot) % static_cast<uint64_t>(width_));
  }

 private:
  uint64_t issues_, prs_, total_;
  int64_t width_;
  uint64_t key_;
};

// ---------------------------------------------------------------------------------------
// Plans: what happens to each item, recomputable from its index alone

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

struct Topic {
  uint32_t api, op, hw, cann, fixed_cann, code, model, comp, file, symptom, dtype, env, torch_npu,
      mindspore, python, os;
  bool on_mindspore;  // MindSpore rather than PyTorch
};

Topic DrawTopic(PlanRng& rng) {
  Topic t{};
  t.api = static_cast<uint32_t>(rng.Below(std::size(kApis)));
  t.op = static_cast<uint32_t>(rng.Below(std::size(kTorchOps) * std::size(kMindSporeOps)));
  t.hw = static_cast<uint32_t>(rng.Below(std::size(kHardware)));
  t.cann = static_cast<uint32_t>(rng.Below(std::size(kCann)));
  t.fixed_cann = static_cast<uint32_t>(rng.Below(std::size(kCann)));
  t.code = static_cast<uint32_t>(rng.Below(std::size(kErrorCodes)));
  t.model = static_cast<uint32_t>(rng.Below(std::size(kModels)));
  t.comp = static_cast<uint32_t>(rng.Below(std::size(kComponents)));
  t.file = static_cast<uint32_t>(rng.Below(std::size(kFiles)));
  t.symptom = static_cast<uint32_t>(rng.Below(std::size(kSymptomsZh)));
  t.dtype = static_cast<uint32_t>(rng.Below(std::size(kDtypes)));
  t.env = static_cast<uint32_t>(rng.Below(std::size(kEnvSettings)));
  t.torch_npu = static_cast<uint32_t>(rng.Below(std::size(kTorchNpu)));
  t.mindspore = static_cast<uint32_t>(rng.Below(std::size(kMindSpore)));
  t.python = static_cast<uint32_t>(rng.Below(std::size(kPythons)));
  t.os = static_cast<uint32_t>(rng.Below(std::size(kOses)));
  constexpr uint32_t kMindSporePercent = 35;
  t.on_mindspore = rng.Percent(kMindSporePercent);
  return t;
}

uint32_t DrawAuthor(PlanRng& rng) {
  constexpr uint32_t kMaintainerAuthorPercent = 15;
  if (rng.Percent(kMaintainerAuthorPercent)) return static_cast<uint32_t>(rng.Below(kMaintainers));
  return kMaintainers + static_cast<uint32_t>(rng.Below(kHumanUsers - kMaintainers));
}

// What becomes of an issue; cheap, because PRs recompute it for their neighbours.
struct IssueFate {
  Outcome outcome = Outcome::kOpen;
  uint64_t fix_pr = kNone;  // PR index, for kFixed
  CloseMode close_mode = CloseMode::kAtMerge;
  int64_t close_delay = 0;  // after the merge (kFixed) or the filing (others)
};

struct IssuePlan {
  uint64_t index = 0;
  std::string number;
  int64_t created = 0;
  int64_t closed = 0;                // 0: open at the snapshot
  Outcome outcome = Outcome::kOpen;  // kOpen when not closed by the snapshot
  IssueFate fate;
  Topic topic{};
  bool zh = false;
  uint32_t author = 0;
  uint32_t comments = 0;
  uint64_t duplicate_of = kNone;
  uint32_t kind_label = kLabelBug;
  uint32_t topic_labels = 0;  // 0-2 extra labels
  uint32_t topic_label_pick = 0;
  bool in_progress = false;  // open and being worked on ("progressing", "进行中")
};

struct PrTiming {
  int64_t created = 0;
  int64_t finished = 0;  // when it merges or closes, if it does; may be after the snapshot
};

struct PrPlan {
  uint64_t index = 0;
  uint64_t number = 0;
  PrTiming timing;
  PrState state = PrState::kOpen;
  PrKind kind = PrKind::kOther;
  std::vector<uint64_t> fixes;      // issues this PR fixes
  uint64_t backport_of = kNone;     // the PR a backport cherry-picks
  std::vector<uint64_t> backports;  // issues that PR fixed
  uint64_t false_lead = kNone;      // issue a closed-unmerged PR claims to fix
  Topic topic{};
  bool zh = false;
  uint32_t author = 0;
  uint32_t merger = 0;  // maintainer who merges
  uint32_t review_comments = 0;
  bool close_related = false;  // GitCode "close related issues after merge"
};

struct CommentSpec {
  int64_t time;
  uint32_t user;
  CommentKind kind;
  bool zh;
};

// Placeholder values for text templates.
struct TextCtx {
  const Topic& topic;
  int64_t when = kTimelineStart;  // for log dates
  std::string_view issue_ref;     // "#12": a related issue
  std::string_view pr_ref;        // "!34": a related PR
  std::string_view pr_url;
};

// ---------------------------------------------------------------------------------------
// Text expansion

void AppendDims(std::string& out, TextRng& rng, std::string_view separator) {
  const uint64_t rank = 1 + rng.Below(4);
  for (uint64_t d = 0; d < rank; ++d) {
    if (d > 0) out += separator;
    out += rng.Pick(kDims);
  }
}

void AppendLogDate(std::string& out, int64_t utc, TextRng& rng) {
  const CivilTime t = ToCivil(utc + kChinaUtcOffset);
  char buf[48];
  const int n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02u-%02d:%02d:%02d.%03d.%03d", t.year,
                              t.month, t.day, static_cast<int>(t.hour), static_cast<int>(t.minute),
                              static_cast<int>(t.second), static_cast<int>(rng.Below(1000)),
                              static_cast<int>(rng.Below(1000)));
  out.append(buf, static_cast<size_t>(n));
}

void Expand(std::string_view tmpl, const TextCtx& ctx, TextRng& rng, std::string& out);

// Placeholders drawn afresh as a number in [lo, hi] at each use.
struct NumberPlaceholder {
  std::string_view key;
  int64_t lo, hi;
};
constexpr NumberPlaceholder kNumberPlaceholders[] = {{"gb", 20, 64},         {"line", 10, 2000},
                                                     {"pid", 10000, 999999}, {"pct", 20, 90},
                                                     {"dev", 0, 7},          {"rank", 0, 63}};

// The word a placeholder takes from the topic, fixed for the whole item.
std::optional<std::string_view> TopicWord(std::string_view key, const Topic& t) {
  if (key == "api") return kApis[t.api];
  if (key == "op") {
    return t.on_mindspore ? kMindSporeOps[t.op % std::size(kMindSporeOps)]
                          : kTorchOps[t.op % std::size(kTorchOps)];
  }
  if (key == "hw") return kHardware[t.hw];
  if (key == "cann") return kCann[t.cann];
  if (key == "cann2") return kCann[t.fixed_cann];
  if (key == "code") return kErrorCodes[t.code];
  if (key == "model") return kModels[t.model];
  if (key == "comp") return kComponents[t.comp];
  if (key == "file") return kFiles[t.file];
  if (key == "sym_zh") return kSymptomsZh[t.symptom];
  if (key == "sym_en") return kSymptomsEn[t.symptom % std::size(kSymptomsEn)];
  if (key == "dtype") return kDtypes[t.dtype];
  if (key == "env") return kEnvSettings[t.env];
  if (key == "tv") return kTorchNpu[t.torch_npu];
  if (key == "msv") return kMindSpore[t.mindspore];
  if (key == "py") return kPythons[t.python];
  return std::nullopt;
}

// The reference a placeholder takes from the context.
std::optional<std::string_view> ContextWord(std::string_view key, const TextCtx& ctx) {
  if (key == "issue_ref") return ctx.issue_ref;
  if (key == "pr_ref") return ctx.pr_ref;
  if (key == "pr_url") return ctx.pr_url;
  return std::nullopt;
}

void AppendWord(std::string& out, std::string_view word) { out += word; }

// "[8,4096,128]"
void AppendShape(std::string& out, TextRng& rng) {
  out += '[';
  AppendDims(out, rng, ",");
  out += ']';
}

// "3.5e-2"
void AppendErrorMagnitude(std::string& out, TextRng& rng) {
  AppendInt(out, rng.Between(1, 9));
  out += '.';
  AppendInt(out, rng.Between(0, 9));
  out += "e-";
  AppendInt(out, rng.Between(1, 3));
}

// "20260301"
void AppendCompactDate(std::string& out, int64_t utc) {
  const CivilTime c = ToCivil(utc + kChinaUtcOffset);
  AppendDigits(out, c.year, 4);
  AppendDigits(out, c.month, 2);
  AppendDigits(out, c.day, 2);
}

// Placeholders whose value is drawn at each use.
void AppendDrawn(std::string_view key, const TextCtx& ctx, TextRng& rng, std::string& out) {
  for (const NumberPlaceholder& number : kNumberPlaceholders) {
    if (key == number.key) return AppendInt(out, rng.Between(number.lo, number.hi));
  }
  if (key == "n") return AppendInt(out, int64_t{1} << rng.Between(1, 6));
  if (key == "fw")
    return Expand(ctx.topic.on_mindspore ? "MindSpore {msv}" : "torch_npu {tv}", ctx, rng, out);
  if (key == "errmsg") return Expand(rng.Pick(kErrorMessages), ctx, rng, out);
  if (key == "pyfile") return AppendWord(out, rng.Pick(kPyFiles));
  if (key == "func") return AppendWord(out, rng.Pick(kFuncs));
  if (key == "shape") return AppendShape(out, rng);
  if (key == "dims") return AppendDims(out, rng, ", ");
  if (key == "err") return AppendErrorMagnitude(out, rng);
  if (key == "addr") return AppendHex(out, rng.Bits(), 8);
  if (key == "logdate") return AppendLogDate(out, ctx.when, rng);
  if (key == "date") return AppendCompactDate(out, ctx.when);
  throw std::logic_error("unknown placeholder {" + std::string(key) + "}");
}

void AppendPlaceholder(std::string_view key, const TextCtx& ctx, TextRng& rng, std::string& out) {
  if (const auto word = TopicWord(key, ctx.topic)) {
    out += *word;
  } else if (const auto ref = ContextWord(key, ctx)) {
    out += *ref;
  } else {
    AppendDrawn(key, ctx, rng, out);
  }
}

// Appends tmpl with every {key} replaced.
void Expand(std::string_view tmpl, const TextCtx& ctx, TextRng& rng, std::string& out) {
  size_t pos = 0;
  while (pos < tmpl.size()) {
    const size_t open = tmpl.find('{', pos);
    if (open == std::string_view::npos) break;
    const size_t close = tmpl.find('}', open);
    if (close == std::string_view::npos) break;
    out.append(tmpl.substr(pos, open - pos));
    AppendPlaceholder(tmpl.substr(open + 1, close - open - 1), ctx, rng, out);
    pos = close + 1;
  }
  out.append(tmpl.substr(pos));
}

// Appends pool[start], pool[start + 1], ... (wrapping) until out reaches target code
// points, so no sentence repeats before the pool is used up.
void FillFrom(std::string& out, size_t target, Pool pool, size_t start, std::string_view separator,
              const TextCtx& ctx, TextRng& rng) {
  size_t length = CodePoints(out);
  for (size_t next = start; length < target; ++next) {
    const size_t before = out.size();
    if (!out.empty() && out.back() != '\n') out += separator;
    Expand(pool[next % pool.size()], ctx, rng, out);
    length += CodePoints(std::string_view(out).substr(before));
  }
}

// FillFrom a random start.
void FillTo(std::string& out, size_t target, Pool pool, std::string_view separator,
            const TextCtx& ctx, TextRng& rng) {
  FillFrom(out, target, pool, rng.Below(pool.size()), separator, ctx, rng);
}

bool IsAsciiWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// Cuts s to at most max code points, at a space rather than inside an ASCII word when
// that keeps at least min code points.
void TruncateAtWord(std::string& s, size_t min, size_t max) {
  const std::string whole = s;
  TruncateCodePoints(s, max);
  if (s.size() == whole.size() || !IsAsciiWordChar(whole[s.size()]) || !IsAsciiWordChar(s.back())) {
    return;
  }
  const size_t space = s.rfind(' ');
  if (space != std::string::npos && CodePoints(std::string_view(s).substr(0, space)) >= min) {
    s.resize(space);
  }
}

// Brings a title into [kTitleMin, kTitleMax] code points.
void FitTitle(std::string& title, bool zh, const TextCtx& ctx, TextRng& rng) {
  if (CodePoints(title) < kTitleMin) Expand(zh ? kTitleSuffixZh : kTitleSuffixEn, ctx, rng, title);
  TruncateAtWord(title, kTitleMin, kTitleMax);
}

// ---------------------------------------------------------------------------------------
// One repository

class RepoWriter {
 public:
  RepoWriter(const Options& options, uint64_t repo_index, const Catalog& catalog, Stats& stats,
             TruthFile& truth)
      : o_(options),
        catalog_(catalog),
        stats_(stats),
        truth_(truth),
        repo_index_(repo_index),
        repo_key_(Mix64(repo_index + 1)),
        name_("repo-" + IntString(static_cast<int64_t>(repo_index + 1))),
        full_name_(o_.owner + "/" + name_),
        web_url_(std::string(WebRoot(o_.platform)) + full_name_),
        dir_(o_.out / std::string(PlatformName(o_.platform)) / o_.owner / name_),
        timeline_(o_.issues, o_.prs, StreamKey(o_.seed, repo_key_, kTagSlotJitter, 0)),
        more_comment_threshold_(MoreCommentThreshold(o_.comments)) {}

  void Write() {
    PrepareDirectory();
    WriteRepoJson();
    WriteIssues();
    WritePulls();
    ++stats_.repos;
  }

 private:
  // --- identities -----------------------------------------------------------------------

  uint64_t Key(uint64_t tag, uint64_t item) const {
    return StreamKey(o_.seed, repo_key_, tag, item);
  }
  bool github() const { return o_.platform == Platform::kGitHub; }
  std::string Time(int64_t utc) const { return FormatTime(utc, o_.platform); }
  // Unset time: "" on GitCode, null elsewhere.
  Json UnsetTime() const { return o_.platform == Platform::kGitCode ? Json("") : Json(nullptr); }
  Json TimeOrUnset(int64_t utc) const { return utc != 0 ? Json(Time(utc)) : UnsetTime(); }
  std::string_view DefaultBranch() const { return github() ? "main" : "master"; }

  std::string IssueNumber(uint64_t i) const {
    switch (o_.platform) {
      case Platform::kGitCode:
        return IntString(static_cast<int64_t>(i + 1));
      case Platform::kGitee:
        return GiteeNumber(i);
      case Platform::kGitHub:
        return IntString(static_cast<int64_t>(timeline_.IssueSlot(i)));
    }
    return {};
  }
  // Increasing with i (jitter < stride), hence unique.
  std::string GiteeNumber(uint64_t i) const {
    return GiteeStyleNumber(kGiteeNumberBase + repo_index_ * kGiteeRepoShift + i * kGiteeStride +
                            Mix64(repo_key_ ^ i) % kGiteeStride);
  }
  Json IssueNumberJson(const std::string& number) const {
    return github() ? Json(std::stoll(number)) : Json(number);
  }
  std::string IssueRef(const std::string& number) const { return "#" + number; }
  std::string IssueUrl(const std::string& number) const { return web_url_ + "/issues/" + number; }
  int64_t IssueId(uint64_t i) const {
    return kIssueIdBase + static_cast<int64_t>(repo_index_) * kIdsPerRepo + static_cast<int64_t>(i);
  }

  uint64_t PrNumber(uint64_t j) const { return github() ? timeline_.PrSlot(j) : j + 1; }
  std::string PrRef(uint64_t number) const {
    return (github() ? "#" : "!") + IntString(static_cast<int64_t>(number));
  }
  std::string PrUrl(uint64_t number) const {
    std::string_view path = "/merge_requests/";
    if (o_.platform == Platform::kGitee) path = "/pulls/";
    if (github()) path = "/pull/";
    return web_url_ + std::string(path) + IntString(static_cast<int64_t>(number));
  }
  int64_t PrId(uint64_t j) const {
    return kPrIdBase + static_cast<int64_t>(repo_index_) * kIdsPerRepo + static_cast<int64_t>(j);
  }

  // --- plans ------------------------------------------------------------------------------

  // P(another comment) for a geometric count with mean C: C / (C + 1), in 2^-32 units.
  static uint64_t MoreCommentThreshold(double mean) {
    constexpr double kScale = 4294967296.0;
    return static_cast<uint64_t>(mean / (mean + 1.0) * kScale);
  }
  uint32_t DrawCommentCount(PlanRng& rng) const {
    uint32_t n = 0;
    while (n < kMaxComments && (rng.Bits() >> 32) < more_comment_threshold_) ++n;
    return n;
  }

  PrTiming Timing(uint64_t j) const {
    PlanRng rng(Key(kTagPrTiming, j));
    const int64_t created = timeline_.SlotTime(timeline_.PrSlot(j));
    return {created, created + rng.Span(kPrDuration)};
  }

  IssueFate Fate(uint64_t i) const {
    PlanRng rng(Key(kTagIssueFate, i));
    IssueFate fate;
    fate.outcome = static_cast<Outcome>(rng.Weighted(kOutcomeWeights));
    if (fate.outcome == Outcome::kDuplicate && i == 0) fate.outcome = Outcome::kAnswered;
    if (fate.outcome != Outcome::kFixed) {
      fate.close_delay = rng.Span(kCloseWithoutPr);
      return fate;
    }
    fate.close_mode = static_cast<CloseMode>(rng.Weighted(kCloseModeWeights));
    const uint64_t slot = timeline_.IssueSlot(i);
    const uint64_t first_after = timeline_.FirstPrFrom(slot);
    if (fate.close_mode == CloseMode::kFixedBeforeFiled) {
      // A PR opened shortly before the issue; if it merges only after the filing, the
      // merge closes the issue as usual.
      const uint64_t lead = 1 + rng.Below(kMaxLeadPrs);
      if (first_after < lead) return {};  // no earlier PR: stays open
      fate.fix_pr = first_after - lead;
      if (Timing(fate.fix_pr).finished < timeline_.SlotTime(slot)) {
        fate.close_delay = rng.Between(kMinute, kFiledAfterFixMax);
      } else {
        fate.close_mode = CloseMode::kAtMerge;
      }
      return fate;
    }
    const uint64_t lag_slots = std::clamp<uint64_t>(
        static_cast<uint64_t>(rng.Span(kFixLag) / timeline_.slot_seconds()), 1, kMaxLagSlots);
    fate.fix_pr = timeline_.FirstPrFrom(slot + lag_slots);
    if (fate.fix_pr >= timeline_.prs()) return {};  // the fix is not written yet: open
    switch (fate.close_mode) {
      case CloseMode::kSecondsAfter:
        fate.close_delay = rng.Between(1, kSecondsAfterMax);
        break;
      case CloseMode::kWeeksAfter:
        fate.close_delay = rng.Between(kWeeksAfterMin, kWeeksAfterMax);
        break;
      default:
        fate.close_delay = 0;
        break;
    }
    return fate;
  }

  // The first stale sweep at or after t.
  static int64_t NextStaleSweep(int64_t t) {
    const int64_t first = kTimelineStart + kStaleSweepOffset;
    const int64_t k = t <= first ? 0 : (t - first + kStaleSweepPeriod - 1) / kStaleSweepPeriod;
    return first + k * kStaleSweepPeriod;
  }

  int64_t CloseTime(const IssuePlan& p) const {
    int64_t t = 0;
    switch (p.fate.outcome) {
      case Outcome::kOpen:
        return 0;
      case Outcome::kFixed: {
        const int64_t merged = Timing(p.fate.fix_pr).finished;
        if (merged > kSnapshot) return 0;
        t = (p.fate.close_mode == CloseMode::kFixedBeforeFiled ? p.created : merged) +
            p.fate.close_delay;
        break;
      }
      case Outcome::kStale:
        t = NextStaleSweep(p.created + kStaleAfter);
        break;
      default:
        t = p.created + p.fate.close_delay;
        break;
    }
    return t <= kSnapshot ? t : 0;
  }

  void PlanIssue(uint64_t i, IssuePlan& p) const {
    p.index = i;
    p.number = IssueNumber(i);
    p.fate = Fate(i);
    p.created = timeline_.SlotTime(timeline_.IssueSlot(i));
    PlanRng rng(Key(kTagIssuePlan, i));
    p.zh = rng.Percent(kChinesePercent);
    p.topic = DrawTopic(rng);
    p.author = DrawAuthor(rng);
    p.comments = DrawCommentCount(rng);
    p.duplicate_of = i == 0 ? kNone : i - 1 - rng.Below(std::min(i, kDuplicateReach));
    p.kind_label = static_cast<uint32_t>(rng.Weighted(kKindLabelWeights));
    p.topic_labels = static_cast<uint32_t>(rng.Below(3));
    p.topic_label_pick = static_cast<uint32_t>(rng.Below(kLabelCount - kFirstTopicLabel));
    constexpr uint32_t kInProgressPercent = 30;
    p.in_progress = rng.Percent(kInProgressPercent);
    p.closed = CloseTime(p);
    p.outcome = p.closed != 0 ? p.fate.outcome : Outcome::kOpen;
  }

  // The issues whose fate names PR j as their fix, in index order. Recomputes the fates of
  // the issues near the PR on the time line: those filed up to kMaxLagSlots before it, and
  // those filed just after it when the fix came first.
  void FixesOf(uint64_t j, std::vector<uint64_t>& out) const {
    out.clear();
    if (timeline_.issues() == 0) return;
    const uint64_t prev_slot = j == 0 ? 0 : timeline_.PrSlot(j - 1);
    const uint64_t lo_slot = prev_slot + 1 > kMaxLagSlots ? prev_slot + 1 - kMaxLagSlots : 1;
    // An issue filed after its fix has FirstPrFrom(slot) <= j + kMaxLeadPrs; past the last
    // PR that covers every remaining issue.
    const uint64_t end =
        j + kMaxLeadPrs < timeline_.prs()
            ? std::min(timeline_.issues(),
                       timeline_.IssueNear(timeline_.PrSlot(j + kMaxLeadPrs) + 1) + 1)
            : timeline_.issues();
    for (uint64_t i = timeline_.IssueNear(lo_slot); i < end; ++i) {
      if (Fate(i).fix_pr == j) out.push_back(i);
    }
  }

  void PlanPr(uint64_t j, PrPlan& p) const {
    p.index = j;
    p.number = PrNumber(j);
    p.timing = Timing(j);
    FixesOf(j, p.fixes);
    PlanRng rng(Key(kTagPrPlan, j));
    p.zh = rng.Percent(kChinesePercent);
    p.topic = DrawTopic(rng);
    p.author = DrawAuthor(rng);
    p.merger = static_cast<uint32_t>(rng.Below(kMaintainers));
    constexpr uint32_t kCloseRelatedPercent = 80;
    p.close_related = rng.Percent(kCloseRelatedPercent);
    constexpr uint64_t kMaxReviewComments = 4;
    p.review_comments = rng.Percent(kPrCommentsPercent)
                            ? static_cast<uint32_t>(1 + rng.Below(kMaxReviewComments))
                            : 0;
    const bool wants_backport = rng.Percent(kBackportPercent);
    const int64_t backport_lag = rng.Between(kBackportLagMin, kBackportLagMax);
    const auto other_state = static_cast<PrState>(rng.Weighted(kOtherPrStateWeights));
    const bool wants_false_lead = rng.Percent(kFalseLeadPercent);
    const uint64_t lead_back = rng.Below(kFalseLeadReach);

    p.backports.clear();
    p.backport_of = kNone;
    if (wants_backport) {
      const uint64_t original =
          timeline_.FirstPrFrom(timeline_.SlotAt(p.timing.created - backport_lag));
      if (original < j && Timing(original).finished <= p.timing.created) {
        FixesOf(original, p.backports);
        if (!p.backports.empty()) p.backport_of = original;
      }
    }
    p.false_lead = kNone;
    if (!p.fixes.empty()) {
      p.kind = PrKind::kFix;
    } else if (!p.backports.empty()) {
      p.kind = PrKind::kBackport;
    } else if (other_state == PrState::kClosed && wants_false_lead && timeline_.issues() > 0) {
      p.kind = PrKind::kFalseLead;
      const uint64_t near = timeline_.IssueNear(timeline_.PrSlot(j));
      p.false_lead = near > lead_back ? near - lead_back : 0;
    } else {
      p.kind = PrKind::kOther;
    }
    const bool merges = p.kind == PrKind::kFix || p.kind == PrKind::kBackport;
    p.state = merges ? PrState::kMerged : other_state;
    if (p.timing.finished > kSnapshot) p.state = PrState::kOpen;
  }

  // --- directory and repo.json -----------------------------------------------------------

  void PrepareDirectory() {
    if (fs::exists(dir_)) {
      const bool earlier_dump =
          fs::is_empty(dir_) || fs::exists(dir_ / "issues.json") || fs::exists(dir_ / "repo.json");
      if (!earlier_dump) {
        throw std::runtime_error(dir_.string() + " exists and is not a dump; not replacing it");
      }
      fs::remove_all(dir_);
    }
    fs::create_directories(dir_ / "issues");
    fs::create_directories(dir_ / "pulls");
  }

  void WriteRepoJson() {
    Json repo;
    repo["id"] = kRepoIdBase + static_cast<int64_t>(repo_index_);
    if (github()) {
      repo["name"] = name_;
      repo["full_name"] = full_name_;
      repo["owner"] = {{"login", o_.owner}, {"id", 70'000'000}};
    } else {
      repo["full_name"] = full_name_;
      repo["human_name"] = o_.owner + " / " + name_;
      repo["path"] = name_;
      repo["name"] = name_;
      repo["namespace"] = {{"path", o_.owner}};
    }
    repo["html_url"] = web_url_;
    repo["default_branch"] = DefaultBranch();
    repo["description"] = kRepoDescriptions[repo_index_ % std::size(kRepoDescriptions)];
    repo["created_at"] = Time(kTimelineStart - 30 * kDay);
    repo["updated_at"] = Time(kSnapshot - kHour);
    WriteJsonFile(dir_ / "repo.json", repo, stats_);
  }

  // --- issues -----------------------------------------------------------------------------

  void WriteIssues() {
    JsonArrayFile issues(dir_ / "issues.json", stats_);
    IssuePlan plan;
    for (uint64_t n = timeline_.issues(); n-- > 0;) {
      PlanIssue(n, plan);
      TextRng rng(Key(kTagIssueText, n));
      PlanIssueComments(plan, rng);
      const std::string title = IssueTitle(plan);
      issues.Add(IssueJson(plan, title, rng));
      WriteIssueComments(plan, title, rng);
      if (truth_.enabled()) truth_.Add(IssueTruth(plan));
      ++stats_.issues;
    }
    issues.Finish();
  }

  // Its own stream, so that PRs restating the title can recompute it.
  std::string IssueTitle(const IssuePlan& p) const {
    constexpr int kAttempts = 3;  // templates tried before a long title is cut
    TextRng rng(Key(kTagIssueTitle, p.index));
    const TextCtx ctx{p.topic, p.created, {}, {}, {}};
    std::string title;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      title.clear();
      Expand(p.zh ? rng.Pick(kIssueTitlesZh) : rng.Pick(kIssueTitlesEn), ctx, rng, title);
      if (CodePoints(title) <= kTitleMax) break;
    }
    FitTitle(title, p.zh, ctx, rng);
    return title;
  }

  void AppendEnvironment(std::string& out, const Sections& s, const Topic& t) const {
    out += s.environment;
    out += s.hardware;
    out += kHardware[t.hw];
    out += '\n';
    out += s.cann;
    out += kCann[t.cann];
    out += '\n';
    if (t.on_mindspore) {
      out += s.framework_ms;
      out += kMindSpore[t.mindspore];
    } else {
      out += s.framework_torch;
      out += kTorchNpu[t.torch_npu];
    }
    out += '\n';
    out += s.python;
    out += kPythons[t.python];
    out += '\n';
    out += s.os;
    out += kOses[t.os];
  }

  void AppendReproduce(std::string& out, const Sections& s, bool zh, const TextCtx& ctx,
                       TextRng& rng) const {
    out += s.reproduce;
    const Pool steps = zh ? Pool(kReproStepsZh) : Pool(kReproStepsEn);
    const uint64_t count = 2 + rng.Below(2);
    for (uint64_t k = 0; k < count; ++k) {
      // One step from each of count consecutive stretches of the pool keeps the order.
      const uint64_t lo = k * steps.size() / count;
      const uint64_t hi = (k + 1) * steps.size() / count;
      AppendInt(out, static_cast<int64_t>(k + 1));
      out += ". ";
      Expand(steps[lo + rng.Below(hi - lo)], ctx, rng, out);
      out += '\n';
    }
    out += '\n';
    Expand(ctx.topic.on_mindspore ? kReproCodeMindSpore : kReproCodeTorch, ctx, rng, out);
  }

  // A log block: Python traceback, CANN log lines, then gdb frames ("#0 ...", whose
  // numbers are exactly what a linker must not read as issue references).
  void AppendLog(std::string& out, const Sections& s, size_t target, const TextCtx& ctx,
                 TextRng& rng) const {
    out += s.log;
    out += "```\n";
    size_t length = CodePoints(out);
    const auto add_line = [&](std::string_view prefix, std::string_view text) {
      const size_t before = out.size();
      out += prefix;
      Expand(text, ctx, rng, out);
      out += '\n';
      length += CodePoints(std::string_view(out).substr(before));
    };
    size_t lines = 0;
    for (const LogLine& line : kLogLines) {
      if (length >= target) break;
      if (line.optional && rng.Percent(kSkipOptionalLogLinePercent)) continue;
      add_line({}, line.text);
      ++lines;
    }
    for (int64_t frame = 0; lines < kMaxTraceLines && length < target; ++lines, ++frame) {
      add_line("#" + IntString(frame), kBacktraceFrame);
    }
    out += "```";
  }

  void BuildIssueBody(const IssuePlan& p, TextRng& rng, std::string& out) const {
    out.clear();
    const std::string related =
        p.duplicate_of == kNone ? std::string() : IssueRef(IssueNumber(p.duplicate_of));
    constexpr int64_t kLogBeforeFiling = 2 * kDay;
    constexpr size_t kOpeningSentences = 3;  // the first few set the scene
    const TextCtx ctx{p.topic, p.created - rng.Between(kMinute, kLogBeforeFiling), related, {}, {}};
    const Sections& s = p.zh ? kSectionsZh : kSectionsEn;
    const Pool sentences = p.zh ? Pool(kIssueSentencesZh) : Pool(kIssueSentencesEn);
    const size_t target = rng.Skewed(kBodyMin, kBodyMax - kLongestPiece);
    constexpr size_t kDescriptionTarget = 120;
    out += s.description;
    const size_t opening = rng.Below(kOpeningSentences);
    Expand(sentences[opening], ctx, rng, out);
    FillFrom(out, std::min(target, kDescriptionTarget), sentences, opening + 1, p.zh ? "" : " ",
             ctx, rng);
    if (CodePoints(out) < target) AppendEnvironment(out, s, p.topic);
    if (CodePoints(out) < target) AppendReproduce(out, s, p.zh, ctx, rng);
    if (CodePoints(out) < target) AppendLog(out, s, target, ctx, rng);
    if (CodePoints(out) < target) {
      constexpr uint32_t kRelatedIssuePercent = 30;
      out += s.extra;
      const bool mention = !related.empty() && rng.Percent(kRelatedIssuePercent);
      const std::string_view related_sentence = p.zh ? kRelatedIssueZh : kRelatedIssueEn;
      Expand(mention ? related_sentence : rng.Pick(sentences), ctx, rng, out);
      FillTo(out, target, sentences, p.zh ? "" : " ", ctx, rng);
    }
    TruncateCodePoints(out, kBodyMax);
  }

  // The comment that explains the outcome, if any, and when it was written.
  bool OutcomeComment(const IssuePlan& p, TextRng& rng, CommentSpec& spec) const {
    const uint32_t maintainer = static_cast<uint32_t>(rng.Below(kMaintainers));
    spec = {p.closed, maintainer, CommentKind::kAnswer, p.zh};
    const bool fix_merged = p.fate.fix_pr != kNone && Timing(p.fate.fix_pr).finished <= kSnapshot;
    switch (p.outcome) {
      case Outcome::kOpen:
        if (p.fate.fix_pr == kNone) return false;
        if (fix_merged) return FixedByComment(p, rng, spec);  // merged, not closed yet
        if (!rng.Percent(kPendingCommentPercent)) return false;
        spec.time = Timing(p.fate.fix_pr).created + rng.Between(kMinute, kDay);
        spec.kind = CommentKind::kPending;
        return spec.time > p.created && spec.time <= kSnapshot;
      case Outcome::kFixed:
        return FixedByComment(p, rng, spec);
      case Outcome::kAnswered:
        spec.time -= rng.Between(0, 2 * kHour);
        break;
      case Outcome::kDuplicate:
        spec.time -= rng.Between(0, kSecondsAfterMax);
        spec.kind = CommentKind::kDuplicate;
        break;
      case Outcome::kStale:
        spec.user = kBotUser;
        spec.kind = CommentKind::kStale;
        break;
      case Outcome::kWontfix:
        spec.time -= rng.Between(0, 10 * kMinute);
        spec.kind = CommentKind::kWontfix;
        break;
      case Outcome::kVerified:
        spec.time -= rng.Between(1, kSecondsAfterMax);
        spec.kind = CommentKind::kVerify;
        break;
    }
    spec.time = std::max(spec.time, p.created + kMinute);
    return true;
  }

  // "Fixed by !N" some time after the merge, for some fixed issues.
  bool FixedByComment(const IssuePlan& p, TextRng& rng, CommentSpec& spec) const {
    if (!rng.Percent(kFixedByCommentPercent)) return false;
    const int64_t merged = Timing(p.fate.fix_pr).finished;
    spec.time = std::min(kSnapshot, merged + rng.Between(kMinute, 3 * kHour));
    spec.time = std::max(spec.time, p.created + kMinute);
    spec.kind = CommentKind::kFixedBy;
    return true;
  }

  // Fills comments_ with p.comments comments in time order: a conversation after filing
  // (a maintainer asks, the author replies, ...), the last one replaced by the outcome
  // comment when there is one.
  void PlanIssueComments(const IssuePlan& p, TextRng& rng) {
    constexpr int64_t kFirstResponse = 5 * kMinute;
    constexpr uint32_t kMeTooPercent = 15;
    constexpr uint32_t kOtherLanguagePercent = 20;
    comments_.clear();
    CommentSpec outcome{};
    const bool has_outcome = p.comments > 0 && OutcomeComment(p, rng, outcome);
    const uint32_t generic = p.comments - (has_outcome ? 1 : 0);
    const int64_t start = p.created + kFirstResponse;
    const int64_t end = has_outcome ? outcome.time : (p.closed != 0 ? p.closed : kSnapshot);
    const auto window = static_cast<uint64_t>(std::max<int64_t>(1, end - start));
    for (uint32_t k = 0; k < generic; ++k) {
      const int64_t time = std::min(end, start + static_cast<int64_t>(rng.Below(window)));
      comments_.push_back({time, 0, CommentKind::kAnalysis, p.zh});
    }
    std::sort(comments_.begin(), comments_.end(),
              [](const CommentSpec& a, const CommentSpec& b) { return a.time < b.time; });
    for (uint32_t k = 0; k < generic; ++k) {
      CommentSpec& c = comments_[k];
      c.zh = rng.Percent(kOtherLanguagePercent) ? !p.zh : p.zh;
      c.user = static_cast<uint32_t>(rng.Below(kMaintainers));
      if (k == 0) {
        c.kind = CommentKind::kAsk;
      } else if (rng.Percent(kMeTooPercent)) {
        c.kind = CommentKind::kMeToo;
        c.user = kMaintainers + static_cast<uint32_t>(rng.Below(kHumanUsers - kMaintainers));
      } else if (k % 2 == 1) {
        c.kind = CommentKind::kReply;
        c.user = p.author;
      }
    }
    if (has_outcome) comments_.push_back(outcome);
  }

  static Pool CommentPool(CommentKind kind, bool zh) {
    switch (kind) {
      case CommentKind::kAsk:
        return zh ? Pool(kAskZh) : Pool(kAskEn);
      case CommentKind::kReply:
        return zh ? Pool(kReplyZh) : Pool(kReplyEn);
      case CommentKind::kAnalysis:
        return zh ? Pool(kAnalysisZh) : Pool(kAnalysisEn);
      case CommentKind::kMeToo:
        return zh ? Pool(kMeTooZh) : Pool(kMeTooEn);
      case CommentKind::kFixedBy:
        return zh ? Pool(kFixedByZh) : Pool(kFixedByEn);
      case CommentKind::kPending:
        return zh ? Pool(kPendingZh) : Pool(kPendingEn);
      case CommentKind::kAnswer:
        return zh ? Pool(kAnswerZh) : Pool(kAnswerEn);
      case CommentKind::kDuplicate:
        return zh ? Pool(kDuplicateZh) : Pool(kDuplicateEn);
      case CommentKind::kStale:
        return zh ? Pool(kStaleZh) : Pool(kStaleEn);
      case CommentKind::kWontfix:
        return zh ? Pool(kWontfixZh) : Pool(kWontfixEn);
      case CommentKind::kVerify:
        return zh ? Pool(kVerifyZh) : Pool(kVerifyEn);
      case CommentKind::kReview:
        return zh ? Pool(kReviewZh) : Pool(kReviewEn);
    }
    return {};
  }

  // Pool that pads a comment of this kind up to its length.
  static Pool FillerPool(CommentKind kind, bool zh) {
    switch (kind) {
      case CommentKind::kAsk:
      case CommentKind::kReply:
      case CommentKind::kAnalysis:
      case CommentKind::kReview:
        return CommentPool(kind, zh);
      case CommentKind::kMeToo:
        return CommentPool(CommentKind::kReply, zh);
      case CommentKind::kPending:
        return CommentPool(CommentKind::kAnalysis, zh);
      default:
        return zh ? Pool(kClosingZh) : Pool(kClosingEn);
    }
  }

  void BuildComment(const CommentSpec& c, const TextCtx& ctx, TextRng& rng,
                    std::string& out) const {
    out.clear();
    const size_t target = rng.Skewed(kCommentMin, kCommentMax - kLongestPiece / 2);
    Expand(rng.Pick(CommentPool(c.kind, c.zh)), ctx, rng, out);
    FillTo(out, target, FillerPool(c.kind, c.zh), c.zh ? "" : " ", ctx, rng);
    TruncateCodePoints(out, kCommentMax);
  }

  Json IssueJson(const IssuePlan& p, const std::string& title, TextRng& rng) {
    const bool closed = p.closed != 0;
    int64_t updated = std::max(p.created, p.closed);
    if (!comments_.empty()) updated = std::max(updated, comments_.back().time);
    BuildIssueBody(p, rng, text_);

    Json j;
    j["id"] = IssueId(p.index);
    j["number"] = IssueNumberJson(p.number);
    j["title"] = title;
    j["body"] = text_;
    j["state"] = IssueState(p);
    if (!github()) j["issue_state"] = IssueCustomState(p);
    j["user"] = catalog_.users[p.author];
    j["labels"] = IssueLabels(p);
    j["html_url"] = IssueUrl(p.number);
    j["created_at"] = Time(p.created);
    j["updated_at"] = Time(updated);
    switch (o_.platform) {
      case Platform::kGitCode:
        j["finished_at"] = TimeOrUnset(p.closed);
        j["closed_at"] = nullptr;
        break;
      case Platform::kGitee:
        j["finished_at"] = TimeOrUnset(p.closed);
        break;
      case Platform::kGitHub:
        j["closed_at"] = TimeOrUnset(p.closed);
        j["state_reason"] = !closed ? Json(nullptr)
                            : p.outcome == Outcome::kWontfix || p.outcome == Outcome::kStale ||
                                    p.outcome == Outcome::kDuplicate
                                ? Json("not_planned")
                                : Json("completed");
        break;
    }
    j["comments"] = comments_.size();
    return j;
  }

  std::string_view IssueState(const IssuePlan& p) const {
    if (p.closed == 0) {
      return o_.platform == Platform::kGitee && p.in_progress ? "progressing" : "open";
    }
    return o_.platform == Platform::kGitee && p.outcome == Outcome::kWontfix ? "rejected"
                                                                             : "closed";
  }

  static std::string_view IssueCustomState(const IssuePlan& p) {
    if (p.closed == 0) return p.in_progress ? "进行中" : "待办的";
    return p.outcome == Outcome::kWontfix ? "已拒绝" : "已完成";
  }

  Json IssueLabels(const IssuePlan& p) const {
    Json labels = Json::array();
    labels.push_back(catalog_.labels[p.kind_label]);
    for (uint32_t k = 0; k < p.topic_labels; ++k) {
      const uint32_t span = kLabelCount - kFirstTopicLabel;
      labels.push_back(catalog_.labels[kFirstTopicLabel + (p.topic_label_pick + k) % span]);
    }
    if (p.outcome == Outcome::kDuplicate) labels.push_back(catalog_.labels[kLabelDuplicate]);
    if (p.outcome == Outcome::kWontfix) labels.push_back(catalog_.labels[kLabelWontfix]);
    if (p.outcome == Outcome::kStale) labels.push_back(catalog_.labels[kLabelStale]);
    return labels;
  }

  void WriteIssueComments(const IssuePlan& p, const std::string& title, TextRng& rng) {
    const std::string duplicate_ref =
        p.duplicate_of == kNone ? std::string() : IssueRef(IssueNumber(p.duplicate_of));
    const uint64_t pr_number = p.fate.fix_pr == kNone ? 0 : PrNumber(p.fate.fix_pr);
    const std::string pr_ref = pr_number == 0 ? std::string() : PrRef(pr_number);
    const std::string pr_url = pr_number == 0 ? std::string() : PrUrl(pr_number);

    Json array = Json::array();
    for (uint32_t k = 0; k < comments_.size(); ++k) {
      const CommentSpec& c = comments_[k];
      const TextCtx ctx{p.topic, c.time, duplicate_ref, pr_ref, pr_url};
      BuildComment(c, ctx, rng, text_);
      const int64_t id = IssueId(p.index) * kCommentIdsPerItem + k;
      Json j;
      j["id"] = id;
      if (github()) {
        j["html_url"] = IssueUrl(p.number) + "#issuecomment-" + IntString(id);
        j["issue_url"] = "https://api.github.com/repos/" + full_name_ + "/issues/" + p.number;
        j["user"] = catalog_.users[c.user];
        j["created_at"] = Time(c.time);
        j["updated_at"] = Time(c.time);
        j["body"] = text_;
      } else {
        j["body"] = text_;
        j["user"] = catalog_.users[c.user];
        if (o_.platform == Platform::kGitee) j["source"] = nullptr;
        Json target = {
            {"issue", {{"id", IssueId(p.index)}, {"title", title}, {"number", p.number}}}};
        if (o_.platform == Platform::kGitee) target["pull_request"] = nullptr;
        j["target"] = std::move(target);
        j["created_at"] = Time(c.time);
        j["updated_at"] = Time(c.time);
      }
      array.push_back(std::move(j));
    }
    const fs::path dir = dir_ / "issues" / p.number;
    fs::create_directory(dir);
    WriteJsonFile(dir / "comments.json", array, stats_);
    stats_.comments += comments_.size();
  }

  // --- pull requests ----------------------------------------------------------------------

  struct PrText {
    std::string title, body, head, base;
  };

  void WritePulls() {
    JsonArrayFile pulls(dir_ / "pulls.json", stats_);
    PrPlan plan;
    PrText text;
    IssuePlan lead;
    for (uint64_t n = timeline_.prs(); n-- > 0;) {
      PlanPr(n, plan);
      const IssuePlan* lead_issue = LeadIssue(plan, lead) ? &lead : nullptr;
      TextRng rng(Key(kTagPrText, n));
      ComposePr(plan, lead_issue, rng, text);
      const fs::path dir = dir_ / "pulls" / IntString(static_cast<int64_t>(plan.number));
      const bool merged = plan.state == PrState::kMerged;
      if (merged || plan.review_comments > 0) fs::create_directory(dir);
      const int64_t last_comment = WritePrComments(plan, dir, rng);
      pulls.Add(PrJson(plan, text, last_comment));
      if (truth_.enabled()) truth_.Add(PrTruth(plan));
      if (merged) {
        WriteCommits(plan, text, dir, rng);
        WriteFiles(plan, lead_issue, dir, rng);
      }
      ++stats_.prs;
    }
    pulls.Finish();
  }

  // The issue a PR is mostly about: the first it fixes, backports or claims to fix.
  bool LeadIssue(const PrPlan& p, IssuePlan& issue) const {
    uint64_t i = p.false_lead;
    if (!p.fixes.empty())
      i = p.fixes.front();
    else if (!p.backports.empty())
      i = p.backports.front();
    if (i == kNone) return false;
    PlanIssue(i, issue);
    return true;
  }

  // "fix #12", "关联 #12", the issue URL, ... or nothing, as the evidence calls for.
  void AppendReference(std::string& out, Evidence evidence, const std::string& number, bool zh,
                       TextRng& rng) const {
    switch (evidence) {
      case Evidence::kKeyword:
        out += zh ? rng.Pick(kKeywordsZh) : rng.Pick(kKeywordsEn);
        out += " " + IssueRef(number) + "\n";
        break;
      case Evidence::kRef:
        out += zh ? rng.Pick(kRefWordsZh) : rng.Pick(kRefWordsEn);
        out += " " + IssueRef(number) + "\n";
        break;
      case Evidence::kUrl:
        out += zh ? rng.Pick(kUrlLeadsZh) : rng.Pick(kUrlLeadsEn);
        out += IssueUrl(number) + "\n";
        break;
      case Evidence::kKeywordUrl:
        out += zh ? rng.Pick(kKeywordsZh) : rng.Pick(kKeywordsEn);
        out += " " + IssueUrl(number) + "\n";
        break;
      case Evidence::kBranch:
      case Evidence::kSilent:
        break;
    }
  }

  std::string ForeignIssueUrl(TextRng& rng) const {
    constexpr int64_t kForeignIssues = 4000;
    std::string url(WebRoot(o_.platform));
    url += rng.Pick(kForeignRepos);
    url += "/issues/";
    url += o_.platform == Platform::kGitee
               ? GiteeStyleNumber(kGiteeNumberBase + rng.Below(kGiteeNumberBase))
               : IntString(rng.Between(1, kForeignIssues));
    return url;
  }

  // Text that names things without linking an issue of this repository: an issue number
  // inside a code block, another repository's issue URL, a PR reference.
  void AppendNoise(std::string& out, const PrPlan& p, bool zh, TextRng& rng) const {
    const uint64_t issues_before = timeline_.IssueNear(timeline_.PrSlot(p.index));
    if (rng.Percent(kCodeBlockNoisePercent) && issues_before > 0) {
      const std::string ref = IssueRef(IssueNumber(rng.Below(issues_before)));
      out += "\n```bash\n";
      out +=
          rng.Percent(50) ? "# fix " + ref + ": temporary workaround" : "# workaround from " + ref;
      out += ", remove after CANN ";
      out += kCann[p.topic.fixed_cann];
      out += "\nexport ";
      out += kEnvSettings[p.topic.env];
      out += "\n```\n";
    }
    if (rng.Percent(kForeignUrlNoisePercent)) {
      out += zh ? "\n参考上游修复：" : "\nSee the upstream fix: ";
      out += ForeignIssueUrl(rng);
      out += '\n';
    }
    if (rng.Percent(kPrRefNoisePercent) && p.index > 0) {
      out += zh ? "\n依赖 " : "\nDepends on ";
      out += PrRef(PrNumber(rng.Below(p.index)));
      out += zh ? " 先合入。\n" : ".\n";
    }
  }

  std::string BranchFor(const std::string& number, TextRng& rng) const {
    if (o_.platform == Platform::kGitee) return rng.Percent(50) ? number : "fix/" + number;
    return (rng.Percent(50) ? "issue-" : "fix/") + number;
  }

  void ComposePr(const PrPlan& p, const IssuePlan* lead, TextRng& rng, PrText& text) const {
    const Topic& topic = lead != nullptr ? lead->topic : p.topic;
    constexpr uint32_t kFollowIssueLanguagePercent = 80;
    const bool zh = lead != nullptr && rng.Percent(kFollowIssueLanguagePercent) ? lead->zh : p.zh;
    const TextCtx ctx{topic, p.timing.created, {}, {}, {}};

    // Evidence per fixed issue; a branch can name one issue only.
    std::string refs;
    text.head.clear();
    for (const uint64_t i : p.fixes) {
      auto evidence = static_cast<Evidence>(rng.Weighted(kEvidenceWeights));
      const std::string number = IssueNumber(i);
      if (evidence == Evidence::kBranch) {
        if (p.fixes.size() == 1)
          text.head = BranchFor(number, rng);
        else
          evidence = Evidence::kKeyword;
      }
      AppendReference(refs, evidence, number, zh, rng);
    }
    if (p.kind == PrKind::kBackport) {
      text.head = "cherry-pick-" + IntString(static_cast<int64_t>(PrNumber(p.backport_of)));
      refs += "cherry-pick " + PrRef(PrNumber(p.backport_of)) + "\n";
      for (const uint64_t i : p.backports) {
        AppendReference(refs, Evidence::kRef, IssueNumber(i), zh, rng);
      }
    }
    if (p.kind == PrKind::kFalseLead) {
      constexpr uint32_t kFalseLeadBranchPercent = 30;
      AppendReference(refs, Evidence::kKeyword, lead->number, zh, rng);
      if (rng.Percent(kFalseLeadBranchPercent)) text.head = BranchFor(lead->number, rng);
    }
    if (text.head.empty()) Expand(rng.Pick(kBranchTemplates), ctx, rng, text.head);
    text.base = p.kind == PrKind::kBackport ? std::string(rng.Pick(kReleaseBranches))
                                            : std::string(DefaultBranch());

    ComposePrTitle(p, lead, zh, text.base, ctx, rng, text.title);
    ComposePrBody(p, zh, refs, ctx, rng, text.body);
  }

  void ComposePrTitle(const PrPlan& p, const IssuePlan* lead, bool zh, const std::string& base,
                      const TextCtx& ctx, TextRng& rng, std::string& title) const {
    title.clear();
    // A fix written before its issue was filed shares the title verbatim.
    const bool filed_after =
        p.kind == PrKind::kFix && lead->fate.close_mode == CloseMode::kFixedBeforeFiled;
    if (p.kind == PrKind::kBackport) {
      title = "[" + base + "] " + IssueTitle(*lead);
    } else if (lead != nullptr && (filed_after || rng.Percent(kRestateTitlePercent))) {
      if (!filed_after) title = lead->zh ? "修复" : "Fix: ";
      title += IssueTitle(*lead);
    } else if (p.kind == PrKind::kOther) {
      Expand(zh ? rng.Pick(kOtherTitlesZh) : rng.Pick(kOtherTitlesEn), ctx, rng, title);
    } else {
      Expand(zh ? rng.Pick(kFixTitlesZh) : rng.Pick(kFixTitlesEn), ctx, rng, title);
    }
    FitTitle(title, zh, ctx, rng);
  }

  // Ascend's Chinese PR template, or vllm-ascend's English one.
  void ComposePrBody(const PrPlan& p, bool zh, const std::string& refs, const TextCtx& ctx,
                     TextRng& rng, std::string& body) const {
    body.clear();
    const bool fix_like = p.kind != PrKind::kOther;
    const Pool sentences = fix_like ? (zh ? Pool(kFixSentencesZh) : Pool(kFixSentencesEn))
                                    : (zh ? Pool(kOtherSentencesZh) : Pool(kOtherSentencesEn));
    constexpr size_t kDescriptionMin = 20;
    constexpr size_t kDescriptionMax = 240;
    constexpr uint32_t kTestTablePercent = 30;
    const size_t description = rng.Skewed(kDescriptionMin, kDescriptionMax);
    const std::string_view none = zh ? "无\n" : "N/A\n";
    if (zh) {
      body += "### 关联 Issue\n";
      body += refs.empty() ? none : refs;
      body += "\n### 修改描述\n";
      FillTo(body, CodePoints(body) + description, sentences, "", ctx, rng);
      body += '\n';
      AppendNoise(body, p, zh, rng);
      body += "\n### 自验证\n";
      Expand("- [x] {hw} 验证通过\n- [x] UT 通过\n- [ ] 文档更新\n", ctx, rng, body);
      if (rng.Percent(kTestTablePercent)) {
        body += '\n';
        Expand(kTestTableZh, ctx, rng, body);
      }
    } else {
      body += "### What this PR does / why we need it?\n";
      FillTo(body, CodePoints(body) + description, sentences, " ", ctx, rng);
      body += "\n\n";
      body += refs.empty() ? none : refs;
      AppendNoise(body, p, zh, rng);
      body += "\n### Does this PR introduce _any_ user-facing change?\nNo.\n";
      body += "\n### How was this patch tested?\n";
      Expand("CI passed with new UT; verified on {hw} with CANN {cann}.\n", ctx, rng, body);
      if (rng.Percent(kTestTablePercent)) {
        body += '\n';
        Expand(kTestTableEn, ctx, rng, body);
      }
    }
  }

  std::string CommitSha(uint64_t j, uint64_t k) const {
    return HexId(Key(kTagCommitSha, j * kCommitKeysPerPr + k), 40);
  }

  Json PrJson(const PrPlan& p, const PrText& text, int64_t last_comment) const {
    const bool merged = p.state == PrState::kMerged;
    const int64_t finished = p.state == PrState::kOpen ? 0 : p.timing.finished;
    const int64_t updated = std::max({p.timing.created, finished, last_comment});

    Json j;
    j["id"] = PrId(p.index);
    j["number"] = p.number;
    if (o_.platform == Platform::kGitCode) j["iid"] = p.number;
    j["title"] = text.title;
    j["body"] = text.body;
    j["state"] = PrStateName(p.state);
    j["user"] = catalog_.users[p.author];
    j["html_url"] = PrUrl(p.number);
    j["created_at"] = Time(p.timing.created);
    j["updated_at"] = Time(updated);
    j["merged_at"] = TimeOrUnset(merged ? finished : 0);
    j["closed_at"] = TimeOrUnset(finished);
    if (github()) {
      j["merge_commit_sha"] = merged ? Json(CommitSha(p.index, kMergeCommitKey)) : Json(nullptr);
    }
    Json head;
    head["label"] = github() ? o_.owner + ":" + text.head : text.head;
    head["ref"] = text.head;
    head["sha"] = CommitSha(p.index, kHeadCommitKey);
    switch (o_.platform) {
      case Platform::kGitCode:
        head["repo"] = {{"full_path", full_name_}};
        break;
      case Platform::kGitee:
        head["repo"] = {{"full_name", full_name_}, {"path", name_}};
        break;
      case Platform::kGitHub:
        head["repo"] = {{"full_name", full_name_}};
        break;
    }
    j["head"] = std::move(head);
    j["base"] = {{"label", github() ? o_.owner + ":" + text.base : text.base}, {"ref", text.base}};
    if (o_.platform == Platform::kGitCode) {
      j["source_branch"] = text.head;
      j["target_branch"] = text.base;
      j["close_related_issue"] = p.kind == PrKind::kFix && p.close_related ? 1 : 0;
      j["merged_by"] = merged ? catalog_.users[p.merger] : Json(nullptr);
    }
    if (github()) j["draft"] = false;
    return j;
  }

  std::string_view PrStateName(PrState state) const {
    switch (state) {
      case PrState::kOpen:
        return "open";
      case PrState::kClosed:
        return "closed";
      case PrState::kMerged:
        return github() ? "closed" : "merged";
    }
    return "";
  }

  // Writes the PR's review comments, if it has any, into dir (which exists then); returns
  // the time of the last one (0 if none).
  int64_t WritePrComments(const PrPlan& p, const fs::path& dir, TextRng& rng) {
    if (p.review_comments == 0) return 0;
    constexpr int64_t kOpenReviewWindow = 7 * kDay;
    constexpr uint32_t kMentionIssuePercent = 20;
    const uint64_t count = p.review_comments;
    const int64_t end = p.state == PrState::kOpen
                            ? std::min(kSnapshot, p.timing.created + kOpenReviewWindow)
                            : p.timing.finished;
    const int64_t window = std::max<int64_t>(1, end - p.timing.created);
    const std::string issue_ref =
        p.fixes.empty() ? std::string() : IssueRef(IssueNumber(p.fixes.front()));
    const TextCtx ctx{p.topic, p.timing.created, issue_ref, {}, {}};
    const std::string url = PrUrl(p.number);

    Json array = Json::array();
    int64_t last = 0;
    for (uint64_t k = 0; k < count; ++k) {
      const int64_t time =
          p.timing.created + window * static_cast<int64_t>(k + 1) / static_cast<int64_t>(count + 1);
      last = time;
      const CommentSpec c{time, static_cast<uint32_t>(rng.Below(kMaintainers)),
                          CommentKind::kReview, p.zh};
      BuildComment(c, ctx, rng, text_);
      if (k == 0 && !issue_ref.empty() && rng.Percent(kMentionIssuePercent)) {
        text_.insert(0, (p.zh ? "本 PR 修复 " : "This fixes ") + issue_ref + "\n\n");
      }
      const int64_t id = PrId(p.index) * kCommentIdsPerItem + static_cast<int64_t>(k);
      Json j;
      j["id"] = id;
      j["body"] = text_;
      switch (o_.platform) {
        case Platform::kGitCode:
          j["comment_type"] = "pr_comment";
          j["discussion_id"] = HexId(Key(kTagDiscussion, static_cast<uint64_t>(id)), 40);
          j["resolved"] = false;
          break;
        case Platform::kGitee:
          j["html_url"] = url + "#note_" + IntString(id);
          break;
        case Platform::kGitHub:
          j["path"] = kFiles[p.topic.file];
          j["html_url"] = url + "#discussion_r" + IntString(id);
          break;
      }
      j["user"] = catalog_.users[c.user];
      j["created_at"] = Time(time);
      j["updated_at"] = Time(time);
      array.push_back(std::move(j));
    }
    WriteJsonFile(dir / "comments.json", array, stats_);
    stats_.comments += count;
    return last;
  }

  // 1-3 commits spread from an hour before the PR opened to its merge; the last is the head.
  void WriteCommits(const PrPlan& p, const PrText& text, const fs::path& dir, TextRng& rng) {
    const uint64_t count = 1 + rng.Below(3);
    const int64_t start = p.timing.created - kHour;
    const int64_t span = p.timing.finished - start;
    const std::string& login = catalog_.logins[p.author];
    Json array = Json::array();
    for (uint64_t k = 0; k < count; ++k) {
      const std::string sha = CommitSha(p.index, k + 1 == count ? kHeadCommitKey : k + 1);
      const int64_t when =
          start + span * static_cast<int64_t>(k + 1) / static_cast<int64_t>(count + 1);
      std::string message = k == 0 ? text.title : std::string(rng.Pick(kCommitMessages));
      if (k == 0 && !p.fixes.empty() && rng.Percent(kCommitKeywordPercent)) {
        message += "\n\nfix " + IssueRef(IssueNumber(p.fixes.front()));
      }
      const Json signature = {{"name", catalog_.names[p.author]},
                              {"email", login + "@example.com"},
                              {"date", Time(when)}};
      Json j;
      j["sha"] = sha;
      j["html_url"] = web_url_ + "/commit/" + sha;
      j["commit"] = {{"author", signature}, {"committer", signature}, {"message", message}};
      j["author"] = {{"login", login}};
      array.push_back(std::move(j));
    }
    WriteJsonFile(dir / "commits.json", array, stats_);
  }

  static Pool CodeLinesFor(std::string_view file) {
    if (file.ends_with(".py")) return Pool(kPyLines);
    if (file.ends_with(".cpp") || file.ends_with(".cc") || file.ends_with(".h"))
      return Pool(kCppLines);
    return Pool(kTextLines);
  }

  static void AppendDiffLines(std::string& diff, char sign, int64_t count, Pool lines,
                              TextRng& rng) {
    for (int64_t l = 0; l < count; ++l) {
      diff += sign;
      diff += rng.Pick(lines);
      diff += '\n';
    }
  }

  // 1-4 distinct files; the first is the file the issue names (patch overlap evidence).
  void WriteFiles(const PrPlan& p, const IssuePlan* lead, const fs::path& dir, TextRng& rng) {
    constexpr uint64_t kMaxFiles = 4;
    constexpr uint64_t kFileCount = std::size(kFiles);
    const uint64_t first = lead != nullptr ? lead->topic.file : p.topic.file;
    const uint64_t count = 1 + rng.Below(kMaxFiles);
    const uint64_t step = 1 + rng.Below((kFileCount - 1) / (kMaxFiles - 1));  // keeps them distinct
    Json array = Json::array();
    for (uint64_t k = 0; k < count; ++k) {
      const std::string_view file = kFiles[(first + k * step) % kFileCount];
      const Pool lines = CodeLinesFor(file);
      const int64_t removed = rng.Between(0, 3);
      const int64_t added = rng.Between(1, 6);
      const int64_t at = rng.Between(10, 900);
      std::string diff = "@@ -" + IntString(at) + "," + IntString(removed + 3) + " +" +
                         IntString(at) + "," + IntString(added + 3) + " @@\n";
      AppendDiffLines(diff, '-', removed, lines, rng);
      AppendDiffLines(diff, '+', added, lines, rng);
      const bool is_new = file.starts_with("tests/") && removed == 0;
      Json j;
      j["sha"] = HexId(Key(kTagFileSha, p.index * kMaxFiles + k), 40);
      j["filename"] = file;
      j["status"] = is_new ? "added" : "modified";
      if (github()) {
        j["additions"] = added;
        j["deletions"] = removed;
        j["changes"] = added + removed;
        j["patch"] = diff;
      } else {
        j["additions"] = IntString(added);
        j["deletions"] = IntString(removed);
        j["patch"] = {{"diff", diff},       {"new_path", file},      {"old_path", file},
                      {"new_file", is_new}, {"renamed_file", false}, {"deleted_file", false}};
      }
      array.push_back(std::move(j));
    }
    WriteJsonFile(dir / "files.json", array, stats_);
  }

  // --- answer key -----------------------------------------------------------------------

  std::string RepoRef() const { return std::string(PlatformName(o_.platform)) + ":" + full_name_; }

  static std::string_view OutcomeName(Outcome outcome) {
    switch (outcome) {
      case Outcome::kOpen:
        return "open";
      case Outcome::kFixed:
        return "fixed";
      case Outcome::kAnswered:
        return "answered";
      case Outcome::kDuplicate:
        return "duplicate";
      case Outcome::kStale:
        return "stale";
      case Outcome::kWontfix:
        return "wontfix";
      case Outcome::kVerified:
        return "verified";
    }
    return "";
  }

  static std::string_view CloseModeName(CloseMode mode) {
    switch (mode) {
      case CloseMode::kAtMerge:
        return "at_merge";
      case CloseMode::kSecondsAfter:
        return "seconds_after";
      case CloseMode::kWeeksAfter:
        return "weeks_after";
      case CloseMode::kFixedBeforeFiled:
        return "fixed_before_filed";
    }
    return "";
  }

  static std::string_view PrKindName(PrKind kind) {
    switch (kind) {
      case PrKind::kFix:
        return "fix";
      case PrKind::kBackport:
        return "backport";
      case PrKind::kFalseLead:
        return "false_lead";
      case PrKind::kOther:
        return "other";
    }
    return "";
  }

  // outcome is what holds at the snapshot; fix_pr is set for fixed issues and for open
  // issues whose fix is still under review.
  Json IssueTruth(const IssuePlan& p) const {
    Json j;
    j["repo"] = RepoRef();
    j["issue"] = p.number;
    j["outcome"] = OutcomeName(p.outcome);
    if (p.fate.fix_pr != kNone) {
      j["fix_pr"] = PrNumber(p.fate.fix_pr);
      j["close_mode"] = CloseModeName(p.fate.close_mode);
    }
    if (p.outcome == Outcome::kDuplicate) j["duplicate_of"] = IssueNumber(p.duplicate_of);
    return j;
  }

  Json PrTruth(const PrPlan& p) const {
    Json j;
    j["repo"] = RepoRef();
    j["pr"] = p.number;
    j["kind"] = PrKindName(p.kind);
    j["state"] = p.state == PrState::kMerged ? "merged"
                 : p.state == PrState::kOpen ? "open"
                                             : "closed";
    Json fixes = Json::array();
    for (const uint64_t i : p.fixes) fixes.push_back(IssueNumber(i));
    j["fixes"] = std::move(fixes);
    if (p.kind == PrKind::kBackport) {
      Json backports = Json::array();
      for (const uint64_t i : p.backports) backports.push_back(IssueNumber(i));
      j["backport_of"] = PrNumber(p.backport_of);
      j["backports"] = std::move(backports);
    }
    if (p.kind == PrKind::kFalseLead) j["claims"] = IssueNumber(p.false_lead);
    return j;
  }

  // --- state ------------------------------------------------------------------------------

  const Options& o_;
  const Catalog& catalog_;
  Stats& stats_;
  TruthFile& truth_;
  uint64_t repo_index_;
  uint64_t repo_key_;
  std::string name_, full_name_, web_url_;
  fs::path dir_;
  Timeline timeline_;
  uint64_t more_comment_threshold_;
  std::vector<CommentSpec> comments_;  // reused per issue
  std::string text_;                   // reused text buffer
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = ParseOptions(argc, argv);
    const auto started = std::chrono::steady_clock::now();
    const Catalog catalog = BuildCatalog(options.platform);
    Stats stats;
    TruthFile truth(options.truth);
    for (uint64_t r = 0; r < options.repos; ++r) {
      RepoWriter(options, r, catalog, stats, truth).Write();
    }
    truth.Finish();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(
        stderr,
        "fixgraph_gen_dump: platform=%s repos=%llu issues=%llu prs=%llu comments=%llu "
        "files=%llu bytes=%llu (%.1f MiB) in %.2f s\n",
        std::string(PlatformName(options.platform)).c_str(),
        static_cast<unsigned long long>(stats.repos), static_cast<unsigned long long>(stats.issues),
        static_cast<unsigned long long>(stats.prs), static_cast<unsigned long long>(stats.comments),
        static_cast<unsigned long long>(stats.files), static_cast<unsigned long long>(stats.bytes),
        static_cast<double>(stats.bytes) / (1 << 20), seconds);
    return 0;
  } catch (const std::invalid_argument& e) {
    std::cerr << "fixgraph_gen_dump: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fixgraph_gen_dump: " << e.what() << "\n";
    return 1;
  }
}
