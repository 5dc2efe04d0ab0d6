#pragma once
// A model of java.util.PriorityQueue's order: the same binary heap in an
// array, the same sift up on add and sift down on poll, so that elements
// that compare equal come out in the order Java's queue gives them (Kafka's
// streams task assignor polls processes and members by load, and ties are
// common). `Less` is a three-way comparator: negative, zero or positive as
// Java's Comparator.compare. Pure; owned by its user.

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace hw::broker::group::consumer {

template <typename T, typename Compare>
class java_priority_queue {
 public:
  explicit java_priority_queue(Compare compare) : compare_(std::move(compare)) {}

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }

  // add / offer: sift up from the end.
  void add(T x) {
    size_t k = heap_.size();
    heap_.push_back(x);
    while (k > 0) {
      size_t parent = (k - 1) >> 1;
      if (compare_(x, heap_[parent]) >= 0) break;
      heap_[k] = heap_[parent];
      k = parent;
    }
    heap_[k] = std::move(x);
  }

  // poll: the head, the last element sifted down from the top.
  std::optional<T> poll() {
    if (heap_.empty()) return std::nullopt;
    T result = std::move(heap_[0]);
    T x = std::move(heap_.back());
    heap_.pop_back();
    const size_t n = heap_.size();
    if (n > 0) {
      size_t k = 0;
      const size_t half = n >> 1;
      while (k < half) {
        size_t child = (k << 1) + 1;
        const size_t right = child + 1;
        if (right < n && compare_(heap_[child], heap_[right]) > 0) child = right;
        if (compare_(x, heap_[child]) <= 0) break;
        heap_[k] = std::move(heap_[child]);
        k = child;
      }
      heap_[k] = std::move(x);
    }
    return result;
  }

 private:
  Compare compare_;
  std::vector<T> heap_;
};

}  // namespace hw::broker::group::consumer
