#include "tools/commands/metadata_quorum_format.h"

#include <algorithm>

#include "protocol/messages/describe_quorum.h"
#include "tools/commands/command.h"

namespace hw::tools {
namespace {

quorum_replica replica_of(const protocol::msg::describe_quorum_response::replica_state& r) {
  quorum_replica q;
  q.id = r.replica_id;
  q.directory_id = r.replica_directory_id;
  q.log_end_offset = r.log_end_offset;
  if (r.last_fetch_timestamp != -1) q.last_fetch_ms = r.last_fetch_timestamp;
  if (r.last_caught_up_timestamp != -1) q.last_caught_up_ms = r.last_caught_up_timestamp;
  return q;
}

const quorum_replica* leader_of(const quorum_info& q) {
  for (const auto& v : q.voters)
    if (v.id == q.leader_id) return &v;
  return nullptr;
}

// MetadataQuorumCommand.relativeTimeMs.
bool relative_ms(int64_t timestamp, int64_t now, const char* what, std::string* out, std::string* error) {
  if (timestamp <= 0 || timestamp > now) {
    *error = "Error while computing relative time, possible drift in system clock.\nCurrent timestamp is " +
             std::to_string(now) + ", " + what + " timestamp is " + std::to_string(timestamp);
    return false;
  }
  *out = std::to_string(now - timestamp) + " ms ago";
  return true;
}

bool timestamp_cell(const std::optional<int64_t>& t, bool human_readable, int64_t now, const char* what,
                    std::string* out, std::string* error) {
  if (!t) {
    *out = "-1";
    return true;
  }
  if (!human_readable) {
    *out = std::to_string(*t);
    return true;
  }
  return relative_ms(*t, now, what, out, error);
}

}  // namespace

bool quorum_info_from(const protocol::msg::describe_quorum_response& resp, quorum_info* out, std::string* error) {
  if (resp.error_code != 0) {
    *error = error_message(resp.error_code, resp.error_message);
    return false;
  }
  if (resp.topics.size() != 1) {
    *error = "DescribeMetadataQuorum received " + std::to_string(resp.topics.size()) + " topics when 1 was expected";
    return false;
  }
  const auto& topic = resp.topics.front();
  if (topic.topic_name != "__cluster_metadata") {
    *error = "DescribeMetadataQuorum received a topic with name " + topic.topic_name +
             " when __cluster_metadata was expected";
    return false;
  }
  if (topic.partitions.size() != 1) {
    *error = "DescribeMetadataQuorum received a topic " + topic.topic_name + " with " +
             std::to_string(topic.partitions.size()) + " partitions when 1 was expected";
    return false;
  }
  const auto& p = topic.partitions.front();
  if (p.partition_index != 0) {
    *error = "DescribeMetadataQuorum received a single partition with index " + std::to_string(p.partition_index) +
             " when 0 was expected";
    return false;
  }
  if (p.error_code != 0) {
    *error = error_message(p.error_code, p.error_message);
    return false;
  }
  *out = quorum_info{};
  out->leader_id = p.leader_id;
  out->leader_epoch = p.leader_epoch;
  out->high_watermark = p.high_watermark;
  for (const auto& v : p.current_voters) out->voters.push_back(replica_of(v));
  for (const auto& o : p.observers) out->observers.push_back(replica_of(o));
  for (const auto& n : resp.nodes) {
    auto& eps = out->endpoints[n.node_id];
    eps.clear();
    for (const auto& l : n.listeners) eps.push_back({l.name, l.host, l.port});
  }
  return true;
}

std::string format_replica_list(const quorum_info& q, const std::vector<quorum_replica>& replicas) {
  std::string out = "[";
  for (size_t i = 0; i < replicas.size(); ++i) {
    const auto& r = replicas[i];
    out += (i ? ", " : "") + std::string("{\"id\": ") + std::to_string(r.id);
    if (!r.directory_id.is_zero()) out += ", \"directoryId\": \"" + r.directory_id.to_string() + "\"";
    auto eps = q.endpoints.find(r.id);
    if (eps != q.endpoints.end() && !eps->second.empty()) {
      out += ", \"endpoints\": [";
      for (size_t j = 0; j < eps->second.size(); ++j) {
        const auto& e = eps->second[j];
        // RaftVoterEndpoint.toString brackets an IPv6 host.
        const std::string host = e.host.find(':') != std::string::npos ? "[" + e.host + "]" : e.host;
        out += (j ? ", " : "") + std::string("\"") + e.listener + "://" + host + ":" + std::to_string(e.port) + "\"";
      }
      out += "]";
    }
    out += "}";
  }
  return out + "]";
}

bool format_quorum_status(const std::string& cluster_id, const quorum_info& q, std::string* out, std::string* error) {
  const quorum_replica* leader = leader_of(q);
  if (!leader || q.voters.empty()) {
    *error = "No value present";
    return false;
  }
  // The voter furthest behind: the first of the lowest log end offsets.
  const quorum_replica* laggard = &q.voters.front();
  for (const auto& v : q.voters)
    if (v.log_end_offset < laggard->log_end_offset) laggard = &v;
  const int64_t max_lag = leader->log_end_offset - laggard->log_end_offset;
  int64_t max_lag_ms = -1;
  if (laggard == leader) max_lag_ms = 0;
  else if (leader->last_caught_up_ms && laggard->last_caught_up_ms)
    max_lag_ms = *leader->last_caught_up_ms - *laggard->last_caught_up_ms;
  *out = "ClusterId:              " + cluster_id + "\nLeaderId:               " + std::to_string(q.leader_id) +
         "\nLeaderEpoch:            " + std::to_string(q.leader_epoch) +
         "\nHighWatermark:          " + std::to_string(q.high_watermark) +
         "\nMaxFollowerLag:         " + std::to_string(max_lag) +
         "\nMaxFollowerLagTimeMs:   " + std::to_string(max_lag_ms) +
         "\nCurrentVoters:          " + format_replica_list(q, q.voters) +
         "\nCurrentObservers:       " + format_replica_list(q, q.observers) + "\n";
  return true;
}

bool format_quorum_replication(const quorum_info& q, bool human_readable, int64_t now_ms, std::string* out,
                               std::string* error) {
  const quorum_replica* leader = leader_of(q);
  if (!leader) {
    *error = "No value present";
    return false;
  }
  std::vector<std::vector<std::string>> rows;
  auto add = [&](const quorum_replica& r, const char* status) {
    std::string fetch, caught_up;
    if (!timestamp_cell(r.last_fetch_ms, human_readable, now_ms, "last fetch", &fetch, error) ||
        !timestamp_cell(r.last_caught_up_ms, human_readable, now_ms, "last caught up", &caught_up, error))
      return false;
    rows.push_back({std::to_string(r.id), r.directory_id.to_string(), std::to_string(r.log_end_offset),
                    std::to_string(leader->log_end_offset - r.log_end_offset), fetch, caught_up, status});
    return true;
  };
  if (!add(*leader, "Leader")) return false;
  for (const auto& v : q.voters)
    if (v.id != q.leader_id && !add(v, "Follower")) return false;
  for (const auto& o : q.observers)
    if (!add(o, "Observer")) return false;
  *out = pretty_table({"NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp", "LastCaughtUpTimestamp",
                       "Status"},
                      rows);
  return true;
}

std::string pretty_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& h : headers) widths.push_back(h.size());
  for (const auto& row : rows)
    for (size_t i = 0; i < widths.size() && i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i) {
      out += cells[i];
      if (i < widths.size() && cells[i].size() < widths[i]) out.append(widths[i] - cells[i].size(), ' ');
      out += '\t';
    }
    return out + "\n";
  };
  std::string out = line(headers);
  for (const auto& row : rows) out += line(row);
  return out;
}

}  // namespace hw::tools
