#include "lexicon.h"

#include "lexicon_data.h"

#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <cstring>

namespace fixgraph::query {
namespace {

// Calls fn for every non-empty, non-comment line.
template <typename Fn>
void ForEachLine(std::string_view text, Fn fn) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = TrimAsciiSpace(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty() || line.front() == '#') continue;
    fn(line);
  }
}

std::string_view Embedded(const char* name) {
  for (size_t i = 0; i < embedded::kLexiconFileCount; ++i)
    if (std::strcmp(embedded::kLexiconFiles[i].name, name) == 0)
      return {reinterpret_cast<const char*>(embedded::kLexiconFiles[i].data),
              embedded::kLexiconFiles[i].size};
  return {};
}

bool IsCannVersion(const std::string& t) {
  // digits(.digits)+ then .rcN / .alphaN / .betaN / .tN
  size_t i = 0, dots = 0;
  while (i < t.size()) {
    if (t[i] >= '0' && t[i] <= '9') {
      ++i;
    } else if (t[i] == '.') {
      ++dots;
      ++i;
      if (dots >= 1) {
        for (const char* suffix : {"rc", "alpha", "beta", "t"}) {
          size_t n = std::strlen(suffix);
          if (t.compare(i, n, suffix) == 0 && i + n < t.size() && t[i + n] >= '0' &&
              t[i + n] <= '9')
            return true;
        }
      }
    } else {
      return false;
    }
  }
  return false;
}

}  // namespace

Lexicon::Seq SequenceOf(const std::vector<Term>& terms) {
  Lexicon::Seq seq;
  seq.reserve(terms.size());
  for (const Term& t : terms)
    if (t.kind != TermKind::kPart) seq.push_back(t.text);
  return seq;
}

Lexicon Lexicon::FromText(std::string_view synonyms, std::string_view hardware) {
  Lexicon lex;
  ForEachLine(synonyms, [&](std::string_view line) {
    std::vector<Seq> members;
    while (!line.empty()) {
      size_t bar = line.find('|');
      std::string_view member = TrimAsciiSpace(line.substr(0, bar));
      line = bar == std::string_view::npos ? std::string_view() : line.substr(bar + 1);
      Seq seq = SequenceOf(Analyze(member));
      if (!seq.empty() && std::find(members.begin(), members.end(), seq) == members.end())
        members.push_back(std::move(seq));
    }
    if (members.size() < 2) return;
    size_t g = lex.groups_.size();
    for (size_t m = 0; m < members.size(); ++m) lex.by_first_[members[m][0]].emplace_back(g, m);
    lex.groups_.push_back(std::move(members));
  });
  ForEachLine(hardware, [&](std::string_view line) {
    if (line.back() == '*') {
      std::string prefix = Normalize(line.substr(0, line.size() - 1));
      if (!prefix.empty()) lex.hardware_prefixes_.push_back(prefix);
      return;
    }
    Seq seq = SequenceOf(Analyze(line));
    if (seq.size() == 1)
      lex.hardware_single_.insert(seq[0]);
    else if (seq.size() > 1)
      lex.hardware_.push_back(std::move(seq));
  });
  return lex;
}

const Lexicon& Lexicon::Default() {
  static const Lexicon lex = FromText(Embedded("synonyms.txt"), Embedded("hardware.txt"));
  return lex;
}

const Lexicon& Lexicon::ForDocs() {
  static const Lexicon lex = FromText(
      std::string(Embedded("synonyms.txt")) + "\n" + std::string(Embedded("docs_synonyms.txt")),
      Embedded("hardware.txt"));
  return lex;
}

const Lexicon& Lexicon::ApiActions() {
  static const Lexicon lex = FromText(Embedded("api_actions.txt"), "");
  return lex;
}

std::vector<Lexicon::Match> Lexicon::FindSynonyms(const Seq& seq) const {
  std::vector<Match> out;
  size_t i = 0;
  while (i < seq.size()) {
    Match best;
    auto it = by_first_.find(seq[i]);
    if (it != by_first_.end()) {
      for (const auto& [g, m] : it->second) {
        const Seq& member = groups_[g][m];
        if (member.size() <= best.length || i + member.size() > seq.size()) continue;
        if (std::equal(member.begin(), member.end(), seq.begin() + static_cast<std::ptrdiff_t>(i)))
          best = Match{i, member.size(), g};
      }
    }
    if (best.length > 0) {
      out.push_back(best);
      i += best.length;
    } else {
      ++i;
    }
  }
  return out;
}

bool Lexicon::NamesHardware(const Seq& seq) const {
  for (size_t i = 0; i < seq.size(); ++i) {
    const std::string& t = seq[i];
    if (hardware_single_.count(t) > 0 || IsCannVersion(t)) return true;
    for (const std::string& p : hardware_prefixes_)
      if (t.size() > p.size() && t.compare(0, p.size(), p) == 0) return true;
    for (const Seq& h : hardware_)
      if (i + h.size() <= seq.size() &&
          std::equal(h.begin(), h.end(), seq.begin() + static_cast<std::ptrdiff_t>(i)))
        return true;
  }
  return false;
}

}  // namespace fixgraph::query
