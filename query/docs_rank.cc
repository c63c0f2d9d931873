#include "docs_rank.h"

#include "docs_layout.h"
#include "docs_node.h"
#include "lexicon.h"

#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace fixgraph::query::docs {
namespace {

constexpr size_t kSnippetBytes = 320;
constexpr size_t kPrefixMinWord = 6;    // words shorter than this are not abbreviated
constexpr size_t kPrefixMinAbbrev = 4;  // nor to fewer letters than this

bool IsAsciiWordByte(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

// A mark that ends a negated span: ASCII , ; : ? ! ( ) and a period before a
// space or the end ("torch.compile" goes on), or a CJK one.
bool EndsSpan(std::string_view text, size_t i, size_t* len) {
  static const std::vector<std::string_view> kCjkMarks = {"，", "。", "；", "：", "？",
                                                          "！", "（", "）", "、"};
  *len = 1;
  const char c = text[i];
  if (c == ',' || c == ';' || c == ':' || c == '?' || c == '!' || c == '(' || c == ')' || c == '\n')
    return true;
  if (c == '.')
    return i + 1 == text.size() || std::isspace(static_cast<unsigned char>(text[i + 1]));
  for (std::string_view m : kCjkMarks)
    if (text.substr(i, m.size()) == m) {
      *len = m.size();
      return true;
    }
  return false;
}

// Blanks up to `max_words` words after `from` ("without the RMSNorm fusion").
void BlankEnglishSpan(std::string* out, size_t from, int max_words) {
  // A conjunction or a preposition begins the next phrase: "instead of IoU
  // between the boxes" refuses IoU, not the boxes.
  static const std::set<std::string> kStops = {
      "and", "but", "or",   "so", "then", "between", "for",   "in",      "on",    "with",
      "to",  "by",  "from", "at", "into", "when",    "while", "because", "since", "if"};
  std::string_view text(*out);
  size_t i = from;
  for (int words = 0; words < max_words;) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t mark = 0;
    if (i >= text.size() || EndsSpan(text, i, &mark)) return;
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && !EndsSpan(text, end, &mark))
      end += Utf8SequenceLength(static_cast<unsigned char>(text[end]));
    end = std::min(end, text.size());
    if (kStops.count(LowerAscii(text.substr(i, end - i))) > 0) return;
    std::fill(out->begin() + static_cast<std::ptrdiff_t>(i),
              out->begin() + static_cast<std::ptrdiff_t>(end), ' ');
    i = end;
    ++words;
  }
}

// Blanks up to `max_chars` characters after `from` ("不做稀疏化").
void BlankCjkSpan(std::string* out, size_t from, int max_chars) {
  std::string_view text(*out);
  size_t i = from;
  for (int n = 0; n < max_chars && i < text.size(); ++n) {
    size_t mark = 0;
    if (text[i] == ' ' || EndsSpan(text, i, &mark)) return;
    const size_t len =
        std::min(Utf8SequenceLength(static_cast<unsigned char>(text[i])), text.size() - i);
    std::fill(out->begin() + static_cast<std::ptrdiff_t>(i),
              out->begin() + static_cast<std::ptrdiff_t>(i + len), ' ');
    i += len;
  }
}

}  // namespace

std::string DropNegated(std::string_view text) {
  static const std::vector<std::string_view> kEnglish = {"without", "instead of", "rather than",
                                                         "other than", "except"};
  static const std::vector<std::string_view> kChinese = {
      "不需要", "不希望", "而不是", "不想", "不要", "不用", "不做", "不改", "除了", "无需"};
  constexpr int kEnglishWords = 4;
  constexpr int kCjkChars = 6;
  std::string out(text);
  const std::string lower = LowerAscii(text);
  for (std::string_view cue : kEnglish) {
    for (size_t at = lower.find(cue); at != std::string::npos; at = lower.find(cue, at + 1)) {
      const size_t end = at + cue.size();
      if ((at > 0 && IsAsciiWordByte(lower[at - 1])) ||
          (end < lower.size() && IsAsciiWordByte(lower[end])))
        continue;
      std::fill(out.begin() + static_cast<std::ptrdiff_t>(at),
                out.begin() + static_cast<std::ptrdiff_t>(end), ' ');
      BlankEnglishSpan(&out, end, kEnglishWords);
    }
  }
  const std::string_view bu = "不";
  for (std::string_view cue : kChinese) {
    for (size_t at = out.find(cue); at != std::string::npos; at = out.find(cue, at + 1)) {
      // 要不要, 用不用, 需不需要: X不X asks a question.
      if (cue.substr(0, bu.size()) == bu && at >= 3) {
        std::string_view after = std::string_view(out).substr(at + bu.size(), 3);
        if (std::string_view(out).substr(at - 3, 3) == after) continue;
      }
      std::fill(out.begin() + static_cast<std::ptrdiff_t>(at),
                out.begin() + static_cast<std::ptrdiff_t>(at + cue.size()), ' ');
      BlankCjkSpan(&out, at + cue.size(), kCjkChars);
    }
  }
  return out;
}

std::set<std::string> RefusedTerms(std::string_view text, const std::vector<QueryGroup>& groups) {
  std::set<std::string> kept, refused;
  for (const QueryGroup& g : GroupQuery(DropNegated(text)))
    kept.insert(g.terms.begin(), g.terms.end());
  for (const QueryGroup& g : groups)
    for (const std::string& t : g.terms)
      if (kept.count(t) == 0) refused.insert(t);
  return refused;
}

std::vector<QueryGroup> GroupQuery(std::string_view text) {
  std::vector<QueryGroup> groups;
  std::map<std::uint32_t, size_t> by_pos;
  std::set<std::string> seen_whole;
  for (const Term& t : Analyze(text)) {
    auto it = by_pos.find(t.pos);
    if (it == by_pos.end()) {
      if (!seen_whole.insert(t.text).second) {
        by_pos[t.pos] = SIZE_MAX;  // a repeated term: counted once
        continue;
      }
      by_pos[t.pos] = groups.size();
      groups.push_back(QueryGroup{{t.text}, t.kind});
    } else if (it->second != SIZE_MAX) {
      auto& g = groups[it->second].terms;
      if (std::find(g.begin(), g.end(), t.text) == g.end()) g.push_back(t.text);
    }
  }
  return groups;
}

bool IsQuantity(const std::string& t) {
  size_t i = 0;
  while (i < t.size() && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.')) ++i;
  if (i == 0) return false;
  static const char* const kUnits[] = {"ms",   "s", "us",  "ns",  "b",   "kb",  "mb",
                                       "gb",   "k", "m",   "g",   "x",   "fps", "kbps",
                                       "mbps", "w", "mhz", "ghz", "min", "h",   "d"};
  std::string unit = t.substr(i);
  for (const char* u : kUnits)
    if (unit == u) return true;
  return false;
}

std::string MakeSnippet(const std::string& text, const std::map<std::string, double>& weight) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    if (nl > pos) lines.emplace_back(text.data() + pos, nl - pos);
    pos = nl + 1;
  }
  // A line holding none of the terms' first bytes (ASCII lower-cased; stems
  // keep the first letters of their word) cannot match: it is not analysed.
  // A term beginning with a CJK ideograph (lead byte E4-E9; a bigram: the
  // analyzer leaves unified ideographs as they are) is looked for whole: its first
  // character alone (的, 用) is in most Chinese lines.
  std::vector<std::string> probes;
  probes.reserve(weight.size());
  for (const auto& [term, w] : weight)
    probes.push_back(static_cast<unsigned char>(term[0]) >= 0xE4 &&
                             static_cast<unsigned char>(term[0]) <= 0xE9
                         ? term
                         : term.substr(0, std::min<size_t>(3, term.size())));
  std::sort(probes.begin(), probes.end());
  probes.erase(std::unique(probes.begin(), probes.end()), probes.end());
  std::string lower;
  size_t best = 0;
  double best_w = 0;
  for (size_t i = 0; i < lines.size() && i < 400; ++i) {
    lower.assign(lines[i]);
    for (char& c : lower)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    bool maybe = false;
    for (const std::string& pr : probes)
      if (lower.find(pr) != std::string::npos) {
        maybe = true;
        break;
      }
    if (!maybe) continue;
    std::set<std::string> got;
    double w = 0;
    for (const Term& t : Analyze(lines[i])) {
      auto it = weight.find(t.text);
      if (it != weight.end() && got.insert(t.text).second) w += it->second;
    }
    if (w > best_w + 1e-9) {
      best_w = w;
      best = i;
    }
  }
  std::string out;
  for (size_t i = best; i < lines.size() && out.size() < kSnippetBytes; ++i) {
    std::string_view l = lines[i];
    size_t b = l.find_first_not_of(" \t");
    if (b == std::string_view::npos) continue;
    l.remove_prefix(b);
    if (l.substr(0, 3) == "```" || l.find_first_not_of("|-: ") == std::string_view::npos) continue;
    if (!out.empty()) out.push_back(' ');
    out.append(l);
  }
  return Utf8Truncate(out, kSnippetBytes);
}

Tuning ReadTuning(std::string_view spec) {
  Tuning t;
  std::string_view v(spec);
  std::map<std::string, double*> fields = {{"index_penalty", &t.index_penalty},
                                           {"tutorial_penalty", &t.tutorial_penalty},
                                           {"enable_definer", &t.enable_definer},
                                           {"enable_tutorial", &t.enable_tutorial},
                                           {"support_section", &t.support_section},
                                           {"support_products", &t.support_products},
                                           {"symptom_trouble", &t.symptom_trouble},
                                           {"bm25_share", &t.bm25_share},
                                           {"synonym_credit", &t.synonym_credit},
                                           {"assoc_credit", &t.assoc_credit},
                                           {"feedback_weight", &t.feedback_weight},
                                           {"feedback_docs", &t.feedback_docs},
                                           {"feedback_terms", &t.feedback_terms},
                                           {"candidates", &t.candidates},
                                           {"title_share", &t.title_share},
                                           {"function_section", &t.function_section},
                                           {"length_penalty", &t.length_penalty},
                                           {"page_share", &t.page_share},
                                           {"page_sections", &t.page_sections},
                                           {"feedback_df", &t.feedback_df},
                                           {"seam_ratio", &t.seam_ratio},
                                           {"scope_share", &t.scope_share},
                                           {"title_named", &t.title_named},
                                           {"prefix_credit", &t.prefix_credit},
                                           {"title_query", &t.title_query},
                                           {"title_alt", &t.title_alt},
                                           {"title_df", &t.title_df},
                                           {"scope_bonus", &t.scope_bonus},
                                           {"word_idf_cap", &t.word_idf_cap},
                                           {"setting_env", &t.setting_env},
                                           {"meaning_function", &t.meaning_function},
                                           {"common_df", &t.common_df},
                                           {"sibling_pages", &t.sibling_pages},
                                           {"negation", &t.negation},
                                           {"refused_weight", &t.refused_weight},
                                           {"cpp_api", &t.cpp_api},
                                           {"api_page", &t.api_page},
                                           {"name_asked", &t.name_asked},
                                           {"own_section", &t.own_section}};
  while (!v.empty()) {
    size_t comma = v.find(',');
    std::string_view item = v.substr(0, comma);
    size_t eq = item.find('=');
    if (eq != std::string_view::npos) {
      auto it = fields.find(std::string(item.substr(0, eq)));
      if (it != fields.end()) *it->second = std::atof(std::string(item.substr(eq + 1)).c_str());
    }
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return t;
}

std::string PageScope(const std::string& page) {
  size_t a = page.find('/');
  if (a == std::string::npos) return {};
  size_t b = page.find('/', a + 1);
  if (b == std::string::npos) return {};
  return page.substr(a + 1, b - a - 1);
}

double TitleNamed(const std::string& words, const std::set<std::string>& have,
                  const std::map<std::string, double>& alt_credit) {
  double n = 0, got = 0;
  for (size_t pos = 0; pos < words.size();) {
    size_t sp = words.find(' ', pos);
    if (sp == std::string::npos) sp = words.size();
    std::string w = words.substr(pos, sp - pos);
    pos = sp + 1;
    if (w.empty()) continue;
    n += 1;
    if (have.count(w) > 0) {
      got += 1;
    } else if (auto it = alt_credit.find(w); it != alt_credit.end()) {
      got += it->second;
    }
  }
  return n > 0 ? got / n : 0.0;
}

const std::string& InPlaceWord() {
  static const std::string word = [] {
    const std::vector<Term> t = Analyze("inplace");
    return t.empty() ? std::string("inplace") : t.front().text;
  }();
  return word;
}

std::set<std::string> NameWords(std::string_view title) {
  auto ident = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  size_t end = title.size();
  while (end > 0 && !ident(title[end - 1])) --end;  // "name()", "name "
  size_t begin = end;
  while (begin > 0 && ident(title[begin - 1])) --begin;
  // A method's class is part of its name (`ExternalEvent().reset()`,
  // `NPUStreamGuard::current_stream`): a lower-case last component after an
  // upper-case one; namespaces and modules (`torch_npu.contrib.module`) are not.
  size_t owner = begin;
  if (begin > 0 && title[begin] >= 'a' && title[begin] <= 'z') {
    size_t e = begin;
    while (e > 0 && (title[e - 1] == '.' || title[e - 1] == ':' || title[e - 1] == '(' ||
                     title[e - 1] == ')'))
      --e;
    size_t b = e;
    while (b > 0 && ident(title[b - 1])) --b;
    if (b < e && e < begin && title[b] >= 'A' && title[b] <= 'Z') owner = b;
  }
  std::set<std::string> out;
  auto add_words = [&out](std::string_view text) {
    for (const Term& t : Analyze(text)) {
      if ((t.kind != TermKind::kWord && t.kind != TermKind::kPart) ||
          t.text.find('_') != std::string::npos)
        continue;
      // A stop word in a name (`from` of getNPUStreamFromPool, `with` of
      // ..._with_max_sum) is dropped from every question, so no question
      // could ask for it.
      if (t.kind == TermKind::kPart && Analyze(t.text).empty()) continue;
      out.insert(t.text);
    }
  };
  add_words(title.substr(begin, end - begin));
  if (owner < begin) {
    size_t owner_end = owner;
    while (owner_end < begin && ident(title[owner_end])) ++owner_end;
    add_words(title.substr(owner, owner_end - owner));
  }
  // PyTorch's convention: a trailing underscore names the in-place variant
  // (`scatter_update_`, `npu_format_cast_`); `__call__` and the like are not.
  const std::string_view name = title.substr(begin, end - begin);
  if (name.size() >= 2 && name.back() == '_' && name[name.size() - 2] != '_' &&
      name.front() != '_') {
    out.insert(InPlaceWord());
  }
  return out;
}

std::set<std::string> SplitWords(std::string_view list) {
  std::set<std::string> out;
  while (!list.empty()) {
    size_t sp = list.find(' ');
    if (sp != 0) out.emplace(list.substr(0, sp));
    if (sp == std::string_view::npos) break;
    list.remove_prefix(sp + 1);
  }
  return out;
}

bool SiblingAsked(const std::set<std::string>& a, const std::set<std::string>& b,
                  const std::function<bool(const std::string&)>& asked) {
  size_t shared = 0;
  std::vector<std::string> only_a, only_b;
  for (const std::string& w : a) {
    if (b.count(w) > 0) {
      // Being in-place variants both does not make two operations siblings.
      if (w != InPlaceWord()) ++shared;
    } else
      only_a.push_back(w);
  }
  for (const std::string& w : b)
    if (a.count(w) == 0) only_b.push_back(w);
  if (shared < kSiblingShared || (only_a.empty() && only_b.empty()) ||
      only_a.size() > kSiblingWords || only_b.size() > kSiblingWords)
    return false;
  // `b` is `a` with a qualifier (npu_convolution / npu_convolution_transpose)
  // the question does not ask for: the plain one.
  if (only_a.empty()) return std::none_of(only_b.begin(), only_b.end(), asked);
  const auto ka = std::count_if(only_a.begin(), only_a.end(), asked);
  const auto kb = std::count_if(only_b.begin(), only_b.end(), asked);
  return ka > kb;
}

bool TitleMatches(const std::set<std::string>& holds, const std::vector<QueryGroup>& groups,
                  const std::vector<std::vector<double>>& term_idf) {
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].kind == TermKind::kCjk || term_idf[g].empty() || term_idf[g][0] < 0) continue;
    if (groups[g].kind == TermKind::kWord) continue;  // plain words: "model", "deploy"
    if (holds.count(Prefixed('T', groups[g].terms[0])) > 0) return true;
  }
  return false;
}

std::vector<AltSet> Alternatives(std::string_view text, const std::vector<QueryGroup>& groups,
                                 const std::vector<std::vector<double>>& term_idf,
                                 const Tuning& tune, const AssociationTable& assoc,
                                 const std::function<bool(const std::string&)>& in_index) {
  std::vector<AltSet> out;
  // Sequence of whole terms, each with its group.
  std::vector<Term> terms = Analyze(text);
  Lexicon::Seq seq;
  std::vector<size_t> seq_group;
  std::map<std::string, size_t> group_of;
  for (size_t g = 0; g < groups.size(); ++g) group_of.emplace(groups[g].terms[0], g);
  for (const Term& t : terms) {
    if (t.kind == TermKind::kPart) continue;
    seq.push_back(t.text);
    auto it = group_of.find(t.text);
    seq_group.push_back(it == group_of.end() ? SIZE_MAX : it->second);
  }
  const Lexicon& lex = Lexicon::ForDocs();
  for (const Lexicon::Match& m :
       tune.synonym_credit > 0 ? lex.FindSynonyms(seq) : std::vector<Lexicon::Match>{}) {
    AltSet a;
    a.credit = tune.synonym_credit;
    for (size_t i = m.start; i < m.start + m.length; ++i)
      if (seq_group[i] != SIZE_MAX) a.groups.push_back(seq_group[i]);
    if (a.groups.empty()) continue;
    const auto& members = lex.Group(m.group);
    for (const Lexicon::Seq& member : members) {
      if (std::equal(member.begin(), member.end(),
                     seq.begin() + static_cast<std::ptrdiff_t>(m.start),
                     seq.begin() + static_cast<std::ptrdiff_t>(m.start + m.length)))
        continue;
      a.members.push_back(member);
    }
    if (!a.members.empty()) out.push_back(std::move(a));
  }
  // Learned associations of single terms the corpus knows.
  for (size_t g = 0; g < groups.size() && tune.assoc_credit > 0; ++g) {
    if (term_idf[g].empty()) continue;
    std::vector<std::string> partners = assoc.Partners(groups[g].terms[0]);
    if (partners.empty()) continue;
    AltSet a;
    a.credit = tune.assoc_credit;
    a.groups.push_back(g);
    for (std::string& t : partners) a.members.push_back({std::move(t)});
    out.push_back(std::move(a));
  }
  // Abbreviations: an English word of the question whose stem begins with
  // a shorter term of the index ("increment" -> "incr" of
  // npu_incre_flash_attention, "configur" -> "config", "paramet" ->
  // "param"): identifiers shorten the words prose spells out.
  for (size_t g = 0; g < groups.size() && tune.prefix_credit > 0; ++g) {
    if (groups[g].kind != TermKind::kWord) continue;
    const std::string& w = groups[g].terms[0];
    if (w.size() < kPrefixMinWord) continue;
    bool ascii = true;
    for (char c : w)
      if (!(c >= 'a' && c <= 'z')) ascii = false;
    if (!ascii) continue;
    AltSet a;
    a.credit = tune.prefix_credit;
    a.groups.push_back(g);
    for (size_t k = w.size() - 1; k >= kPrefixMinAbbrev; --k) {
      std::string pre = w.substr(0, k);
      if (in_index(pre)) a.members.push_back({pre});
    }
    if (!a.members.empty()) out.push_back(std::move(a));
  }
  return out;
}

bool FeedbackDecider::operator()(const std::string& term) const {
  if (term.empty() || (term[0] >= 'A' && term[0] <= 'Z')) return false;
  if (term.size() < 2 || have_->count(term) > 0) return false;
  // Numbers and one-byte words say little about a topic.
  return term.find_first_not_of("0123456789.") != std::string::npos;
}

void WriteDebugLine(std::ostream* out, std::mutex* mu, const char* format, std::va_list args) {
  std::va_list again;
  va_copy(again, args);
  int n = std::vsnprintf(nullptr, 0, format, args);
  if (n > 0) {
    std::string line(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(line.data(), line.size(), format, again);
    line.resize(static_cast<size_t>(n));
    std::lock_guard<std::mutex> lock(*mu);
    *out << line << std::flush;
  }
  va_end(again);
}

}  // namespace fixgraph::query::docs
