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

}  // namespace
}  // namespace hw::protocol
