#include "fixgraph/engine/time.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace fixgraph {
namespace {

// 2026-09-15T03:35:56Z
constexpr UnixSeconds kT = 1789443356;
// 2026-09-15T00:00:00Z
constexpr UnixSeconds kDay = 1789430400;

UnixSeconds MustParse(const std::string& text) {
  auto r = ParseTimestamp(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  if (!r.ok()) return -999;
  EXPECT_TRUE(r->has_value()) << text;
  return r->value_or(-999);
}

TEST(ParseTimestampTest, AcceptedForms) {
  struct Case {
    const char* text;
    UnixSeconds want;
  };
  const std::vector<Case> cases = {
      {"2026-09-15T11:35:56+08:00", kT},      // GitCode/Gitee
      {"2026-09-15T03:35:56Z", kT},           // Z
      {"2026-09-15T03:35:56z", kT},           // lower-case z
      {"2026-09-15T03:35:56UTC", kT},         // UTC word
      {"2026-09-15T03:35:56+00:00", kT},      // +00:00
      {"2026-09-15T03:35:56-00:00", kT},      // -00:00
      {"2026-09-15T11:35:56+0800", kT},       // +0800
      {"2026-09-14T22:05:56-0530", kT},       // negative compact offset
      {"2026-09-14T22:35:56-05:00", kT},      // negative offset, previous day
      {"2026-09-15T17:35:56+14:00", kT},      // the largest offset
      {"2026-09-15T11:35:56.479+08:00", kT},  // milliseconds, truncated
      {"2026-09-15T03:35:56.999Z", kT},       // fractions never round up
      {"2026-09-15T03:35:56,5Z", kT},         // comma decimal
      {"2026-09-15T03:35:56.123456789+00:00", kT},
      {"2026-09-15 11:35:56 +0800", kT},  // space separator and space before offset
      {"2026-09-15 11:35:56+08:00", kT},
      {"2026-09-15t03:35:56Z", kT},         // lower-case t
      {"2026-09-15T03:35:56", kT},          // no offset: UTC
      {"  2026-09-15T03:35:56Z\t", kT},     // surrounding blanks
      {"2026-09-15T11:35+08:00", kT - 56},  // seconds omitted
      {"2026-09-15T03:35", kT - 56},        // seconds and offset omitted
      {"2026-09-15", kDay},                 // date only: midnight UTC
      {"2024-04-18T14:35:15.479+08:00", 1713422115},
      {"2024-02-29", 1709164800},           // leap year
      {"2000-02-29T12:00:00Z", 951825600},  // 400-year leap
      {"1970-01-01T00:00:00Z", 0},
      {"1970-01-01T08:00:00+08:00", 0},
      {"1969-12-31T23:59:59Z", -1},  // before the epoch
      {"1970-01-01T00:00:00+00:01", -60},
      {"2016-12-31T23:59:60Z", 1483228799},  // leap second folds onto :59
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(MustParse(c.text), c.want);
  }
}

TEST(ParseTimestampTest, SameInstantAcrossOffsetsComparesEqual) {
  UnixSeconds a = MustParse("2026-09-15T11:35:56+08:00");
  UnixSeconds b = MustParse("2026-09-15T03:35:56Z");
  UnixSeconds c = MustParse("2026-09-15T03:35:56.755+00:00");
  UnixSeconds d = MustParse("2026-09-15 11:35:56 +0800");
  EXPECT_EQ(a, b);
  EXPECT_EQ(b, c);
  EXPECT_EQ(c, d);
  EXPECT_LT(MustParse("2026-09-15T11:35:55+08:00"), b);
  EXPECT_GT(MustParse("2026-09-15T11:35:56+07:00"), b);
}

TEST(ParseTimestampTest, EmptyMeansUnset) {
  for (const char* text : {"", " ", "\t\t"}) {
    auto r = ParseTimestamp(text);
    ASSERT_TRUE(r.ok()) << "'" << text << "'";
    EXPECT_FALSE(r->has_value()) << "'" << text << "'";
  }
}

TEST(ParseTimestampTest, RejectsInvalidWithMessageNamingText) {
  const std::vector<std::string> bad = {
      "2026-13-01T00:00:00Z",       // month 13
      "2026-00-10",                 // month 0
      "2026-02-30",                 // Feb 30
      "2025-02-29",                 // Feb 29, non-leap year
      "1900-02-29",                 // century, non-leap
      "2026-04-31",                 // day 31 in April
      "2026-09-00",                 // day 0
      "2026-09-15T24:00:00Z",       // hour 24
      "2026-09-15T23:60:00Z",       // minute 60
      "2026-09-15T23:59:61Z",       // second 61
      "2026-09-15T11:35:56+08:60",  // offset minutes 60
      "2026-09-15T11:35:56+14:01",  // offset beyond 14:00
      "2026-09-15T11:35:56+15:00",
      "2026-09-15T11:35:56+8:00",    // one-digit offset hour
      "2026-09-15T11:35:56+",        // sign only
      "2026-09-15T11:35:56 GMT",     // unknown zone word
      "2026-09-15T11:35:56+08:00x",  // trailing garbage
      "2026-09-15T03:35:56Zabc",
      "2026-09-15T03:35:56Z Z",
      "2026-09-15x",
      "2026-09-15T",
      "2026-09-15T11",
      "2026-09-15T11:3",
      "2026-09-15T11:35:5",
      "2026-09-15T11:35:56.Z",  // no digits after '.'
      "2026-9-15",
      "26-09-15",
      "2026/09/15",
      "abc",
      "yesterday",
      "2026-09-1aT00:00:00Z",  // letters in digits
      "2026-09-15T1a:35:56Z",
      "-2026-09-15",
  };
  for (const std::string& text : bad) {
    SCOPED_TRACE(text);
    auto r = ParseTimestamp(text);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find("\"" + text + "\""), std::string::npos)
        << r.status().message();
  }
}

TEST(ParseTimestampTest, RejectionMessageSaysWhy) {
  auto month = ParseTimestamp("2026-13-01");
  ASSERT_FALSE(month.ok());
  EXPECT_NE(month.status().message().find("month"), std::string::npos);
  auto day = ParseTimestamp("2025-02-29");
  ASSERT_FALSE(day.ok());
  EXPECT_NE(day.status().message().find("day"), std::string::npos);
  auto offset = ParseTimestamp("2026-09-15T11:35:56+99:00");
  ASSERT_FALSE(offset.ok());
  EXPECT_NE(offset.status().message().find("offset"), std::string::npos);
}

TEST(ParseTimestampTest, LongGarbageIsQuotedTruncated) {
  std::string text = "2026-09-15T03:35:56Z" + std::string(500, 'x');
  auto r = ParseTimestamp(text);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("2026-09-15T03:35:56Zxxx"), std::string::npos);
  EXPECT_LT(r.status().message().size(), 200u);
}

TEST(FormatTest, FormatUtc) {
  EXPECT_EQ(FormatUtc(kT), "2026-09-15T03:35:56Z");
  EXPECT_EQ(FormatUtc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatUtc(kDay), "2026-09-15T00:00:00Z");
  EXPECT_EQ(FormatUtc(kDay - 1), "2026-09-14T23:59:59Z");
  EXPECT_EQ(FormatUtc(1709164800), "2024-02-29T00:00:00Z");
}

TEST(FormatTest, FormatUtcNegativeTimes) {
  EXPECT_EQ(FormatUtc(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatUtc(-86400), "1969-12-31T00:00:00Z");
  EXPECT_EQ(FormatUtc(-86401), "1969-12-30T23:59:59Z");
  EXPECT_EQ(FormatUtc(-2203891200), "1900-03-01T00:00:00Z");
  EXPECT_EQ(FormatUtc(-2203891201), "1900-02-28T23:59:59Z");
}

TEST(FormatTest, FormatWithOffset) {
  EXPECT_EQ(FormatWithOffset(kT, 480), "2026-09-15 11:35:56 +08:00");
  EXPECT_EQ(FormatWithOffset(kT, 0), "2026-09-15 03:35:56 +00:00");
  EXPECT_EQ(FormatWithOffset(kT, -330), "2026-09-14 22:05:56 -05:30");
  EXPECT_EQ(FormatWithOffset(kT, 14 * 60), "2026-09-15 17:35:56 +14:00");
  EXPECT_EQ(FormatWithOffset(kT, -14 * 60), "2026-09-14 13:35:56 -14:00");
  EXPECT_EQ(FormatWithOffset(0, -60), "1969-12-31 23:00:00 -01:00");
  EXPECT_EQ(FormatWithOffset(-1, 60), "1970-01-01 00:59:59 +01:00");
  EXPECT_EQ(FormatWithOffset(-1, 0), "1969-12-31 23:59:59 +00:00");
}

TEST(FormatTest, FormatDateAtDayBoundaries) {
  // 23:59:59 UTC on the 14th is already the 15th in Beijing.
  EXPECT_EQ(FormatDate(kDay - 1, 0), "2026-09-14");
  EXPECT_EQ(FormatDate(kDay - 1, 480), "2026-09-15");
  // Midnight UTC on the 15th is still the 14th west of Greenwich.
  EXPECT_EQ(FormatDate(kDay, 0), "2026-09-15");
  EXPECT_EQ(FormatDate(kDay, -1), "2026-09-14");
  // 16:00 UTC is exactly midnight at +08:00.
  EXPECT_EQ(FormatDate(kDay + 16 * 3600 - 1, 480), "2026-09-15");
  EXPECT_EQ(FormatDate(kDay + 16 * 3600, 480), "2026-09-16");
  EXPECT_EQ(FormatDate(-1, 0), "1969-12-31");
  EXPECT_EQ(FormatDate(-1, 1), "1970-01-01");
  // Year boundary.
  EXPECT_EQ(FormatDate(MustParse("2025-12-31T16:00:00Z"), 480), "2026-01-01");
  EXPECT_EQ(FormatDate(MustParse("2025-12-31T15:59:59Z"), 480), "2025-12-31");
}

TEST(FormatTest, RoundTripsThroughParse) {
  std::vector<UnixSeconds> times = {0,
                                    -1,
                                    1,
                                    kT,
                                    kDay,
                                    kDay - 1,
                                    -86400,
                                    -86401,
                                    -2203891200,
                                    951825600,
                                    4102444799 /* 2099-12-31 */,
                                    1709164800 - 1,
                                    1709164800 + 86400};
  // A deterministic spread across 1850..2130, including negatives.
  std::uint64_t x = 12345;
  for (int i = 0; i < 2000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    times.push_back(static_cast<UnixSeconds>(x % 8'800'000'000ULL) - 3'800'000'000LL);
  }
  const int offsets[] = {0, 480, -330, 14 * 60, -14 * 60, 345, -1, 1};
  for (UnixSeconds t : times) {
    ASSERT_EQ(MustParse(FormatUtc(t)), t) << FormatUtc(t);
    for (int off : offsets) {
      std::string s = FormatWithOffset(t, off);
      ASSERT_EQ(MustParse(s), t) << s;
      // The date in that offset is the date part of the local time.
      ASSERT_EQ(FormatDate(t, off), s.substr(0, 10));
    }
  }
}

TEST(FormatTest, DaysFromCivil) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1970, 1, 2), 1);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2026, 9, 15) * 86400, kDay);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1) - DaysFromCivil(2000, 2, 28), 2);  // leap
  EXPECT_EQ(DaysFromCivil(1900, 3, 1) - DaysFromCivil(1900, 2, 28), 1);  // not leap
  EXPECT_EQ(DaysFromCivil(2001, 1, 1) - DaysFromCivil(2000, 1, 1), 366);
}

TEST(ParseUtcOffsetTest, Accepted) {
  struct Case {
    const char* text;
    int want;
  };
  for (const Case& c : std::vector<Case>{{"+08:00", 480},
                                         {"+0800", 480},
                                         {"-0530", -330},
                                         {"-05:30", -330},
                                         {"Z", 0},
                                         {"z", 0},
                                         {"UTC", 0},
                                         {"+00:00", 0},
                                         {"-00:00", 0},
                                         {"+14:00", 840},
                                         {"-14:00", -840},
                                         {"+05:45", 345}}) {
    auto r = ParseUtcOffset(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.status().ToString();
    EXPECT_EQ(*r, c.want) << c.text;
  }
}

TEST(ParseUtcOffsetTest, RejectedWithMessageNamingText) {
  for (const std::string text : {"", "08:00", "+8:00", "+08:60", "+14:30", "+15:00", "GMT",
                                 "+08:00 ", "++08:00", "+08:0x", "utc+8"}) {
    auto r = ParseUtcOffset(text);
    ASSERT_FALSE(r.ok()) << "'" << text << "'";
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find("\"" + text + "\""), std::string::npos)
        << r.status().message();
  }
}

// Restores the display offset a test changes.
class ScopedDisplayOffset {
 public:
  ScopedDisplayOffset() : old_(DisplayOffsetMinutes()) {}
  ~ScopedDisplayOffset() { SetDisplayOffsetMinutes(old_); }
  ScopedDisplayOffset(const ScopedDisplayOffset&) = delete;
  ScopedDisplayOffset& operator=(const ScopedDisplayOffset&) = delete;

 private:
  int old_;
};

TEST(DisplayOffsetTest, SettingDefaultsToBeijing) {
  EXPECT_EQ(kDefaultDisplayOffsetMinutes, 480);
  EXPECT_EQ(DisplayOffsetFromSetting(""), 480);
}

TEST(DisplayOffsetTest, SettingNamesAnOffset) {
  EXPECT_EQ(DisplayOffsetFromSetting("+00:00"), 0);
  EXPECT_EQ(DisplayOffsetFromSetting("Z"), 0);
  EXPECT_EQ(DisplayOffsetFromSetting("-05:00"), -300);
  EXPECT_EQ(DisplayOffsetFromSetting("+0530"), 330);
}

TEST(DisplayOffsetTest, InvalidSettingFallsBackToDefault) {
  EXPECT_EQ(DisplayOffsetFromSetting("Asia/Shanghai"), 480);
  EXPECT_EQ(DisplayOffsetFromSetting("+08:"), 480);
}

TEST(DisplayOffsetTest, SetterChangesTheProcessOffset) {
  ScopedDisplayOffset restore;
  SetDisplayOffsetMinutes(-300);
  EXPECT_EQ(DisplayOffsetMinutes(), -300);
  EXPECT_EQ(FormatWithOffset(0, DisplayOffsetMinutes()), "1969-12-31 19:00:00 -05:00");
  SetDisplayOffsetMinutes(kDefaultDisplayOffsetMinutes);
  EXPECT_EQ(DisplayOffsetMinutes(), 480);
}

// The library does not read $FIXGRAPH_TZ (the cli does, cli/environment.h):
// only the setter moves the offset.
TEST(DisplayOffsetTest, EnvironmentIsNotRead) {
  ScopedDisplayOffset restore;
  SetDisplayOffsetMinutes(60);
  setenv("FIXGRAPH_TZ", "-05:00", 1);
  EXPECT_EQ(DisplayOffsetMinutes(), 60);
  unsetenv("FIXGRAPH_TZ");
  EXPECT_EQ(DisplayOffsetMinutes(), 60);
}

// Regression (engine/time.cc, ParseOffsetAt): a colon with no minutes after it
// was accepted, so "+08:" parsed as +08:00 and "2026-09-15T11:35:56+08:" as a
// valid timestamp. Both are InvalidArgument ("bad UTC offset").
TEST(ParseUtcOffsetTest, DanglingColonIsRejected) {
  EXPECT_FALSE(ParseUtcOffset("+08:").ok());
  EXPECT_FALSE(ParseTimestamp("2026-09-15T11:35:56+08:").ok());
}

}  // namespace
}  // namespace fixgraph
