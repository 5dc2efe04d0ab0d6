// OffsetForLeaderEpoch (key 23), versions 2-4: the end offset of a leader
// epoch — the start of the next higher epoch, or the log end for the
// latest — which consumers (KIP-320, after a leader change) and followers
// use to find where their copy diverges.
//
// Kafka's rules (ReplicaManager.lastOffsetForLeaderEpoch, Partition
// .lastOffsetForLeaderEpoch): only the leader answers, whoever asks
// (replica_id is consulted only after a stall, below); current_leader_epoch -1 skips the epoch
// check, else an older one is FENCED_LEADER_EPOCH and a newer one
// UNKNOWN_LEADER_EPOCH; a partition not hosted here is
// NOT_LEADER_OR_FOLLOWER when the metadata knows it, else
// UNKNOWN_TOPIC_OR_PARTITION; an offline log KAFKA_STORAGE_ERROR; an
// epoch the cache cannot place (above every entry, or an empty cache)
// answers no error with epoch -1 and end offset -1.

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/metadata/stall_guard.h"
#include "broker/replica/replica_manager.h"
#include "broker/run_on.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "protocol/messages/offset_for_leader_epoch.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::offset_for_leader_epoch_request;
using protocol::msg::offset_for_leader_epoch_response;
using epoch_end_offset = offset_for_leader_epoch_response::epoch_end_offset;

// On the partition's strand: the epoch cache is the writer's.
epoch_end_offset lookup(partition& p, int32_t epoch) {
  epoch_end_offset out;
  storage::epoch_end_offset found =
      p.log().epoch_cache().end_offset_for(storage::leader_epoch(epoch), p.log_end_offset());
  if (found.end_offset.value < 0) return out;  // undefined: -1 / -1
  out.leader_epoch = found.epoch.value;
  out.end_offset = found.end_offset.value;
  return out;
}

asio::awaitable<epoch_end_offset> answer(const broker_services& s, const controller::metadata_image& image,
                                         bool in_doubt, const std::string& topic,
                                         const offset_for_leader_epoch_request::offset_for_leader_partition& req) {
  epoch_end_offset out;
  auto p = s.replicas->get({topic, req.partition});
  error_code e = error_code::none;
  if (!p) {
    e = image.partition(topic, req.partition) ? error_code::not_leader_or_follower
                                              : error_code::unknown_topic_or_partition;
  } else if (s.replicas->logs().is_offline(p->tp())) {
    e = error_code::kafka_storage_error;
  } else {
    e = p->status().check_leader_epoch(req.current_leader_epoch, true);
    if (e == error_code::none && in_doubt) e = error_code::not_leader_or_follower;
  }
  if (e == error_code::none) out = co_await run_on(p->strand(), [&] { return lookup(*p, req.leader_epoch); });
  out.error_code = static_cast<int16_t>(e);
  out.partition = req.partition;
  co_return out;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<offset_for_leader_epoch_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();
  offset_for_leader_epoch_response response;
  // A client's question after a stall, when every leadership here may
  // have moved (stall_guard.h); a follower's is answered.
  const bool in_doubt = request->replica_id < 0 && leaderships_in_doubt(s.stalls);
  // CLUSTER_ACTION (a replica) allows every topic, else DESCRIBE on each
  // (a consumer, KIP-320); refused topics are answered after the others.
  const bool replica = !authorizer_configured(ctx) || authorize(ctx, api_acl(23, "follower"), {}, false);
  authorized_names may_describe(ctx, api_acl(23, "topic"));
  std::vector<offset_for_leader_epoch_response::offset_for_leader_topic_result> refused;
  for (const auto& topic : request->topics) {
    offset_for_leader_epoch_response::offset_for_leader_topic_result tr;
    tr.topic = topic.topic;
    if (!replica && !may_describe(topic.topic)) {
      for (const auto& part : topic.partitions) {
        auto& out = tr.partitions.emplace_back();
        out.partition = part.partition;
        out.error_code = static_cast<int16_t>(error_code::topic_authorization_failed);
      }
      refused.push_back(std::move(tr));
      continue;
    }
    for (const auto& part : topic.partitions) tr.partitions.push_back(co_await answer(s, *image, in_doubt, topic.topic, part));
    response.topics.push_back(std::move(tr));
  }
  for (auto& tr : refused) response.topics.push_back(std::move(tr));
  co_return respond(ctx, response);
}

}  // namespace

api_handler offset_for_leader_epoch_handler() { return {23, 2, 4, &handle}; }

}  // namespace hw::broker
