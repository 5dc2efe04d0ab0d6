#include "broker/group/consumer/metadata_hash.h"

#include <xxhash.h>

#include <algorithm>

namespace hw::broker::group::consumer {

namespace {

// Java's view of a string. Invalid UTF-8 becomes U+FFFD per byte, as
// Java's decoder would make it.
std::vector<uint16_t> utf16(const std::string& s) {
  std::vector<uint16_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    const int extra = b < 0x80 ? 0 : (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : -1;
    uint32_t cp = extra == 0 ? b : extra == 1 ? (b & 0x1F) : extra == 2 ? (b & 0x0F) : (b & 0x07);
    bool ok = extra >= 0 && i + extra < s.size();
    for (int k = 1; ok && k <= extra; ++k) {
      const auto c = static_cast<uint8_t>(s[i + k]);
      if ((c & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    i += 1 + extra;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<uint16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<uint16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<uint16_t>(cp));
    }
  }
  return out;
}

// The byte stream Kafka's hasher (hash4j) is fed: numbers little-endian,
// a string as its UTF-16 code units (little-endian) followed by its length
// in code units.
class hash_input {
 public:
  void byte(uint8_t v) { bytes_.push_back(v); }
  void int32(int32_t v) { little_endian(static_cast<uint32_t>(v), 4); }
  void int64(int64_t v) { little_endian(static_cast<uint64_t>(v), 8); }
  void string(const std::string& utf8) {
    const auto units = utf16(utf8);
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
      in.int32(static_cast<int32_t>(utf16(rack).size()));  // Java's length: UTF-16 code units
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
