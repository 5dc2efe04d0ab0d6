#include "controller/replica_placer.h"

#include <algorithm>
#include <map>

namespace hw::controller {

namespace {

// Brokers of one kind (fenced or not) in one rack, walked from a rotating
// offset: each "epoch" (one partition) starts one further along.
class broker_list {
 public:
  void add(int32_t id) { brokers_.push_back(id); }
  void initialize(std::mt19937_64& random) {
    if (brokers_.empty()) return;
    std::sort(brokers_.begin(), brokers_.end());
    offset_ = static_cast<size_t>(random() % brokers_.size());
  }
  void shuffle(std::mt19937_64& random) { std::shuffle(brokers_.begin(), brokers_.end(), random); }
  int32_t next(int epoch) {
    if (brokers_.empty()) return -1;
    if (epoch_ != epoch) {
      epoch_ = epoch;
      index_ = 0;
      offset_ = (offset_ + 1) % brokers_.size();
    }
    if (index_ >= brokers_.size()) return -1;
    return brokers_[(index_++ + offset_) % brokers_.size()];
  }

 private:
  std::vector<int32_t> brokers_;
  size_t index_ = 0;
  size_t offset_ = 0;
  int epoch_ = 0;
};

struct rack {
  broker_list fenced;
  broker_list unfenced;
  int32_t next(int epoch) {
    int32_t b = unfenced.next(epoch);
    return b >= 0 ? b : fenced.next(epoch);
  }
};

class rack_list {
 public:
  rack_list(const std::vector<usable_broker>& brokers, std::mt19937_64& random) : random_(random) {
    for (const auto& b : brokers) {
      auto [it, fresh] = racks_.try_emplace(b.rack);
      if (fresh) names_.push_back(b.rack);
      (b.fenced ? it->second.fenced : it->second.unfenced).add(b.id.value);
      ++total_;
      if (!b.fenced) ++unfenced_;
    }
    for (auto& [_, r] : racks_) {
      r.fenced.initialize(random_);
      r.unfenced.initialize(random_);
    }
    std::sort(names_.begin(), names_.end());  // no rack first, like Kafka
    offset_ = names_.empty() ? 0 : static_cast<size_t>(random_() % names_.size());
  }

  int total() const { return total_; }
  int unfenced() const { return unfenced_; }

  std::vector<int32_t> place(int32_t replication_factor) {
    // Once every unfenced broker has led a partition, reshuffle so the next
    // round does not repeat the same replica sets.
    if (epoch_ == unfenced_ && unfenced_ > 1) {
      std::shuffle(names_.begin(), names_.end(), random_);
      for (auto& [_, r] : racks_) {
        r.fenced.shuffle(random_);
        r.unfenced.shuffle(random_);
      }
      epoch_ = 0;
    }
    if (offset_ == names_.size()) offset_ = 0;
    std::vector<int32_t> out;
    size_t first = offset_;
    for (;;) {
      int32_t b = racks_[names_[first]].unfenced.next(epoch_);
      if (b >= 0) {
        out.push_back(b);
        break;
      }
      first = (first + 1) % names_.size();
    }
    size_t index = offset_;
    bool first_skipped = false;
    for (int32_t replica = 1; replica < replication_factor; ++replica) {
      int32_t b = -1;
      do {
        if (!first_skipped && index == first) {
          first_skipped = true;
        } else {
          b = racks_[names_[index]].next(epoch_);
        }
        index = (index + 1) % names_.size();
      } while (b < 0);
      out.push_back(b);
    }
    ++epoch_;
    ++offset_;
    return out;
  }

 private:
  std::mt19937_64& random_;
  std::map<std::optional<std::string>, rack> racks_;
  std::vector<std::optional<std::string>> names_;
  int total_ = 0;
  int unfenced_ = 0;
  int epoch_ = 0;
  size_t offset_ = 0;
};

}  // namespace

std::variant<std::vector<std::vector<node_id>>, placement_error> place_replicas(
    std::vector<usable_broker> brokers, int32_t num_partitions, int32_t replication_factor,
    std::mt19937_64& random) {
  rack_list racks(brokers, random);
  if (replication_factor <= 0) {
    return placement_error{"Invalid replication factor " + std::to_string(replication_factor) +
                           ": the replication factor must be positive."};
  }
  if (racks.unfenced() == 0) {
    return placement_error{"All brokers are currently fenced, or have all their log directories cordoned."};
  }
  if (replication_factor > racks.total()) {
    return placement_error{"The target replication factor of " + std::to_string(replication_factor) +
                           " cannot be reached because only " + std::to_string(racks.total()) +
                           " broker(s) are registered or some brokers have all their log directories cordoned."};
  }
  std::vector<std::vector<node_id>> out;
  out.reserve(static_cast<size_t>(num_partitions));
  for (int32_t p = 0; p < num_partitions; ++p) {
    out.push_back(storage::named_list<node_id>(racks.place(replication_factor)));
  }
  return out;
}

}  // namespace hw::controller
