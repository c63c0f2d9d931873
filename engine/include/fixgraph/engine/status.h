// Status and StatusOr<T>: errors as values across component boundaries.
//
// A Status is either OK or carries a code and a message. The message names
// what was wrong and where ("data/x/issues.json: byte 120: expected string").
// Exceptions from third-party libraries (RocksDB, Xapian, nlohmann_json) are
// caught where they arise and turned into a Status; they never cross a
// component boundary.
//
// Thread safety: const methods are safe to call concurrently; a Status is a
// plain value and is cheap to move (the OK path holds no allocation).
#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace fixgraph {

class [[nodiscard]] Status {
 public:
  // Values are stable: they are printed and mapped to exit codes.
  enum class Code {
    kOk = 0,
    kNotFound = 1,
    kInvalidArgument = 2,  // bad input from a user: a flag, a reference, a query
    kCorruption = 3,       // bad data: malformed JSON, a wrong field type
    kIOError = 4,          // the file system or the network failed
    kNotSupported = 5,
    kFailedPrecondition = 6,  // e.g. a store written by another schema version
    kUnavailable = 7,         // a remote service is down or rate limited; retryable
    kInternal = 8,
  };

  Status() = default;  // OK

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status FailedPrecondition(std::string_view msg) {
    return Status(Code::kFailedPrecondition, msg);
  }
  static Status Unavailable(std::string_view msg) { return Status(Code::kUnavailable, msg); }
  static Status Internal(std::string_view msg) { return Status(Code::kInternal, msg); }

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsCorruption() const { return code() == Code::kCorruption; }

  // The message alone ("" when OK).
  const std::string& message() const;

  // "OK", or "<code name>: <message>".
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `where` and ": ".
  // An OK status stays OK.
  Status WithContext(std::string_view where) const;

  // Marks a status as deliberately ignored.
  void IgnoreError() const {}

  Status(const Status& other) : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

 private:
  struct Rep {
    Code code;
    std::string message;
  };
  Status(Code code, std::string_view msg)
      : rep_(std::make_unique<Rep>(Rep{code, std::string(msg)})) {}

  std::unique_ptr<Rep> rep_;
};

// Name of a code, e.g. "invalid argument".
const char* StatusCodeName(Status::Code code);

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // REQUIRES: !status.ok()
  StatusOr(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(v_).ok());
  }
  StatusOr(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  // OK when a value is held.
  Status status() const { return ok() ? Status::OK() : std::get<Status>(v_); }

  // REQUIRES: ok()
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<Status, T> v_;
};

}  // namespace fixgraph

#define FG_CONCAT_INNER_(a, b) a##b
#define FG_CONCAT_(a, b) FG_CONCAT_INNER_(a, b)

// NOLINTBEGIN(bugprone-macro-parentheses): `var`, `tmp` and `lhs` name or declare a variable
// (`auto x`), which parentheses would break; every `expr` is parenthesized.

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define FG_RETURN_IF_ERROR(expr) FG_RETURN_IF_ERROR_IMPL_(FG_CONCAT_(fg_status_, __COUNTER__), expr)
#define FG_RETURN_IF_ERROR_IMPL_(var, expr) \
  do {                                      \
    ::fixgraph::Status var = (expr);        \
    if (!var.ok()) return var;              \
  } while (0)

// `lhs = value of expr` or return its error. `expr` is a StatusOr<T>.
#define FG_ASSIGN_OR_RETURN(lhs, expr) \
  FG_ASSIGN_OR_RETURN_IMPL_(FG_CONCAT_(fg_statusor_, __COUNTER__), lhs, expr)
#define FG_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
