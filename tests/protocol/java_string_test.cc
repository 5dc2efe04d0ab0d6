#include "protocol/java_string.h"

#include <gtest/gtest.h>

#include <string>

namespace hw::protocol {
namespace {

TEST(java_trim, strips_what_string_trim_strips) {
  EXPECT_EQ(java_trim("  a b\t\r\n"), "a b");
  // Every character up to and including the space, control characters too.
  EXPECT_EQ(java_trim(std::string("\x01\x1f a\x7f\x00", 6)), "a\x7f");
  EXPECT_EQ(java_trim(" \t "), "");
  EXPECT_EQ(java_trim(""), "");
}

TEST(java_trim, keeps_characters_above_the_space) {
  // A non-breaking space (UTF-8 C2 A0) is not trimmed, as in Java.
  EXPECT_EQ(java_trim("\xc2\xa0x\xc2\xa0"), "\xc2\xa0x\xc2\xa0");
}

TEST(java_utf16, decodes_as_java_decodes_utf8) {
  EXPECT_EQ(java_utf16("orders"), u"orders");
  EXPECT_EQ(java_utf16("caf\xc3\xa9"), u"caf\u00e9");
  EXPECT_EQ(java_utf16("\xe2\x82\xac"), u"\u20ac");
  EXPECT_EQ(java_utf16("\xf0\x9f\x98\x80"), std::u16string({0xd83d, 0xde00}));  // a surrogate pair
}

TEST(java_utf16, each_malformed_sequence_starts_one_replacement) {
  const char16_t bad = 0xfffd;
  EXPECT_EQ(java_utf16("a\xff" "b"), std::u16string({u'a', bad, u'b'}));            // not a lead byte
  EXPECT_EQ(java_utf16("\xc3"), std::u16string({bad}));                         // cut short
  EXPECT_EQ(java_utf16("\xc3x"), std::u16string({bad, u'x'}));                  // no continuation
  EXPECT_EQ(java_utf16("\xc0\xaf"), std::u16string({bad, bad}));               // overlong
  EXPECT_EQ(java_utf16("\xed\xa0\x80"), std::u16string({bad, bad, bad}));     // a surrogate
}

}  // namespace
}  // namespace hw::protocol
