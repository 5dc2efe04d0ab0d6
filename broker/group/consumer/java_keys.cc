#include "broker/group/consumer/java_keys.h"

namespace hw::broker::group::consumer {

namespace {

int64_t big_endian_long(const protocol::uuid& id, size_t from) {
  uint64_t v = 0;
  for (size_t i = from; i < from + 8; ++i) v = (v << 8) | id.bytes[i];
  return static_cast<int64_t>(v);
}

}  // namespace

int64_t uuid_most_significant(const protocol::uuid& id) { return big_endian_long(id, 0); }

int64_t uuid_least_significant(const protocol::uuid& id) { return big_endian_long(id, 8); }

int32_t java_uuid_hash(const protocol::uuid& id) {
  auto h = static_cast<uint64_t>(uuid_most_significant(id) ^ uuid_least_significant(id));
  return static_cast<int32_t>(static_cast<uint32_t>(h >> 32) ^ static_cast<uint32_t>(h));
}

int java_uuid_compare(const protocol::uuid& a, const protocol::uuid& b) {
  int64_t ma = uuid_most_significant(a), mb = uuid_most_significant(b);
  if (ma != mb) return ma < mb ? -1 : 1;
  int64_t la = uuid_least_significant(a), lb = uuid_least_significant(b);
  if (la != lb) return la < lb ? -1 : 1;
  return 0;
}

}  // namespace hw::broker::group::consumer
