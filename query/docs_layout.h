// The doc index's layout on disk, shared by import (docs_import.cc) and
// search (docs_local.cc). Private to query/.
//
// One Xapian document per node; the values below are part of
// the on-disk format: do not change them without a re-import note:
//   data          NodeToJson(node)
//   value 0       the page: the id up to '#' (one section per page first)
//   value 1       the page kind, value 2 the section kind (docs_fields.h)
//   value 3       the page title's whole terms, space-separated (an index
//                 imported before it existed lacks it: no title-naming signal)
//   "D" + term    a name the page defines (docs_fields.h, DefinedTerms), and
//                 an API name run together without its namespace (CompactNames)
//   metadata      "fixgraph:assoc": learned term associations (docs_assoc.h)
//   "Q" + id      unique id term (replace_document key)
//   "O" + origin  the tree/file the node came from (replacement on re-import)
//   "P" + tag     product tag, lower-case
//   term          analyzer terms of title (wdf 4), section heading (wdf 3),
//                 text (wdf 1 per occurrence)
//   "T" + term    the same terms of title and section heading (title evidence)
#pragma once

#include "fixgraph/engine/utf8.h"

#include <xapian.h>

#include <string>
#include <string_view>

namespace fixgraph::query::docs {

constexpr Xapian::valueno kSlotPage = 0;         // the page part of the id (before '#')
constexpr Xapian::valueno kSlotPageKind = 1;     // docs_fields.h page kind
constexpr Xapian::valueno kSlotSectionKind = 2;  // docs_fields.h section kind
constexpr Xapian::valueno kSlotTitleTerms = 3;   // the page title's whole terms, space-separated
// An api or env page's name words (docs_rank.h NameWords), space-separated;
// an index imported before 2026-12-05 has none (no sibling or name signal).
constexpr Xapian::valueno kSlotNameWords = 4;
// A boolean term on every node of a C++ API page (an api page whose title has
// "::": c10_npu::getNPUStreamFromPool); an index imported before 2026-12-06
// has none, so a C++ question gets no such preference until imported again.
constexpr char kCppApiTerm[] = "Lcpp";
constexpr Xapian::termcount kTitleWdf = 4;
constexpr Xapian::termcount kHeadingWdf = 3;

// prefix + term, built by appending (GCC 12 warns falsely on "P" + rvalue).
inline std::string Prefixed(char prefix, std::string_view term) {
  std::string out;
  out.reserve(term.size() + 1);
  out.push_back(prefix);
  out.append(term);
  return out;
}

}  // namespace fixgraph::query::docs
