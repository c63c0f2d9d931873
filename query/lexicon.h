// The embedded lexicon (data/lexicon): bilingual synonym groups (synonyms.txt;
// docs_synonyms.txt for the doc search only) and hardware /
// platform terms, both held as analysed term sequences (analyzer.h) so they
// match queries after the same normalisation. Private to query/.
//
// Thread safety: Default() is built once; the object is immutable.
#pragma once

#include "analyzer.h"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fixgraph::query {

class Lexicon {
 public:
  using Seq = std::vector<std::string>;  // analysed terms of one lexicon entry

  // Built from the embedded synonyms.txt and hardware.txt.
  static const Lexicon& Default();
  // Default() plus docs_synonyms.txt: the KG doc search's lexicon (the
  // issue search keeps Default(), so its recall does not move with it).
  static const Lexicon& ForDocs();
  // api_actions.txt alone: the words of API names that say what the API
  // does (get, set, reset, enable) and how questions ask for them; the doc
  // search tells sibling API pages apart by them (docs_rank.h SiblingAsked).
  static const Lexicon& ApiActions();
  // Built from file texts (tests).
  static Lexicon FromText(std::string_view synonyms, std::string_view hardware);

  // A lexicon entry found in a query's term sequence.
  struct Match {
    size_t start = 0;   // index into `seq`
    size_t length = 0;  // terms covered
    size_t group = 0;
  };
  // Greedy longest matches of synonym members in `seq` (non-overlapping,
  // left to right).
  std::vector<Match> FindSynonyms(const Seq& seq) const;
  const std::vector<Seq>& Group(size_t g) const { return groups_[g]; }
  size_t group_count() const { return groups_.size(); }

  // True when the term sequence names a hardware/platform term, an
  // environment variable with a known prefix (ASCEND_*, HCCL_*), or a CANN
  // style version (8.1.rc1).
  bool NamesHardware(const Seq& seq) const;

 private:
  std::vector<std::vector<Seq>> groups_;
  // first term -> (group, member) pairs starting with it
  std::unordered_map<std::string, std::vector<std::pair<size_t, size_t>>> by_first_;
  std::vector<Seq> hardware_;
  std::unordered_set<std::string> hardware_single_;
  std::vector<std::string> hardware_prefixes_;
};

// The terms of `text` for sequence matching: whole words, identifiers and
// CJK bigrams in order (identifier parts left out).
Lexicon::Seq SequenceOf(const std::vector<Term>& terms);

}  // namespace fixgraph::query
