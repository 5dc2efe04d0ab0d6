#pragma once
// Picks members to give and to take partitions for the heterogeneous uniform
// builder (Kafka's MemberAssignmentBalancer), over the builder's live count
// of partitions per member. Pure; owned by one builder run.
//
// initialize() sorts a topic's subscribers by load (then member number).
// Two ranges then grow from the ends of that list: the least loaded range
// from the left, handed partitions one member at a time, its level rising
// by one each time every member in it has had one; the most loaded range
// from the right, asked for partitions the same way, its level falling.
// The members are balanced once the two levels are within one of each
// other. The builder changes the counts as it moves partitions; the ranges
// read them as they are.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hw::broker::group::consumer {

class load_balancer {
 public:
  static constexpr int32_t kNone = -1;

  explicit load_balancer(const std::vector<int32_t>& sizes) : sizes_(sizes) {}

  // Starts over with these members (not empty); returns the difference in
  // load between the most and the least loaded.
  int32_t initialize(const std::vector<int32_t>& members);

  // The next member to take a partition.
  int32_t next_least_loaded();

  // The next member to give one up, or kNone when no member is left to ask.
  int32_t next_most_loaded();

  // Leaves out the member next_most_loaded just returned (it has nothing of
  // the topic to give).
  void exclude_most_loaded();

  bool is_balanced() const { return most_level_ - least_level_ <= 1; }

 private:
  // The load of the member at this position of the sorted list.
  int32_t size_at(int32_t position) const {
    return sizes_[static_cast<size_t>(sorted_[static_cast<size_t>(position)])];
  }

  const std::vector<int32_t>& sizes_;
  std::vector<int32_t> sorted_;
  // Least loaded range: [0, least_end_); the load of its members before
  // this round of handing out; the position of the next to take one.
  int32_t least_end_ = 0;
  int32_t least_level_ = -1;
  int32_t next_least_ = 0;
  // Most loaded range: [most_start_, most_end_); positions past most_end_
  // were excluded.
  int32_t most_start_ = 0;
  int32_t most_end_ = 0;
  int32_t most_level_ = 1;
  int32_t next_most_ = -1;
};

}  // namespace hw::broker::group::consumer
