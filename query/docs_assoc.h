// Term associations learned from the local doc corpus at `docs import`
// (issue 22: bridging vocabulary without a model download). Private to query/.
//
// For every pair of terms that occur together in the same doc nodes, the
// association is their cosine over nodes: together(a, b) / sqrt(nodes(a) x
// nodes(b)), counted over each node's most distinctive terms (at most
// kAssocTermsPerNode by wdf x IDF). A term keeps its kAssocPerTerm strongest
// partners with at least kAssocMinCosine and kAssocMinTogether shared nodes.
// The table is rebuilt from the whole doc index by every import (documents in
// docid order, ties broken by term), so the same corpus gives the same
// table, and it is stored in the index's metadata under kAssocKey.
//
// Thread safety: the functions are pure given their database.
#pragma once

#include <xapian.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fixgraph::query::docs {

inline constexpr const char* kAssocKey = "fixgraph:assoc";
inline constexpr size_t kAssocTermsPerNode = 48;
inline constexpr size_t kAssocPerTerm = 4;
inline constexpr double kAssocMinCosine = 0.4;
inline constexpr unsigned kAssocMinTogether = 3;
// What matching an associated term is worth against the term itself.
inline constexpr double kAssociationCredit = 0.5;

using Associations = std::unordered_map<std::string, std::vector<std::string>>;

// Learns the table from every document of `db`.
Associations LearnAssociations(const Xapian::Database& db);

// "term\tpartner partner ...\n" lines, terms sorted.
std::string EncodeAssociations(const Associations& a);

// The stored table, read for lookups: the text kept whole and its lines
// indexed by term (EncodeAssociations writes them in term order; other text
// is put in order here), a term found by binary search. Decoding it into an
// Associations map instead (about 6,000 terms and 25,000 partner strings for
// the Ascend corpus) took 6-9 ms at every open of the doc index: a third of
// the CPU of a CLI `ask` that searches the docs.
class AssociationTable {
 public:
  AssociationTable() = default;
  // `text` as EncodeAssociations writes it; a line without a term before a
  // tab is skipped; a term on several lines has the partners of all of them.
  explicit AssociationTable(std::string text);
  // The partners of `term`, in stored order (strongest first); empty when it
  // has none.
  std::vector<std::string> Partners(std::string_view term) const;
  // The lines indexed (a term on several lines counts for each).
  size_t lines() const { return lines_.size(); }

 private:
  struct Line {
    uint32_t start, tab, end;  // offsets in text_: the term is [start, tab)
  };
  std::string_view Term(const Line& line) const {
    return std::string_view(text_).substr(line.start, line.tab - line.start);
  }
  std::string text_;
  std::vector<Line> lines_;  // ordered by term
};

// The table stored in `db` (empty when none is stored or it is unreadable).
AssociationTable ReadAssociations(const Xapian::Database& db);

}  // namespace fixgraph::query::docs
