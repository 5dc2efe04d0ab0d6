#pragma once
// One call's records to a consumer or streams group (KIP-848, KIP-1071),
// each replayed into a copy of the group as it is made, so that every step
// of the call reads the state the earlier ones leave; the copy replaces the
// group only once the call succeeds. The copy is made when the group first
// changes: most heartbeats change nothing, and a copy costs in proportion to
// the group's members. Pure; on the shard's strand, like the group it reads.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hw::broker::group {

// `Group` replays a `Record` with `std::optional<std::string> replay(const
// Record&)` (an error names an invariant the record breaks).
template <typename Group, typename Record>
class group_draft {
 public:
  // Over a group the manager holds (it must outlive the draft); `kind`
  // begins the error of a refused record ("consumer group").
  group_draft(const Group& base, const char* kind) : base_(&base), kind_(kind) {}
  // A group that does not exist yet.
  static group_draft of_new_group(const std::string& group_id, const char* kind) {
    group_draft d(kind);
    d.copy_.emplace(group_id);
    return d;
  }

  // The group with the records added so far.
  const Group& group() const { return copy_ ? *copy_ : *base_; }
  // Whether the group differs from the one the draft began over (or is new).
  bool changed() const { return copy_.has_value(); }
  // The group to keep: only once changed().
  Group take() && { return std::move(*copy_); }
  void add(Record record) {
    Group& g = writable();
    if (auto e = g.replay(record); e && !error) error = std::string(kind_) + " " + g.group_id() + ": " + *e;
    records.push_back(std::move(record));
  }

  std::vector<Record> records;
  std::optional<std::string> error;  // a record the group refused: a defect here, not bad input

 protected:
  // The copy, made now if it was not yet: for derived state that is not
  // written as records (a streams group's configured topology).
  Group& writable() {
    if (!copy_) copy_.emplace(*base_);
    return *copy_;
  }

 private:
  explicit group_draft(const char* kind) : kind_(kind) {}
  const Group* base_ = nullptr;
  const char* kind_;
  std::optional<Group> copy_;
};

}  // namespace hw::broker::group
