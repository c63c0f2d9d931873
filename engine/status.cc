#include "fixgraph/engine/status.h"

namespace fixgraph {

const char* StatusCodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      return "OK";
    case Status::Code::kNotFound:
      return "not found";
    case Status::Code::kInvalidArgument:
      return "invalid argument";
    case Status::Code::kCorruption:
      return "bad data";
    case Status::Code::kIOError:
      return "I/O error";
    case Status::Code::kNotSupported:
      return "not supported";
    case Status::Code::kFailedPrecondition:
      return "failed precondition";
    case Status::Code::kUnavailable:
      return "unavailable";
    case Status::Code::kInternal:
      return "internal error";
  }
  return "unknown";
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(rep_->code)) + ": " + rep_->message;
}

Status Status::WithContext(std::string_view where) const {
  if (ok()) return Status();
  std::string msg(where);
  msg += ": ";
  msg += rep_->message;
  return Status(rep_->code, msg);
}

}  // namespace fixgraph
