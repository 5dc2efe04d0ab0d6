#pragma once
// The streams groups (KIP-1071) of one group shard: the streams group
// manager (streams/streams_group_manager.h) with what the shard gives it —
// the topic image, the shard's appends, its clock. A heartbeat's records
// are replayed into its group as they are made and its answer goes once
// they are durable, with the internal topics the broker should create; when
// their append fails the group is put back as it was before them (the
// writes still in flight after it replayed on top again) and the member is
// answered with the append's error. Session expiry runs from the shard's
// tick. Owned by the group_shard; on its strand.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/group/consumer/topic_partitions.h"
#include "broker/group/shard_context.h"
#include "broker/group/streams/streams_group_manager.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/streams_group_describe.h"

namespace hw::broker::group {

struct client_info;

class streams_groups {
 public:
  streams_groups(shard_context& ctx, streams::streams_group_options options);
  // Appends keep a pointer back here.
  streams_groups(const streams_groups&) = delete;
  streams_groups& operator=(const streams_groups&) = delete;

  const streams::streams_group_options& options() const { return options_; }

  // The topics (and group configs) as the broker's metadata image has them.
  void set_topics(std::shared_ptr<const consumer::topic_image_view> topics);

  // StreamsGroupHeartbeat; the answer (a streams_heartbeat_answer) comes
  // out of the shard's output. `first`: records of the shard's own written
  // ahead of the heartbeat's when it is accepted (the tombstone of an empty
  // group of another kind the new streams group replaces); true when the
  // heartbeat was accepted with records being written.
  bool heartbeat(request_token token, const client_info& client,
                 const protocol::msg::streams_group_heartbeat_request& request, int64_t now_ms,
                 std::vector<coordinator_record> first = {});

  // DeleteGroups of an empty group: its tombstones, the group gone from now
  // (back if their append fails).
  std::vector<coordinator_record> delete_group(const std::string& group_id);
  // An empty streams group gives way to a group of another kind: its
  // tombstones are written. False when there is none, or it has members.
  bool remove_empty(const std::string& group_id);

  std::vector<protocol::msg::streams_group_describe_response::described_group> describe(
      const std::vector<std::string>& group_ids) const;
  void list(const std::vector<std::string>& states, std::vector<protocol::msg::list_groups_response::listed_group>& out)
      const;

  // --- load, timers, durability ---------------------------------------------
  std::optional<std::string> replay(const streams::streams_group_record& record) { return manager_.replay(record); }
  void activate(int64_t now_ms) { manager_.activate(now_ms); }
  void tick(int64_t now_ms);
  std::optional<int64_t> next_deadline_ms() const { return manager_.next_deadline_ms(); }
  void clear();

  const streams::streams_group* find(const std::string& group_id) const { return manager_.group(group_id); }
  const std::map<std::string, streams::streams_group>& groups() const { return manager_.groups(); }
  size_t size() const { return manager_.groups().size(); }
  uint64_t rebalances() const { return manager_.rebalances(); }

 private:
  struct pending_write {
    std::string group_id;
    std::optional<streams::streams_group> before;  // nullopt: there was none
    std::vector<streams::streams_group_record> records;
  };

  void write(std::vector<coordinator_record> first, const std::string& group_id,
             std::optional<streams::streams_group> before, std::vector<streams::streams_group_record> records,
             std::function<void(protocol::error_code)> answer);
  void roll_back(append_token token, int64_t now_ms);

  shard_context& ctx_;
  streams::streams_group_options options_;
  streams::streams_group_manager manager_;
  std::shared_ptr<const consumer::topic_image_view> topics_;
  std::map<append_token, pending_write> pending_;
};

}  // namespace hw::broker::group
