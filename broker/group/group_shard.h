#pragma once
// The classic group coordinator of one __consumer_offsets partition, as a
// pure state machine: requests, tick(now_ms), load/unload and append
// acknowledgements go in; completions and appends come out of
// take_output(). No I/O, no clock, no randomness of its own (member ids
// come from the injected random source). Owned by the partition's strand;
// every call comes from it. After Kafka 4.3's GroupCoordinatorShard: it
// routes each request to the group_metadata_manager (membership) or the
// offset_metadata_manager (offsets), which share its shard_context.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/classic_group.h"
#include "broker/group/consumer_groups.h"
#include "broker/group/group_config.h"
#include "broker/group/group_metadata_manager.h"
#include "broker/group/offset_metadata_manager.h"
#include "broker/group/offset_store.h"
#include "broker/group/pending_txn_offsets.h"
#include "broker/group/shard_context.h"
#include "broker/group/shard_output.h"
#include "broker/group/streams_groups.h"
#include "protocol/error_code.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/streams_group_describe.h"
#include "protocol/messages/streams_group_heartbeat.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/sync_group.h"

namespace hw::broker::group {

// One record read back from the partition at load.
struct loaded_record {
  std::span<const uint8_t> key;
  std::optional<std::span<const uint8_t>> value;
  // The batch's producer id when the batch is transactional, else -1.
  int64_t producer_id = -1;
};

// What the group coordinator's metrics count in a shard.
struct group_counts {
  int64_t classic = 0;
  int64_t consumer = 0;
  std::array<int64_t, 5> consumer_by_state{};  // Empty, Assigning, Reconciling, Stable, Dead
  uint64_t consumer_rebalances = 0;            // since the shard was made
  int64_t streams = 0;
  std::array<int64_t, 6> streams_by_state{};  // Empty, NotReady, Assigning, Reconciling, Stable, Dead
  uint64_t streams_rebalances = 0;             // since the shard was made
};

class group_shard {
 public:
  // Returns uniformly random 64-bit values (seeded in tests).
  using random_source = group_metadata_manager::random_source;

  group_shard(group_config config, random_source random,
              consumer::consumer_group_options consumer_options = consumer::consumer_group_options{},
              streams::streams_group_options streams_options = streams::streams_group_options{});
  // Pending append callbacks point back at the shard: it stays where it is.
  group_shard(const group_shard&) = delete;
  group_shard& operator=(const group_shard&) = delete;

  // --- leadership ---------------------------------------------------------
  void begin_load();
  // Replays records in log order; false (and nothing applied) for a record
  // that does not decode.
  bool load(const loaded_record& record);
  void end_load(int64_t now_ms);
  // A transaction marker in the partition (replayed at load, or written
  // while active): COMMIT makes the producer's offsets visible, ABORT
  // drops them.
  void on_txn_marker(int64_t producer_id, bool commit);
  // Parked and in-flight requests are answered NOT_COORDINATOR; the shard
  // forgets everything and refuses requests until the next load.
  void unload();
  bool active() const { return ctx_.active(); }

  // The topics as the broker's metadata image has them (consumer groups
  // assign their partitions); `changed`: the topics it created, deleted or
  // changed since the last one, `created`: whether it created any.
  void set_topics(std::shared_ptr<const consumer::topic_image_view> topics, const std::set<std::string>& changed,
                  bool created);

  // --- requests (answers come out of take_output) -------------------------
  // ConsumerGroupHeartbeat (KIP-848). A group id held by a classic group is
  // refused (GROUP_ID_NOT_FOUND) unless the member joins: an empty classic
  // group then gives way to the consumer group, one with members is
  // upgraded to it (under group.consumer.migration.policy; GROUP_ID_NOT_FOUND
  // with Kafka's reason when it cannot be). JoinGroup, SyncGroup, Heartbeat
  // and LeaveGroup to a consumer group are its classic members'.
  // `may_describe`: the topics the member may see (its regular expression
  // matches only those); empty: all.
  void consumer_group_heartbeat(request_token token, int16_t version, const client_info& client,
                                const protocol::msg::consumer_group_heartbeat_request& request, int64_t now_ms,
                                const consumer::topic_filter& may_describe = {});
  // Read-only, answered at once.
  std::vector<protocol::msg::consumer_group_describe_response::described_group> describe_consumer_groups(
      const std::vector<std::string>& group_ids) const;
  // StreamsGroupHeartbeat (KIP-1071). A group id held by a group of another
  // kind is refused (GROUP_ID_NOT_FOUND, "Group <id> is not a streams
  // group."), except an empty classic group, which a joining member
  // replaces. The answer is a streams_heartbeat_answer.
  void streams_group_heartbeat(request_token token, const client_info& client,
                               const protocol::msg::streams_group_heartbeat_request& request, int64_t now_ms);
  // Read-only, answered at once.
  std::vector<protocol::msg::streams_group_describe_response::described_group> describe_streams_groups(
      const std::vector<std::string>& group_ids) const;
  void join_group(request_token token, int16_t version, const client_info& client,
                  const protocol::msg::join_group_request& request, int64_t now_ms);
  void sync_group(request_token token, int16_t version,
                  const protocol::msg::sync_group_request& request, int64_t now_ms);
  void heartbeat(request_token token, int16_t version,
                 const protocol::msg::heartbeat_request& request, int64_t now_ms);
  // v0-2 carry one member_id; pass it as a one-element `members` (the
  // handler converts, and reads the top-level error from that member back).
  void leave_group(request_token token, int16_t version,
                   const protocol::msg::leave_group_request& request, int64_t now_ms);
  // Each topic must carry its name (v10: resolved from the id by the
  // handler) and its id when known (Kafka 4.3 stores it with the offset).
  void commit_offsets(request_token token, int16_t version,
                      const protocol::msg::offset_commit_request& request, int64_t now_ms);
  // TxnOffsetCommit: each topic known to the handler. The offsets are
  // written as the producer's transactional batch and stay pending
  // (invisible to OffsetFetch) until on_txn_marker settles them.
  // verification: the offsets partition's KIP-890 guard for the write
  // (nullopt: not verified).
  void commit_txn_offsets(request_token token, const protocol::msg::txn_offset_commit_request& request,
                          int64_t now_ms, std::optional<uint64_t> verification = std::nullopt);
  // One group of an OffsetFetch (v8+ shape; the handler converts v1-7).
  // Topics null = all committed offsets of the group.
  void fetch_offsets(request_token token, const protocol::msg::offset_fetch_request::offset_fetch_request_group& group,
                     bool require_stable);
  void delete_groups(request_token token, const std::vector<std::string>& group_ids);
  void delete_offsets(request_token token, const protocol::msg::offset_delete_request& request);
  // Read-only, answered at once. A consumer group is described as a
  // group that is not there (Dead), with Kafka's message for v6.
  std::vector<protocol::msg::describe_groups_response::described_group> describe_groups(
      const std::vector<std::string>& group_ids) const;
  // The error is COORDINATOR_LOAD_IN_PROGRESS / NOT_COORDINATOR when the
  // shard cannot answer.
  protocol::error_code list_groups(const std::vector<std::string>& states_filter,
                                   const std::vector<std::string>& types_filter,
                                   std::vector<protocol::msg::list_groups_response::listed_group>& out) const;

  // --- time and durability ------------------------------------------------
  void tick(int64_t now_ms);
  std::optional<int64_t> next_deadline_ms() const;
  // `error` is the storage outcome of the append (none = committed).
  void on_append_done(append_token token, protocol::error_code error, int64_t now_ms);
  shard_output take_output();

  // --- inspection (tests, metrics) ----------------------------------------
  const classic_group* find_group(std::string_view group_id) const;
  const consumer::consumer_group* find_consumer_group(const std::string& group_id) const {
    return consumers_.find(group_id);
  }
  const offset_store& offsets() const { return committed_; }
  size_t group_count() const { return groups_.groups().size() + consumer_group_count() + streams_.size(); }
  size_t consumer_group_count() const;
  const streams::streams_group* find_streams_group(const std::string& group_id) const { return streams_.find(group_id); }
  group_counts counts() const;

 private:
  bool consumer_group_with_members(const std::string& group_id) const;
  // "Group <id> is not a <kind> group." when a group of another kind holds the id.
  std::optional<std::string> held_by_other_kind(const std::string& group_id, std::string_view kind) const;

  // Declared in construction order: the managers hold references to what
  // comes before them.
  shard_context ctx_;
  offset_store committed_;
  pending_txn_offsets pending_;
  group_metadata_manager groups_;
  consumer_groups consumers_;
  streams_groups streams_;
  offset_metadata_manager offsets_;
};

}  // namespace hw::broker::group
