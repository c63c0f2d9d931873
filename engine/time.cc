#include "fixgraph/engine/time.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace fixgraph {
namespace {

constexpr int kMaxOffsetMinutes = 14 * 60;
constexpr int kDefaultDisplayOffset = kDefaultDisplayOffsetMinutes;

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Reads exactly n digits at s[*pos]; advances pos.
bool ReadDigits(std::string_view s, size_t* pos, int n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

struct Civil {
  int year, month, day;
};

Civil CivilFromDays(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return Civil{static_cast<int>(y + (m <= 2)), static_cast<int>(m), static_cast<int>(d)};
}

// Parses an offset at s[pos..]; the whole rest must be the offset.
bool ParseOffsetAt(std::string_view s, size_t pos, int* minutes) {
  std::string_view rest = s.substr(pos);
  if (rest == "Z" || rest == "z" || rest == "UTC") {
    *minutes = 0;
    return true;
  }
  if (rest.empty() || (rest[0] != '+' && rest[0] != '-')) return false;
  int sign = rest[0] == '-' ? -1 : 1;
  size_t p = 1;
  int hh = 0, mm = 0;
  if (!ReadDigits(rest, &p, 2, &hh)) return false;
  if (p < rest.size() && rest[p] == ':') {
    ++p;
    if (!ReadDigits(rest, &p, 2, &mm)) return false;  // "+08:" has no minutes
  } else if (p < rest.size() && !ReadDigits(rest, &p, 2, &mm)) {
    return false;
  }
  if (p != rest.size() || mm > 59) return false;
  int total = hh * 60 + mm;
  if (total > kMaxOffsetMinutes) return false;
  *minutes = sign * total;
  return true;
}

Status BadTimestamp(std::string_view text, const char* why) {
  return Status::InvalidArgument("bad timestamp \"" + std::string(text.substr(0, 64)) +
                                 "\": " + why);
}

}  // namespace

std::int64_t DaysFromCivil(int year, int month, int day) {
  const std::int64_t y = static_cast<std::int64_t>(year) - (month <= 2);
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const auto mp = static_cast<unsigned>(month > 2 ? month - 3 : month + 9);
  const unsigned doy = (153 * mp + 2) / 5 + static_cast<unsigned>(day) - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

StatusOr<std::optional<UnixSeconds>> ParseTimestamp(std::string_view text) {
  return ParseTimestamp(text, 0);
}

StatusOr<std::optional<UnixSeconds>> ParseTimestamp(std::string_view text,
                                                    int naive_offset_minutes) {
  // Trim surrounding blanks.
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty()) return std::optional<UnixSeconds>();

  size_t p = 0;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!ReadDigits(text, &p, 4, &y) || p >= text.size() || text[p++] != '-' ||
      !ReadDigits(text, &p, 2, &mo) || p >= text.size() || text[p++] != '-' ||
      !ReadDigits(text, &p, 2, &d)) {
    return BadTimestamp(text, "expected YYYY-MM-DD");
  }
  if (mo < 1 || mo > 12) return BadTimestamp(text, "month out of range");
  if (d < 1 || d > DaysInMonth(y, mo)) return BadTimestamp(text, "day out of range");
  int offset = naive_offset_minutes;
  if (p < text.size()) {
    if (text[p] != 'T' && text[p] != 't' && text[p] != ' ')
      return BadTimestamp(text, "expected 'T' after the date");
    ++p;
    if (!ReadDigits(text, &p, 2, &h) || p >= text.size() || text[p++] != ':' ||
        !ReadDigits(text, &p, 2, &mi))
      return BadTimestamp(text, "expected HH:MM");
    if (p < text.size() && text[p] == ':') {
      ++p;
      if (!ReadDigits(text, &p, 2, &sec)) return BadTimestamp(text, "expected seconds");
    }
    if (p < text.size() && (text[p] == '.' || text[p] == ',')) {
      ++p;
      size_t start = p;
      while (p < text.size() && text[p] >= '0' && text[p] <= '9') ++p;
      if (p == start) return BadTimestamp(text, "expected digits after the decimal point");
    }
    if (p < text.size() && text[p] == ' ') ++p;
    if (p < text.size() && !ParseOffsetAt(text, p, &offset))
      return BadTimestamp(text, "bad UTC offset");
  }
  if (h > 23 || mi > 59 || sec > 60) return BadTimestamp(text, "time of day out of range");
  if (sec == 60) sec = 59;  // a leap second folds onto the last second
  UnixSeconds t = DaysFromCivil(y, mo, d) * 86400 + static_cast<UnixSeconds>(h) * 3600 +
                  static_cast<UnixSeconds>(mi) * 60 + sec;
  return std::optional<UnixSeconds>(t - static_cast<UnixSeconds>(offset) * 60);
}

StatusOr<int> ParseUtcOffset(std::string_view text) {
  int minutes = 0;
  if (!ParseOffsetAt(text, 0, &minutes))
    return Status::InvalidArgument("bad UTC offset \"" + std::string(text) +
                                   "\" (expected +HH:MM, -HHMM or Z)");
  return minutes;
}

std::string FormatWithOffset(UnixSeconds t, int offset_minutes) {
  UnixSeconds local = t + static_cast<UnixSeconds>(offset_minutes) * 60;
  std::int64_t days = local >= 0 ? local / 86400 : (local - 86399) / 86400;
  std::int64_t rem = local - days * 86400;
  Civil c = CivilFromDays(days);
  int off = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d %c%02d:%02d", c.year, c.month,
                c.day, static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                static_cast<int>(rem % 60), offset_minutes < 0 ? '-' : '+', off / 60, off % 60);
  return buf;
}

std::string FormatUtc(UnixSeconds t) {
  std::string s = FormatWithOffset(t, 0);  // "YYYY-MM-DD HH:MM:SS +00:00"
  return s.substr(0, 10) + "T" + s.substr(11, 8) + "Z";
}

std::string FormatDate(UnixSeconds t, int offset_minutes) {
  return FormatWithOffset(t, offset_minutes).substr(0, 10);
}

namespace {
std::atomic<int> display_offset{kDefaultDisplayOffset};
}  // namespace

int DisplayOffsetFromSetting(std::string_view text) {
  if (text.empty()) return kDefaultDisplayOffset;
  auto parsed = ParseUtcOffset(text);
  return parsed.ok() ? *parsed : kDefaultDisplayOffset;
}

int DisplayOffsetMinutes() { return display_offset.load(std::memory_order_relaxed); }

void SetDisplayOffsetMinutes(int minutes) {
  display_offset.store(minutes, std::memory_order_relaxed);
}

}  // namespace fixgraph
