// Fetch (key 1), versions 4-18, for consumers: records below the high
// watermark (read_uncommitted) or the last stable offset (read_committed,
// with the aborted transactions of the range), waiting up to max_wait_ms
// for min_bytes, in KIP-227 fetch sessions.
//
// Kafka's rules (KafkaApis.handleFetchRequest, ReplicaManager.fetchMessages,
// Partition.fetchRecords): the partition must be led here
// (NOT_LEADER_OR_FOLLOWER) at the epoch the client knows (KIP-320:
// FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH); an offset outside [log
// start, log end] is OFFSET_OUT_OF_RANGE; response bytes are bounded by
// max_bytes and each partition's partition_max_bytes, except that the first
// partition with data returns at least one whole batch; when fewer than
// min_bytes are ready the fetch waits, woken by appends, until max_wait_ms.
// From v13 topics are named by id (UNKNOWN_TOPIC_ID). The session rules
// (which partitions to read, which to answer, the session id) are
// broker/fetch/fetch_session_cache.h's.

#include <algorithm>
#include <chrono>
#include <set>

#include "broker/fetch/shared_fetch_sessions.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/leader_endpoints.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/metadata/stall_guard.h"
#include "broker/metadata/alter_partition_manager.h"
#include "broker/quota/request_quotas.h"
#include "broker/replica/partition_waiter.h"
#include "broker/replica/replica_manager.h"
#include "broker/replica/replica_selector.h"
#include "broker/replica/replication_quota.h"
#include "broker/run_on.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "protocol/messages/fetch.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::fetch_request;
using protocol::msg::fetch_response;

// Bounds a wait whatever the client asks.
constexpr int32_t max_fetch_wait_ms = 60'000;

// One partition to read, resolved against the metadata.
struct partition_slot {
  fetch::partition_request request;
  std::shared_ptr<partition> hosted;  // null when error is set
  error_code error = error_code::none;
  // From the checks made on the partition's strand (a follower's fetch, or
  // one carrying the epoch of the last batch read): an error found after
  // the look-up, or where the fetcher's history parts from this log's.
  error_code checked_error = error_code::none;
  std::optional<diverging_epoch> diverging;
  // A follower's fetch: whether it is in the ISR (a replica out of it may
  // be throttled, replication_quota.h).
  bool follower_in_sync = true;
  // KIP-392: the replica this consumer should read from instead of the leader.
  std::optional<int32_t> preferred_read_replica;
  // A follower's fetch that brought it back into the ISR: the change to send.
  std::optional<isr_change> expand;
};

struct slot_result {
  fetch_response::partition_data data;
  fetch::partition_result session;
};

class fetch_reader {
 public:
  // The file ranges of the last read_all, by deferred id - 1.
  std::vector<file_range> take_ranges() { return std::move(ranges_); }

  // from_follower: a replica's fetch, read up to the log end; throttled by
  // `quota` (may be null) when out of sync.
  // leader_only: answer from the leader alone (followers serve consumers'
  // fetches from v11 on, KIP-392).
  fetch_reader(int32_t max_bytes, bool read_committed, bool from_follower, bool leader_only,
               replication_quota* quota = nullptr, std::function<int64_t()> now_ms = {})
      : max_bytes_(max_bytes),
        read_committed_(read_committed),
        from_follower_(from_follower),
        leader_only_(leader_only),
        quota_(quota && now_ms ? quota : nullptr),
        now_ms_(std::move(now_ms)) {}

  // Reads every partition once; returns the bytes read.
  size_t read_all(const std::vector<partition_slot>& slots, std::vector<slot_result>& out) {
    ranges_.clear();
    out.clear();
    out.resize(slots.size());
    size_t total = 0;
    int64_t remaining = std::max<int32_t>(max_bytes_, 0);
    bool first_with_data = true;
    // Kafka's leader-side throttle: out-of-sync replicas of throttled
    // partitions get nothing while the rate is over the bound.
    const int64_t now = quota_ ? now_ms_() : 0;
    const bool over_quota = quota_ && quota_->exceeded(now);
    for (size_t i = 0; i < slots.size(); ++i) {
      const bool hold_back = over_quota && !slots[i].follower_in_sync && slots[i].hosted &&
                             quota_->throttled(slots[i].hosted->tp());
      size_t got = read_one(slots[i], hold_back ? 0 : remaining, first_with_data && !hold_back, out[i]);
      auto& r = out[i];
      r.session.key = slots[i].request.key;
      r.session.error = static_cast<error_code>(r.data.error_code);
      r.session.high_watermark = storage::offset(r.data.high_watermark);
      r.session.log_start_offset = storage::offset(r.data.log_start_offset);
      r.session.records_bytes = static_cast<int64_t>(got);
      if (got > 0 && quota_ && slots[i].hosted && quota_->throttled(slots[i].hosted->tp())) quota_->record(got, now);
      if (got > 0) {
        total += got;
        remaining -= static_cast<int64_t>(got);
        first_with_data = false;
      }
    }
    return total;
  }

 private:
  size_t read_one(const partition_slot& slot, int64_t remaining, bool first_with_data, slot_result& r) {
    auto& out = r.data;
    out.partition_index = slot.request.key.partition;
    out.high_watermark = -1;
    out.last_stable_offset = -1;
    out.log_start_offset = -1;
    out.aborted_transactions.reset();  // null unless read_committed fills it, as Kafka answers
    // Empty, never null, on every path including errors: Kafka answers an
    // errored partition with empty records, and librdkafka takes null
    // (MessageSetSize -1) for a broken response and retries for ever.
    out.records = protocol::records_view(protocol::bytes_view());
    if (slot.error != error_code::none) {
      out.error_code = static_cast<int16_t>(slot.error);
      // Kafka answers the partitions it never looked up (unknown topic,
      // partition or id) with an empty list here, the others with null.
      if (slot.error != error_code::not_leader_or_follower) out.aborted_transactions.emplace();
      return 0;
    }
    partition& p = *slot.hosted;
    if (p.removed()) {  // removed between the handler's check and this read
      out.error_code = static_cast<int16_t>(error_code::unknown_topic_or_partition);
      return 0;
    }
    const int32_t current_epoch = slot.request.current_leader_epoch ? slot.request.current_leader_epoch->value : -1;
    error_code e = slot.checked_error;
    if (e == error_code::none) e = p.status().check_leader_epoch(current_epoch, leader_only_);
    // Removed while this read ran (a deletion clears its leader): answered
    // as one removed before the read, not as a leadership change.
    if (e != error_code::none && p.removed()) e = error_code::unknown_topic_or_partition;
    if (e != error_code::none) {
      out.error_code = static_cast<int16_t>(e);
      // KIP-951: the leader a client should go to, when it is not this one
      // or the client's epoch is behind; a client ahead learns nothing.
      if (e != error_code::unknown_leader_epoch) {
        out.current_leader.leader_id = p.leader();
        out.current_leader.leader_epoch = p.leader_epoch();
      }
      return 0;
    }
    const storage::offset hw = p.high_watermark();
    const storage::offset lso = p.last_stable_offset();
    const storage::offset bound = from_follower_ ? p.log_end_offset() : read_committed_ ? lso : hw;
    if (slot.preferred_read_replica) {
      // Sent to another replica: offsets, no records (Kafka skips the read).
      out.high_watermark = hw.value;
      out.last_stable_offset = lso.value;
      out.log_start_offset = p.log_start_offset().value;
      out.preferred_read_replica = *slot.preferred_read_replica;
      r.session.preferred_read_replica = true;
      return 0;
    }
    const storage::offset fetch_offset = slot.request.fetch_offset;
    // KIP-595, before the offset range (Kafka's Partition.readRecords): a
    // follower whose log is longer than this one but parts from it earlier
    // must truncate where the histories part, not reset to this log's end
    // and keep a foreign tail below it. No records; the fetcher truncates.
    if (slot.diverging) {
      out.high_watermark = hw.value;
      out.last_stable_offset = lso.value;
      out.log_start_offset = p.log_start_offset().value;
      out.diverging_epoch.epoch = slot.diverging->epoch.value;
      out.diverging_epoch.end_offset = slot.diverging->end_offset.value;
      return 0;
    }
    if (fetch_offset < p.log_start_offset() || fetch_offset > p.log_end_offset()) {
      out.error_code = static_cast<int16_t>(error_code::offset_out_of_range);  // offsets stay -1, as Kafka's
      return 0;
    }
    out.high_watermark = hw.value;
    out.last_stable_offset = lso.value;
    out.log_start_offset = p.log_start_offset().value;
    if (fetch_offset >= bound || (remaining <= 0 && !first_with_data)) return 0;
    const int32_t limit =
        static_cast<int32_t>(std::min<int64_t>(slot.request.max_bytes, std::max<int64_t>(remaining, 0)));
    storage::log_read_result read;
    if (auto ec = p.log().log().read(fetch_offset, limit, bound, first_with_data, &read)) {
      out.error_code = static_cast<int16_t>(ec == storage::log_errc::offset_out_of_range
                                                ? error_code::offset_out_of_range
                                                : error_code::kafka_storage_error);
      out.high_watermark = out.last_stable_offset = out.log_start_offset = -1;
      return 0;
    }
    if (read.length == 0 || !read.log_file) return 0;
    // The records stay in the segment file: the connection sends them with
    // sendfile. The range holds bytes already written (below the log end
    // when read), and the shared file keeps a deleted segment readable.
    const size_t got = static_cast<size_t>(read.length);
    ranges_.push_back({0, std::move(read.log_file), read.position, read.length});
    out.records = protocol::records_view::deferred(static_cast<uint32_t>(ranges_.size()), got);
    if (read_committed_) {
      // Up to the bound rather than the end of what was read: a superset,
      // which the client filters by the batches it sees.
      std::vector<storage::aborted_txn> aborted;
      p.log().log().collect_aborted_transactions(fetch_offset, bound, &aborted);
      out.aborted_transactions.emplace();
      for (const auto& a : aborted) out.aborted_transactions->push_back({a.id.value, a.first_offset.value, {}});
    }
    return got;
  }

  int32_t max_bytes_;
  bool read_committed_;
  bool from_follower_;
  bool leader_only_;
  replication_quota* quota_;
  std::function<int64_t()> now_ms_;
  std::vector<file_range> ranges_;
};

fetch::fetch_request_view session_view(const fetch_request& request, int16_t version) {
  fetch::fetch_request_view v;
  v.version = version;
  if (version >= 7) {
    v.session_id = request.session_id;
    v.session_epoch = request.session_epoch;
  }
  v.from_follower = request.replica_id >= 0 || request.replica_state.replica_id >= 0;
  for (const auto& topic : request.topics) {
    for (const auto& p : topic.partitions) {
      fetch::partition_request r;
      r.key.topic_id = version >= 13 ? topic.topic_id : protocol::uuid();
      r.key.topic = version >= 13 ? std::string() : topic.topic;
      r.key.partition = p.partition;
      r.fetch_offset = storage::offset(p.fetch_offset);
      r.log_start_offset = storage::offset(p.log_start_offset);
      r.max_bytes = p.partition_max_bytes;
      if (p.current_leader_epoch >= 0) r.current_leader_epoch = storage::leader_epoch(p.current_leader_epoch);
      if (p.last_fetched_epoch >= 0) r.last_fetched_epoch = storage::leader_epoch(p.last_fetched_epoch);
      v.partitions.push_back(std::move(r));
    }
  }
  for (const auto& f : request.forgotten_topics_data) {
    for (int32_t p : f.partitions) {
      fetch::partition_key k;
      k.topic_id = version >= 13 ? f.topic_id : protocol::uuid();
      k.topic = version >= 13 ? std::string() : f.topic;
      k.partition = p;
      v.forgotten.push_back(std::move(k));
    }
  }
  return v;
}

partition_slot resolve(const broker_services& s, const controller::metadata_image& image,
                       const fetch::partition_request& r, int16_t version) {
  partition_slot slot;
  slot.request = r;
  const controller::topic_image* t =
      r.key.uses_id() ? image.topic(controller::topic_id(r.key.topic_id)) : image.topic(r.key.topic);
  if (!t) {
    slot.error = version >= 13 ? error_code::unknown_topic_id : error_code::unknown_topic_or_partition;
  } else if (!t->partitions.count(r.key.partition)) {
    slot.error = error_code::unknown_topic_or_partition;
  } else {
    slot.hosted = s.replicas->get({t->name, r.key.partition});
    if (!slot.hosted) {
      // A deletion applied since `image` was taken drops the partition
      // here before its topic is gone from that image: answer as the
      // metadata now says (UNKNOWN_TOPIC_OR_PARTITION once deleted).
      auto current = s.metadata->image();
      if (current && current.get() != &image) return resolve(s, *current, r, version);
      slot.error = error_code::not_leader_or_follower;
    }
  }
  return slot;
}

// KIP-392 at a leader, on the partition's strand: the replica a consumer
// in client_rack should read from when it is not this one (Kafka's
// findPreferredReadReplica: ISR members holding the fetch offset, then
// the RackAwareReplicaSelector).
void pick_read_replica(partition_slot& slot, const std::string& client_rack,
                       const controller::metadata_image& image, int64_t now_ms) {
  partition& p = *slot.hosted;
  const leader_state* l = p.leadership();
  if (p.removed() || !l) return;
  auto rack_of = [&](node_id id) -> std::optional<std::string> {
    const controller::broker_registration* b = image.broker(id);
    return b ? b->rack : std::nullopt;
  };
  const storage::offset at = slot.request.fetch_offset;
  const replica_view leader{p.leader(), rack_of(node_id(p.leader())), p.log_end_offset().value, 0};
  std::vector<replica_view> followers;
  for (const follower_progress& f : l->followers()) {
    const bool in_sync = std::find(l->isr().begin(), l->isr().end(), f.id) != l->isr().end();
    if (!in_sync || f.log_end < at || f.log_start > at || !image.broker(f.id)) continue;
    followers.push_back({f.id.value, rack_of(f.id), f.log_end.value, now_ms - f.last_caught_up_time_ms});
  }
  const int32_t chosen = select_rack_aware(client_rack, leader, followers);
  if (chosen != leader.id) slot.preferred_read_replica = chosen;
}

// Calls f(slot) for every slot on its partition's strand, all of them at
// once (a replica's fetch visits every partition of its session).
template <typename F>
asio::awaitable<void> on_partition_strands(const std::vector<partition_slot*>& slots, F f) {
  co_await run_on_each(
      slots.size(), [&](size_t i) -> partition::strand_type& { return slots[i]->hosted->strand(); },
      [&](size_t i) { f(*slots[i]); });
}

// On the partition's strand, as Kafka's Partition.fetchRecords: the leader
// epoch, that a follower is a replica, the last fetched epoch against the
// epoch cache (DivergingEpoch or OFFSET_OUT_OF_RANGE), then the follower's
// progress (which may move the HW and propose it for the ISR, left in
// slot.expand for the caller to submit).
void check_on_strand(partition_slot& slot, node_id follower, broker_epoch follower_epoch, int64_t now_ms,
                     bool leader_only) {
  partition& p = *slot.hosted;
  const fetch::partition_request& r = slot.request;
  const int32_t current_epoch = r.current_leader_epoch ? r.current_leader_epoch->value : -1;
  if (p.removed()) {
    slot.checked_error = error_code::unknown_topic_or_partition;
    return;
  }
  slot.checked_error = p.status().check_leader_epoch(current_epoch, leader_only);
  if (slot.checked_error != error_code::none) return;
  if (follower != no_node && !p.is_replica(follower)) {
    // Known at this epoch (a reassignment's new replica) or not at all.
    slot.checked_error = current_epoch >= 0 ? error_code::unknown_leader_epoch : error_code::not_leader_or_follower;
    return;
  }
  if (r.last_fetched_epoch) {
    slot.checked_error = p.check_divergence(*r.last_fetched_epoch, r.fetch_offset, &slot.diverging);
    if (slot.checked_error != error_code::none || slot.diverging) return;
  }
  if (follower == no_node) return;
  if (r.fetch_offset > p.log_end_offset() || r.fetch_offset < p.log_start_offset()) return;  // read_one answers
  auto outcome = p.on_follower_fetch(follower, r.fetch_offset, r.log_start_offset, follower_epoch, now_ms);
  slot.checked_error = outcome.error;
  slot.follower_in_sync = outcome.in_sync;
  slot.expand = std::move(outcome.expand);
}

// What a full answer to these results would take on the wire, as the
// fetch quota counts it: the partitions as encoded, a topic entry for each,
// and the headers around them.
size_t response_bytes(const std::vector<slot_result>& results, int16_t version) {
  size_t bytes = 4 + 8 + 4 + 2 + 4 + 4;  // size, header, throttle, error, session, topics
  for (const auto& r : results) bytes += r.data.encoded_size(version) + 4;  // + its topic's share
  return bytes;
}

// The response in plan order, one topic entry per run of partitions of the
// same topic (as Kafka groups them).
void build_response(const fetch::fetch_response_plan& plan, std::vector<slot_result>& results, int16_t version,
                    const controller::metadata_image& image, fetch_response& response) {
  response.error_code = static_cast<int16_t>(plan.error);
  response.session_id = plan.session_id;
  for (size_t i : plan.include) {
    auto& r = results[i];
    const auto& key = r.session.key;
    bool same_topic = !response.responses.empty() &&
                      (version >= 13 ? response.responses.back().topic_id == key.topic_id
                                     : response.responses.back().topic == key.topic);
    if (!same_topic) {
      auto& tr = response.responses.emplace_back();
      tr.topic_id = key.topic_id;
      tr.topic = key.topic;
      if (version < 13 && tr.topic.empty())
        if (const auto* t = image.topic(controller::topic_id(key.topic_id))) tr.topic = t->name;
    }
    response.responses.back().partitions.push_back(std::move(r.data));
  }
}

// KIP-951 (v16+): a partition turned away as not led here (or at a fenced
// epoch) names its leader as the metadata has it, hosted here or not yet
// (Kafka fills it from its metadata cache), and the answer carries those
// leaders' endpoints on the request's listener.
// Replica fetchers take this path on every answer: the image is taken only
// for a partition that needs it.
void name_current_leaders(const metadata_publisher& metadata, std::string_view listener, fetch_response& response) {
  std::shared_ptr<const controller::metadata_image> image;
  std::set<int32_t> leaders;
  for (auto& topic : response.responses) {
    const controller::topic_image* t = nullptr;
    for (auto& p : topic.partitions) {
      if (p.error_code != static_cast<int16_t>(error_code::not_leader_or_follower) &&
          p.error_code != static_cast<int16_t>(error_code::fenced_leader_epoch))
        continue;
      if (!image) image = metadata.image();
      if (!t) t = image->topic(controller::topic_id(topic.topic_id));
      if (const controller::partition_registration* reg = t ? image->partition(t->id, p.partition_index) : nullptr) {
        p.current_leader.leader_id = reg->leader.value;
        p.current_leader.leader_epoch = reg->leader_epoch.value;
      }
      if (p.current_leader.leader_id >= 0) leaders.insert(p.current_leader.leader_id);
    }
  }
  if (image) response.node_endpoints = leader_endpoints<fetch_response::node_endpoint>(*image, listener, leaders);
}

// Who a Fetch comes from: a replica (v15+ names it in ReplicaState, with
// its broker epoch) or a consumer.
struct fetcher_identity {
  bool from_follower = false;
  node_id follower = no_node;
  broker_epoch epoch{-1};
  // Consumers' fetches from v11 on (they carry client metadata) may be
  // served by followers, up to their HW (KIP-392).
  bool leader_only = true;
};

fetcher_identity identity_of(const fetch_request& request, int16_t version) {
  const int32_t replica_id = version >= 15 ? request.replica_state.replica_id : request.replica_id;
  fetcher_identity who;
  who.from_follower = replica_id >= 0;
  who.follower = who.from_follower ? node_id(replica_id) : no_node;
  who.epoch = broker_epoch(version >= 15 ? request.replica_state.replica_epoch : -1);
  who.leader_only = who.from_follower || version < 11;
  return who;
}

// Kafka's checks before any partition is read: a replica's fetch needs
// CLUSTER_ACTION (else every partition is refused), a consumer's READ on
// each topic it names (after an unknown topic id, before an unknown topic).
void refuse_unauthorized(const request_context& ctx, const fetcher_identity& who,
                         const controller::metadata_image& image, std::vector<partition_slot>& slots) {
  if (!authorizer_configured(ctx)) return;
  auto refuse = [](partition_slot& slot) {
    slot.hosted.reset();
    slot.error = error_code::topic_authorization_failed;
  };
  if (who.from_follower) {
    if (!authorize(ctx, api_acl(1, "follower")))
      for (auto& slot : slots) refuse(slot);
    return;
  }
  authorized_names may_read(ctx, api_acl(1, "topic"));
  for (auto& slot : slots) {
    if (slot.error == error_code::unknown_topic_id) continue;
    const fetch::partition_key& key = slot.request.key;
    const controller::topic_image* t = key.uses_id() ? image.topic(controller::topic_id(key.topic_id)) : nullptr;
    if (!may_read(t ? std::string_view(t->name) : std::string_view(key.topic))) refuse(slot);
  }
}

// What each partition's strand decides before anything is read: a
// follower's position and epoch, a consumer's divergence, this broker's
// doubt after a stall, and a preferred read replica in the consumer's rack.
asio::awaitable<void> check_partitions(const request_context& ctx, const fetch_request& request,
                                       const fetcher_identity& who, const controller::metadata_image& image,
                                       int64_t fetch_time_ms, std::vector<partition_slot>& slots) {
  const broker_services& s = *ctx.services;
  std::vector<partition_slot*> to_check;
  for (auto& slot : slots)
    if (slot.hosted && (who.from_follower || slot.request.last_fetched_epoch)) to_check.push_back(&slot);
  co_await on_partition_strands(to_check, [&](partition_slot& slot) {
    check_on_strand(slot, who.follower, who.epoch, fetch_time_ms, who.leader_only);
  });
  if (s.isr_changes)
    for (partition_slot* slot : to_check)
      if (slot->expand) s.isr_changes->submit(slot->hosted, std::move(*slot->expand));
  // After a stall every leadership here may have moved: consumers go and
  // refresh their metadata (stall_guard.h).
  if (!who.from_follower && leaderships_in_doubt(s.stalls)) {
    for (auto& slot : slots)
      if (slot.hosted && slot.hosted->is_leader() && slot.checked_error == error_code::none)
        slot.checked_error = error_code::not_leader_or_follower;
  }
  if (!who.from_follower && ctx.api_version >= 11 && !request.rack_id.empty() && s.rack_aware_replica_selector) {
    std::vector<partition_slot*> led;
    for (auto& slot : slots)
      if (slot.hosted && slot.hosted->is_leader() && slot.checked_error == error_code::none && !slot.diverging)
        led.push_back(&slot);
    co_await on_partition_strands(
        led, [&](partition_slot& slot) { pick_read_replica(slot, request.rack_id, image, fetch_time_ms); });
  }
}

// Reads every partition, and again on each wake-up, until there is
// min_bytes, an error to answer, or the wait is over.
asio::awaitable<void> read_until_ready(const request_context& ctx, const fetch_request& request,
                                       std::vector<partition_slot>& slots, fetch_reader& reader,
                                       std::vector<slot_result>& results) {
  const broker_services& s = *ctx.services;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::clamp(request.max_wait_ms, 0, max_fetch_wait_ms));
  auto waiter = partition_waiter::make(co_await asio::this_coro::executor);
  for (;;) {
    // A partition deleted while the fetch waited (or since it was resolved)
    // is answered as the metadata now says (UNKNOWN_TOPIC_OR_PARTITION, or
    // NOT_LEADER_OR_FOLLOWER when only this replica went away).
    for (auto& slot : slots)
      if (slot.hosted && slot.hosted->removed()) slot = resolve(s, *s.metadata->image(), slot.request, ctx.api_version);
    // Register for wake-ups before reading, so an append between the read
    // and the wait is not missed.
    waiter->arm();
    const bool may_wait = std::chrono::steady_clock::now() < deadline;
    if (may_wait) {
      auto wake = waiter->waker();
      for (auto& slot : slots)
        if (slot.hosted) slot.hosted->status().add_waiter(wake);
    }
    const size_t bytes = reader.read_all(slots, results);
    // Errors, divergences and redirections to another replica are answered at once.
    const bool any_error = std::any_of(results.begin(), results.end(), [](const slot_result& r) {
      return r.data.error_code != 0 || r.data.diverging_epoch.epoch >= 0 || r.data.preferred_read_replica >= 0;
    });
    if (!may_wait || any_error || static_cast<int64_t>(bytes) >= request.min_bytes || slots.empty()) co_return;
    quota::parked parked(&ctx);
    co_await waiter->wait(deadline);
  }
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<fetch_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();
  const int16_t version = ctx.api_version;

  auto lookup = [&](const protocol::uuid& id) -> std::optional<std::string> {
    if (const auto* t = image->topic(controller::topic_id(id))) return t->name;
    return std::nullopt;
  };
  fetch::fetch_context fctx = s.fetch_sessions->new_context(session_view(*request, version), lookup, s.now_ms());
  fetch_response response;
  if (fctx.what == fetch::fetch_context::kind::session_error) {
    response.error_code = static_cast<int16_t>(fctx.error);
    co_return respond(ctx, response);
  }

  const fetcher_identity who = identity_of(*request, version);
  ctx.from_follower = who.from_follower;
  std::vector<partition_slot> slots;
  slots.reserve(fctx.partitions.size());
  for (const auto& r : fctx.partitions) slots.push_back(resolve(s, *image, r, version));
  refuse_unauthorized(ctx, who, *image, slots);
  co_await check_partitions(ctx, *request, who, *image, s.now_ms(), slots);

  // No fetch reads more than the broker's fetch.max.bytes, and a consumer
  // no more than its quota allows over one measured span, so that one
  // answer cannot throttle it for long (Kafka's limits, in that order).
  if (s.config) request->max_bytes = std::min<int32_t>(request->max_bytes, s.config->get_int("fetch.max.bytes"));
  if (!who.from_follower) request->max_bytes = quota::fetch_max_bytes(ctx, request->max_bytes);
  request->min_bytes = std::min(request->min_bytes, request->max_bytes);
  fetch_reader reader(request->max_bytes, request->isolation_level == 1, who.from_follower, who.leader_only,
                      who.from_follower ? s.leader_quota : nullptr, s.now_ms);
  std::vector<slot_result> results;
  co_await read_until_ready(ctx, *request, slots, reader, results);

  std::vector<fetch::partition_result> session_results;
  session_results.reserve(results.size());
  for (const auto& r : results) session_results.push_back(r.session);
  // A consumer's answer counts against its byte-rate quota; once a quota
  // throttles, the answer holds no data and leaves the session as it was
  // (Kafka's getThrottledResponse), so what it held is sent next time.
  const int32_t throttle =
      who.from_follower ? 0 : quota::fetch_throttle(ctx, [&] { return response_bytes(results, version); });
  auto plan = throttle > 0 ? s.fetch_sessions->throttled_response(fctx)
                           : s.fetch_sessions->update_and_generate_response(fctx, session_results, s.now_ms());
  build_response(plan, results, version, *image, response);
  response.throttle_time_ms = throttle;
  if (version >= 16) name_current_leaders(*s.metadata, ctx.listener_name, response);
  co_return handler_result::respond(
      encode_response(ctx.correlation_id, ctx.response_header_version, response, version, reader.take_ranges()));
}

}  // namespace

api_handler fetch_handler() { return {1, 4, 18, &handle}; }

}  // namespace hw::broker
