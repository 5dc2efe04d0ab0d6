#pragma once
// Which voters a node counts, at each offset of its log (KIP-853).
//
// A static quorum (controller.quorum.voters, kraft.version 0) has one set
// for ever. A dynamic one (kraft.version 1) keeps its set in the log: the
// snapshot the log starts at holds one (the bootstrap checkpoint that
// `kafka-storage.sh format --standalone | --initial-controllers` writes,
// or a later snapshot), and every KRaftVoters control entry replaces it from
// its offset on. A node acts on the newest set in its log, committed or not
// (as Kafka does: a leader counts the new set's majority for the entry that
// adds or removes a voter), and goes back to an older one when the log is
// truncated below the entry that wrote the newer. A node formatted with
// --no-initial-controllers knows no set until it fetches one: it is an
// observer until then.
//
// Pure; a member of the raft core's context, on the raft strand.

#include <optional>
#include <utility>
#include <vector>

#include "controller/raft/raft_types.h"

namespace hw::controller::raft {

class voter_history {
 public:
  // A static quorum: this set at every offset, never changed.
  static voter_history fixed(voter_set set);
  // A dynamic quorum whose log starts with this set (none: not known yet).
  static voter_history dynamic(std::optional<voter_set> at_start);

  bool is_dynamic() const { return dynamic_; }
  // The newest set (empty when none is known).
  const voter_set& latest() const;
  // The set in force at offset o (the newest written at or before it).
  const voter_set& at(offset o) const;
  // Where the newest set was written: the offset of its KRaftVoters entry,
  // or the last offset a snapshot covers (Kafka's), -1 for the bootstrap
  // checkpoint's set or a static one.
  offset latest_offset() const { return changes_.empty() ? start_offset_ : changes_.back().first; }

  // A KRaftVoters entry at o (after every entry recorded so far).
  void record(offset o, voter_set set);
  // The log was cut at o: sets written at or after o are gone.
  void truncate_to(offset o);
  // The log now starts at a snapshot ending at o: the set in force there
  // becomes the start's, what came before is forgotten.
  void compact_to(offset o);
  // The whole log was replaced by a snapshot ending at o, holding this set.
  void reset(offset o, std::optional<voter_set> at_start);

 private:
  offset latest_offset_at(offset o) const;

  bool dynamic_ = false;
  voter_set start_;  // the snapshot's (or the static set)
  offset start_offset_{-1};
  std::vector<std::pair<offset, voter_set>> changes_;  // ascending offsets
};

}  // namespace hw::controller::raft
