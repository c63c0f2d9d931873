// gen_dump_vocab.h: the vocabulary of fixgraph_gen_dump: the Ascend / MindSpore words, text
// templates (with {placeholders}, expanded by gen_dump_text.h), comment pools by kind, code lines,
// user names and labels. Data only, laid out by hand; the order of every table is part of the
// output (items draw indices into them), so adding or moving an entry changes every dump.
#pragma once

#include "gen_dump_shape.h"

#include <array>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace gen_dump {

// ---------------------------------------------------------------------------------------
// Vocabulary (Ascend / MindSpore)
// Data tables, laid out by hand.
// clang-format off

inline constexpr std::string_view kApis[] = {
    "aclnnGroupedMatmulV3", "aclnnGroupedMatmulV4", "aclnnFlashAttentionScore",
    "aclnnFlashAttentionScoreGrad", "aclnnIncreFlashAttentionV4", "aclnnPromptFlashAttentionV3",
    "aclnnFusedInferAttentionScore", "aclnnMatmul", "aclnnBatchMatMul", "aclnnQuantMatmulV4",
    "aclnnWeightQuantBatchMatmulV2", "aclnnAddRmsNorm", "aclnnRmsNorm",
    "aclnnRotaryPositionEmbedding", "aclnnApplyRotaryPosEmb", "aclnnMoeInitRouting",
    "aclnnMoeGatingTopKSoftmax", "aclnnMoeFinalizeRouting", "aclnnSwiGlu", "aclnnLayerNorm",
    "aclnnSoftmax", "aclnnCast", "aclnnIndexPutImpl", "aclnnScatterUpdate", "aclnnTopk",
    "aclnnAllGatherMatmul", "aclnnMatmulReduceScatter", "aclnnGroupNorm", "aclnnConvolution",
    "aclnnEmbedding"};
inline constexpr std::string_view kTorchOps[] = {
    "torch_npu.npu_fusion_attention", "torch_npu.npu_rms_norm", "torch_npu.npu_rotary_mul",
    "torch_npu.npu_grouped_matmul", "torch_npu.npu_moe_init_routing", "torch_npu.npu_swiglu",
    "torch_npu.npu_incre_flash_attention", "torch_npu.npu_quant_matmul",
    "torch.nn.functional.silu", "torch.distributed.all_reduce", "torch.Tensor.index_put_"};
inline constexpr std::string_view kMindSporeOps[] = {
    "mindspore.ops.FlashAttentionScore", "mindspore.mint.matmul", "mindspore.ops.MatMul",
    "mindspore.mint.nn.functional.gelu", "mindspore.ops.AllReduce", "mindspore.ops.RmsNorm",
    "mindspore.mint.softmax"};
inline constexpr std::string_view kHardware[] = {
    "910B", "910B3", "910B4", "Atlas 800T A2", "Atlas 800I A2", "Atlas 900 A3 SuperPoD",
    "310P", "310P3", "Atlas 300I Duo", "Atlas 300I Pro"};
inline constexpr std::string_view kCann[] = {"7.0.0", "8.0.RC2", "8.0.RC3", "8.0.0",
                                      "8.1.RC1", "8.2.RC1", "8.3.RC1"};
inline constexpr std::string_view kTorchNpu[] = {"2.1.0.post8", "2.1.0.post10", "2.3.1.post4",
                                          "2.4.0", "2.5.1", "2.6.0"};
inline constexpr std::string_view kMindSpore[] = {"2.3.1", "2.4.0", "2.4.10", "2.5.0", "2.6.0"};
inline constexpr std::string_view kErrorCodes[] = {
    "EZ9999", "EE9999", "EI9999", "EI0006", "EL0004", "EZ1001", "EE1001", "E40021", "E89999",
    "507033", "507035", "507015", "507014", "507053", "107002", "561003", "-1610252272",
    "ERR99999"};
inline constexpr std::string_view kErrorMessages[] = {
    "call {api} failed, detail:{code}: Inner Error!",
    "NPU out of memory. Tried to allocate {gb}.00 GiB (NPU 0; 60.96 GiB total capacity)",
    // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one message, split at the column limit
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
inline constexpr std::string_view kModels[] = {
    "Qwen2.5-7B", "Qwen2.5-72B", "Qwen3-32B", "Llama-3-8B", "Llama-3.1-70B", "DeepSeek-V3",
    "DeepSeek-R1-Distill-Qwen-14B", "GLM-4-9B", "Baichuan2-13B", "InternLM2-20B",
    "Mixtral-8x7B", "ChatGLM3-6B", "Stable Diffusion XL", "Wan2.1-T2V-14B"};
inline constexpr std::string_view kComponents[] = {
    "MindSpeed", "MindSpeed-LLM", "MindSpeed-MM", "mindformers", "vllm-ascend", "torch_npu",
    "MindIE", "ATB", "op-plugin", "ops-transformer", "HCCL", "MindSpore Lite", "msprof",
    "Ascend Docker Runtime"};
inline constexpr std::string_view kFiles[] = {
    "op_host/grouped_matmul_tiling.cpp", "op_kernel/grouped_matmul.h",
    "op_host/flash_attention_score_tiling.cpp", "op_host/rms_norm_tiling.cpp",
    "torch_npu/csrc/aten/ops/op_api/FlashAttentionKernelNpuOpApi.cpp",
    "torch_npu/utils/_module.py", "mindspeed/core/transformer/moe/moe_utils.py",
    "mindformers/models/llama/llama.py", "vllm_ascend/attention/attention_v1.py",
    "vllm_ascend/worker/model_runner_v1.py",
    "mindspore/ops/kernel/ascend/pyboost/customize/matmul.cc", "src/transformer/ffn/ffn_tiling.cpp",
    "hccl/src/algorithm/all_reduce_ring.cc", "scripts/install_deps.sh", "docs/zh/quick_start.md",
    "tests/ut/test_grouped_matmul.py", "mindspeed_llm/tasks/checkpoint/convert_ckpt.py"};
inline constexpr std::string_view kDtypes[] = {"bfloat16", "float16", "float32", "int8", "int32"};
inline constexpr std::string_view kDims[] = {"1", "2", "8", "16", "32", "64", "128", "256",
                                      "1024", "2048", "4096", "7168", "8192"};
inline constexpr std::string_view kEnvSettings[] = {
    "ASCEND_LAUNCH_BLOCKING=1", "HCCL_CONNECT_TIMEOUT=1200", "HCCL_EXEC_TIMEOUT=1800",
    "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True", "TORCH_TRANSFER_TO_NPU=1",
    "ASCEND_GLOBAL_LOG_LEVEL=0", "ASCEND_RT_VISIBLE_DEVICES=0,1,2,3", "HCCL_BUFFSIZE=400",
    "TASK_QUEUE_ENABLE=2", "INF_NAN_MODE_ENABLE=1", "CPU_AFFINITY_CONF=1"};
inline constexpr std::string_view kPythons[] = {"3.8", "3.9", "3.10", "3.11"};
inline constexpr std::string_view kOses[] = {"openEuler 22.03 LTS", "Ubuntu 22.04", "EulerOS 2.10",
                                      "CentOS 7.6", "Kylin V10 SP2"};
inline constexpr std::string_view kSymptomsZh[] = {
    "报错", "精度异常", "精度不达标", "显存溢出", "性能劣化", "卡死", "进程挂起",
    "出现 coredump", "输出全为 NaN", "loss 不收敛", "编译失败", "结果与 CPU 不一致",
    "训练中断", "推理结果乱码", "显存占用持续增长"};
inline constexpr std::string_view kSymptomsEn[] = {
    "fails", "returns NaN", "runs out of memory", "hangs", "crashes with a coredump",
    "shows an accuracy drop", "is 3x slower than on GPU", "fails to compile",
    "produces garbled output", "leaks device memory"};
inline constexpr std::string_view kPyFiles[] = {
    "torch_npu/utils/_module.py", "torch/nn/modules/module.py", "torch_npu/npu/utils.py",
    "mindspore/common/api.py", "vllm_ascend/worker/model_runner_v1.py",
    "mindspeed/core/transformer/attention.py"};
inline constexpr std::string_view kFuncs[] = {"forward", "_call_impl", "__call__", "synchronize",
                                       "compile_and_run", "execute_model", "run_op"};
inline constexpr std::string_view kReleaseBranches[] = {
    "br_release_cann_8.0.RC3_20241230", "br_release_cann_8.1.RC1", "release/v0.9.1",
    "release/v2.5.1", "r2.5", "v2.1.0-6.0.0"};
inline constexpr std::string_view kRepoDescriptions[] = {
    "训练业务自定义算子集（CATLASS/tilelang-ascend），随 CANN 版本配套发布",
    "Ascend adapter for PyTorch: torch_npu operators, memory allocator and distributed backend",
    "大模型分布式训练加速库，支持 MoE、长序列与 FP8 训练",
    "vLLM hardware plugin for Ascend NPU (910B / Atlas A3)",
    "MindSpore 大模型套件：预训练、微调与推理的一站式工具"};
inline constexpr std::string_view kForeignRepos[] = {"Ascend/pytorch", "Ascend/MindSpeed",
                                              "mindspore/mindspore", "vllm-project/vllm"};

// Issue titles.
inline constexpr std::string_view kIssueTitlesZh[] = {
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
inline constexpr std::string_view kIssueTitlesEn[] = {
    "{api} fails on {hw} with error {code}",
    "[Bug] {op} {sym_en} with {dtype} inputs on CANN {cann}",
    "{model} training {sym_en} after upgrading to CANN {cann}",
    "HCCL allreduce timeout on {hw} x{n} cards ({code})",
    "{comp}: {api} returns wrong results for shape {shape}",
    "RuntimeError {code} when calling {op} on {hw}",
    "[{comp}] device memory leak in {op} in long inference runs",
    "Accuracy mismatch between {hw} and GPU for {op} ({dtype})"};
inline constexpr std::string_view kTitleSuffixZh = "（{hw}，CANN {cann}）";
inline constexpr std::string_view kTitleSuffixEn = " ({hw}, CANN {cann})";

// Issue bodies.
struct Sections {
  std::string_view description, environment, hardware, cann, framework_torch, framework_ms,
      python, os, reproduce, log, extra;
};
inline constexpr Sections kSectionsZh = {"### 问题描述\n", "\n\n### 环境信息\n", "- 硬件：",
                                  "- CANN 版本：", "- torch_npu 版本：", "- MindSpore 版本：",
                                  "- Python：", "- 操作系统：", "\n\n### 复现步骤\n",
                                  "\n\n### 报错信息\n", "\n\n### 补充说明\n"};
inline constexpr Sections kSectionsEn = {"### Describe the bug\n", "\n\n### Environment\n",
                                  "- Hardware: ", "- CANN: ", "- torch_npu: ", "- MindSpore: ",
                                  "- Python: ", "- OS: ", "\n\n### Steps to reproduce\n",
                                  "\n\n### Error log\n", "\n\n### Additional context\n"};
inline constexpr std::string_view kIssueSentencesZh[] = {
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
inline constexpr std::string_view kRelatedIssueZh = "现象和 {issue_ref} 类似，但那里的规避方法无效。";
inline constexpr std::string_view kRelatedIssueEn =
    "This looks like {issue_ref}, but the workaround there does not help.";
inline constexpr std::string_view kIssueSentencesEn[] = {
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
inline constexpr std::string_view kReproStepsZh[] = {
    "安装 CANN {cann} 与 {fw}", "拉取 {comp} master 分支最新代码",
    "执行 `python train.py --model {model} --dtype {dtype}`",
    "使用 8 卡启动：`bash scripts/pretrain_8p.sh`", "等待约 {n} 个 step 后报错"};
inline constexpr std::string_view kReproStepsEn[] = {
    "Install CANN {cann} and {fw}", "Check out the latest {comp} master",
    "Run `python train.py --model {model} --dtype {dtype}`",
    "Launch on 8 cards: `bash scripts/pretrain_8p.sh`", "Wait about {n} steps"};
inline constexpr std::string_view kReproCodeTorch =
    "```python\nimport torch\nimport torch_npu\nx = torch.randn({dims}, "
    "dtype=torch.{dtype}).npu()\nout = {op}(x)\ntorch.npu.synchronize()\n```";
inline constexpr std::string_view kReproCodeMindSpore =
    "```python\nimport numpy as np\nimport mindspore as ms\n"
    "ms.set_context(device_target=\"Ascend\", mode=ms.GRAPH_MODE)\n"
    "x = ms.Tensor(np.random.randn({dims}), ms.{dtype})\nout = {op}(x)\nprint(out.asnumpy())\n```";
// A pasted log, in order; optional lines are sometimes left out.
struct LogLine {
  std::string_view text;
  bool optional;
};
inline constexpr LogLine kLogLines[] = {
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
inline constexpr uint32_t kSkipOptionalLogLinePercent = 40;
inline constexpr std::string_view kBacktraceFrame =
    "  0x0000ffff{addr} in {func} () from /usr/local/Ascend/ascend-toolkit/latest/lib64/"
    "libopapi.so";

// Issue comments by kind.
enum class CommentKind {
  kAsk, kReply, kAnalysis, kMeToo, kFixedBy, kPending, kAnswer, kDuplicate, kStale,
  kWontfix, kVerify, kReview,
};
inline constexpr std::string_view kAskZh[] = {
    "请提供完整的 plog 日志和复现脚本，日志默认在 ~/ascend/log/debug/plog/ 下。",
    "请补充 CANN 和 torch_npu 版本信息，以及 npu-smi info 的输出。",
    "能否设置 {env} 后再跑一次，看看首个报错点？",
    "麻烦确认一下驱动和固件版本是否与 CANN {cann} 配套。",
    "请问是在容器内还是物理机上运行？驱动版本是多少？",
    "方便提供一下 msprof 采集的 profiling 数据吗？"};
inline constexpr std::string_view kAskEn[] = {
    "Please attach the full plog and a minimal repro; logs are under ~/ascend/log/debug/plog/.",
    "Which CANN and torch_npu versions are you on? Please paste the output of npu-smi info.",
    "Could you rerun with {env} and check the first error?",
    "Please check that the driver and firmware match CANN {cann}.",
    "Are you running in a container or on bare metal? Which driver version?",
    "Could you share profiling data collected with msprof?"};
inline constexpr std::string_view kReplyZh[] = {
    "日志已上传，附件是 plog。", "补充一下：{hw} 单卡也能复现。", "试了 {env}，问题依旧。",
    "版本信息：CANN {cann}，{fw}，Python {py}。", "shape 改成 {shape} 后不报错了。",
    "容器内运行，驱动 24.1.RC3。", "profiling 数据已上传到附件。", "换成 {dtype} 之后也一样。"};
inline constexpr std::string_view kReplyEn[] = {
    "Logs uploaded, the plog is attached.", "Also reproduces on a single {hw} card.",
    "Tried {env}, no change.", "Versions: CANN {cann}, {fw}, Python {py}.",
    "With shape {shape} the error goes away.", "Inside a container, driver 24.1.RC3.",
    "Profiling data is attached.", "Same result with {dtype}."};
inline constexpr std::string_view kAnalysisZh[] = {
    "已复现，{hw} + CANN {cann} 下 {api} 在 shape {shape} 时 tiling 失败，正在定位。",
    "初步定位是 {file} 中 workspace 计算没有考虑 {dtype}。",
    "根因是 {op} 在 {dtype} 下累加溢出，{cann2} 会修改为 float32 累加。",
    "看日志是 HCCL 建链超时，建议先排查网络配置和 {env}。",
    "从 profiling 看 {api} 的 AI Core 利用率只有 {pct}%，存在大量尾块。",
    "对比 {cann} 和 {cann2} 的 {file}，发现 tiling 分核策略有变化。"};
inline constexpr std::string_view kAnalysisEn[] = {
    "Reproduced on {hw} with CANN {cann}: {api} tiling fails for shape {shape}. Investigating.",
    "Looks like the workspace size in {file} ignores {dtype}.",
    "Root cause: {op} overflows when accumulating in {dtype}; {cann2} accumulates in float32.",
    "The log shows an HCCL link setup timeout; please check the network and {env}.",
    "Profiling shows {api} at only {pct}% AI Core utilisation, with many tail blocks.",
    "Between {cann} and {cann2} the core split in {file} changed."};
inline constexpr std::string_view kMeTooZh[] = {"我这边在 {hw} 上也遇到了同样的问题，CANN {cann}。",
                                         "+1，{model} 也有这个报错。"};
inline constexpr std::string_view kMeTooEn[] = {"Same here on {hw} with CANN {cann}.",
                                         "+1, {model} hits the same error."};
inline constexpr std::string_view kFixedByZh[] = {"已通过 {pr_ref} 修复，已合入 master。",
                                           "修复 PR：{pr_url}", "{pr_ref} 已合入，请更新代码后验证。"};
inline constexpr std::string_view kFixedByEn[] = {"Fixed by {pr_ref}, please verify with the latest code.",
                                           "Fix PR: {pr_url}", "{pr_ref} is merged, please retry."};
inline constexpr std::string_view kPendingZh[] = {"修复方案见 {pr_ref}，还在评审中。"};
inline constexpr std::string_view kPendingEn[] = {"A fix is under review in {pr_ref}."};
inline constexpr std::string_view kAnswerZh[] = {
    "这是预期行为：{hw} 不支持 {dtype}，请改用 float16。",
    "CANN {cann2} 已修复此问题，请升级后重试。",
    "可以先设置 {env} 规避，正式修复会在后续版本合入。"};
inline constexpr std::string_view kAnswerEn[] = {
    "This is expected: {hw} does not support {dtype}, please use float16.",
    "This is fixed in CANN {cann2}; please upgrade and retry.",
    "As a workaround set {env}; a proper fix comes in a later release."};
inline constexpr std::string_view kDuplicateZh[] = {"重复问题，见 {issue_ref}。"};
inline constexpr std::string_view kDuplicateEn[] = {"Duplicate of {issue_ref}."};
inline constexpr std::string_view kStaleZh[] = {
    "由于该 issue 超过 90 天无更新，将自动关闭。如仍有问题请重新打开。"};
inline constexpr std::string_view kStaleEn[] = {
    "This issue has been automatically closed because it has not had recent activity."};
inline constexpr std::string_view kWontfixZh[] = {"当前版本暂不支持该特性，已记录需求，后续版本评估。"};
inline constexpr std::string_view kWontfixEn[] = {"This is out of scope for {comp}; closing as won't fix."};
inline constexpr std::string_view kVerifyZh[] = {"已验证，问题解决，关闭 issue。",
                                          "在 {hw} + CANN {cann2} 上验证通过，关闭。"};
inline constexpr std::string_view kVerifyEn[] = {"Verified, the problem is gone. Closing.",
                                          "Verified on {hw} with CANN {cann2}, closing."};
inline constexpr std::string_view kReviewZh[] = {
    "/lgtm", "/approve", "CI 失败：codecheck 告警 {n} 个，请修复。", "{hw} 验证通过，可以合入。",
    "请补充 {op} 的 UT。", "这个改动会影响 {hw} 吗？", "编译通过，{hw} 上用例全部通过。",
    "这里建议加上 {dtype} 的 dtype 校验。", "/retest", "检视意见已全部修改。"};
inline constexpr std::string_view kReviewEn[] = {
    "/lgtm", "/approve", "LGTM, thanks!", "Please rebase onto master.",
    "Please add a UT for {op}.", "Does this change affect {hw}?", "Builds fine; all tests pass on {hw}.",
    "Nit: please check the {dtype} path too.", "/retest", "All review comments addressed."};
// Pads comments that settle an issue.
inline constexpr std::string_view kClosingZh[] = {
    "如仍有问题请重新打开 issue。", "该修复会随 CANN {cann2} 一起发布。",
    "修改点在 {file}，补充了 {dtype} 场景的 shape 校验。", "感谢反馈！",
    "规避方法：设置 {env} 后重新运行。", "后续会在 {hw} 上补充对应的看护用例。",
    "已在 {comp} 的 FAQ 中补充说明。"};
inline constexpr std::string_view kClosingEn[] = {
    "Feel free to reopen if it still happens.", "The fix ships with CANN {cann2}.",
    "The change is in {file}: it validates shapes for {dtype}.", "Thanks for the report!",
    "Workaround: set {env} and rerun.", "We will add a regression case on {hw}.",
    "The {comp} FAQ now covers this."};

// Pull requests.
inline constexpr std::string_view kFixTitlesZh[] = {
    "修复 {api} 在 {hw} 上{sym_zh}的问题", "修复 {op} 在 {dtype} 下的精度问题",
    "【{comp}】修复 {api} tiling 计算错误", "修复 HCCL 建链超时问题", "修复 {code} 报错"};
inline constexpr std::string_view kFixTitlesEn[] = {
    "[Bugfix] {api} {sym_en} on {hw}", "fix {op} precision issue for {dtype}",
    "[{comp}] fix tiling of {api} for shape {shape}", "Fix HCCL link timeout on {hw}",
    "Fix {code} when calling {api}"};
inline constexpr std::string_view kOtherTitlesZh[] = {
    "新增 {api} 的 {dtype} 支持", "{comp} 适配 CANN {cann}", "更新 README 中的安装说明",
    "重构 {file} 中的 tiling 逻辑", "补充 {op} 的 UT 用例", "优化 {api} 在 {hw} 上的性能"};
inline constexpr std::string_view kOtherTitlesEn[] = {
    "Add {dtype} support for {api}", "Bump CANN to {cann} in CI", "Refactor tiling logic in {file}",
    "Update docs for {hw}", "Add UT for {op}", "Improve {api} performance on {hw}"};
inline constexpr std::string_view kFixSentencesZh[] = {
    "修复 {api} 在 {dtype} 场景下 tiling 计算错误的问题。",
    "在 {file} 中补充 shape 校验，避免越界访问。",
    "修正 {op} 反向计算时 workspace 大小计算错误。",
    "HCCL 建链超时时间改为读取 HCCL_CONNECT_TIMEOUT。",
    "补充 {hw} 上的精度用例。",
    "{api} 的 tiling 改为按 {n} 核切分。",
    "删除 {file} 中多余的同步操作，性能提升 {pct}%。",
    "{dtype} 输入改为 float32 累加，与 CPU 标杆误差降到 1e-4 以内。"};
inline constexpr std::string_view kFixSentencesEn[] = {
    "Fix the tiling computation of {api} for {dtype}.",
    "Validate shapes in {file} to avoid out-of-bounds access.",
    "Fix the workspace size of the {op} backward pass.",
    "Read the HCCL link timeout from HCCL_CONNECT_TIMEOUT.",
    "Add accuracy cases on {hw}.",
    "Split the {api} tiling over {n} cores.",
    "Drop a redundant synchronisation in {file}, {pct}% faster.",
    "Accumulate {dtype} inputs in float32; error against the CPU golden is now below 1e-4."};
inline constexpr std::string_view kOtherSentencesZh[] = {
    "新增 {api} 对 {dtype} 的支持，并补充 UT。", "适配 CANN {cann} 的接口变更。",
    "更新安装文档与 {hw} 配套表。", "重构 {file}，无功能变化。",
    "补充 {op} 的中文文档。", "CI 中新增 {hw} 的冒烟用例。"};
inline constexpr std::string_view kOtherSentencesEn[] = {
    "Add {dtype} support to {api} with unit tests.", "Adapt to the interface changes in CANN {cann}.",
    "Update the install guide and the {hw} support matrix.", "Refactor {file}; no functional change.",
    "Add docs for {op}.", "Add a {hw} smoke test to CI."};
inline constexpr std::string_view kTestTableZh =
    "| 用例 | {hw} | 结果 |\n|---|---|---|\n| test_{api} | CANN {cann} | PASS |\n";
inline constexpr std::string_view kTestTableEn =
    "| case | {hw} | result |\n|---|---|---|\n| test_{api} | CANN {cann} | PASS |\n";
inline constexpr std::string_view kKeywordsZh[] = {"fix", "修复", "close", "resolve", "解决", "fixed"};
inline constexpr std::string_view kKeywordsEn[] = {"Fixes", "fix", "Closes", "Resolves", "Fixed"};
inline constexpr std::string_view kRefWordsZh[] = {"关联", "关联 issue", "相关", "ref"};
inline constexpr std::string_view kRefWordsEn[] = {"Related", "Related to", "ref", "See"};
inline constexpr std::string_view kUrlLeadsZh[] = {"关联 issue：", "问题单：", ""};
inline constexpr std::string_view kUrlLeadsEn[] = {"Issue: ", "Related issue: ", ""};
inline constexpr std::string_view kBranchTemplates[] = {"fix_{api}", "dev_{date}", "feature/{dtype}_support",
                                                 "bugfix_{n}", "master_{date}", "opt_{api}"};
inline constexpr std::string_view kCommitMessages[] = {
    "update ut", "fix codecheck", "review comments", "修改检视意见", "补充 UT", "fix typo",
    "clean code"};
inline constexpr std::string_view kCppLines[] = {
    "    if (shape.GetDimNum() < 2) {", "        return ge::GRAPH_FAILED;",
    "    uint64_t workspaceSize = tilingData.get_blockDim() * blockSize;",
    "    OP_CHECK_DTYPE_NOT_SUPPORT(x, supportList, return nullptr);",
    "    tiling.set_coreNum(aicNum);", "    int64_t tailLen = totalLen % ubFactor;",
    "    OP_LOGE(context->GetNodeName(), \"input dim %zu is invalid\", dimNum);"};
inline constexpr std::string_view kPyLines[] = {
    "    attn = torch_npu.npu_fusion_attention(q, k, v, head_num, input_layout=\"BSND\")[0]",
    "    if not torch.npu.is_available():", "        hidden_states = hidden_states.to(torch.float32)",
    "    return x * torch.rsqrt(variance + self.eps)",
    "    group = dist.new_group(ranks, backend=\"hccl\")"};
inline constexpr std::string_view kTextLines[] = {
    "source /usr/local/Ascend/ascend-toolkit/set_env.sh", "export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3",
    "pip install torch_npu==2.5.1", "| 910B | CANN 8.1.RC1 | 支持 |",
    "bash build.sh --pkg --soc=ascend910b"};

// Users and labels.
struct NamePart {
  std::string_view latin, han;
};
inline constexpr NamePart kSurnames[] = {
    {"zhang", "张"}, {"wang", "王"}, {"li", "李"}, {"liu", "刘"}, {"chen", "陈"}, {"yang", "杨"},
    {"huang", "黄"}, {"zhao", "赵"}, {"wu", "吴"}, {"zhou", "周"}, {"xu", "徐"}, {"sun", "孙"},
    {"ma", "马"}, {"zhu", "朱"}, {"hu", "胡"}, {"guo", "郭"}};
inline constexpr NamePart kGivenNames[] = {
    {"wei", "伟"}, {"fang", "芳"}, {"min", "敏"}, {"jing", "静"}, {"lei", "磊"},
    {"jun", "军"}, {"yang", "洋"}, {"tao", "涛"}, {"ming", "明"}, {"chao", "超"},
    {"hui", "慧"}, {"qiang", "强"}, {"xin", "鑫"}, {"yu", "宇"}, {"hao", "浩"}};
inline constexpr std::string_view kLoginSuffixes[] = {"", "_ascend", "2023", "-hw", "123", "_npu", "666",
                                               "_dev"};
static_assert(std::size(kSurnames) * std::size(kGivenNames) >= kHumanUsers,
              "logins must be unique");

struct LabelDef {
  std::string_view name, color;
};
enum LabelIndex { kLabelBug, kLabelQuestion, kLabelEnhancement, kLabelDuplicate, kLabelWontfix,
                  kLabelStale, kFirstTopicLabel };
inline constexpr LabelDef kLabels[] = {
    {"bug", "D73A4A"}, {"question", "D876E3"}, {"enhancement", "A2EEEF"},
    {"duplicate", "CFD3D7"}, {"wontfix", "FFFFFF"}, {"stale", "EDEDED"},
    {"精度问题", "2865E0"}, {"性能问题", "E99695"}, {"显存问题", "FBCA04"}, {"910B", "0E8A16"},
    {"310P", "1D76DB"}, {"CANN", "5319E7"}, {"good first issue", "7057FF"},
    {"sig/ops", "BFDADC"}};
inline constexpr uint32_t kLabelCount = std::size(kLabels);
inline constexpr std::array<uint32_t, 3> kKindLabelWeights = {60, 25, 15};  // bug, question, enhancement

// clang-format on

}  // namespace gen_dump
