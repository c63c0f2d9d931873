// ByteWriter and ByteReader: the compact binary form of stored records
// (engine/record_codec for items and index rows, graph/ for link records).
//
// A value is one type byte followed by fields in a fixed order: strings as a
// varint length and the bytes, integers as zigzag varints, optional times as
// a presence byte and a zigzag varint, enums as one byte, string lists as a
// varint count and strings, repository references as the platform byte,
// owner and name. Writing is deterministic: equal values give equal bytes.
//
// Reading is strict and never throws: a wrong type byte, a truncated value,
// a varint longer than 64 bits, an out-of-range enum or trailing bytes make Finish() return
// Corruption naming the record kind. After the first error every read returns zero or empty values.
//
// Thread safety: one writer or reader per thread.
#pragma once

#include "fixgraph/engine/model.h"
#include "fixgraph/engine/status.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph {

class ByteWriter {
 public:
  ByteWriter(std::string* out, char tag) : out_(out) {
    out_->clear();
    out_->reserve(512);
    out_->push_back(tag);
  }
  void Varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_->push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_->push_back(static_cast<char>(v));
  }
  void Int(std::int64_t v) {
    Varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
  }
  void Byte(std::uint8_t b) { out_->push_back(static_cast<char>(b)); }
  void Double(double d) {  // the 8 bytes of the IEEE value, little end first
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    for (int i = 0; i < 8; ++i) out_->push_back(static_cast<char>(bits >> (8 * i)));
  }
  void Str(std::string_view s) {
    Varint(s.size());
    out_->append(s);
  }
  void Time(const OptTime& t) {
    Byte(t ? 1 : 0);
    if (t) Int(*t);
  }
  void Strings(const std::vector<std::string>& v) {
    Varint(v.size());
    for (const std::string& s : v) Str(s);
  }
  void Repo(const RepoRef& r) {
    Byte(static_cast<std::uint8_t>(r.platform));
    Str(r.owner);
    Str(r.name);
  }
  void RefField(const Ref& r) {
    Byte(static_cast<std::uint8_t>(r.kind));
    Repo(r.repo);
    Str(r.number);
  }
  void UserField(const User& u) {
    Str(u.id);
    Str(u.login);
    Str(u.name);
  }

 private:
  std::string* out_;
};

class ByteReader {
 public:
  ByteReader(std::string_view in, char tag, const char* what)
      : p_(in.data()), end_(in.data() + in.size()), what_(what) {
    if (p_ == end_ || *p_ != tag) {
      ok_ = false;
      return;
    }
    ++p_;
  }
  std::uint64_t Varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return Bad();
      auto b = static_cast<std::uint8_t>(*p_++);
      if (shift == 63 && b > 1) return Bad();  // bits past the 64th: overlong
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return Bad();
  }
  std::int64_t Int() {
    std::uint64_t u = Varint();
    return static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));
  }
  std::uint8_t Byte() {
    if (p_ == end_) return static_cast<std::uint8_t>(Bad());
    return static_cast<std::uint8_t>(*p_++);
  }
  bool Bool() {
    std::uint8_t b = Byte();
    if (b > 1) Bad();
    return b == 1;
  }
  double Double() {
    if (end_ - p_ < 8) return static_cast<double>(Bad());
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i)
      bits |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(p_[i])) << (8 * i);
    p_ += 8;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  void Str(std::string* s) {
    std::uint64_t n = Varint();
    if (static_cast<std::uint64_t>(end_ - p_) < n) {
      Bad();
      return;
    }
    s->assign(p_, n);
    p_ += n;
  }
  void Time(OptTime* t) {
    std::uint8_t present = Byte();
    if (present == 1) {
      *t = Int();
    } else {
      t->reset();
      if (present != 0) Bad();
    }
  }
  // An element count, bounded by the bytes left (every element takes at
  // least one), so a corrupt count cannot make the caller allocate much.
  size_t Count() {
    std::uint64_t n = Varint();
    if (n > static_cast<std::uint64_t>(end_ - p_)) return static_cast<size_t>(Bad());
    return static_cast<size_t>(n);
  }
  void Strings(std::vector<std::string>* v) {
    v->resize(Count());
    for (std::string& s : *v) Str(&s);
  }
  void Repo(RepoRef* r) {
    std::uint8_t p = Byte();
    if (p < 1 || p > 3) Bad();
    r->platform = static_cast<Platform>(p);
    Str(&r->owner);
    Str(&r->name);
  }
  void RefField(Ref* r) {
    std::uint8_t k = Byte();
    if (k > static_cast<std::uint8_t>(RefKind::kDoc)) Bad();
    r->kind = static_cast<RefKind>(k);
    Repo(&r->repo);
    Str(&r->number);
  }
  void UserField(User* u) {
    Str(&u->id);
    Str(&u->login);
    Str(&u->name);
  }
  template <typename E>
  void Enum(E* e, std::uint8_t max) {
    std::uint8_t b = Byte();
    if (b > max) Bad();
    *e = static_cast<E>(b);
  }
  // True once every byte is read (or after an error).
  bool AtEnd() const { return p_ == end_; }
  // The bytes not read yet (none after an error).
  std::string_view Rest() const { return {p_, static_cast<size_t>(end_ - p_)}; }
  Status Finish() {
    if (ok_ && p_ != end_) ok_ = false;
    if (ok_) return Status::OK();
    return Status::Corruption(std::string("bad ") + what_ + " record encoding");
  }

 private:
  std::uint64_t Bad() {
    ok_ = false;
    p_ = end_;
    return 0;
  }
  const char* p_;
  const char* end_;
  const char* what_;
  bool ok_ = true;
};

}  // namespace fixgraph
