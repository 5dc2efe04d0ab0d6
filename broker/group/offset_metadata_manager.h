#pragma once
// The offsets of one group shard, after Kafka 4.3's OffsetMetadataManager:
// OffsetCommit, TxnOffsetCommit (pending until the producer's marker),
// OffsetFetch, OffsetDelete, DeleteGroups, and the retention that expires
// old offsets and empty groups. Validates commits against the classic
// groups of the group_metadata_manager and the consumer groups of
// consumer_groups. Owned by the group_shard; runs on its strand.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "broker/group/consumer_groups.h"
#include "broker/group/group_metadata_manager.h"
#include "broker/group/group_records.h"
#include "broker/group/offset_store.h"
#include "broker/group/pending_txn_offsets.h"
#include "broker/group/streams_groups.h"
#include "broker/group/shard_context.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/txn_offset_commit.h"

namespace hw::broker::group {

class offset_metadata_manager {
 public:
  // `committed` and `pending` are the shard's (the group manager reads
  // the committed ones too); this manager is the one that writes them.
  offset_metadata_manager(shard_context& context, group_metadata_manager& groups, consumer_groups& consumers,
                          streams_groups& streams, offset_store& committed, pending_txn_offsets& pending);

  const offset_store& committed() const { return committed_; }
  // Forgets every offset and stops retention until start_retention.
  void clear();

  // --- load -----------------------------------------------------------------
  // An OffsetCommit record (or its tombstone) in log order; with a producer
  // id (>= 0) it belongs to that producer's open transaction.
  void replay(const offset_record& record, int64_t producer_id);
  // A transaction marker in the partition: COMMIT makes the producer's
  // offsets visible, ABORT drops them.
  void on_txn_marker(int64_t producer_id, bool commit);

  // --- requests -------------------------------------------------------------
  void commit_offsets(request_token token, int16_t version, const protocol::msg::offset_commit_request& request,
                      int64_t now_ms);
  void commit_txn_offsets(request_token token, const protocol::msg::txn_offset_commit_request& request,
                          int64_t now_ms, std::optional<uint64_t> verification);
  void fetch_offsets(request_token token,
                     const protocol::msg::offset_fetch_request::offset_fetch_request_group& group,
                     bool require_stable);
  void delete_groups(request_token token, const std::vector<std::string>& group_ids);
  void delete_offsets(request_token token, const protocol::msg::offset_delete_request& request);

  // --- retention ------------------------------------------------------------
  // Checks run every offsets.retention.check.interval.ms from `now_ms` on.
  void start_retention(int64_t now_ms);
  void tick(int64_t now_ms);
  std::optional<int64_t> next_deadline_ms() const { return next_retention_check_ms_; }

 private:
  void expire_offsets(int64_t now_ms);
  // Tombstones for the group's offsets past retention (age counted from
  // `age_from`), except on topics it still subscribes to; whether none of
  // its offsets is left.
  bool expire_group_offsets(const std::string& group_id, const std::function<bool(const std::string&)>& subscribed,
                            const std::function<int64_t(const committed_offset&)>& age_from, int64_t now_ms,
                            std::vector<coordinator_record>& records) const;
  // Tombstones of every offset of the group, committed or pending.
  std::vector<coordinator_record> offset_tombstones_of(const std::string& group_id) const;
  // A consumer or streams group's answer to a commit of these topics
  // (none: taken); nullopt when the group is neither.
  template <typename Topics>
  std::optional<protocol::error_code> member_commit_error(const std::string& group_id, const std::string& member_id,
                                                          const std::optional<std::string>& instance_id,
                                                          int32_t epoch, bool transactional, int16_t version,
                                                          const Topics& topics) const;
  // Applies written offset records and group tombstones once durable.
  void apply_records(const std::vector<coordinator_record>& records);

  shard_context& ctx_;
  group_metadata_manager& groups_;
  consumer_groups& consumers_;
  streams_groups& streams_;
  offset_store& committed_;
  pending_txn_offsets& pending_;
  std::optional<int64_t> next_retention_check_ms_;
};

}  // namespace hw::broker::group
