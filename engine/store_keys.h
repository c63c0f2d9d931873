// Key layout of the RocksDB store. Private to engine/.
//
// The tag bytes and column-family names below are the on-disk format: do not
// change or renumber them without bumping kStoreSchemaVersion.
//
// Column family "items" (mapped records, binary: record_codec.h; derived
// records as their writers encode them) and "raw" (API payloads, compact
// JSON) share keys:
//   R\0<repo>                                   repository
//   I\0<repo>\0<num>                            issue
//   P\0<repo>\0<num>                            pull request
//   C\0<repo>\0<i|p>\0<num>\0<id>               comment on an issue or a PR
//   K\0<repo>\0<num>\0<sha>                     PR commit
//   F\0<repo>\0<num>\0<filename>                PR file change
//   O\0<repo>\0<i|p>\0<num>\0<id>               operate-log event
//   L\0<repo>\0<issue num>\0<pull ref>\0<source>  platform link (issue side), one per source
//   X\0<kind>\0<repo>\0<i|p|r>\0<num>            derived record (e.g. kind "links")
// Column family "index" (secondary keys, values as noted):
//   c\0<repo>\0<time>\0<num>                    issue closed at time -> ""
//   m\0<repo>\0<time>\0<num>                    PR merged at time -> ""
//   r\0<target ref>\0<source key>\0<field>\0<offset>  mention -> MentionRecord (binary,
//   record_codec.h) l\0<pull ref>\0<issue ref>\0<source>        platform link (PR side) ->
//   PlatformLink (binary) s\0<repo>\0<i|p>\0<num>                     state: 'o', 'c' or 'm'
// Default column family: "schema_version", "import\0<repo>" markers, cursors,
// the per-repository counters (store_counts.h; schema 3 on):
//   counts\0<repo>                 10 little-endian int64 counts, added to by merge operands
// and the pending derived work (Store::ListPending), values "":
//   pending\0relink\0<item ref>    an issue or PR whose data changed after its links were computed
//   pending\0reindex\0<issue ref>  an issue whose links changed after its ask document was written
//   pending\0linkrun\0<repo ref>   a whole link run (of one repository; "*": of all) not finished
//
// <repo> is the canonical repository reference, <num> a number padded to 12
// digits when it is all digits (so numbers sort numerically), <time> 8
// big-endian bytes of (UTC seconds + 2^63), <id> likewise padded.
#pragma once

#include "fixgraph/engine/ref.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace fixgraph::keys {

inline constexpr char kSep = '\0';
inline constexpr char kRepoTag = 'R';
inline constexpr char kIssueTag = 'I';
inline constexpr char kPullTag = 'P';
inline constexpr char kCommentTag = 'C';
inline constexpr char kCommitTag = 'K';
inline constexpr char kFileTag = 'F';
inline constexpr char kOplogTag = 'O';
inline constexpr char kLinkTag = 'L';
inline constexpr char kDerivedTag = 'X';
inline constexpr char kClosedIndexTag = 'c';
inline constexpr char kMergedIndexTag = 'm';
inline constexpr char kMentionIndexTag = 'r';
inline constexpr char kLinkIndexTag = 'l';
inline constexpr char kStateIndexTag = 's';

inline constexpr const char* kItemsFamily = "items";
inline constexpr const char* kRawFamily = "raw";
inline constexpr const char* kIndexFamily = "index";
inline constexpr const char* kSchemaKey = "schema_version";

// Zero-pads all-digit numbers to 12 places; other strings pass through.
std::string Num(std::string_view number);
// Num(number) appended to `out` (no temporary string).
void AppendNum(std::string* out, std::string_view number);
// Num(std::to_string(number)) appended to `out`.
void AppendNum(std::string* out, std::int64_t number);
// Inverse of Num.
std::string Unpad(std::string_view padded);
// 8 big-endian bytes preserving signed order.
std::string Time(std::int64_t t);
std::int64_t DecodeTime(std::string_view b);
// Time(t) appended to `out`.
void AppendTime(std::string* out, std::int64_t t);

// Joins parts with kSep after a tag: Key('I', {"gitcode:a/b", "40"}).
std::string Join(char tag, std::initializer_list<std::string_view> parts);
// A prefix ending in kSep, for scans: Prefix('I', {"gitcode:a/b"}) = "I\0gitcode:a/b\0".
std::string Prefix(char tag, std::initializer_list<std::string_view> parts);

inline constexpr std::string_view kPendingPrefix{"pending\0", 8};
inline constexpr std::string_view kPendingRelink = "relink";
inline constexpr std::string_view kPendingReindex = "reindex";
inline constexpr std::string_view kPendingLinkRun = "linkrun";
// "pending\0<kind>\0<what>".
std::string PendingKey(std::string_view kind, std::string_view what);

std::string RepoKey(const RepoRef& repo);
std::string IssueKey(const RepoRef& repo, std::string_view number);
std::string PullKey(const RepoRef& repo, std::int64_t number);
// Key of an issue, PR or repository record.
std::string ItemKey(const Ref& ref);

}  // namespace fixgraph::keys
