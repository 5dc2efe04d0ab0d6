// WriteTxnMarkers (key 27), versions 1-2: a transaction coordinator ends a
// transaction in the partitions this broker leads, each getting a COMMIT or
// ABORT control batch at the producer's id and epoch with the coordinator
// epoch, written with acks=all (Kafka's KafkaApis.handleWriteTxnMarkersRequest
// and ReplicaManager.appendRecords with the COORDINATOR origin).
//
// Per partition: unknown to the metadata, UNKNOWN_TOPIC_OR_PARTITION; not
// led here, NOT_LEADER_OR_FOLLOWER; an older coordinator epoch than the
// partition has seen for the producer, TRANSACTION_COORDINATOR_FENCED; an
// older producer epoch, INVALID_PRODUCER_EPOCH (the log's producer state
// decides both); then the acks=all outcome within request.timeout.ms. A
// marker in a __consumer_offsets partition also settles the producer's
// transactional offsets in that partition's group shard, on the strand
// that appended it.

#include <vector>

#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/replica/await_acks.h"
#include "broker/replica/replica_manager.h"
#include "broker/run_on.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "config/broker_config.h"
#include "protocol/error_code.h"
#include "protocol/messages/write_txn_markers.h"
#include "protocol/records/record_batch_builder.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::write_txn_markers_request;
using protocol::msg::write_txn_markers_response;

struct awaiting {
  std::shared_ptr<partition> part;
  storage::offset required{0};
  size_t marker = 0, topic = 0, partition_index = 0;
};

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<write_txn_markers_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();
  const int64_t now_ms = s.now_ms ? s.now_ms() : 0;
  write_txn_markers_response response;
  // ALTER or CLUSTER_ACTION on the cluster, else every partition is refused.
  if (authorizer_configured(ctx) && !authorize(ctx, api_acl(27, "alter"), {}, false) &&
      !authorize(ctx, api_acl(27, "cluster_action"))) {
    for (const auto& m : request->markers) {
      auto& out_marker = response.markers.emplace_back();
      out_marker.producer_id = m.producer_id;
      for (const auto& t : m.topics) {
        auto& out_topic = out_marker.topics.emplace_back();
        out_topic.name = t.name;
        for (int32_t index : t.partition_indexes)
          out_topic.partitions.push_back({index, static_cast<int16_t>(error_code::cluster_authorization_failed), {}});
      }
    }
    co_return respond(ctx, response);
  }
  std::vector<awaiting> waiting;
  for (size_t mi = 0; mi < request->markers.size(); ++mi) {
    const auto& m = request->markers[mi];
    auto& out_marker = response.markers.emplace_back();
    out_marker.producer_id = m.producer_id;
    for (size_t ti = 0; ti < m.topics.size(); ++ti) {
      const auto& t = m.topics[ti];
      auto& out_topic = out_marker.topics.emplace_back();
      out_topic.name = t.name;
      for (int32_t index : t.partition_indexes) {
        auto& out_partition = out_topic.partitions.emplace_back();
        out_partition.partition_index = index;
        auto set = [&](error_code e) { out_partition.error_code = static_cast<int16_t>(e); };
        if (!image->partition(t.name, index)) {
          set(error_code::unknown_topic_or_partition);
          continue;
        }
        auto p = s.replicas->get({t.name, index});
        if (!p) {
          set(error_code::not_leader_or_follower);
          continue;
        }
        protocol::end_txn_marker_batch marker;
        marker.producer_id = m.producer_id;
        marker.producer_epoch = m.producer_epoch;
        marker.timestamp_ms = now_ms;
        marker.marker.type = m.transaction_result ? protocol::control_record_type::commit
                                                  : protocol::control_record_type::abort;
        marker.marker.coordinator_epoch = m.coordinator_epoch;
        const int16_t version = ctx.api_version >= 2 ? m.transaction_version : 0;
        auto appended = co_await run_on(p->strand(), [&] {
          std::vector<uint8_t> batch;
          marker.partition_leader_epoch = p->leader_epoch();
          protocol::append_end_txn_marker_batch(batch, marker);
          produce_limits limits = p->status().limits();
          limits.max_message_bytes = std::max<int32_t>(limits.max_message_bytes, static_cast<int32_t>(batch.size()));
          auto result = p->append_records(batch, -1, limits, storage::producer_origin::coordinator, now_ms, version);
          // The group coordinator settles the producer's offsets in log
          // order with its own writes to the partition.
          if (result.error == error_code::none && t.name == consumer_offsets_topic && s.groups)
            s.groups->on_txn_marker(index, m.producer_id, m.transaction_result);
          return result;
        });
        if (appended.error != error_code::none) {
          set(appended.error);
          continue;
        }
        if (appended.acks_done) {
          set(appended.acks_error);
          continue;
        }
        waiting.push_back({p, storage::offset(appended.required_offset), mi, ti, out_topic.partitions.size() - 1});
      }
    }
  }
  if (!waiting.empty()) {
    auto answer = [&](const awaiting& w, error_code e) {
      response.markers[w.marker].topics[w.topic].partitions[w.partition_index].error_code = static_cast<int16_t>(e);
    };
    co_await await_acks(waiting, static_cast<int32_t>(s.config->get_int("request.timeout.ms")), answer);
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler write_txn_markers_handler() { return {27, 1, 2, &handle}; }

}  // namespace hw::broker
