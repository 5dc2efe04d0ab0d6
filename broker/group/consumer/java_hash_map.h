#pragma once
// A model of java.util.HashMap's key order (JDK 17, the JVM Kafka runs on
// here). Kafka's assignors walk HashMaps and HashSets, and in places the
// order of that walk decides who gets a partition; to give the same answer,
// Highwater replays the same operations on this model, which keeps keys the
// way HashMap does: a power-of-two table of buckets, each a linked list, a
// key in bucket (hash ^ hash >>> 16) & (capacity - 1), iteration bucket by
// bucket along the lists. The order then depends on the capacity and on how
// each list was built, so every constructor and operation below follows its
// Java namesake's sizing and placement rules:
//   - new HashMap<>() allocates 16 buckets at the first insertion;
//     new HashMap<>(n) allocates tableSizeFor(n);
//   - put appends to the bucket and doubles the table once the size passes
//     capacity * 0.75; computeIfAbsent doubles first (when already past)
//     and puts a new key at the head of its bucket;
//   - a doubling splits each bucket keeping the keys' relative order;
//   - a bucket that reaches 8 keys (computeIfAbsent) or 9 (put) doubles a
//     table of fewer than 64 buckets, and in a larger one becomes a
//     red-black tree, whose own rules then place keys in the list
//     (java_tree_bin.h). Partition sets get such buckets easily: a member
//     dealt every 64th partition of a large topic has them all in one.
// Keys supplies static int32_t hash(const K&) (Java's hashCode) and static
// int compare(const K&, const K&) (its natural order). Pure; owned by its
// user.

#include <cassert>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "broker/group/consumer/jdk_release.h"
#include "broker/group/consumer/java_tree_bin.h"

namespace hw::broker::group::consumer {

// What a java_hash_set stores beside each key.
struct java_present {};

template <typename K, typename V, typename Keys>
class java_hash_map {
 public:
  // new HashMap<>().
  java_hash_map() = default;

  // new HashMap<>(initial_capacity).
  explicit java_hash_map(int32_t initial_capacity) : threshold_(table_size_for(initial_capacity)) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int32_t capacity() const { return static_cast<int32_t>(heads_.size()); }

  const V* find(const K& key) const {
    int32_t n = find_node(key);
    return n == kNoNode ? nullptr : &pool_[static_cast<size_t>(n)].value;
  }
  V* find(const K& key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  bool contains(const K& key) const { return find_node(key) != kNoNode; }

  // put(key, value): true when the key is new. A present key keeps its
  // place and takes the value, as in Java.
  bool put(const K& key, V value) {
    if (heads_.empty()) resize();
    uint32_t hash = spread(key);
    size_t slot = slot_of(hash);
    if (int32_t n = find_node(key); n != kNoNode) {
      pool_[static_cast<size_t>(n)].value = std::move(value);
      return false;
    }
    int32_t x = new_node(hash, key, std::move(value));
    if (trees_[slot]) {
      tree(slot).add(x);
    } else {
      size_t count = 1;
      int32_t* link = &heads_[slot];
      while (*link != kNoNode) {
        link = &node(*link).next;
        ++count;
      }
      *link = x;
      if (count >= kTreeifyAfterAppend) make_tree(slot);
    }
    if (++size_ > static_cast<size_t>(threshold_)) resize();
    return true;
  }

  // computeIfAbsent(key, make): the value of the key, made and inserted
  // when absent. The reference lasts until the map next changes.
  template <typename Make>
  V& compute_if_absent(const K& key, Make&& make) {
    if (size_ > static_cast<size_t>(threshold_) || heads_.empty()) resize();
    if (int32_t n = find_node(key); n != kNoNode) return node(n).value;
    uint32_t hash = spread(key);
    size_t slot = slot_of(hash);
    int32_t x = new_node(hash, key, make());
    if (trees_[slot]) {
      tree(slot).add(x);
    } else {
      size_t count = 0;
      for (int32_t e = heads_[slot]; e != kNoNode; e = node(e).next) ++count;
      node(x).next = heads_[slot];
      heads_[slot] = x;
      if (count + 1 >= kTreeifyAfterPrepend) make_tree(slot);
    }
    ++size_;
    return node(x).value;
  }

  // remove(key): true when it was there. The table never shrinks.
  bool erase(const K& key) {
    int32_t x = find_node(key);
    if (x == kNoNode) return false;
    size_t slot = slot_of(node(x).hash);
    if (trees_[slot]) {
      trees_[slot] = tree(slot).remove(x);
    } else {
      int32_t* link = &heads_[slot];
      while (*link != x) link = &node(*link).next;
      *link = node(x).next;
    }
    free_.push_back(x);
    --size_;
    return true;
  }

  // Calls f(key, value) in Java's iteration order.
  template <typename F>
  void for_each(F&& f) const {
    for (int32_t head : heads_)
      for (int32_t e = head; e != kNoNode; e = pool_[static_cast<size_t>(e)].next)
        f(pool_[static_cast<size_t>(e)].key, pool_[static_cast<size_t>(e)].value);
  }

  // The keys in Java's iteration order.
  std::vector<K> keys() const {
    std::vector<K> out;
    out.reserve(size_);
    for_each([&](const K& k, const V&) { out.push_back(k); });
    return out;
  }

 private:
  struct entry {
    uint32_t hash;
    K key;
    V value;
    int32_t next = kNoNode;
    // Tree buckets only.
    int32_t prev = kNoNode, parent = kNoNode, left = kNoNode, right = kNoNode;
    bool red = false;
  };

  // put calls treeifyBin when it appended to a bucket that held 8 keys;
  // computeIfAbsent when it prepended to one that held 7.
  static constexpr size_t kTreeifyAfterAppend = 9;
  static constexpr size_t kTreeifyAfterPrepend = 8;
  static constexpr int32_t kMinTreeCapacity = 64;

  static uint32_t spread(const K& key) {
    auto h = static_cast<uint32_t>(Keys::hash(key));
    return h ^ (h >> 16);
  }
  size_t slot_of(uint32_t hash) const { return hash & (heads_.size() - 1); }
  entry& node(int32_t i) { return pool_[static_cast<size_t>(i)]; }
  java_tree_bin<entry, Keys> tree(size_t slot) { return java_tree_bin<entry, Keys>(pool_, heads_[slot]); }

  int32_t find_node(const K& key) const {
    if (heads_.empty()) return kNoNode;
    for (int32_t e = heads_[slot_of(spread(key))]; e != kNoNode; e = pool_[static_cast<size_t>(e)].next)
      if (pool_[static_cast<size_t>(e)].key == key) return e;
    return kNoNode;
  }

  int32_t new_node(uint32_t hash, const K& key, V value) {
    entry e{hash, key, std::move(value)};
    if (!free_.empty()) {
      int32_t i = free_.back();
      free_.pop_back();
      pool_[static_cast<size_t>(i)] = std::move(e);
      return i;
    }
    pool_.push_back(std::move(e));
    return static_cast<int32_t>(pool_.size() - 1);
  }

  // HashMap.tableSizeFor: the smallest power of two >= n (1 for n <= 1).
  static int32_t table_size_for(int32_t n) {
    assert(n >= 0 && n <= (1 << 30));
    int32_t size = 1;
    while (size < n) size <<= 1;
    return size;
  }

  // HashMap.treeifyBin: below 64 buckets the table doubles instead.
  void make_tree(size_t slot) {
    if (capacity() < kMinTreeCapacity) {
      resize();
      return;
    }
    trees_[slot] = true;
    tree(slot).build();
  }

  // HashMap.resize: the first allocation or a doubling.
  void resize() {
    auto old_capacity = static_cast<int32_t>(heads_.size());
    int32_t capacity = 0;
    int32_t threshold = 0;
    if (old_capacity > 0) {
      capacity = old_capacity << 1;
      if (old_capacity >= 16) threshold = threshold_ << 1;
    } else if (threshold_ > 0) {
      capacity = threshold_;  // the initial capacity waits in the threshold
    } else {
      capacity = 16;
      threshold = 12;
    }
    if (threshold == 0) threshold = static_cast<int32_t>(static_cast<float>(capacity) * 0.75f);
    assert(capacity <= (1 << 30));
    std::vector<int32_t> heads(static_cast<size_t>(capacity), kNoNode);
    std::vector<bool> trees(static_cast<size_t>(capacity), false);
    for (int32_t j = 0; j < old_capacity; ++j) split_bucket(j, heads, trees);
    heads_ = std::move(heads);
    trees_ = std::move(trees);
    threshold_ = threshold;
  }

  // Bucket j goes to j and j + old capacity, each keeping its keys' order.
  void split_bucket(int32_t j, std::vector<int32_t>& heads, std::vector<bool>& trees) {
    auto bit = static_cast<uint32_t>(heads_.size());
    auto low = static_cast<size_t>(j), high = low + bit;
    if (trees_[low]) {
      heads[low] = heads_[low];
      auto [low_tree, high_tree] = java_tree_bin<entry, Keys>(pool_, heads[low]).split(heads[high], bit);
      trees[low] = low_tree;
      trees[high] = high_tree;
      return;
    }
    int32_t* tails[2] = {&heads[low], &heads[high]};
    for (int32_t e = heads_[low], next; e != kNoNode; e = next) {
      next = node(e).next;
      node(e).next = kNoNode;
      int32_t*& tail = tails[(node(e).hash & bit) != 0];
      *tail = e;
      tail = &node(e).next;
    }
  }

  std::vector<entry> pool_;
  std::vector<int32_t> free_;
  std::vector<int32_t> heads_;
  std::vector<bool> trees_;
  int32_t threshold_ = 0;
  size_t size_ = 0;
};

template <typename K, typename Keys>
class java_hash_set {
 public:
  // new HashSet<>().
  java_hash_set() = default;
  // new HashSet<>(initial_capacity).
  explicit java_hash_set(int32_t initial_capacity) : map_(initial_capacity) {}

  // new HashSet<>(collection) of `size` elements, before they are added
  // (the one sizing that changed across JDKs: jdk_release.h).
  static java_hash_set sized_for_copy(size_t size, jdk_release jdk) {
    if (jdk == jdk_release::java17) {
      auto wanted = static_cast<int32_t>(static_cast<float>(size) / 0.75f) + 1;
      return java_hash_set(wanted < 16 ? 16 : wanted);
    }
    double expected = static_cast<double>(size < 12 ? 12 : size);
    return java_hash_set(static_cast<int32_t>(std::ceil(expected / 0.75)));
  }

  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  bool contains(const K& key) const { return map_.contains(key); }
  bool add(const K& key) { return map_.put(key, java_present{}); }
  bool erase(const K& key) { return map_.erase(key); }
  template <typename F>
  void for_each(F&& f) const {
    map_.for_each([&](const K& k, const java_present&) { f(k); });
  }
  std::vector<K> elements() const { return map_.keys(); }

 private:
  java_hash_map<K, java_present, Keys> map_;
};

}  // namespace hw::broker::group::consumer
