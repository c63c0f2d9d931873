#include "fixgraph/ingest/json_stream.h"

#include <gtest/gtest.h>

#include "testutil/testutil.h"

namespace fixgraph::ingest {
namespace {

using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

TEST(JsonStream, VisitsEachElementInOrder) {
  TempDir dir;
  WriteFile(dir / "a.json", R"([{"n": 1, "x": {"y": [1, 2]}}, {"n": 2}, 3, [4], "五"])");
  std::vector<std::string> seen;
  Status s = ForEachArrayElement(dir / "a.json", [&](json& e, size_t i) {
    seen.push_back(std::to_string(i) + ":" + e.dump());
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0], R"(0:{"n":1,"x":{"y":[1,2]}})");
  EXPECT_EQ(seen[1], R"(1:{"n":2})");
  EXPECT_EQ(seen[2], "2:3");
  EXPECT_EQ(seen[3], "3:[4]");
  EXPECT_EQ(seen[4], "4:\"五\"");
}

TEST(JsonStream, EmptyArray) {
  TempDir dir;
  WriteFile(dir / "a.json", " [ ] \n");
  int n = 0;
  ASSERT_TRUE(ForEachArrayElement(dir / "a.json", [&](json&, size_t) {
                ++n;
                return Status::OK();
              }).ok());
  EXPECT_EQ(n, 0);
}

TEST(JsonStream, SyntaxErrorNamesFileAndByte) {
  TempDir dir;
  WriteFile(dir / "bad.json", R"([{"n": 1}, {"n": 2,}])");
  int n = 0;
  Status s = ForEachArrayElement(dir / "bad.json", [&](json&, size_t) {
    ++n;
    return Status::OK();
  });
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("bad.json: byte 20"), std::string::npos) << s.message();
  EXPECT_EQ(n, 0);  // a small file is parsed whole before any element is handed out
}

TEST(JsonStream, LargeFileIsStreamedAndErrorsKeepTheirOffset) {
  TempDir dir;
  std::string text = "[";
  const int kItems = 20000;  // well past the whole-file threshold
  for (int i = 0; i < kItems; ++i) text += (i ? "," : "") + std::string(R"({"n": "item"})");
  size_t good_size = text.size();
  text += ",{oops}]";
  WriteFile(dir / "big.json", text);
  int n = 0;
  Status s = ForEachArrayElement(dir / "big.json", [&](json&, size_t) {
    ++n;
    return Status::OK();
  });
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_EQ(n, kItems);  // streamed: every good element was delivered first
  EXPECT_NE(s.message().find("big.json: byte " + std::to_string(good_size + 3)), std::string::npos)
      << s.message();
}

TEST(JsonStream, TruncatedFile) {
  TempDir dir;
  WriteFile(dir / "t.json", R"([{"n": 1}, {"n": )");
  Status s = ForEachArrayElement(dir / "t.json", [](json&, size_t) { return Status::OK(); });
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("t.json: byte"), std::string::npos) << s.message();
}

TEST(JsonStream, TopLevelMustBeAnArray) {
  TempDir dir;
  WriteFile(dir / "o.json", R"({"message": "404 Project Not Found"})");
  Status s = ForEachArrayElement(dir / "o.json", [](json&, size_t) { return Status::OK(); });
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("expected a JSON array"), std::string::npos) << s.message();
}

TEST(JsonStream, CallbackErrorStopsWithItemIndex) {
  TempDir dir;
  WriteFile(dir / "a.json", "[1, 2, 3]");
  int n = 0;
  Status s = ForEachArrayElement(dir / "a.json", [&](json& e, size_t) {
    ++n;
    return e == 2 ? Status::Corruption("field \"x\": bad") : Status::OK();
  });
  EXPECT_EQ(n, 2);
  EXPECT_NE(s.message().find("a.json: item 1: field \"x\": bad"), std::string::npos)
      << s.message();
}

TEST(JsonStream, MissingFileIsIOError) {
  Status s = ForEachArrayElement("/nonexistent/x.json", [](json&, size_t) { return Status::OK(); });
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_NE(s.message().find("/nonexistent/x.json"), std::string::npos);
}

TEST(JsonStream, ReadJsonFile) {
  TempDir dir;
  WriteFile(dir / "r.json", R"({"a": [1]})");
  auto j = ReadJsonFile(dir / "r.json");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["a"][0], 1);
  WriteFile(dir / "bad.json", "{");
  EXPECT_TRUE(ReadJsonFile(dir / "bad.json").status().IsCorruption());
}

}  // namespace
}  // namespace fixgraph::ingest
