// AlterReplicaLogDirs (key 34), versions 1-2: move replicas between this
// broker's log dirs (kafka-reassign-partitions.sh with "log_dirs").
//
// Kafka's rules (KafkaApis.handleAlterReplicaLogDirsRequest,
// ReplicaManager.alterReplicaLogDirs): ALTER on the cluster, else every
// partition answers CLUSTER_AUTHORIZATION_FAILED; a partition named twice
// goes where it is named last; per partition, in order: a topic name too
// long for the future log's directory name is INVALID_TOPIC_EXCEPTION, a
// path that is not one of log.dirs (as an absolute path) LOG_DIR_NOT_FOUND,
// an offline dir KAFKA_STORAGE_ERROR; a partition hosted here starts moving
// (log_dir_mover.h: a move to another dir replaces one in progress, a move
// to its current dir cancels it) and answers NONE, or KAFKA_STORAGE_ERROR
// when its log is offline; one not hosted here answers REPLICA_NOT_AVAILABLE
// (UNKNOWN_TOPIC_OR_PARTITION when the cluster has no such partition) and
// is created in that dir if it comes (Kafka's preferred log dir).

#include <filesystem>
#include <map>

#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/replica/log_dir_mover.h"
#include "broker/replica/replica_manager.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "config/broker_config.h"
#include "protocol/error_code.h"
#include "protocol/messages/alter_replica_log_dirs.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::alter_replica_log_dirs_request;
using protocol::msg::alter_replica_log_dirs_response;

// Kafka's UnifiedLog.logFutureDirName: "<topic>-<partition>.<32 hex>-future".
bool future_name_too_long(const storage::topic_partition& tp) {
  return storage::partition_dir_name(tp).size() + 1 + 32 + storage::future_dir_suffix.size() > 255;
}

std::string absolute(const std::string& dir) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(dir, ec);
  if (ec) return dir;
  abs = abs.lexically_normal();
  if (!abs.has_filename() && abs.has_parent_path()) abs = abs.parent_path();
  return abs.string();
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<alter_replica_log_dirs_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  // Later entries win, as in Kafka's map of partition to dir.
  std::map<storage::topic_partition, std::string> wanted;
  std::vector<storage::topic_partition> order;
  for (const auto& d : request->dirs) {
    for (const auto& t : d.topics) {
      for (int32_t part : t.partitions) {
        storage::topic_partition tp{t.name, part};
        if (wanted.insert_or_assign(tp, d.path).second) order.push_back(tp);
      }
    }
  }
  const bool allowed = authorize(ctx, api_acl(34, "cluster"));
  std::map<std::string, std::string> configured;  // absolute path → as configured
  for (const auto& dir : s.config->log_dirs) configured.emplace(absolute(dir), dir);

  std::map<storage::topic_partition, error_code> results;
  for (const auto& tp : order) {
    error_code e = error_code::none;
    auto dir = configured.find(wanted[tp]);
    if (!allowed) {
      e = error_code::cluster_authorization_failed;
    } else if (future_name_too_long(tp)) {
      e = error_code::invalid_topic_exception;
    } else if (dir == configured.end()) {
      e = error_code::log_dir_not_found;
    } else if (s.replicas->logs().is_dir_offline(dir->second)) {
      e = error_code::kafka_storage_error;
    } else if (auto p = s.replicas->get(tp); p && s.log_mover) {
      e = co_await s.log_mover->move(p, dir->second);
    } else {
      // Remembered for when the replica comes; Kafka answers as its
      // getPartitionOrException: a partition the cluster has elsewhere is
      // REPLICA_NOT_AVAILABLE, an unknown one UNKNOWN_TOPIC_OR_PARTITION.
      s.replicas->logs().set_preferred_dir(tp, dir->second);
      e = s.metadata && s.metadata->image()->partition(tp.topic, tp.partition) ? error_code::replica_not_available
                                                                               : error_code::unknown_topic_or_partition;
    }
    results[tp] = e;
  }

  alter_replica_log_dirs_response response;
  std::map<std::string, size_t> topic_index;
  for (const auto& tp : order) {
    auto [it, added] = topic_index.emplace(tp.topic, response.results.size());
    if (added) response.results.emplace_back().topic_name = tp.topic;
    auto& r = response.results[it->second].partitions.emplace_back();
    r.partition_index = tp.partition;
    r.error_code = static_cast<int16_t>(results[tp]);
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler alter_replica_log_dirs_handler() { return {34, 1, 2, &handle}; }

}  // namespace hw::broker
