// The Java behaviours that show in Kafka tools' output (java.h).

#include "tools/commands/java.h"

#include <algorithm>

#include "protocol/java_string.h"

namespace hw::tools::java {
namespace {

constexpr int32_t max_capacity = 1 << 30;

// HashMap.tableSizeFor: the power of two at or above capacity.
int32_t table_size_for(int32_t capacity) {
  if (capacity <= 1) return 1;
  const uint32_t n = ~0u >> __builtin_clz(static_cast<uint32_t>(capacity - 1));
  return n >= static_cast<uint32_t>(max_capacity) ? max_capacity : static_cast<int32_t>(n + 1);
}

int32_t spread(int32_t h) {
  const auto u = static_cast<uint32_t>(h);
  return static_cast<int32_t>(u ^ (u >> 16));
}

}  // namespace

std::u16string utf16(std::string_view s) { return protocol::java_utf16(s); }

std::string utf8(std::u16string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    uint32_t cp = s[i];
    if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < s.size() && s[i + 1] >= 0xdc00 && s[i + 1] < 0xe000)
      cp = 0x10000 + ((cp - 0xd800) << 10) + (s[++i] - 0xdc00);
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  return out;
}

size_t length(std::string_view utf8) { return utf16(utf8).size(); }

bool less(std::string_view a, std::string_view b) { return utf16(a) < utf16(b); }

int32_t string_hash(std::string_view utf8) {
  uint32_t h = 0;
  for (char16_t c : utf16(utf8)) h = 31 * h + c;
  return static_cast<int32_t>(h);
}

int32_t topic_partition_hash(std::string_view topic, int32_t partition) {
  const uint32_t h = 31u * (31u + static_cast<uint32_t>(partition)) + static_cast<uint32_t>(string_hash(topic));
  return static_cast<int32_t>(h);
}

hash_order::hash_order(std::optional<int32_t> initial_capacity) {
  if (initial_capacity) threshold_ = table_size_for(std::max(*initial_capacity, 0));
}

hash_order hash_order::copy_of(const hash_order& other) {
  hash_order copy;
  if (other.size_ > 0) {
    // HashMap.putMapEntries (JDK 17): sized for s / 0.75 + 1.
    const float ft = static_cast<float>(other.size_) / 0.75f + 1.0f;
    const auto t = ft < static_cast<float>(max_capacity) ? static_cast<int32_t>(ft) : max_capacity;
    if (t > copy.threshold_) copy.threshold_ = table_size_for(t);
  }
  for (const auto& bucket : other.table_)
    for (const auto& e : bucket) copy.put(e.key_hash, e.id);
  return copy;
}

void hash_order::resize() {
  const auto old_cap = static_cast<int32_t>(table_.size());
  const int32_t old_thr = threshold_;
  int32_t new_cap = 0, new_thr = 0;
  if (old_cap > 0) {
    new_cap = old_cap << 1;
    if (new_cap < max_capacity && old_cap >= 16) new_thr = old_thr << 1;
  } else if (old_thr > 0) {
    new_cap = old_thr;
  } else {
    new_cap = 16;
    new_thr = 12;
  }
  if (new_thr == 0) new_thr = static_cast<int32_t>(static_cast<float>(new_cap) * 0.75f);
  threshold_ = new_thr;
  std::vector<std::vector<entry>> grown(static_cast<size_t>(new_cap));
  // Splitting each bin into its low and high halves keeps the entries' order.
  for (const auto& bucket : table_)
    for (const auto& e : bucket) grown[static_cast<uint32_t>(spread(e.key_hash)) & (new_cap - 1)].push_back(e);
  table_ = std::move(grown);
}

void hash_order::put(int32_t key_hash, size_t id) {
  if (table_.empty()) resize();
  auto& bucket = table_[static_cast<uint32_t>(spread(key_hash)) & (table_.size() - 1)];
  bucket.push_back({key_hash, id});
  // A bin reaching 9 entries makes a small table grow instead of treeifying.
  if (bucket.size() >= 9 && table_.size() < 64) resize();
  if (++size_ > static_cast<size_t>(threshold_)) resize();
}

void hash_order::put_first(int32_t key_hash, size_t id) {
  if (table_.empty() || size_ > static_cast<size_t>(threshold_)) resize();
  auto& bucket = table_[static_cast<uint32_t>(spread(key_hash)) & (table_.size() - 1)];
  const size_t already = bucket.size();
  bucket.insert(bucket.begin(), {key_hash, id});
  ++size_;
  // A bin that held 7 grows a small table instead of treeifying.
  if (already >= 7 && table_.size() < 64) resize();
}

std::vector<size_t> hash_order::order() const {
  std::vector<size_t> ids;
  for (const auto& bucket : table_)
    for (const auto& e : bucket) ids.push_back(e.id);
  return ids;
}

std::vector<std::string> hash_map_order(const std::vector<std::string>& names,
                                        std::optional<int32_t> initial_capacity) {
  hash_order map(initial_capacity);
  for (size_t i = 0; i < names.size(); ++i) map.put(string_hash(names[i]), i);
  std::vector<std::string> out;
  for (size_t i : map.order()) out.push_back(names[i]);
  return out;
}

}  // namespace hw::tools::java
