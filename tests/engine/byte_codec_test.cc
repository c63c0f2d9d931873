// Varint boundaries of the binary record encoding (fixgraph/engine/byte_codec.h,
// used by engine/record_codec.cc): the exact bytes at each 7-bit length step,
// zigzag integers at their extremes, and truncated or overlong input.
#include "fixgraph/engine/byte_codec.h"

#include "../../engine/record_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fixgraph {
namespace {

constexpr char kTag = 't';

std::string EncodeVarint(std::uint64_t v) {
  std::string out;
  ByteWriter w(&out, kTag);
  w.Varint(v);
  return out.substr(1);  // without the type byte
}

std::string EncodeInt(std::int64_t v) {
  std::string out;
  ByteWriter w(&out, kTag);
  w.Int(v);
  return out.substr(1);
}

// Reads one varint from `bytes`; *ok says whether the whole input was one.
std::uint64_t DecodeVarint(const std::string& bytes, bool* ok) {
  std::string in = std::string(1, kTag) + bytes;
  ByteReader r(in, kTag, "test");
  std::uint64_t v = r.Varint();
  *ok = r.Finish().ok();
  return v;
}

std::int64_t DecodeInt(const std::string& bytes, bool* ok) {
  std::string in = std::string(1, kTag) + bytes;
  ByteReader r(in, kTag, "test");
  std::int64_t v = r.Int();
  *ok = r.Finish().ok();
  return v;
}

struct Case {
  std::uint64_t value;
  std::size_t bytes;  // encoded length
};

TEST(ByteCodecVarint, LengthStepsAtEachSevenBits) {
  const std::vector<Case> cases = {
      {0, 1},
      {127, 1},
      {128, 2},
      {(1u << 14) - 1, 2},
      {1u << 14, 3},
      {(1u << 21) - 1, 3},
      {1u << 21, 4},
      {(1u << 28) - 1, 4},
      {1u << 28, 5},
      {(std::uint64_t{1} << 35) - 1, 5},
      {std::uint64_t{1} << 35, 6},
      {(std::uint64_t{1} << 63) - 1, 9},
      {std::uint64_t{1} << 63, 10},
      {std::numeric_limits<std::uint64_t>::max(), 10},
  };
  for (const Case& c : cases) {
    std::string b = EncodeVarint(c.value);
    EXPECT_EQ(b.size(), c.bytes) << c.value;
    // Every byte but the last carries the continuation bit.
    for (std::size_t i = 0; i + 1 < b.size(); ++i)
      EXPECT_NE(static_cast<unsigned char>(b[i]) & 0x80, 0) << c.value << " byte " << i;
    EXPECT_EQ(static_cast<unsigned char>(b.back()) & 0x80, 0) << c.value;
    bool ok = false;
    EXPECT_EQ(DecodeVarint(b, &ok), c.value);
    EXPECT_TRUE(ok) << c.value;
  }
}

TEST(ByteCodecVarint, ExactBytesAtTheFirstSteps) {
  EXPECT_EQ(EncodeVarint(0), std::string(1, '\0'));
  EXPECT_EQ(EncodeVarint(127), "\x7f");
  EXPECT_EQ(EncodeVarint(128), "\x80\x01");
  EXPECT_EQ(EncodeVarint((1u << 14) - 1), "\xff\x7f");
  EXPECT_EQ(EncodeVarint(1u << 14), std::string("\x80\x80\x01", 3));
  EXPECT_EQ(EncodeVarint(std::numeric_limits<std::uint64_t>::max()),
            "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
}

TEST(ByteCodecVarint, ZigzagIntegersAtTheirExtremes) {
  const std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  const std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  // Zigzag: 0, -1, 1, -2, ... map to 0, 1, 2, 3, ...
  EXPECT_EQ(EncodeInt(0), EncodeVarint(0));
  EXPECT_EQ(EncodeInt(-1), EncodeVarint(1));
  EXPECT_EQ(EncodeInt(1), EncodeVarint(2));
  EXPECT_EQ(EncodeInt(-64), EncodeVarint(127));  // the last one-byte value
  EXPECT_EQ(EncodeInt(64), EncodeVarint(128));   // the first two-byte one
  EXPECT_EQ(EncodeInt(kMax), EncodeVarint(std::numeric_limits<std::uint64_t>::max() - 1));
  EXPECT_EQ(EncodeInt(kMin), EncodeVarint(std::numeric_limits<std::uint64_t>::max()));
  for (std::int64_t v :
       {std::int64_t{0}, std::int64_t{-1}, std::int64_t{63}, std::int64_t{-64}, std::int64_t{64},
        std::int64_t{-65}, std::int64_t{1} << 20, -(std::int64_t{1} << 20), std::int64_t{1} << 35,
        kMax, kMax - 1, kMin, kMin + 1}) {
    bool ok = false;
    EXPECT_EQ(DecodeInt(EncodeInt(v), &ok), v);
    EXPECT_TRUE(ok) << v;
  }
}

TEST(ByteCodecVarint, TruncatedInputIsAnError) {
  for (std::uint64_t v : {std::uint64_t{128}, std::uint64_t{1} << 14, std::uint64_t{1} << 35,
                          std::numeric_limits<std::uint64_t>::max()}) {
    std::string b = EncodeVarint(v);
    for (std::size_t n = 0; n < b.size(); ++n) {
      bool ok = true;
      EXPECT_EQ(DecodeVarint(b.substr(0, n), &ok), 0u) << v << " cut at " << n;
      EXPECT_FALSE(ok) << v << " cut at " << n;
    }
  }
  // A continuation bit on the last byte there is.
  bool ok = true;
  DecodeVarint("\x80", &ok);
  EXPECT_FALSE(ok);
}

TEST(ByteCodecVarint, OverlongInputIsAnError) {
  bool ok = true;
  // Eleven bytes: more than any 64-bit value takes.
  DecodeVarint("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x01", &ok);
  EXPECT_FALSE(ok);
  // Ten bytes whose last one carries bits past the 64th.
  ok = true;
  DecodeVarint("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", &ok);
  EXPECT_FALSE(ok);
  ok = true;
  DecodeVarint("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", &ok);
  EXPECT_FALSE(ok);
}

TEST(ByteCodecVarint, StringLengthPastTheEndIsAnError) {
  std::string in(1, kTag);
  in += EncodeVarint(std::uint64_t{1} << 35);  // a length far beyond the input
  in += "abc";
  ByteReader r(in, kTag, "test");
  std::string s;
  r.Str(&s);
  EXPECT_TRUE(s.empty());
  EXPECT_TRUE(r.Finish().IsCorruption());
}

// The same boundaries through a whole record: a pull request's number and its
// times are zigzag varints.
TEST(ByteCodecVarint, RecordFieldsAtTheBoundaries) {
  const std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  const std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{63}, std::int64_t{64}, std::int64_t{8191},
                         std::int64_t{8192}, std::int64_t{1} << 20, std::int64_t{1} << 27,
                         std::int64_t{1} << 34, std::int64_t{-1}, kMax, kMin}) {
    PullRequest v;
    v.repo = RepoRef{Platform::kGitCode, "Ascend", "MindSpeed"};
    v.number = n;
    v.created_at = n;
    v.merged_at = kMin;
    v.closed_at = kMax;
    std::string bytes;
    codec::Encode(v, &bytes);
    PullRequest back;
    ASSERT_TRUE(codec::Decode(bytes, &back).ok()) << n;
    EXPECT_EQ(back.number, n);
    EXPECT_EQ(back.created_at, OptTime(n));
    EXPECT_EQ(back.merged_at, OptTime(kMin));
    EXPECT_EQ(back.closed_at, OptTime(kMax));
    for (std::size_t cut = 0; cut < bytes.size(); ++cut)
      EXPECT_TRUE(codec::Decode(std::string_view(bytes).substr(0, cut), &back).IsCorruption())
          << n << " cut at " << cut;
  }
}

}  // namespace
}  // namespace fixgraph
