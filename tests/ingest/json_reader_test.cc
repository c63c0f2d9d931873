#include "fixgraph/ingest/json_reader.h"

#include "testutil/testutil.h"

#include "fixgraph/ingest/json_array_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <random>

namespace fixgraph::ingest {
namespace {

using fixgraph::testing::TempDir;
using fixgraph::testing::WriteFile;
using nlohmann::json;

// Texts on which the reader must agree with nlohmann::json::parse (accept or
// reject), and, when accepted, produce the same values.
const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> texts = {
      R"({"a": 1, "b": [true, false, null], "c": {"d": "e"}})",
      R"([])",
      R"({})",
      R"([1, -2, 0, -0, 3.5, 1e3, 2E-2, 18446744073709551615, 99999999999999999999])",
      R"("plain")",
      R"("esc \" \\ \/ \b \f \n \r \t")",
      R"("\u00e9\u4e2d\ud83d\ude00")",
      R"("\u0001\u001f")",
      R"("\u001F")",
      "\"五\xe2\x82\xac\"",
      R"({"b": 1, "a": 2})",
      R"({"a": 1, "a": 2})",
      R"({"a\u0062": 1})",
      // Runs of three-byte sequences (CJK text), full-width punctuation, U+FFFF.
      "\"中文，验证\"",
      "{\"评论\": \"可以合入。\xef\xbf\xbf\"}",
      "\"中\xed\x9f\xbf文\"",
      // Rejected by both.
      R"({"a": 1,})",
      R"([1,])",
      R"([01])",
      R"([1.])",
      R"([.5])",
      R"([1e])",
      R"([-])",
      R"({"a" 1})",
      R"({a: 1})",
      R"(["\x"])",
      R"(["\u12"])",
      R"(["\ud800"])",
      R"(["\udc00"])",
      R"(["\ud800\u0041"])",
      "[\"a\nb\"]",
      "[\"\xc0\xaf\"]",
      "[\"\xed\xa0\x80\"]",
      "[\"\xf4\x90\x80\x80\"]",
      "[\"\xe2\x82\"]",
      "[\"\x80\"]",
      R"([tru])",
      R"([nul])",
      // Ill-formed bytes inside or after a run of three-byte sequences.
      "[\"中文\xe4\xb8\"]",
      "[\"中文\xe4\x41\x80\"]",
      "[\"中\xe4\xb8\xad\xc0\"]",
      "[\"中\xed\xa0\x80\"]",
      "[\"中文\xe4\xb8",
      // Numbers a double cannot hold are rejected by both; underflow is fine.
      R"([1e400])",
      R"({"a": -1e999})",
      R"([1.5E+309])",
      R"([1e-400, 0e99999])",
      std::string(1, '[').append(400, '9').append(".5]"),  // (appends: GCC 12's -Wrestrict)
      // An integer beyond 64 bits is read as a float: rejected when a double
      // cannot hold it either (a fuzz finding), kept when it can.
      std::string(1, '[').append(400, '4').append("]"),
      std::string("[-").append(330, '1').append("]"),
      std::string(1, '[').append(30, '9').append("]"),
      // A UTF-8 byte order mark before the value is skipped by both.
      "\xEF\xBB\xBF[1]",
      "\xEF\xBB\xBF",
      "[\xEF\xBB\xBF]",
      " \xEF\xBB\xBF[1]",
      R"([1] x)",
      R"(// c
      [1])",
      "",
      " ",
      R"([1 2])",
      R"({"a": 1 "b": 2})",
  };
  return texts;
}

TEST(JsonReader, AgreesWithNlohmann) {
  int written = 0;
  for (const std::string& text : Corpus()) {
    JsonDoc doc;
    Status s = doc.Parse(text);
    bool accepted = json::accept(text);
    ASSERT_EQ(s.ok(), accepted) << text << " -> " << s.ToString();
    if (!accepted) {
      EXPECT_TRUE(s.IsCorruption());
      EXPECT_EQ(s.message().rfind("byte ", 0), 0u) << s.message();
      continue;
    }
    json j = json::parse(text);
    std::string dumped;
    if (doc.WriteDump(&dumped)) {
      EXPECT_EQ(dumped, j.dump()) << text;
      ++written;
    }
    if (j.is_string()) {
      EXPECT_EQ(doc.root().str(), j.get<std::string>()) << text;
    }
  }
  EXPECT_GE(written, 6);
}

TEST(JsonReader, WriteDumpSortsMembersAndFallsBackWhenItCannot) {
  JsonDoc doc;
  std::string text = R"({"z": {"b": [1, {"y": 2, "x": "a\nb"}], "a": null}, "m": "五", "a": -3})";
  ASSERT_TRUE(doc.Parse(text).ok());
  std::string out;
  ASSERT_TRUE(doc.WriteDump(&out));
  EXPECT_EQ(out, json::parse(text).dump());
  for (const char* t : {R"({"b": 1, "b": 2})", R"({"a": 1.5})", R"({"a": "\u00e9"})",
                        R"({"\u0061": 1})", R"({"a": "x\/y"})", "[-0]"}) {
    ASSERT_TRUE(doc.Parse(t).ok()) << t;
    EXPECT_FALSE(doc.WriteDump(&out)) << t;
  }
}

TEST(JsonReader, ErrorOffsetsCountLikeNlohmann) {
  for (const char* text :
       {R"([{"n": 1}, {"n": 2,}])", "[{\"number\": \"1\"},\n {oops}]", R"([1, 2, tx])",
        R"({"a": [1, 2}})", "[\"中文\xe4\x41\x80\"]", "[\"可以合入\xef\xbf\"]"}) {
    JsonDoc doc;
    Status s = doc.Parse(text);
    ASSERT_FALSE(s.ok());
    try {
      json parsed = json::parse(text);
      FAIL() << text << " parsed as " << parsed.dump();
    } catch (const json::parse_error& e) {
      EXPECT_EQ(s.message().rfind("byte " + std::to_string(e.byte) + ":", 0), 0u)
          << text << ": " << s.message() << " vs " << e.what();
    }
  }
}

TEST(JsonReader, FieldAccess) {
  JsonDoc doc;
  ASSERT_TRUE(doc.Parse(R"({"s": "a\"b", "n": 42, "big": -9, "f": 1.5, "t": true, "z": null,
                            "o": {"k": [1, "x", {}]}, "dup": 1, "dup": 2})")
                  .ok());
  JsonValue r = doc.root();
  EXPECT_TRUE(r.is_object());
  EXPECT_EQ(r.Find("s").str(), "a\"b");
  EXPECT_TRUE(r.Find("s").StrEquals("a\"b"));
  EXPECT_EQ(r.Find("s").raw(), R"("a\"b")");
  EXPECT_TRUE(r.Find("n").is_integer());
  EXPECT_EQ(r.Find("n").integer(), 42);
  EXPECT_EQ(r.Find("big").integer(), -9);
  EXPECT_FALSE(r.Find("f").is_integer());
  EXPECT_STREQ(r.Find("f").type_name(), "number");
  EXPECT_TRUE(r.Find("t").boolean());
  EXPECT_TRUE(r.Find("z").is_null());
  EXPECT_FALSE(r.Find("missing").valid());
  EXPECT_FALSE(r.Find("s").Find("x").valid());
  EXPECT_EQ(r.Find("dup").integer(), 2);  // the last one wins, as in nlohmann
  JsonValue k = r.Find("o").Find("k");
  ASSERT_TRUE(k.is_array());
  EXPECT_EQ(k.size(), 3u);
  std::vector<std::string> types;
  k.ForEachElement([&](const JsonValue& e) { types.push_back(e.type_name()); });
  EXPECT_EQ(types, (std::vector<std::string>{"number", "string", "object"}));
  EXPECT_EQ(r.Find("o").raw(), R"({"k": [1, "x", {}]})");
  EXPECT_EQ(r.size(), 9u);
}

TEST(JsonReader, ArrayFileStreamsElementsWithTheirBytes) {
  TempDir dir;
  WriteFile(dir / "a.json", "[\n {\"a\": 1, \"b\": \"x y\"},\n 2, \"五\", [ 3 ] ]\n");
  JsonArrayFile file;
  std::vector<std::string> raws;
  Status s = file.ForEach(dir / "a.json", [&](const JsonDoc& d, size_t i) {
    EXPECT_EQ(i, raws.size());
    raws.emplace_back(d.root().raw());
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(raws, (std::vector<std::string>{R"({"a": 1, "b": "x y"})", "2", "\"五\"", "[ 3 ]"}));
}

TEST(JsonReader, ArrayFileErrors) {
  TempDir dir;
  JsonArrayFile file;
  auto run = [&](const std::string& text) {
    WriteFile(dir / "f.json", text);
    return file.ForEach(dir / "f.json", [](const JsonDoc&, size_t) { return Status::OK(); });
  };
  EXPECT_TRUE(run(" [ ] ").ok());
  Status s = run(R"({"a": 1})");
  EXPECT_NE(s.message().find("f.json: expected a JSON array at the top level"), std::string::npos);
  s = run("[{\"number\": \"1\"},\n {oops}]");
  EXPECT_NE(s.message().find("f.json: byte 21: "), std::string::npos) << s.message();
  s = run(R"([1, 2)");
  EXPECT_NE(s.message().find("f.json: byte 6: "), std::string::npos) << s.message();
  EXPECT_FALSE(run("[1] 2").ok());
  EXPECT_FALSE(run("[1 2]").ok());
  EXPECT_FALSE(run("").ok());
  s = file.ForEach(dir / "none.json", [](const JsonDoc&, size_t) { return Status::OK(); });
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  WriteFile(dir / "g.json", "[1, 2, 3]");
  int n = 0;
  s = file.ForEach(dir / "g.json", [&](const JsonDoc& d, size_t) {
    ++n;
    return d.root().integer() == 2 ? Status::Corruption("field \"x\": bad") : Status::OK();
  });
  EXPECT_EQ(n, 2);
  EXPECT_NE(s.message().find("g.json: item 1: field \"x\": bad"), std::string::npos) << s.message();
}

// A file far larger than the read chunk, with elements of random sizes that
// straddle chunk boundaries, and a syntax error at the end.
TEST(JsonReader, LargeFileAcrossChunksKeepsBytesAndOffsets) {
  TempDir dir;
  std::mt19937 rng(7);
  std::string text = "[";
  std::vector<std::string> elements;
  for (int i = 0; i < 3000; ++i) {
    json e = {{"id", i},
              {"body", std::string(rng() % 4000, 'x')},
              {"n", static_cast<int>(rng() % 100000)}};
    elements.push_back(e.dump());
    text += (i ? ",\n" : "") + elements.back();
  }
  text += "]";
  WriteFile(dir / "big.json", text);
  JsonArrayFile file;
  size_t n = 0;
  Status s = file.ForEach(dir / "big.json", [&](const JsonDoc& d, size_t i) {
    EXPECT_EQ(d.root().raw(), elements[i]);
    std::string out;
    EXPECT_TRUE(d.WriteDump(&out));
    EXPECT_EQ(out, elements[i]);
    ++n;
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(n, elements.size());
  size_t good = text.size() - 1;
  WriteFile(dir / "bad.json", text.substr(0, good) + ",{oops}]");
  n = 0;
  s = file.ForEach(dir / "bad.json", [&](const JsonDoc&, size_t) {
    ++n;
    return Status::OK();
  });
  EXPECT_EQ(n, elements.size());
  EXPECT_NE(s.message().find("bad.json: byte " + std::to_string(good + 3) + ":"), std::string::npos)
      << s.message();
}

TEST(JsonReader, NestingLimit) {
  std::string deep(JsonDoc::kMaxDepth + 1, '[');
  deep += std::string(JsonDoc::kMaxDepth + 1, ']');
  JsonDoc doc;
  EXPECT_FALSE(doc.Parse(deep).ok());
  std::string ok(100, '[');
  ok += std::string(100, ']');
  EXPECT_TRUE(doc.Parse(ok).ok());
}

// Regression (issue 21): 1e400 in a dump aborted import (an exception from
// nlohmann when the record was re-serialised); now it is a syntax error
// naming the file and byte.
TEST(JsonReader, OutOfRangeNumberIsAnErrorNamingFileAndByte) {
  TempDir dir;
  JsonArrayFile file;
  WriteFile(dir / "f.json", R"([{"n": 1}, {"n": 1e400}])");
  Status s = file.ForEach(dir / "f.json", [](const JsonDoc&, size_t) { return Status::OK(); });
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("f.json: byte 18: syntax error: number out of range: 1e400"),
            std::string::npos)
      << s.message();
  JsonDoc doc;
  EXPECT_FALSE(doc.Parse("1e999").ok());
  ASSERT_TRUE(doc.Parse("[1e308, -1e-999]").ok());
}

// Regression (issue 21): a file starting with a UTF-8 BOM gave "expected a
// JSON array"; the mark is skipped (offsets still count it).
TEST(JsonReader, ArrayFileSkipsAByteOrderMark) {
  TempDir dir;
  JsonArrayFile file;
  WriteFile(dir / "f.json", "\xEF\xBB\xBF[1, 2]");
  int n = 0;
  Status s = file.ForEach(dir / "f.json", [&](const JsonDoc&, size_t) {
    ++n;
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(n, 2);
  WriteFile(dir / "g.json", "\xEF\xBB\xBF[1, x]");
  s = file.ForEach(dir / "g.json", [&](const JsonDoc&, size_t) { return Status::OK(); });
  EXPECT_NE(s.message().find("g.json: byte 8: "), std::string::npos) << s.message();
  WriteFile(dir / "h.json", "[1]\xEF\xBB\xBF");
  EXPECT_FALSE(
      file.ForEach(dir / "h.json", [&](const JsonDoc&, size_t) { return Status::OK(); }).ok());
}

// Regression (issue 21): a FIFO given as a dump file hung the reader in open().
TEST(JsonReader, ArrayFileRefusesAFifo) {
  TempDir dir;
  std::string fifo = dir / "issues.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  JsonArrayFile file;
  Status s = file.ForEach(fifo, [](const JsonDoc&, size_t) { return Status::OK(); });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("issues.json: not a regular file"), std::string::npos) << s.message();
}

// Regression (issue 21): a 100,000-deep body crashed sync (stack overflow in
// code walking the parsed value); ParseJsonLimited refuses it first.
TEST(JsonReader, ParseJsonLimitedRefusesDeepNestingAndHugeNumbers) {
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  json j;
  Status s = ParseJsonLimited(deep, &j);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("nest too deep"), std::string::npos) << s.message();
  s = ParseJsonLimited(R"({"id": 1e400})", &j);
  EXPECT_NE(s.message().find("number out of range"), std::string::npos) << s.message();
  ASSERT_TRUE(ParseJsonLimited("\xEF\xBB\xBF{\"a\": [1, 2.5]}", &j).ok());
  EXPECT_EQ(j.dump(), R"({"a":[1,2.5]})");
}

}  // namespace
}  // namespace fixgraph::ingest
