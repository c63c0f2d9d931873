#include "docs_assoc.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

namespace fixgraph::query::docs {
namespace {

// A plain analyser term: lower-case text, not a prefixed boolean/title term,
// not a number.
bool Plain(const std::string& t) {
  if (t.size() < 2 || (t[0] >= 'A' && t[0] <= 'Z')) return false;
  return t.find_first_not_of("0123456789.-") != std::string::npos;
}

}  // namespace

Associations LearnAssociations(const Xapian::Database& db) {
  Associations out;
  const double n = std::max<double>(1, db.get_doccount());
  // Terms are numbered in first-seen order (docid order: deterministic).
  std::unordered_map<std::string, uint32_t> id_of;
  std::vector<std::string> names;
  std::vector<uint32_t> nodes_of;
  std::unordered_map<uint64_t, uint32_t> together;
  const Xapian::doccount max_df = static_cast<Xapian::doccount>(std::max(3.0, n * 0.05));
  std::vector<std::pair<double, std::string>> picked;
  std::vector<uint32_t> ids;
  std::unordered_map<std::string, Xapian::doccount> df_of;
  for (Xapian::PostingIterator d = db.postlist_begin(""); d != db.postlist_end(""); ++d) {
    picked.clear();
    for (Xapian::TermIterator t = db.termlist_begin(*d); t != db.termlist_end(*d); ++t) {
      const std::string term = *t;
      if (!Plain(term)) continue;
      auto dit = df_of.find(term);
      if (dit == df_of.end()) dit = df_of.emplace(term, t.get_termfreq()).first;
      Xapian::doccount df = dit->second;
      if (df < kAssocMinTogether || df > max_df) continue;
      picked.emplace_back(-(1.0 + std::log(t.get_wdf())) * std::log(n / df), term);
    }
    if (picked.size() > kAssocTermsPerNode) {
      std::partial_sort(picked.begin(), picked.begin() + kAssocTermsPerNode, picked.end());
      picked.resize(kAssocTermsPerNode);
    }
    ids.clear();
    for (const auto& p : picked) {
      auto [it, fresh] = id_of.emplace(p.second, static_cast<uint32_t>(names.size()));
      if (fresh) {
        names.push_back(p.second);
        nodes_of.push_back(0);
      }
      ++nodes_of[it->second];
      ids.push_back(it->second);
    }
    std::sort(ids.begin(), ids.end());
    for (size_t i = 0; i < ids.size(); ++i)
      for (size_t j = i + 1; j < ids.size(); ++j) ++together[(uint64_t{ids[i]} << 32) | ids[j]];
  }
  std::vector<std::vector<std::pair<double, uint32_t>>> best(names.size());
  for (const auto& [key, c] : together) {
    if (c < kAssocMinTogether) continue;
    auto a = static_cast<uint32_t>(key >> 32), b = static_cast<uint32_t>(key & 0xffffffffu);
    double cos = c / std::sqrt(double(nodes_of[a]) * nodes_of[b]);
    if (cos < kAssocMinCosine) continue;
    best[a].emplace_back(cos, b);
    best[b].emplace_back(cos, a);
  }
  for (size_t a = 0; a < best.size(); ++a) {
    auto& v = best[a];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end(), [&](const auto& x, const auto& y) {
      if (x.first != y.first) return x.first > y.first;
      return names[x.second] < names[y.second];
    });
    if (v.size() > kAssocPerTerm) v.resize(kAssocPerTerm);
    std::vector<std::string>& partners = out[names[a]];
    for (const auto& p : v) partners.push_back(names[p.second]);
  }
  return out;
}

std::string EncodeAssociations(const Associations& a) {
  std::map<std::string, const std::vector<std::string>*> sorted;
  for (const auto& [k, v] : a) sorted.emplace(k, &v);
  std::string out;
  for (const auto& [k, v] : sorted) {
    out += k;
    out.push_back('\t');
    for (size_t i = 0; i < v->size(); ++i) {
      if (i) out.push_back(' ');
      out += (*v)[i];
    }
    out.push_back('\n');
  }
  return out;
}

AssociationTable::AssociationTable(std::string text) : text_(std::move(text)) {
  if (text_.size() >= UINT32_MAX) {  // offsets are 32-bit: no table
    text_.clear();
    return;
  }
  const auto size = static_cast<uint32_t>(text_.size());
  for (uint32_t pos = 0; pos < size;) {
    size_t nl = text_.find('\n', pos);
    const uint32_t end = nl == std::string::npos ? size : static_cast<uint32_t>(nl);
    // The tab is looked for in this line only (a text without tabs would
    // otherwise be scanned to its end from every line).
    const size_t tab = std::string_view(text_).substr(pos, end - pos).find('\t');
    if (tab != std::string_view::npos && tab > 0)
      lines_.push_back({pos, pos + static_cast<uint32_t>(tab), end});
    pos = end + 1;
  }
  auto by_term = [this](const Line& a, const Line& b) { return Term(a) < Term(b); };
  if (!std::is_sorted(lines_.begin(), lines_.end(), by_term))
    std::stable_sort(lines_.begin(), lines_.end(), by_term);
}

std::vector<std::string> AssociationTable::Partners(std::string_view term) const {
  std::vector<std::string> out;
  auto it = std::lower_bound(lines_.begin(), lines_.end(), term,
                             [this](const Line& l, std::string_view t) { return Term(l) < t; });
  for (; it != lines_.end() && Term(*it) == term; ++it) {
    std::string_view rest = std::string_view(text_).substr(it->tab + 1, it->end - it->tab - 1);
    while (!rest.empty()) {
      size_t sp = rest.find(' ');
      std::string_view w = rest.substr(0, sp);
      if (!w.empty()) out.emplace_back(w);
      if (sp == std::string_view::npos) break;
      rest.remove_prefix(sp + 1);
    }
  }
  return out;
}

AssociationTable ReadAssociations(const Xapian::Database& db) {
  try {
    return AssociationTable(db.get_metadata(kAssocKey));
  } catch (const Xapian::Error&) {
    return AssociationTable();
  }
}

}  // namespace fixgraph::query::docs
