#include "broker/group/consumer/metadata_hash.h"

#include <xxhash.h>

#include <algorithm>

#include "protocol/java_string.h"

namespace hw::broker::group::consumer {

namespace {

// The byte stream Kafka's hasher (hash4j) is fed: numbers little-endian,
// a string as its UTF-16 code units (little-endian) followed by its length
// in code units.
class hash_input {
 public:
  void byte(uint8_t v) { bytes_.push_back(v); }
  void int32(int32_t v) { little_endian(static_cast<uint32_t>(v), 4); }
  void int64(int64_t v) { little_endian(static_cast<uint64_t>(v), 8); }
  void string(const std::string& utf8) {
    const auto units = protocol::java_utf16(utf8);
    for (uint16_t u : units) little_endian(u, 2);
    int32(static_cast<int32_t>(units.size()));
  }
  int64_t hash() const { return static_cast<int64_t>(XXH3_64bits(bytes_.data(), bytes_.size())); }

 private:
  void little_endian(uint64_t v, int size) {
    for (int i = 0; i < size; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }

  std::vector<uint8_t> bytes_;
};

int64_t uuid_half(const protocol::uuid& id, int half) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | id.bytes[half * 8 + i];
  return static_cast<int64_t>(v);
}

constexpr uint8_t topic_hash_version = 0;

}  // namespace

int64_t topic_hash(const topic_shape& topic) {
  hash_input in;
  in.byte(topic_hash_version);
  in.int64(uuid_half(topic.id, 0));
  in.int64(uuid_half(topic.id, 1));
  in.string(topic.name);
  in.int32(topic.partitions);
  for (int32_t p = 0; p < topic.partitions; ++p) {
    in.int32(p);
    if (static_cast<size_t>(p) >= topic.racks.size()) continue;
    auto racks = topic.racks[p];
    std::sort(racks.begin(), racks.end());  // by UTF-16 code unit for ASCII names, as Java sorts them
    for (const auto& rack : racks) {
      in.int32(static_cast<int32_t>(protocol::java_utf16(rack).size()));  // Java's length: UTF-16 code units
      in.string(rack);
    }
  }
  return in.hash();
}

int64_t group_metadata_hash(const std::map<std::string, int64_t>& topic_hashes) {
  if (topic_hashes.empty()) return 0;
  hash_input in;
  for (const auto& [name, hash] : topic_hashes) in.int64(hash);
  return in.hash();
}

}  // namespace hw::broker::group::consumer
