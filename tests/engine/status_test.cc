#include "fixgraph/engine/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fixgraph {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_FALSE(s.IsNotFound());
  EXPECT_FALSE(s.IsInvalidArgument());
  EXPECT_FALSE(s.IsCorruption());
}

TEST(StatusTest, FactoriesSetCodeAndMessage) {
  struct Case {
    Status status;
    Status::Code code;
    const char* name;
  };
  std::vector<Case> cases;
  cases.push_back({Status::NotFound("m"), Status::Code::kNotFound, "not found"});
  cases.push_back(
      {Status::InvalidArgument("m"), Status::Code::kInvalidArgument, "invalid argument"});
  cases.push_back({Status::Corruption("m"), Status::Code::kCorruption, "bad data"});
  cases.push_back({Status::IOError("m"), Status::Code::kIOError, "I/O error"});
  cases.push_back({Status::NotSupported("m"), Status::Code::kNotSupported, "not supported"});
  cases.push_back(
      {Status::FailedPrecondition("m"), Status::Code::kFailedPrecondition, "failed precondition"});
  cases.push_back({Status::Unavailable("m"), Status::Code::kUnavailable, "unavailable"});
  cases.push_back({Status::Internal("m"), Status::Code::kInternal, "internal error"});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_FALSE(c.status.ok());
    EXPECT_EQ(c.status.code(), c.code);
    EXPECT_EQ(c.status.message(), "m");
    EXPECT_EQ(c.status.ToString(), std::string(c.name) + ": m");
    EXPECT_STREQ(StatusCodeName(c.code), c.name);
  }
  EXPECT_STREQ(StatusCodeName(Status::Code::kOk), "OK");
}

TEST(StatusTest, CodeValuesAreStable) {
  EXPECT_EQ(static_cast<int>(Status::Code::kOk), 0);
  EXPECT_EQ(static_cast<int>(Status::Code::kNotFound), 1);
  EXPECT_EQ(static_cast<int>(Status::Code::kInvalidArgument), 2);
  EXPECT_EQ(static_cast<int>(Status::Code::kCorruption), 3);
  EXPECT_EQ(static_cast<int>(Status::Code::kIOError), 4);
  EXPECT_EQ(static_cast<int>(Status::Code::kNotSupported), 5);
  EXPECT_EQ(static_cast<int>(Status::Code::kFailedPrecondition), 6);
  EXPECT_EQ(static_cast<int>(Status::Code::kUnavailable), 7);
  EXPECT_EQ(static_cast<int>(Status::Code::kInternal), 8);
}

TEST(StatusTest, PredicatesMatchTheirCodeOnly) {
  EXPECT_TRUE(Status::NotFound("x").IsNotFound());
  EXPECT_FALSE(Status::NotFound("x").IsCorruption());
  EXPECT_TRUE(Status::InvalidArgument("x").IsInvalidArgument());
  EXPECT_FALSE(Status::InvalidArgument("x").IsNotFound());
  EXPECT_TRUE(Status::Corruption("x").IsCorruption());
  EXPECT_FALSE(Status::Corruption("x").IsInvalidArgument());
}

TEST(StatusTest, EmptyMessageOnErrorIsStillAnError) {
  Status s = Status::NotFound("");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(), "not found: ");
}

TEST(StatusTest, WithContextPrefixesMessageAndKeepsCode) {
  Status s = Status::Corruption("byte 120: expected string");
  Status c = s.WithContext("data/x/issues.json");
  EXPECT_EQ(c.code(), Status::Code::kCorruption);
  EXPECT_EQ(c.message(), "data/x/issues.json: byte 120: expected string");
  EXPECT_EQ(c.ToString(), "bad data: data/x/issues.json: byte 120: expected string");
  // The original is unchanged.
  EXPECT_EQ(s.message(), "byte 120: expected string");
  // Chained contexts nest outward.
  EXPECT_EQ(c.WithContext("import").message(),
            "import: data/x/issues.json: byte 120: expected string");
}

TEST(StatusTest, WithContextOnOkStaysOk) {
  Status c = Status::OK().WithContext("anything");
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.message(), "");
}

TEST(StatusTest, CopyIsDeepAndIndependent) {
  Status a = Status::IOError("disk full");
  Status b(a);
  EXPECT_EQ(b.code(), Status::Code::kIOError);
  EXPECT_EQ(b.message(), "disk full");
  a = Status::NotFound("other");
  EXPECT_EQ(b.message(), "disk full");
  EXPECT_EQ(b.code(), Status::Code::kIOError);

  Status c;
  c = b;
  EXPECT_EQ(c.ToString(), "I/O error: disk full");
  c = Status::OK();
  EXPECT_TRUE(c.ok());
  EXPECT_FALSE(b.ok());

  // Self-assignment keeps the value.
  Status& ref = b;
  b = ref;
  EXPECT_EQ(b.message(), "disk full");

  // Copying OK yields OK.
  Status ok1;
  Status ok2(ok1);
  EXPECT_TRUE(ok2.ok());
}

TEST(StatusTest, MoveTransfersValue) {
  Status a = Status::Unavailable("rate limited");
  Status b(std::move(a));
  EXPECT_EQ(b.code(), Status::Code::kUnavailable);
  EXPECT_EQ(b.message(), "rate limited");
  Status c;
  c = std::move(b);
  EXPECT_EQ(c.ToString(), "unavailable: rate limited");
}

TEST(StatusOrTest, HoldsValue) {
  StatusOr<int> v = 42;
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v.status().ok());
  EXPECT_EQ(v.value(), 42);
  EXPECT_EQ(*v, 42);
  *v = 7;
  EXPECT_EQ(v.value(), 7);
}

TEST(StatusOrTest, HoldsError) {
  StatusOr<int> v = Status::NotFound("no such thing");
  EXPECT_FALSE(v.ok());
  EXPECT_TRUE(v.status().IsNotFound());
  EXPECT_EQ(v.status().message(), "no such thing");
}

TEST(StatusOrTest, ArrowAndMoveOut) {
  StatusOr<std::string> v = std::string("hello");
  EXPECT_EQ(v->size(), 5u);
  const StatusOr<std::string>& cv = v;
  EXPECT_EQ(cv->front(), 'h');
  EXPECT_EQ(*cv, "hello");
  std::string moved = std::move(v).value();
  EXPECT_EQ(moved, "hello");
}

TEST(StatusOrTest, MoveOnlyValue) {
  StatusOr<std::unique_ptr<int>> v = std::make_unique<int>(5);
  ASSERT_TRUE(v.ok());
  std::unique_ptr<int> p = std::move(v).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 5);
}

TEST(StatusOrTest, CopyKeepsError) {
  StatusOr<int> a = Status::Corruption("bad");
  StatusOr<int> b = a;
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.status().ToString(), "bad data: bad");
  EXPECT_EQ(a.status().ToString(), "bad data: bad");
}

// ---- Macros

Status FailIf(bool fail, int* calls) {
  ++*calls;
  if (fail) return Status::InvalidArgument("failed");
  return Status::OK();
}

Status TwoSteps(bool fail_first, bool fail_second, int* calls, bool* reached_end) {
  FG_RETURN_IF_ERROR(FailIf(fail_first, calls));
  FG_RETURN_IF_ERROR(FailIf(fail_second, calls).WithContext("second"));
  *reached_end = true;
  return Status::OK();
}

TEST(StatusMacroTest, ReturnIfErrorPassesOkThrough) {
  int calls = 0;
  bool end = false;
  EXPECT_TRUE(TwoSteps(false, false, &calls, &end).ok());
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(end);
}

TEST(StatusMacroTest, ReturnIfErrorStopsAtFirstError) {
  int calls = 0;
  bool end = false;
  Status s = TwoSteps(true, false, &calls, &end);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "failed");
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(end);

  calls = 0;
  s = TwoSteps(false, true, &calls, &end);
  EXPECT_EQ(s.message(), "second: failed");
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(end);
}

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

StatusOr<int> Quarter(int x) {
  FG_ASSIGN_OR_RETURN(int h, Half(x));
  FG_ASSIGN_OR_RETURN(int q, Half(h));  // two uses in one scope need unique temporaries
  return q;
}

StatusOr<int> Eighth(int x) {
  FG_ASSIGN_OR_RETURN(int q, Quarter(x));  // nested: a function built from the macro
  int e = 0;
  FG_ASSIGN_OR_RETURN(e, Half(q));  // assigning to an existing variable
  return e;
}

Status Store8(int x, int* out) {
  FG_ASSIGN_OR_RETURN(*out, Eighth(x));
  FG_RETURN_IF_ERROR(Status::OK());
  return Status::OK();
}

StatusOr<std::unique_ptr<int>> MakeBox(int v) {
  if (v < 0) return Status::InvalidArgument("negative");
  return std::make_unique<int>(v);
}

StatusOr<int> Unbox(int v) {
  FG_ASSIGN_OR_RETURN(std::unique_ptr<int> box, MakeBox(v));
  return *box;
}

TEST(StatusMacroTest, AssignOrReturnNested) {
  auto q = Quarter(12);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, 3);

  auto e = Eighth(16);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, 2);

  auto bad_first = Quarter(7);
  ASSERT_FALSE(bad_first.ok());
  EXPECT_EQ(bad_first.status().message(), "odd: 7");

  auto bad_second = Quarter(6);  // 6 -> 3 -> odd
  ASSERT_FALSE(bad_second.ok());
  EXPECT_EQ(bad_second.status().message(), "odd: 3");

  auto bad_nested = Eighth(12);  // 12 -> 6 -> 3 -> odd
  ASSERT_FALSE(bad_nested.ok());
  EXPECT_TRUE(bad_nested.status().IsInvalidArgument());
  EXPECT_EQ(bad_nested.status().message(), "odd: 3");
}

TEST(StatusMacroTest, AssignOrReturnIntoStatusFunction) {
  int out = -1;
  EXPECT_TRUE(Store8(40, &out).ok());
  EXPECT_EQ(out, 5);
  out = -1;
  Status s = Store8(4, &out);  // 4 -> 2 -> 1 -> odd
  EXPECT_EQ(s.message(), "odd: 1");
  EXPECT_EQ(out, -1);
}

TEST(StatusMacroTest, AssignOrReturnMovesMoveOnlyValues) {
  auto v = Unbox(9);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 9);
  EXPECT_EQ(Unbox(-1).status().message(), "negative");
}

}  // namespace
}  // namespace fixgraph
