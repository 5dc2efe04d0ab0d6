#pragma once
// The classic group coordinator of one __consumer_offsets partition, as a
// pure state machine: requests, tick(now_ms), load/unload and append
// acknowledgements go in; completions and appends come out of
// take_output(). No I/O, no clock, no randomness of its own (member ids
// come from the injected random source). Owned by the partition's strand;
// every call comes from it.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/classic_group.h"
#include "broker/group/group_config.h"
#include "broker/group/offset_store.h"
#include "broker/group/pending_txn_offsets.h"
#include "broker/group/shard_output.h"
#include "protocol/error_code.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/sync_group.h"

namespace hw::broker::group {

// Who sent a request (client.id from the header, the peer address as Kafka
// prints it, e.g. "/127.0.0.1").
struct client_info {
  std::string client_id;
  std::string client_host;
};

// One record read back from the partition at load.
struct loaded_record {
  std::span<const uint8_t> key;
  std::optional<std::span<const uint8_t>> value;
  // The batch's producer id when the batch is transactional, else -1.
  int64_t producer_id = -1;
};

// Kafka maps a failed append of coordinator records to these errors.
protocol::error_code append_error_to_response_error(protocol::error_code append_error);

class group_shard {
 public:
  // Returns uniformly random 64-bit values (seeded in tests).
  using random_source = std::function<uint64_t()>;

  group_shard(group_config config, random_source random);
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
  bool active() const { return mode_ == mode::active; }

  // --- requests (answers come out of take_output) -------------------------
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
                     bool require_stable, int64_t now_ms);
  void delete_groups(request_token token, const std::vector<std::string>& group_ids, int64_t now_ms);
  void delete_offsets(request_token token, const protocol::msg::offset_delete_request& request,
                      int64_t now_ms);
  // Read-only, answered at once.
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
  const offset_store& offsets() const { return offsets_; }
  size_t group_count() const { return groups_.size(); }

 private:
  enum class mode { inactive, loading, active };
  using append_callback = std::function<void(protocol::error_code, int64_t now_ms)>;

  // group_shard.cc: plumbing
  protocol::error_code unavailable_error() const;
  classic_group* group(std::string_view group_id);
  classic_group& get_or_create(std::string_view group_id, int64_t now_ms);
  // With a producer id (>= 0), the records are its transactional batch.
  void append(std::vector<coordinator_record> records, append_callback done, int64_t producer_id = -1,
              int16_t producer_epoch = -1, std::optional<uint64_t> verification = std::nullopt);
  void reply(request_token token, shard_response response);
  std::string new_member_id(std::string_view client_id, const std::optional<std::string>& instance_id);
  void replay_group(const group_record& record);
  void replay_offset(const offset_record& record, int64_t producer_id);

  // group_shard_join.cc
  void join_new_member(classic_group& g, request_token token, int16_t version, const client_info& client,
                       const protocol::msg::join_group_request& request, int64_t now_ms);
  void join_existing_member(classic_group& g, request_token token, int16_t version, const client_info& client,
                            const protocol::msg::join_group_request& request, int64_t now_ms);
  void add_member_and_rebalance(classic_group& g, std::string member_id, request_token token, int16_t version,
                                const client_info& client, const protocol::msg::join_group_request& request,
                                int64_t now_ms);
  void update_member_and_rebalance(classic_group& g, group_member& m, request_token token, int16_t version,
                                   const protocol::msg::join_group_request& request, int64_t now_ms);
  void update_static_member(classic_group& g, const std::string& old_id, std::string new_id,
                            request_token token, int16_t version, const protocol::msg::join_group_request& request,
                            int64_t now_ms);
  bool accept_joining_member(classic_group& g, std::string_view member_id) const;
  protocol::error_code leave_one(classic_group& g, const std::string& member_id,
                                 const std::optional<std::string>& instance_id);

  // group_shard_rebalance.cc
  void maybe_prepare_rebalance_or_complete_join(classic_group& g, int64_t now_ms);
  void prepare_rebalance(classic_group& g, int64_t now_ms);
  void maybe_complete_join_phase(classic_group& g, int64_t now_ms);
  void complete_join(classic_group& g, int64_t now_ms);
  void remove_member_and_update(classic_group& g, const std::string& member_id, int64_t now_ms);
  void store_leader_assignment(classic_group& g, const protocol::msg::sync_group_request& request);
  void reset_and_propagate_assignment(classic_group& g, protocol::error_code error, int64_t now_ms);
  void propagate_assignment(classic_group& g, protocol::error_code error, int64_t now_ms);
  void expire_member(classic_group& g, const std::string& member_id, int64_t now_ms);
  void expire_pending_sync(classic_group& g, int64_t now_ms);
  void on_join_timer(classic_group& g, int64_t now_ms);
  void remove_pending_sync(classic_group& g, std::string_view member_id);
  void reschedule_heartbeat(group_member& m, int64_t now_ms, int64_t timeout_ms);
  void write_group(classic_group& g, append_callback done);
  protocol::msg::join_group_response join_response(const classic_group& g, const std::string& member_id,
                                                   bool with_members) const;

  // group_shard_offsets.cc
  void expire_offsets(int64_t now_ms);
  void apply_records(const std::vector<coordinator_record>& records);

  group_config config_;
  random_source random_;
  mode mode_ = mode::inactive;
  std::map<std::string, classic_group, std::less<>> groups_;
  offset_store offsets_;
  pending_txn_offsets txn_offsets_;
  shard_output output_;
  append_token next_append_ = 1;
  std::map<append_token, append_callback> in_flight_;
  std::optional<int64_t> next_retention_check_ms_;
  // require_stable fetches wait for every append issued before them.
  struct stable_fetch {
    append_token after = 0;
    std::function<void()> answer;
  };
  std::vector<stable_fetch> stable_fetches_;
};

}  // namespace hw::broker::group
