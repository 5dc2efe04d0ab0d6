#pragma once
// What crosses the simulated network: the node ids, the kinds of message
// and the one message struct they all share (fields used by its kind). It
// stands for the Fetch, ListOffsets, AlterPartition, Produce and broker
// registration/heartbeat requests and answers of protocol/, and for the
// metadata image a broker's metadata publisher receives.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "broker/replica/follower_state.h"
#include "broker/replica/leader_state.h"
#include "broker/replica/replica_types.h"
#include "protocol/error_code.h"
#include "tests/broker/replica_sim_log.h"

namespace hw::broker::replica_sim {

using protocol::error_code;

// Node ids on the network: the controller, brokers 1–3, the producer.
inline constexpr int controller_node = 0;
inline constexpr int producer_node = 4;
inline constexpr int node_count = 5;

enum class msg_kind : uint8_t {
  fetch,
  fetch_answer,
  list_offsets,
  list_offsets_answer,
  alter_partition,
  alter_partition_answer,
  metadata,
  heartbeat,
  register_broker,
  register_answer,
  produce,
};

inline const char* kind_name(msg_kind k) {
  switch (k) {
    case msg_kind::fetch: return "Fetch";
    case msg_kind::fetch_answer: return "FetchAnswer";
    case msg_kind::list_offsets: return "ListOffsets";
    case msg_kind::list_offsets_answer: return "ListOffsetsAnswer";
    case msg_kind::alter_partition: return "AlterPartition";
    case msg_kind::alter_partition_answer: return "AlterPartitionAnswer";
    case msg_kind::metadata: return "Metadata";
    case msg_kind::heartbeat: return "Heartbeat";
    case msg_kind::register_broker: return "RegisterBroker";
    case msg_kind::register_answer: return "RegisterAnswer";
    case msg_kind::produce: return "Produce";
  }
  return "?";
}

// What the controller's image says, as a broker receives it.
struct metadata_view {
  int64_t version = -1;
  partition_role role;
  std::array<std::optional<broker_status>, 4> brokers;  // by id; nullopt: not registered
};

// Every message is one of these (fields used by its kind).
struct message {
  msg_kind kind = msg_kind::fetch;
  int from = 0;
  int to = 0;
  uint64_t to_incarnation = 0;  // answers reach only the incarnation that asked
  uint64_t request_id = 0;
  uint64_t generation = 0;      // the follower_state the fetch came from
  storage::broker_epoch sender_epoch{-1};
  fetch_position position;
  error_code error = error_code::none;
  std::optional<diverging_epoch> diverging;
  std::vector<batch> batches;
  storage::offset high_watermark{-1};
  storage::offset log_start{-1};
  storage::offset log_end{-1};
  isr_change change;
  alter_partition_answer answer;
  metadata_view image;
  int64_t metadata_version = -1;
  uint64_t incarnation = 0;
  std::vector<uint64_t> payloads;
  bool acks_all = true;
};

}  // namespace hw::broker::replica_sim
