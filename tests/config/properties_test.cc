#include "config/properties.h"

#include <gtest/gtest.h>

namespace hw::config {
namespace {

std::vector<std::pair<std::string, std::string>> kv(std::string_view text) {
  auto r = parse_properties(text);
  EXPECT_TRUE(r.errors.empty());
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& p : r.entries) out.emplace_back(p.key, p.value);
  return out;
}

using pairs = std::vector<std::pair<std::string, std::string>>;

TEST(Properties, SeparatorsAndComments) {
  EXPECT_EQ(kv("# comment\n! also\n\n  a=1\nb : 2\nc 3\nd=\ne\n"),
            (pairs{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", ""}, {"e", ""}}));
}

TEST(Properties, ValueKeepsInnerSeparatorsAndTrailingSpace) {
  EXPECT_EQ(kv("listeners=PLAINTEXT://:9092,CONTROLLER://:9093 \n"),
            (pairs{{"listeners", "PLAINTEXT://:9092,CONTROLLER://:9093 "}}));
  EXPECT_EQ(kv("a==b"), (pairs{{"a", "=b"}}));
  EXPECT_EQ(kv("a = : b"), (pairs{{"a", ": b"}}));
}

TEST(Properties, Continuation) {
  EXPECT_EQ(kv("log.dirs=/a,\\\n    /b,\\\n\t/c\nnext=1"), (pairs{{"log.dirs", "/a,/b,/c"}, {"next", "1"}}));
  // An even number of backslashes is an escaped backslash, not a continuation.
  EXPECT_EQ(kv("a=x\\\\\nb=y"), (pairs{{"a", "x\\"}, {"b", "y"}}));
  // A continued line starting with '#' is not a comment.
  EXPECT_EQ(kv("a=x\\\n#y"), (pairs{{"a", "x#y"}}));
}

TEST(Properties, LineEndings) {
  EXPECT_EQ(kv("a=1\r\nb=2\rc=3"), (pairs{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(kv("a=1\\\r\n  2"), (pairs{{"a", "12"}}));
}

TEST(Properties, Escapes) {
  EXPECT_EQ(kv(R"(k\:ey\=x\ y=v\tal\nue\u0041\u00e9\#)"), (pairs{{"k:ey=x y", "v\tal\nueA\xc3\xa9#"}}));
}

TEST(Properties, MalformedUnicodeEscapeIsAnError) {
  auto r = parse_properties("good=1\nbad=\\u12x4\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("line 2"), std::string::npos);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].key, "good");
}

TEST(Properties, RepeatedKeysAreKeptInOrderWithLines) {
  auto r = parse_properties("a=1\n\na=2\n");
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[1].value, "2");
  EXPECT_EQ(r.entries[1].line, 3);
}

}  // namespace
}  // namespace hw::config
