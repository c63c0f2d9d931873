// Timestamps: every time in fixgraph is stored as UTC seconds since the epoch.
//
// Inputs come from platform APIs in ISO 8601 with an offset ("+08:00", "Z",
// "+00:00", "+0800"), sometimes with milliseconds or as a bare date. The empty
// string, JSON null and a missing field all mean "unset"; callers map those to
// std::nullopt before or through ParseTimestamp.
//
// Thread safety: all functions are pure.
#pragma once

#include "fixgraph/engine/status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fixgraph {

using UnixSeconds = std::int64_t;

// Parses an ISO 8601 timestamp to UTC seconds, truncating fractions.
// Accepted forms: "2026-09-15T11:35:56+08:00", "2026-09-15T03:35:56Z",
// "2026-09-15T11:35:56.479+08:00", "2026-09-15 11:35:56 +0800",
// "2026-09-15T11:35" (seconds omitted), "2026-09-15" (midnight UTC).
// A time without an offset is taken as UTC.
// Returns std::nullopt for "" (unset); InvalidArgument naming the text for
// anything else that is not a valid timestamp (bad digits, month 13, day 31 in
// April, hour 24, offset beyond +/-14:00, trailing garbage).
StatusOr<std::optional<UnixSeconds>> ParseTimestamp(std::string_view text);
// The same, taking a text without an offset ("2024-04-24 22:27:49") as local
// time at `naive_offset_minutes` east of UTC (480 for China time).
StatusOr<std::optional<UnixSeconds>> ParseTimestamp(std::string_view text,
                                                    int naive_offset_minutes);

// "2026-09-15T03:35:56Z".
std::string FormatUtc(UnixSeconds t);

// Formats t shifted to a fixed offset: "2026-09-15 11:35:56 +08:00".
// REQUIRES: -14*60 <= offset_minutes <= 14*60
std::string FormatWithOffset(UnixSeconds t, int offset_minutes);

// Date part only, in the given offset: "2026-09-15".
std::string FormatDate(UnixSeconds t, int offset_minutes);

// Parses an offset such as "+08:00", "-0530", "Z" or "UTC" into minutes.
StatusOr<int> ParseUtcOffset(std::string_view text);

// Days since 1970-01-01 for a proleptic Gregorian date (no range checks).
std::int64_t DaysFromCivil(int year, int month, int day);

// The display offset for a platform's users when nothing else is set: +08:00.
inline constexpr int kDefaultDisplayOffsetMinutes = 8 * 60;

// The offset times are shown at in explanations and digests (minutes east of
// UTC): kDefaultDisplayOffsetMinutes until SetDisplayOffsetMinutes changes it.
// Thread-safe.
int DisplayOffsetMinutes();

// Sets the display offset for this process. The cli calls it once per command,
// before any work, with DisplayOffsetFromSetting($FIXGRAPH_TZ); library code
// never reads the environment. REQUIRES: -14*60 <= minutes <= 14*60.
void SetDisplayOffsetMinutes(int minutes);

// The display offset a setting names: an offset ParseUtcOffset accepts
// ("+00:00", "Z", "-05:00"); the default when `text` is empty or not an
// offset ("Asia/Shanghai").
int DisplayOffsetFromSetting(std::string_view text);

}  // namespace fixgraph
