// gen_dump_text.cc: topics and template expansion (contract in gen_dump_text.h).

#include "gen_dump_text.h"

#include "gen_dump_format.h"
#include "gen_dump_vocab.h"

#include <cstdio>
#include <iterator>
#include <optional>
#include <stdexcept>

namespace gen_dump {

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

namespace {

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

bool IsAsciiWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
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

Pool CommentPool(CommentKind kind, bool zh) {
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
Pool FillerPool(CommentKind kind, bool zh) {
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

}  // namespace

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

void BuildComment(CommentKind kind, bool zh, const TextCtx& ctx, TextRng& rng, std::string& out) {
  out.clear();
  const size_t target = rng.Skewed(kCommentMin, kCommentMax - kLongestPiece / 2);
  Expand(rng.Pick(CommentPool(kind, zh)), ctx, rng, out);
  FillTo(out, target, FillerPool(kind, zh), zh ? "" : " ", ctx, rng);
  TruncateCodePoints(out, kCommentMax);
}

}  // namespace gen_dump
