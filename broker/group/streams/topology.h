#pragma once
// A streams group's topology (KIP-1071) and its configuration against the
// topics that exist, after Kafka 4.3.1's InternalTopicManager: the source
// topics must exist; each repartition topic gets its declared partition
// count or one inferred through the topology (the largest of the sources of
// the subtopology that writes it); copartitioned topics must agree (and
// flexible repartition topics among them take their count); a changelog
// topic has as many partitions as its subtopology's largest source; a
// subtopology has as many tasks. Internal topics that do not exist yet are
// listed for the broker to create. Pure; on the group's shard strand.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "protocol/error_code.h"

namespace hw::broker::group::streams {

// A topic the topology declares beside its sources (StreamsGroupTopology
// Value.TopicInfo): partitions 0 (and replication factor 0) leave it to
// the coordinator (and the broker's default).
struct topic_info {
  std::string name;
  int32_t partitions = 0;
  int16_t replication_factor = 0;
  std::vector<std::pair<std::string, std::string>> configs;
  bool operator==(const topic_info&) const = default;
};

// Topics of one subtopology that must be copartitioned, as indexes into
// its source topics and its repartition source topics.
struct copartition_group {
  std::vector<int16_t> source_topics;
  std::vector<int16_t> source_topic_regex;
  std::vector<int16_t> repartition_source_topics;
  bool operator==(const copartition_group&) const = default;
};

struct subtopology {
  std::string id;
  std::vector<std::string> source_topics;
  std::vector<std::string> source_topic_regex;
  std::vector<topic_info> state_changelog_topics;
  std::vector<std::string> repartition_sink_topics;
  std::vector<topic_info> repartition_source_topics;
  std::vector<copartition_group> copartition_groups;
  bool operator==(const subtopology&) const = default;
};

// As the member declared it, in its order (the group's record keeps it so).
struct topology {
  int32_t epoch = 0;
  std::vector<subtopology> subtopologies;
  bool operator==(const topology&) const = default;
};

// The topology from a generated message of its shape: the heartbeat's
// Topology or the group's StreamsGroupTopologyValue (same fields), in the
// member's order.
template <class Message>
topology topology_from_message(const Message& m) {
  topology out;
  out.epoch = m.epoch;
  auto info = [](const auto& i) {
    topic_info t{i.name, i.partitions, i.replication_factor, {}};
    for (const auto& kv : i.topic_configs) t.configs.emplace_back(kv.key, kv.value);
    return t;
  };
  for (const auto& s : m.subtopologies) {
    auto& o = out.subtopologies.emplace_back();
    o.id = s.subtopology_id;
    o.source_topics = s.source_topics;
    o.source_topic_regex = s.source_topic_regex;
    for (const auto& c : s.state_changelog_topics) o.state_changelog_topics.push_back(info(c));
    o.repartition_sink_topics = s.repartition_sink_topics;
    for (const auto& r : s.repartition_source_topics) o.repartition_source_topics.push_back(info(r));
    for (const auto& g : s.copartition_groups)
      o.copartition_groups.push_back({g.source_topics, g.source_topic_regex, g.repartition_source_topics});
  }
  return out;
}

// StreamsGroupHeartbeatResponse.Status codes.
enum class topology_status : int8_t {
  stale_topology = 0,
  missing_source_topics = 1,
  incorrectly_partitioned_topics = 2,
  missing_internal_topics = 3,
  shutdown_application = 4,
  assignment_delayed = 5,
};

// What keeps a topology from being ready, told to the members as a status.
struct topic_configuration_error {
  topology_status status;
  std::string message;
  bool operator==(const topic_configuration_error&) const = default;
};

// An internal topic as configured (partitions decided), and as the broker
// creates it when missing (replication factor -1: the broker's default).
struct internal_topic {
  std::string name;
  int32_t partitions = 0;
  std::optional<int16_t> replication_factor;
  std::vector<std::pair<std::string, std::string>> configs;
  bool operator==(const internal_topic&) const = default;
};

struct configured_subtopology {
  int32_t tasks = 0;
  std::set<std::string> source_topics;
  std::map<std::string, internal_topic> repartition_source_topics;
  std::set<std::string> repartition_sink_topics;
  std::map<std::string, internal_topic> state_changelog_topics;
  bool operator==(const configured_subtopology&) const = default;
};

struct configured_topology {
  int32_t epoch = 0;
  int64_t metadata_hash = 0;
  // By subtopology id; unset when the topics do not fit the topology.
  std::optional<std::map<std::string, configured_subtopology>> subtopologies;
  // The internal topics that do not exist yet, in the order Kafka lists them.
  std::vector<internal_topic> to_create;
  std::optional<topic_configuration_error> error;

  // Tasks can be assigned: every topic is there and fits.
  bool ready() const { return subtopologies && !error; }
};

// A topology that cannot be configured at all: STREAMS_INVALID_TOPOLOGY
// (Kafka's StreamsInvalidTopologyException) or, for what Kafka fails with
// an IllegalStateException, UNKNOWN_SERVER_ERROR; with Kafka's message.
struct topology_failure {
  protocol::error_code code = protocol::error_code::streams_invalid_topology;
  std::string message;
  bool operator==(const topology_failure&) const = default;
};

// A topic's partition count in the image; nullopt when it does not exist.
using partition_count_of = std::function<std::optional<int32_t>(const std::string& topic)>;

std::variant<configured_topology, topology_failure> configure_topics(const topology& t, int64_t metadata_hash,
                                                                     const partition_count_of& image);

// Every topic the topology reads or keeps state in: source, repartition
// source and changelog topics (Kafka's requiredTopics).
std::set<std::string> required_topics(const topology& t);

}  // namespace hw::broker::group::streams
