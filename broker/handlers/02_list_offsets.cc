// ListOffsets (key 2), versions 1-11: the offset for a timestamp, or for
// the special ones: latest (-1), earliest (-2), max timestamp (-3),
// earliest local (-4), latest tiered (-5).
//
// Kafka's rules (Partition.fetchOffsetForTimestamp, UnifiedLog
// .fetchOffsetByTimestamp): only the leader answers a consumer
// (NOT_LEADER_OR_FOLLOWER), at the epoch it knows (KIP-320); "latest" is
// the high watermark (read_uncommitted) or the last stable offset
// (read_committed) with the current leader epoch; earliest is the log
// start with its epoch; a timestamp lookup that lands at or past the
// fetchable end finds nothing (offset and timestamp -1). A new leader whose
// HW is still below the start of its own epoch answers "latest", and a
// timestamp lookup that finds nothing, with OFFSET_NOT_AVAILABLE: what is
// committed is not known yet, and the client retries.

#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/metadata/stall_guard.h"
#include "broker/replica/replica_manager.h"
#include "broker/run_on.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "protocol/messages/list_offsets.h"
#include "storage/log.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::list_offsets_request;
using protocol::msg::list_offsets_response;

constexpr int64_t latest_tiered_timestamp = -5;

// A special timestamp asked at a version older than the one that defines
// it: Kafka answers UNSUPPORTED_VERSION for that partition (max timestamp
// v7, earliest local v8, latest tiered v9, earliest pending upload v11).
bool special_timestamp_unsupported(int64_t timestamp, int16_t version) {
  switch (timestamp) {
    case -3: return version < 7;
    case -4: return version < 8;
    case -5: return version < 9;
    case -6: return version < 11;
    default: return false;
  }
}

// On the partition's strand: the epoch cache is the writer's.
// A request that is not a consumer's (replica_id other than -1: a follower
// after OFFSET_OUT_OF_RANGE, or -2, the debugging id a tool sends to any
// replica) sees up to that replica's log end, as Kafka answers it with no
// isolation level.
list_offsets_response::list_offsets_partition_response lookup(partition& p, int64_t timestamp, bool committed,
                                                             bool from_replica) {
  list_offsets_response::list_offsets_partition_response out;
  const storage::offset fetchable =
      from_replica ? p.log_end_offset() : committed ? p.last_stable_offset() : p.high_watermark();
  auto epoch_of = [&](storage::offset o) -> int32_t {
    auto e = p.log().epoch_cache().epoch_for_offset(o);
    return e ? e->value : -1;
  };
  // A new leader whose HW has not yet reached the start of its own epoch
  // cannot yet say what is committed: a client is told OFFSET_NOT_AVAILABLE
  // and retries (Kafka's Partition.fetchOffsetForTimestamp).
  const auto lagging = [&] {
    if (from_replica || !p.is_leader()) return false;
    auto start = p.log().epoch_cache().entry_for(storage::leader_epoch(p.leader_epoch()));
    return start && start->start_offset > p.high_watermark();
  };
  if (timestamp == storage::latest_timestamp) {
    if (lagging()) {
      out.error_code = static_cast<int16_t>(error_code::offset_not_available);
      return out;
    }
    out.offset = fetchable.value;
    out.leader_epoch = p.leader_epoch();
    return out;
  }
  if (timestamp == storage::earliest_timestamp || timestamp == storage::earliest_local_timestamp) {
    out.offset = p.log_start_offset().value;
    out.leader_epoch = epoch_of(p.log_start_offset());
    return out;
  }
  if (timestamp == latest_tiered_timestamp) return out;  // no tiered storage: nothing
  std::optional<storage::timestamp_and_offset> found;
  if (auto ec = p.log().log().offset_for_timestamp(timestamp, &found)) {
    out.error_code = static_cast<int16_t>(error_code::kafka_storage_error);
    return out;
  }
  if (!found || found->offset >= fetchable) {
    if (lagging()) out.error_code = static_cast<int16_t>(error_code::offset_not_available);
    return out;
  }
  out.timestamp = found->timestamp;
  out.offset = found->offset.value;
  out.leader_epoch = found->epoch ? found->epoch->value : epoch_of(found->offset);
  return out;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<list_offsets_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();
  const bool committed = request->isolation_level == 1;
  // After a stall every leadership here may have moved (stall_guard.h).
  const bool in_doubt = request->replica_id == -1 && leaderships_in_doubt(s.stalls);

  list_offsets_response response;
  // Topics the principal may not describe are answered after the others
  // (Kafka's order), every partition refused.
  authorized_names may_describe(ctx, api_acl(2, "topic"));
  std::vector<list_offsets_response::list_offsets_topic_response> refused;
  for (const auto& topic : request->topics) {
    if (!may_describe(topic.name)) {
      auto& tr = refused.emplace_back();
      tr.name = topic.name;
      for (const auto& pr : topic.partitions) {
        auto& out = tr.partitions.emplace_back();
        out.partition_index = pr.partition_index;
        out.error_code = static_cast<int16_t>(error_code::topic_authorization_failed);
      }
      continue;
    }
    auto& tr = response.topics.emplace_back();
    tr.name = topic.name;
    const auto* t = image->topic(topic.name);
    for (const auto& pr : topic.partitions) {
      list_offsets_response::list_offsets_partition_response out;
      if (!t || !t->partitions.count(pr.partition_index)) {
        out.error_code = static_cast<int16_t>(error_code::unknown_topic_or_partition);
      } else if (auto p = s.replicas->get({t->name, pr.partition_index}); !p) {
        out.error_code = static_cast<int16_t>(error_code::not_leader_or_follower);
      } else if (auto e = p->status().check_leader_epoch(pr.current_leader_epoch, request->replica_id != -2);
                 e != error_code::none) {
        out.error_code = static_cast<int16_t>(e);
      } else if (in_doubt && p->is_leader()) {
        out.error_code = static_cast<int16_t>(error_code::not_leader_or_follower);
      } else if (special_timestamp_unsupported(pr.timestamp, ctx.api_version)) {
        out.error_code = static_cast<int16_t>(error_code::unsupported_version);
      } else {
        out = co_await run_on(p->strand(),
                              [&] { return lookup(*p, pr.timestamp, committed, request->replica_id != -1); });
      }
      out.partition_index = pr.partition_index;
      tr.partitions.push_back(std::move(out));
    }
  }
  for (auto& tr : refused) response.topics.push_back(std::move(tr));
  co_return respond(ctx, response);
}

}  // namespace

api_handler list_offsets_handler() { return {2, 1, 11, &handle}; }

}  // namespace hw::broker
