#pragma once
// Java's view of a string: Kafka hashes and orders member ids, instance ids
// and group ids as java.lang.String, a sequence of UTF-16 code units, where
// Highwater holds the UTF-8 bytes of the wire. Pure functions; any thread.

#include <cstdint>
#include <string_view>

namespace hw::broker::group::consumer {

// The UTF-16 code units themselves: protocol::java_utf16 (protocol/java_string.h).

// String.hashCode.
int32_t java_string_hash(std::string_view utf8);

// String.compareTo: code unit by code unit, then the shorter first. Differs
// from comparing UTF-8 bytes where a character above U+FFFF (a surrogate
// pair, 0xD800..) meets one in U+E000..U+FFFF.
int java_string_compare(std::string_view a, std::string_view b);

}  // namespace hw::broker::group::consumer
