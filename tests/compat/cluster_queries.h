#pragma once
// What the multi-node compat tests ask a cluster whose nodes come and go
// (kraft_nodes.h): each request on a connection of its own to the first
// running node that answers, and no test failure when none does, so that
// a test can wait on the answer with a deadline. The nodes are named by
// their client ports, the running ones (kraft_nodes' running_ports()).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kafka_socket.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/metadata.h"
#include "raw_requests.h"
#include "request_exchange.h"

namespace hw::testing {

// One request to one node; nullopt when it does not connect or answer in
// 10 s or the answer does not decode.
template <class Response, class Request>
std::optional<Response> quiet_call(uint16_t port, int16_t key, int16_t version, const Request& req,
                                   const std::string& client_id = "cluster-queries") {
  kafka_socket s{endpoint(port)};
  if (!s.connected()) return std::nullopt;
  return exchange<Response>(s, key, version, 1, req, std::chrono::seconds(10), client_id);
}

// Metadata (k_metadata_version) of these topics, without creating them, from the first
// node that answers.
inline std::optional<msg::metadata_response> cluster_metadata(const std::vector<uint16_t>& ports,
                                                              const std::vector<std::string>& topics) {
  msg::metadata_request req;
  req.topics.emplace();
  for (const auto& t : topics) req.topics->emplace_back().name = t;
  req.allow_auto_topic_creation = false;
  for (uint16_t port : ports)
    if (auto md = quiet_call<msg::metadata_response>(port, 3, k_metadata_version, req); md) return md;
  return std::nullopt;
}

// "" when each of the topics has `partitions` partitions (any number when
// negative), each with a leader and `replicas` replicas all in sync; else
// what is not so, for a failure message.
inline std::string unwhole(const std::vector<uint16_t>& ports, const std::vector<std::string>& topics,
                           int partitions, size_t replicas = 3) {
  auto md = cluster_metadata(ports, topics);
  if (!md) return "no metadata";
  std::string out;
  for (const auto& t : md->topics) {
    const std::string name = t.name.value_or("?");
    if (t.error_code != 0) {
      out += name + ": error " + std::to_string(t.error_code) + "; ";
      continue;
    }
    if ((partitions >= 0 && static_cast<int>(t.partitions.size()) != partitions) || t.partitions.empty())
      out += name + ": " + std::to_string(t.partitions.size()) + " partitions; ";
    for (const auto& p : t.partitions)
      if (p.error_code != 0 || p.leader_id < 0 || p.replica_nodes.size() != replicas ||
          p.isr_nodes.size() != replicas)
        out += name + "-" + std::to_string(p.partition_index) + ": leader " + std::to_string(p.leader_id) +
               ", replicas " + std::to_string(p.replica_nodes.size()) + ", isr " + std::to_string(p.isr_nodes.size()) +
               "; ";
  }
  if (md->topics.size() != topics.size()) out += std::to_string(md->topics.size()) + " topics in the metadata; ";
  return out;
}

// The coordinator of a group (key type 0) or transactional id (1) as the
// first node that answers FindCoordinator (v4) names it; -1 when none does.
inline int coordinator_of(const std::vector<uint16_t>& ports, int8_t key_type, const std::string& key) {
  msg::find_coordinator_request req;
  req.key_type = key_type;
  req.coordinator_keys = {key};
  for (uint16_t port : ports) {
    auto r = quiet_call<msg::find_coordinator_response>(port, 10, 4, req);
    if (r && r->coordinators.size() == 1 && r->coordinators[0].error_code == 0) return r->coordinators[0].node_id;
  }
  return -1;
}

// The leader of a topic's partition as the metadata names it; -1 when it
// has none or no node answers.
inline int leader_of(const std::vector<uint16_t>& ports, const std::string& topic, int32_t partition) {
  auto md = cluster_metadata(ports, {topic});
  if (!md || md->topics.size() != 1) return -1;
  for (const auto& p : md->topics[0].partitions)
    if (p.partition_index == partition && p.error_code == 0) return p.leader_id;
  return -1;
}

}  // namespace hw::testing
