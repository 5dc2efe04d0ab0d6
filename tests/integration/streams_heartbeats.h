#pragma once
// StreamsGroupHeartbeat requests as a Kafka Streams member sends them, for
// the tests that drive streams groups (KIP-1071) over raw requests: the join
// (epoch 0, its process and a one-subtopology topology reading `topic`,
// owning nothing) and a heartbeat at an epoch owning the active tasks the
// last answer gave it.

#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/streams_group_heartbeat.h"

namespace hw::testing {

inline protocol::msg::streams_group_heartbeat_request streams_join(const std::string& group,
                                                                   const std::string& member_id,
                                                                   const std::string& process_id,
                                                                   const std::string& topic) {
  protocol::msg::streams_group_heartbeat_request req;
  req.group_id = group;
  req.member_id = member_id;
  req.member_epoch = 0;
  req.rebalance_timeout_ms = 30000;
  req.process_id = process_id;
  req.active_tasks.emplace();
  req.standby_tasks.emplace();
  req.warmup_tasks.emplace();
  req.topology.emplace();
  req.topology->epoch = 0;
  auto& s = req.topology->subtopologies.emplace_back();
  s.subtopology_id = "0";
  s.source_topics = {topic};
  return req;
}

using streams_tasks = std::vector<protocol::msg::streams_group_heartbeat_response::task_ids>;

inline protocol::msg::streams_group_heartbeat_request streams_beat(const std::string& group,
                                                                   const std::string& member_id, int32_t epoch,
                                                                   const streams_tasks& active) {
  protocol::msg::streams_group_heartbeat_request req;
  req.group_id = group;
  req.member_id = member_id;
  req.member_epoch = epoch;
  req.active_tasks.emplace();
  for (const auto& t : active) req.active_tasks->push_back({t.subtopology_id, t.partitions, {}});
  req.standby_tasks.emplace();
  req.warmup_tasks.emplace();
  return req;
}

}  // namespace hw::testing
