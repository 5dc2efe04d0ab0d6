// The Java behaviours that show in kafka-consumer-groups.sh's output: the
// order a HashMap iterates (the reset plan, deletion results, warnings), the
// width of a string as %-Ns counts it, String ordering.

#include <algorithm>
#include <numeric>

#include "tools/commands/consumer_groups.h"

namespace hw::tools::groups {
namespace {

// UTF-8 to UTF-16 code units; a malformed byte counts as one unit, as the
// JVM's decoder replaces it with one character.
std::u16string utf16(std::string_view s) {
  std::u16string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
    i += len;
  }
  return out;
}

}  // namespace

int32_t java_string_hash(std::string_view utf8) {
  uint32_t h = 0;
  for (char16_t c : utf16(utf8)) h = 31 * h + c;
  return static_cast<int32_t>(h);
}

int32_t java_hash(const topic_partition& tp) {
  const uint32_t h = 31u * (31u + static_cast<uint32_t>(tp.partition)) + static_cast<uint32_t>(java_string_hash(tp.topic));
  return static_cast<int32_t>(h);
}

size_t java_length(std::string_view utf8) { return utf16(utf8).size(); }

bool java_less(std::string_view a, std::string_view b) { return utf16(a) < utf16(b); }

std::string pad(std::string_view s, size_t width) {
  std::string out(s);
  const size_t len = java_length(s);
  if (len < width) out.append(width - len, ' ');
  return out;
}

size_t java_map_capacity(size_t size) {
  size_t capacity = 16;
  while (size > capacity * 3 / 4) capacity *= 2;
  return capacity;
}

size_t java_put_all_capacity(size_t size, size_t added) {
  if (added == 0) return size == 0 ? 16 : java_map_capacity(size);
  size_t capacity = 1;
  if (size == 0) {
    // HashMap.putMapEntries on an empty map: tableSizeFor((int) (added / 0.75f + 1)).
    const auto wanted = static_cast<size_t>(static_cast<float>(added) / 0.75f + 1.0f);
    while (capacity < wanted) capacity *= 2;
    return capacity;
  }
  capacity = java_map_capacity(size);
  while (added > capacity * 3 / 4) capacity *= 2;  // resized ahead for the added map alone
  while (size + added > capacity * 3 / 4) capacity *= 2;
  return capacity;
}

std::vector<size_t> java_hash_order(const std::vector<int32_t>& hashes, size_t capacity) {
  if (capacity == 0) capacity = java_map_capacity(hashes.size());
  // A resize keeps each bucket's order, so only the final table matters.
  std::vector<size_t> order(hashes.size());
  std::iota(order.begin(), order.end(), 0);
  auto bucket = [&](size_t i) {
    const auto h = static_cast<uint32_t>(hashes[i]);
    return (h ^ (h >> 16)) & (capacity - 1);
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bucket(a) < bucket(b); });
  return order;
}

std::vector<std::string> java_hash_order(const std::vector<std::string>& keys) {
  std::vector<int32_t> hashes;
  for (const auto& k : keys) hashes.push_back(java_string_hash(k));
  std::vector<std::string> out;
  for (size_t i : java_hash_order(hashes)) out.push_back(keys[i]);
  return out;
}

std::vector<topic_partition> java_hash_order(const std::vector<topic_partition>& keys, size_t capacity) {
  std::vector<int32_t> hashes;
  for (const auto& k : keys) hashes.push_back(java_hash(k));
  std::vector<topic_partition> out;
  for (size_t i : java_hash_order(hashes, capacity)) out.push_back(keys[i]);
  return out;
}

kafka_error error_of(int16_t code, const std::optional<std::string>& broker_message) {
  return {get_offsets::exception_class(code), error_message(code, broker_message), code};
}

kafka_error timeout_error(const std::string& call) {
  return {"org.apache.kafka.common.errors.TimeoutException", "Timed out waiting for a node assignment. Call: " + call, 7};
}

}  // namespace hw::tools::groups
