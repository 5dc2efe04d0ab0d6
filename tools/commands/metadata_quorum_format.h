#pragma once
// What kafka-metadata-quorum.sh prints, from a DescribeQuorum answer: the
// describe --status summary and the describe --replication table, as Kafka
// 4.3's MetadataQuorumCommand lays them out. Pure functions.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/wire/uuid.h"

namespace hw::protocol::msg {
struct describe_quorum_response;
}

namespace hw::tools {

struct quorum_replica {
  int32_t id = 0;
  protocol::uuid directory_id;  // zero when the answer (before v2) has none
  int64_t log_end_offset = 0;
  std::optional<int64_t> last_fetch_ms;      // absent when the broker sent -1
  std::optional<int64_t> last_caught_up_ms;  // likewise
};

struct quorum_endpoint {
  std::string listener;
  std::string host;
  uint16_t port = 0;
};

struct quorum_info {
  int32_t leader_id = -1;
  int32_t leader_epoch = -1;
  int64_t high_watermark = -1;
  std::vector<quorum_replica> voters;
  std::vector<quorum_replica> observers;
  std::map<int32_t, std::vector<quorum_endpoint>> endpoints;  // by node id (v2 answers)
};

// The answer's __cluster_metadata-0 as Kafka's admin client reads it; false
// with the exception message Kafka's client gives a malformed or failed
// answer (the error code's message, or "DescribeMetadataQuorum received 2
// topics when 1 was expected" and the like).
bool quorum_info_from(const protocol::msg::describe_quorum_response& resp, quorum_info* out, std::string* error);

// describe --status; false with "No value present" (Kafka's message) when
// the leader is not among the voters, as while an election is under way.
bool format_quorum_status(const std::string& cluster_id, const quorum_info& q, std::string* out, std::string* error);

// describe --replication (--human-readable: "123 ms ago" from now_ms); false
// with Kafka's message when the leader is not a voter or, human-readable,
// a timestamp lies outside (epoch, now].
bool format_quorum_replication(const quorum_info& q, bool human_readable, int64_t now_ms, std::string* out,
                               std::string* error);

// CurrentVoters / CurrentObservers: [{"id": 1, "directoryId": "...",
// "endpoints": ["CONTROLLER://host:9093"]}, ...].
std::string format_replica_list(const quorum_info& q, const std::vector<quorum_replica>& replicas);

// ToolsUtils.prettyPrintTable: each cell padded to its column's width and
// followed by a tab, one line per row after the header.
std::string pretty_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows);

}  // namespace hw::tools
