#include "docs_fields.h"

#include "analyzer.h"

#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <cctype>

namespace fixgraph::query::docs {
namespace {

bool HasAny(std::string_view text, std::initializer_list<std::string_view> needles) {
  for (std::string_view n : needles)
    if (text.find(n) != std::string_view::npos) return true;
  return false;
}

// The file name of a path without directories and extension.
std::string_view Stem(std::string_view path) {
  size_t hash = path.find('#');
  if (hash != std::string_view::npos) path = path.substr(0, hash);
  size_t slash = path.find_last_of('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  size_t dot = path.find_last_of('.');
  if (dot != std::string_view::npos && dot > 0) path = path.substr(0, dot);
  return path;
}

bool IsUpperIdentifier(std::string_view id) {
  bool upper = false;
  for (char c : id) {
    if (std::islower(static_cast<unsigned char>(c))) return false;
    if (std::isupper(static_cast<unsigned char>(c))) upper = true;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return upper && id.find('_') != std::string_view::npos;
}

}  // namespace

std::string SectionKind(std::string_view heading) {
  std::string h = Normalize(heading);
  if (TrimAsciiSpace(h).empty()) return kSecFunction;
  // Order matters: "参数说明" before "说明", "支持的型号" is a constraint.
  if (HasAny(h, {"问题现象", "原因", "解决", "故障", "faq", "troubleshoot", "常见问题", "报错",
                 "known issue", "error"}))
    return kSecTrouble;
  if (HasAny(h, {"约束", "限制", "注意", "constraint", "limitation", "restriction", "支持",
                 "support", "requirement", "notice", "caution", "型号"}))
    return kSecConstraints;
  if (HasAny(h, {"参数", "函数原型", "原型", "返回值", "parameter", "argument", "prototype",
                 "signature", "return", "配置项", "option", "configuration", "取值"}))
    return kSecParameters;
  if (HasAny(h, {"示例", "样例", "example", "usage", "使用方法", "调用", "sample", "how to use",
                 "quick start", "快速"}))
    return kSecExamples;
  if (HasAny(h, {"功能", "概述", "简介", "介绍", "overview", "introduction", "description",
                 "what is", "背景", "background"}))
    return kSecFunction;
  return kSecOther;
}

std::string TitleIdentifier(std::string_view title) {
  std::string t = NormalizeKeepCase(title);
  std::string_view v = TrimAsciiSpace(t);
  for (std::string_view mark : {"(beta)", "（beta）"}) {
    if (v.substr(0, mark.size()) == mark) v = TrimAsciiSpace(v.substr(mark.size()));
  }
  // A C++ declaration's keyword ("class c10_npu::NPUStream", "struct ...").
  for (std::string_view keyword : {"class ", "struct ", "enum ", "union "}) {
    if (v.substr(0, keyword.size()) == keyword) v = TrimAsciiSpace(v.substr(keyword.size()));
  }
  if (v.empty() || v.find(' ') != std::string_view::npos || v.find('\t') != std::string_view::npos)
    return "";
  while (v.size() > 2 && v.substr(v.size() - 2) == "()") v.remove_suffix(2);
  bool marker = v.find('_') != std::string_view::npos || v.find('.') != std::string_view::npos ||
                v.find("::") != std::string_view::npos;
  for (size_t i = 1; !marker && i < v.size(); ++i) {
    if (std::islower(static_cast<unsigned char>(v[i - 1])) &&
        std::isupper(static_cast<unsigned char>(v[i])))
      marker = true;
  }
  if (!marker) return "";
  for (char c : v) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) return "";  // CJK title: prose
    if (!std::isalnum(u) && c != '_' && c != '.' && c != ':' && c != '-' && c != '(' && c != ')')
      return "";
  }
  return std::string(v);
}

void ClassifyPage(std::string_view rel_path, std::vector<DocNode>* nodes) {
  if (nodes->empty()) return;
  const std::string& title = nodes->front().title;
  std::string path = Normalize(rel_path);
  std::string stem = std::string(Stem(path));
  std::string ident = TitleIdentifier(title);
  bool has_prototype = false, has_trouble = false;
  size_t trouble_sections = 0;
  for (DocNode& n : *nodes) {
    n.section_kind = SectionKind(n.section);
    std::string h = Normalize(n.section);
    if (HasAny(h, {"函数原型", "接口原型", "prototype", "参数说明"})) has_prototype = true;
    if (HasAny(h, {"问题现象", "原因分析", "解决措施", "解决方法", "symptom", "root cause"})) {
      has_trouble = true;
      ++trouble_sections;
    }
  }
  std::string kind;
  const bool tutorial_path =
      path.find("/tutorials/") != std::string::npos || path.find("tutorial") != std::string::npos;
  // A page under a "_"-folder (templates, partials) or a change log lists
  // rather than explains.
  bool listing = path.find("/_") != std::string::npos || path.rfind('_', 0) == 0 ||
                 stem.find("release_note") != std::string::npos ||
                 stem.find("changelog") != std::string::npos;
  // A file named *_list is a list, unless its title is a variable's name
  // (NPU_INDUCTOR_FALLBACK_LIST defines that variable).
  const bool env_title = !ident.empty() && IsUpperIdentifier(ident);
  if (listing || stem.rfind("_menu", 0) == 0 || stem.rfind("menu_", 0) == 0 ||
      (stem.size() > 5 && stem.substr(stem.size() - 5) == "_list" && !env_title) ||
      stem == "index" || stem == "readme" || stem == "summary") {
    kind = kPageIndex;
  } else if (has_trouble || path.find("troubleshoot") != std::string::npos || stem == "faq" ||
             stem == "faqs" || stem.find("_faq") != std::string::npos) {
    kind = kPageTrouble;
  } else if (tutorial_path && !has_prototype) {  // NOLINT(bugprone-branch-clone): ranked rungs
    // A model tutorial is titled by its model ("Qwen3-235B-A22B"), an
    // identifier, but it uses switches rather than defining them.
    kind = kPageTutorial;
  } else if (!ident.empty() && IsUpperIdentifier(ident)) {
    kind = kPageEnv;
  } else if (!ident.empty() || has_prototype) {
    kind = kPageApi;
  } else if (tutorial_path) {
    kind = kPageTutorial;
  } else {
    kind = kPageGuide;
  }
  std::vector<std::string> defines;
  // (A tutorial titled by its model still names that model.)
  if (!ident.empty() && (kind == kPageApi || kind == kPageEnv || kind == kPageTutorial))
    defines.push_back(ident);
  // A Markdown page's file name that is an identifier names what the page
  // is about ("additional_config.md" under the title "Additional
  // Configuration"): a question naming it exactly names the page.
  std::string file_stem(Stem(rel_path));
  bool markdown =
      path.size() > 3 && (path.compare(path.size() - 3, 3, ".md") == 0 ||
                          (path.size() > 9 && path.compare(path.size() - 9, 9, ".markdown") == 0));
  if (markdown && file_stem.find('_') != std::string::npos &&
      (kind == kPageGuide || kind == kPageApi || kind == kPageEnv) &&
      TitleIdentifier(file_stem) == file_stem &&
      std::find(defines.begin(), defines.end(), file_stem) == defines.end())
    defines.push_back(file_stem);
  for (DocNode& n : *nodes) {
    n.page_kind = kind;
    n.defines = defines;
  }
}

Intent ReadIntent(std::string_view question) {
  Intent in;
  std::string q = Normalize(question);
  in.products = ProductTags(question);
  in.support =
      HasAny(q, {"支持",          "能用",        "可以用",   "能不能用",      "可用吗",
                 "能跑",          "兼容",        "适用",     "support",       "work on",
                 "works on",      "working on",  "run on",   "runs on",       "available on",
                 "compatible",    "哪些产品",    "哪些型号", "which product", "which hardware",
                 "what hardware", "which device"});
  in.enable =
      HasAny(q, {"怎么",   "如何",    "怎样",     "how do",   "how to",        "how can",
                 "enable", "disable", "turn on",  "turn off", "switch",        "开启",
                 "打开",   "关闭",    "关掉",     "启用",     "禁用",          "设置",
                 "配置",   "设成",    "改成",     "换成",     "想让",          "让它",
                 "make ",  "can i ",  "is there", "有没有",   "which setting", "what setting"});
  in.symptom = HasAny(
      q, {"报错",      "错误",         "失败",   "异常",      "卡住",    "超时",      "error",
          "fail",      "hang",         "crash",  "core dump", "timeout", "timed out", "traceback",
          "exception", "wrong result", "对不上", "对不齐",    "不一致",  "起不来"});
  in.setting =
      HasAny(q, {"开关", "环境变量", "switch", "flag", "env var", "environment variable", "knob"});
  in.meaning = HasAny(q, {"作用", "是什么", "什么意思", "含义", "干什么", "做什么", "用来",
                          "what does", "what is", "what are", "meaning", "purpose", "what for"});
  // English words whole: "op" is not "option", "api" not "rapid".
  std::string words = " ";
  for (char c : q) words.push_back(std::isalnum(static_cast<unsigned char>(c)) || c < 0 ? c : ' ');
  words.push_back(' ');
  in.api = HasAny(q, {"接口", "算子", "函数", "调用哪个"}) ||
           HasAny(words, {" op ", " ops ", " operator ", " operators ", " kernel ", " kernels ",
                          " api ", " apis ", " interface ", " function ", " call "});
  in.cpp = HasAny(q, {"c++", "libtorch", "c10_npu", "c10::", "at::", "at_npu", "torch::"}) ||
           HasAny(words, {" cpp "});
  return in;
}

void MarkAskedProducts(const Intent& intent, std::vector<DocHit>* hits) {
  if (!intent.support) return;
  // Families only: a model tag ("300I DUO") comes with its family's tag.
  std::vector<std::string> families;
  for (const std::string& t : intent.products)
    if (IsProductFamily(t)) families.push_back(t);
  if (families.empty()) return;
  for (DocHit& h : *hits) {
    if (h.products.empty()) continue;
    for (const std::string& f : families)
      h.asked_products[f] = std::find(h.products.begin(), h.products.end(), f) != h.products.end();
  }
}

}  // namespace fixgraph::query::docs

namespace fixgraph::query::docs {

std::vector<std::string> SeamBigrams(const std::vector<Term>& terms,
                                     const std::function<double(const std::string&)>& df,
                                     double ratio) {
  std::vector<std::string> out;
  if (ratio <= 0) return out;
  // Runs of overlapping bigrams: consecutive positions where the second
  // character of one is the first of the next.
  std::vector<const Term*> run;
  auto flush = [&] {
    for (size_t i = 1; i + 1 < run.size(); ++i) {
      double here = df(run[i]->text), left = df(run[i - 1]->text), right = df(run[i + 1]->text);
      if (left <= 0 || right <= 0) continue;
      if (left >= ratio * here && right >= ratio * here) out.push_back(run[i]->text);
    }
    run.clear();
  };
  for (const Term& t : terms) {
    if (t.kind != TermKind::kCjk) {
      if (t.kind != TermKind::kPart) flush();
      continue;
    }
    size_t first = Utf8SequenceLength(static_cast<unsigned char>(t.text[0]));
    if (first >= t.text.size()) {  // a lone character
      flush();
      continue;
    }
    if (!run.empty()) {
      const std::string& prev = run.back()->text;
      size_t pf = Utf8SequenceLength(static_cast<unsigned char>(prev[0]));
      bool overlaps = t.pos == run.back()->pos + 1 &&
                      prev.compare(pf, std::string::npos, t.text, 0, first) == 0;
      if (!overlaps) flush();
    }
    run.push_back(&t);
  }
  flush();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace fixgraph::query::docs
