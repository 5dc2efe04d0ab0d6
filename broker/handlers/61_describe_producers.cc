// DescribeProducers (key 61), version 0: the active idempotent and
// transactional producers of partitions this broker hosts, as leader or
// follower (kafka-transactions.sh describe-producers, and find-hanging,
// which asks one broker about every partition it hosts).
//
// Kafka's rules (ReplicaManager.activeProducerState, Partition
// .activeProducerState: the local log, whatever the replica's role;
// UnifiedLog.activeProducers): a partition the metadata does not know is
// UNKNOWN_TOPIC_OR_PARTITION, one not hosted here NOT_LEADER_OR_FOLLOWER,
// an offline one KAFKA_STORAGE_ERROR (without messages); each producer is
// listed with its epoch, last sequence, last timestamp, coordinator epoch
// and open transaction's first offset (-1). A follower's producer state is
// rebuilt from the batches it replicates, so it answers the same.

#include <algorithm>

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/replica/replica_manager.h"
#include "broker/run_on.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "protocol/messages/describe_producers.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::describe_producers_request;
using protocol::msg::describe_producers_response;
using partition_response = describe_producers_response::partition_response;

// On the partition's strand: producer state is the writer's.
std::vector<describe_producers_response::producer_state> active_producers(partition& p) {
  std::vector<describe_producers_response::producer_state> out;
  for (const auto& [id, entry] : p.log().producers().producers()) {
    describe_producers_response::producer_state s;
    s.producer_id = id.value;
    s.producer_epoch = entry.epoch.value;
    s.last_sequence = entry.last_sequence();
    s.last_timestamp = entry.last_timestamp_ms;
    s.coordinator_epoch = entry.coordinator.value;
    s.current_txn_start_offset = entry.current_txn_first_offset ? entry.current_txn_first_offset->value : -1;
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.producer_id < b.producer_id; });
  return out;
}

asio::awaitable<partition_response> describe(const broker_services& s, const controller::metadata_image& image,
                                             const std::string& topic, int32_t index) {
  partition_response out;
  out.partition_index = index;
  auto p = s.replicas->get({topic, index});
  if (!image.partition(topic, index)) {
    out.error_code = static_cast<int16_t>(error_code::unknown_topic_or_partition);
  } else if (!p) {
    out.error_code = static_cast<int16_t>(error_code::not_leader_or_follower);
  } else if (s.replicas->logs().is_offline(p->tp())) {
    out.error_code = static_cast<int16_t>(error_code::kafka_storage_error);
  } else {
    out.active_producers = co_await run_on(p->strand(), [&] { return active_producers(*p); });
  }
  co_return out;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_producers_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();
  describe_producers_response response;
  authorized_names may_read(ctx, api_acl(61, "topic"));
  for (const auto& topic : request->topics) {
    describe_producers_response::topic_response tr;
    tr.name = topic.name;
    if (!may_read(topic.name)) {  // READ on the topic, else each partition is refused
      for (int32_t index : topic.partition_indexes) {
        auto& refused = tr.partitions.emplace_back();
        refused.partition_index = index;
        refused.error_code = static_cast<int16_t>(error_code::topic_authorization_failed);
        refused.error_message = std::string(authorization_error_message(error_code::topic_authorization_failed));
      }
      response.topics.push_back(std::move(tr));
      continue;
    }
    for (int32_t index : topic.partition_indexes) tr.partitions.push_back(co_await describe(s, *image, topic.name, index));
    response.topics.push_back(std::move(tr));
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler describe_producers_handler() { return {61, 0, 0, &handle}; }

}  // namespace hw::broker
