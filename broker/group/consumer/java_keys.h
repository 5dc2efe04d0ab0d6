#pragma once
// The hash codes and orders Kafka's assignors see for their keys: Integer
// partitions, org.apache.kafka.common.Uuid topic ids and String member ids.
// They decide the iteration order of the Java maps and sets the assignors
// walk (java_hash_map.h) and the tie-breaks of their sorts. Pure; any
// thread.

#include <cstdint>
#include <string>

#include "broker/group/consumer/java_strings.h"
#include "protocol/wire/uuid.h"

namespace hw::broker::group::consumer {

// Uuid's two halves as Java holds them: the first eight bytes of the wire
// form are the most significant long, big-endian.
int64_t uuid_most_significant(const protocol::uuid& id);
int64_t uuid_least_significant(const protocol::uuid& id);

// Uuid.hashCode: the two longs xor-ed, then the high and low ints xor-ed.
int32_t java_uuid_hash(const protocol::uuid& id);

// Uuid.compareTo: the most significant long, then the least, each compared
// as a signed number (protocol::uuid's own <=> compares unsigned bytes).
int java_uuid_compare(const protocol::uuid& a, const protocol::uuid& b);

// Key types for java_hash_map: Java's hashCode and natural order
// (compareTo) of Integer, Uuid and String.
struct java_integer_key {
  static int32_t hash(int32_t value) { return value; }
  static int compare(int32_t a, int32_t b) { return a < b ? -1 : (a > b ? 1 : 0); }
};
struct java_uuid_key {
  static int32_t hash(const protocol::uuid& id) { return java_uuid_hash(id); }
  static int compare(const protocol::uuid& a, const protocol::uuid& b) { return java_uuid_compare(a, b); }
};
struct java_string_key {
  static int32_t hash(const std::string& s) { return java_string_hash(s); }
  static int compare(const std::string& a, const std::string& b) { return java_string_compare(a, b); }
};

}  // namespace hw::broker::group::consumer
