#pragma once
// The Java behaviours that show in Kafka tools' output, in one place:
// strings as the JVM sees them (UTF-16 code units: their length, order and
// hashCode) and the order a java.util.HashMap or HashSet iterates its keys
// (Kafka's admin client and tools collect results in them and print them in
// that order).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hw::tools::java {

// UTF-8 to UTF-16 code units as the JVM decodes it: a malformed byte
// becomes one U+FFFD.
std::u16string utf16(std::string_view utf8);
std::string utf8(std::u16string_view utf16);

// String.length(): UTF-16 code units.
size_t length(std::string_view utf8);
// String.compareTo(b) < 0: UTF-16 code unit order.
bool less(std::string_view a, std::string_view b);
// String.hashCode over the UTF-16 form.
int32_t string_hash(std::string_view utf8);
// TopicPartition.hashCode.
int32_t topic_partition_hash(std::string_view topic, int32_t partition);

// The iteration order of a java.util.HashMap (JDK 17) whose keys were put in
// a given order: by bucket of the spread hash, then insertion order within a
// bucket, with the table grown as HashMap grows it. Keys must be distinct.
// (Bins of 8+ colliding keys in a table of 64+ become trees in Java, whose
// order this does not model; such collisions do not occur with the names
// the tools print.)
class hash_order {
 public:
  // new HashMap<>() or new HashMap<>(initial_capacity).
  explicit hash_order(std::optional<int32_t> initial_capacity = std::nullopt);
  // new HashMap<>(other): sized from other's size, filled in other's order.
  static hash_order copy_of(const hash_order& other);
  void put(int32_t key_hash, size_t id);
  // A new key as computeIfAbsent (or compute, merge) adds it: the table
  // grows before the insertion rather than after, and the key goes to the
  // head of its bin, before the keys already there.
  void put_first(int32_t key_hash, size_t id);
  // The ids in iteration order.
  std::vector<size_t> order() const;
  size_t size() const { return size_; }

 private:
  struct entry {
    int32_t key_hash;  // hashCode(), before HashMap spreads it
    size_t id;
  };
  void resize();
  std::vector<std::vector<entry>> table_;
  int32_t threshold_ = 0;
  size_t size_ = 0;
};

// The order of distinct `names` as a HashMap<String, ...> (or HashSet)
// built from them in this order iterates them.
std::vector<std::string> hash_map_order(const std::vector<std::string>& names,
                                        std::optional<int32_t> initial_capacity = std::nullopt);

}  // namespace hw::tools::java
