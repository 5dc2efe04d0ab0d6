#pragma once
// Between the core's persistent_state and what metadata_log stores in the
// `quorum-state` file (Kafka's QuorumStateData, plain integers).

#include "controller/raft/metadata_log.h"
#include "controller/raft/raft_types.h"

namespace hw::controller::raft {

inline persistent_state from_quorum_state(const quorum_state& q) {
  return persistent_state{epoch{q.leader_epoch}, node_id{q.leader_id}, node_id{q.voted_id}};
}

inline quorum_state to_quorum_state(const persistent_state& s) {
  return quorum_state{s.leader_id.value, s.current_epoch.value, s.voted_id.value};
}

}  // namespace hw::controller::raft
