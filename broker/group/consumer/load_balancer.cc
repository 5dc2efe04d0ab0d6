#include "broker/group/consumer/load_balancer.h"

#include <algorithm>
#include <cassert>

namespace hw::broker::group::consumer {

int32_t load_balancer::initialize(const std::vector<int32_t>& members) {
  assert(!members.empty());
  sorted_ = members;
  std::sort(sorted_.begin(), sorted_.end(), [&](int32_t a, int32_t b) {
    int32_t sa = sizes_[static_cast<size_t>(a)], sb = sizes_[static_cast<size_t>(b)];
    return sa != sb ? sa < sb : a < b;
  });
  auto n = static_cast<int32_t>(sorted_.size());
  least_end_ = 0;
  least_level_ = size_at(0) - 1;
  next_least_ = 0;
  most_start_ = n;
  most_end_ = n;
  most_level_ = size_at(n - 1) + 1;
  next_most_ = n - 1;
  return size_at(n - 1) - size_at(0);
}

int32_t load_balancer::next_least_loaded() {
  auto n = static_cast<int32_t>(sorted_.size());
  if (next_least_ >= least_end_) {
    // Everyone in the range had one: raise its level, take in the members
    // now at that level, start again from the left.
    ++least_level_;
    while (least_end_ < n && size_at(least_end_) == least_level_) ++least_end_;
    next_least_ = 0;
  }
  return sorted_[static_cast<size_t>(next_least_++)];
}

int32_t load_balancer::next_most_loaded() {
  if (next_most_ < most_start_) {
    if (most_end_ <= most_start_ && most_start_ > 0) {
      // Exclusions emptied the range: restart its level at the next member
      // down so that the range grows.
      most_level_ = size_at(most_start_ - 1);
    } else {
      --most_level_;
    }
    while (most_start_ > 0 && size_at(most_start_ - 1) == most_level_) --most_start_;
    next_most_ = most_end_ - 1;
  }
  if (next_most_ < 0) return kNone;
  return sorted_[static_cast<size_t>(next_most_--)];
}

void load_balancer::exclude_most_loaded() {
  // Swap the member to the end of the range and shrink the range over it.
  auto just_returned = static_cast<size_t>(next_most_ + 1);
  std::swap(sorted_[just_returned], sorted_[static_cast<size_t>(most_end_ - 1)]);
  --most_end_;
}

}  // namespace hw::broker::group::consumer
