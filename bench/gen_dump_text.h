// gen_dump_text.h: fixgraph_gen_dump's text. A Topic is what an item is about (indices into the
// vocabulary tables, drawn once per item from its plan stream); Expand fills a template's
// {placeholders} from the topic, the context's references, or fresh draws from the text stream;
// FillTo/FillFrom grow text sentence by sentence to a length; FitTitle brings a title into
// [kTitleMin, kTitleMax] code points. Every draw comes from the TextRng passed in, in a fixed
// order, so the same stream gives the same text.
#pragma once

#include "gen_dump_random.h"
#include "gen_dump_shape.h"
#include "gen_dump_vocab.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gen_dump {

struct Topic {
  uint32_t api, op, hw, cann, fixed_cann, code, model, comp, file, symptom, dtype, env, torch_npu,
      mindspore, python, os;
  bool on_mindspore;  // MindSpore rather than PyTorch
};

Topic DrawTopic(PlanRng& rng);

// Placeholder values for text templates.
struct TextCtx {
  const Topic& topic;
  int64_t when = kTimelineStart;  // for log dates
  std::string_view issue_ref;     // "#12": a related issue
  std::string_view pr_ref;        // "!34": a related PR
  std::string_view pr_url;
};

// Appends tmpl with every {key} replaced. Throws std::logic_error on an unknown placeholder.
void Expand(std::string_view tmpl, const TextCtx& ctx, TextRng& rng, std::string& out);

// Appends pool[start], pool[start + 1], ... (wrapping) until out reaches target code
// points, so no sentence repeats before the pool is used up.
void FillFrom(std::string& out, size_t target, Pool pool, size_t start, std::string_view separator,
              const TextCtx& ctx, TextRng& rng);
// FillFrom a random start.
void FillTo(std::string& out, size_t target, Pool pool, std::string_view separator,
            const TextCtx& ctx, TextRng& rng);

// Cuts s to at most max code points, at a space rather than inside an ASCII word when
// that keeps at least min code points.
void TruncateAtWord(std::string& s, size_t min, size_t max);

// Brings a title into [kTitleMin, kTitleMax] code points.
void FitTitle(std::string& title, bool zh, const TextCtx& ctx, TextRng& rng);

// A comment of this kind (gen_dump_vocab.h CommentKind) in out: a template from the kind's
// pool, padded to a drawn length in [kCommentMin, kCommentMax] code points.
void BuildComment(CommentKind kind, bool zh, const TextCtx& ctx, TextRng& rng, std::string& out);

}  // namespace gen_dump
