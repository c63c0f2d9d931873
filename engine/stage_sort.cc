// Store::Batch::Impl: the staged writes in commit order (store_batch.h
// "Sorted() order"): a counting sort by family and key tag, then a sort by
// key of only the groups not already sorted.
#include "store_batch.h"
#include "store_impl.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fixgraph {

using namespace store_internal;

std::vector<Store::Batch::Impl::Entry> Store::Batch::Impl::Grouped() const {
  // Most runs arrive sorted already (one file's elements, one record's index
  // rows): group by family and key tag, then sort only the groups that need it.
  // Grouping is a counting sort (groups are few: families x tags), which
  // keeps staged order within a group as a stable sort would.
  std::uint32_t max_cf = 0;
  for (const Op& op : ops) max_cf = std::max(max_cf, op.cf->GetID());
  auto group_of = [](const Op& op) {
    std::uint64_t tag = op.key.empty() ? 0 : static_cast<unsigned char>(op.key[0]);
    return (std::uint64_t{op.cf->GetID()} << 8) | tag;
  };
  std::vector<std::size_t> start((std::size_t{max_cf} + 1) * 256 + 1, 0);
  for (const Op& op : ops) ++start[group_of(op) + 1];
  for (std::size_t g = 1; g < start.size(); ++g) start[g] += start[g - 1];
  std::vector<Entry> order(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    std::uint64_t group = group_of(op);
    order[start[group]++] = {group, 0, op.key, &op, static_cast<std::uint32_t>(i)};
  }
  return order;
}

std::vector<Store::Batch::Impl::Entry> Store::Batch::Impl::Sorted() const {
  std::vector<Entry> order = Grouped();
  for (auto first = order.begin(); first != order.end();) {
    auto last = first;
    while (last != order.end() && last->group == first->group) ++last;
    SortGroupIfNeeded(first, last);
    first = last;
  }
  return order;
}

void Store::Batch::Impl::SortGroupIfNeeded(std::vector<Entry>::iterator first,
                                           std::vector<Entry>::iterator last) {
  auto by_key = [](const Entry& a, const Entry& b) { return a.key < b.key; };
  if (!std::is_sorted(first, last, by_key)) SortGroup(first, last);
}

void Store::Batch::Impl::SortGroup(std::vector<Entry>::iterator first,
                                   std::vector<Entry>::iterator last) {
  const std::string_view k0 = first->key;
  size_t common = k0.size();
  for (auto e = first + 1; e != last && common > 0; ++e) {
    size_t n = std::min(common, e->key.size()), i = 0;
    while (i < n && e->key[i] == k0[i]) ++i;
    common = i;
  }
  for (auto e = first; e != last; ++e) {
    std::uint64_t h = 0;
    for (size_t i = 0; i < 8; ++i) {
      size_t at = common + i;
      h = (h << 8) | (at < e->key.size() ? static_cast<unsigned char>(e->key[at]) : 0u);
    }
    e->head = h;
  }
  std::sort(first, last, [common](const Entry& a, const Entry& b) {
    if (a.head != b.head) return a.head < b.head;
    int c = a.key.substr(common).compare(b.key.substr(common));
    if (c != 0) return c < 0;
    return a.seq < b.seq;
  });
}

Status Store::Batch::Impl::Fill(rocksdb::WriteBatch* wb) {
  for (const Entry& e : Sorted()) {
    const Op& op = *e.op;
    rocksdb::Status s = op.del ? wb->Delete(op.cf, op.key) : wb->Put(op.cf, op.key, op.value);
    FG_RETURN_IF_ERROR(FromRocks(s, "write"));
  }
  return Status::OK();
}

}  // namespace fixgraph
