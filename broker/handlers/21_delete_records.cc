// DeleteRecords (key 21), versions 0-2: moves a partition's log start (its
// low watermark) forward; segments wholly below it go with retention.
//
// Kafka's rules (ReplicaManager.deleteRecordsOnLocalLog, Partition
// .deleteRecordsOnLeader): internal topics are INVALID_TOPIC_EXCEPTION; an
// unknown partition UNKNOWN_TOPIC_OR_PARTITION; only the leader deletes
// (NOT_LEADER_OR_FOLLOWER); a topic whose cleanup.policy lacks "delete" is
// POLICY_VIOLATION; offset -1 means the high watermark; a negative offset
// or one past the high watermark is OFFSET_OUT_OF_RANGE. An error answers
// low watermark -1. With one replica the new low watermark is reached at
// once, so there is nothing to wait for.

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/replica/replica_manager.h"
#include "broker/run_on.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "protocol/error_code.h"
#include "protocol/messages/delete_records.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::delete_records_request;
using protocol::msg::delete_records_response;

asio::awaitable<delete_records_response::delete_records_partition_result> delete_one(
    const broker_services& s, const controller::metadata_image& image, const std::string& topic,
    const delete_records_request::delete_records_partition& req) {
  delete_records_response::delete_records_partition_result out;
  out.partition_index = req.partition_index;
  out.low_watermark = -1;
  auto fail = [&](error_code e) {
    out.error_code = static_cast<int16_t>(e);
    return out;
  };
  if (is_internal_topic(topic)) co_return fail(error_code::invalid_topic_exception);
  if (!image.partition(topic, req.partition_index)) co_return fail(error_code::unknown_topic_or_partition);
  auto p = s.replicas->get({topic, req.partition_index});
  if (!p || !p->is_leader()) co_return fail(error_code::not_leader_or_follower);
  if (s.replicas->logs().is_offline(p->tp())) co_return fail(error_code::kafka_storage_error);
  if (!p->log_ptr()->log().config().cleanup.delete_enabled) co_return fail(error_code::policy_violation);
  const int64_t now_ms = s.now_ms ? s.now_ms() : 0;
  int64_t low_watermark = -1;
  error_code e = co_await run_on(p->strand(), [&] {
    return p->delete_records_before(storage::offset(req.offset), now_ms, &low_watermark);
  });
  if (e != error_code::none) co_return fail(e);
  out.low_watermark = low_watermark;
  co_return out;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<delete_records_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();
  delete_records_response response;
  authorized_names may_delete(ctx, api_acl(21, "topic"));
  for (const auto& topic : request->topics) {
    delete_records_response::delete_records_topic_result tr;
    tr.name = topic.name;
    const bool allowed = may_delete(topic.name);
    for (const auto& part : topic.partitions) {
      if (allowed) {
        tr.partitions.push_back(co_await delete_one(s, *image, topic.name, part));
        continue;
      }
      auto& refused = tr.partitions.emplace_back();
      refused.partition_index = part.partition_index;
      refused.low_watermark = -1;
      refused.error_code = static_cast<int16_t>(error_code::topic_authorization_failed);
    }
    response.topics.push_back(std::move(tr));
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler delete_records_handler() { return {21, 0, 2, &handle}; }

}  // namespace hw::broker
