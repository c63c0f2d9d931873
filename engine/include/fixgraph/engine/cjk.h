// The CJK vocabulary shared by the linker's tokens (graph/text.cc) and the
// search analyzer (query/analyzer.cc): which code points are CJK, and which
// Chinese characters are function words. One list, so that what the linker
// compares and what `ask` searches split Chinese text the same way.
//
// Thread safety: pure functions.
#pragma once

namespace fixgraph {

// CJK unified ideographs of the Basic Multilingual Plane (main block,
// extension A, compatibility ideographs): every one is three bytes of UTF-8,
// which the linker's hashing of bigrams relies on (graph/text.cc, HashCjk).
constexpr bool IsCjkIdeographBmp(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0xF900 && c <= 0xFAFF);
}

// Every character of the CJK scripts the search analyzer splits into
// bigrams: the ideographs above, those beyond the BMP (extensions B.. and the
// compatibility supplement), kana and hangul.
constexpr bool IsCjkScript(char32_t c) {
  return IsCjkIdeographBmp(c) ||
         (c >= 0x20000 && c <= 0x2FA1F) ||  // extensions B.., compatibility supplement
         (c >= 0x3040 && c <= 0x30FF) ||    // hiragana, katakana
         (c >= 0x31F0 && c <= 0x31FF) ||    // katakana extension
         (c >= 0xAC00 && c <= 0xD7AF) ||    // hangul syllables
         (c >= 0x1100 && c <= 0x11FF);      // hangul jamo
}

// Chinese function words of one character (structural and modal particles,
// conjunctions, the passive and disposal markers, demonstratives): like
// English stop words they say nothing on their own, and a bigram holding one
// mostly spans two words (`结果的精度` -> `果的` `的精`). Characters that also
// start or end common content words (在 in 存在, 是 in 是否, 就 in 就绪, 个
// in 个数, 及 in 及时, 或 in 或者) are not among them.
constexpr bool IsCjkFunctionChar(char32_t c) {
  switch (c) {
    case U'的':
    case U'了':
    case U'吗':
    case U'呢':
    case U'吧':
    case U'啊':
    case U'和':
    case U'与':
    case U'也':
    case U'都':
    case U'把':
    case U'被':
    case U'这':
    case U'那':
      return true;
    default:
      return false;
  }
}

// The linker also drops the characters above that start content words too
// (是, 在, 就, 及, 或): comparing an issue's title with a PR's, a bigram such as
// `在前` of "在前向中" matches by chance more often than `存在` would be missed.
constexpr bool IsCjkLinkStopChar(char32_t c) {
  switch (c) {
    case U'是':
    case U'在':
    case U'就':
    case U'及':
    case U'或':
      return true;
    default:
      return IsCjkFunctionChar(c);
  }
}

}  // namespace fixgraph
