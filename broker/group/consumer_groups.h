#pragma once
// The consumer groups (KIP-848) of one group shard: the consumer group
// manager (consumer/consumer_group_manager.h) with what the shard gives it
// — the topic image the glue hands in, the shard's appends, its clock.
// A heartbeat's records are replayed into the group as they are written and
// its answer goes once they are durable; when their append fails, every
// group they touched is put back as it was before them (with the writes
// still in flight after them replayed on top again, as they may yet
// succeed) and the member is answered with the append's error. Session
// expiry runs from the shard's tick. Classic members of consumer groups
// (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) are answered here too; a
// group handed back to the classic protocol is made by the shard's classic
// side (`set_classic_side`) and its record written after the consumer
// group's tombstones. Owned by the group_shard; on its strand.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "broker/group/consumer/consumer_group_manager.h"
#include "broker/group/group_metadata_manager.h"
#include "broker/group/shard_context.h"
#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/messages/list_groups.h"

namespace hw::broker::group {

class consumer_groups {
 public:
  consumer_groups(shard_context& ctx, consumer::consumer_group_options options,
                  std::function<std::string()> new_member_id);
  // Appends keep a pointer back here.
  consumer_groups(const consumer_groups&) = delete;
  consumer_groups& operator=(const consumer_groups&) = delete;

  const consumer::consumer_group_options& options() const { return options_; }

  // The topics as the broker's metadata image has them now; `changed`
  // names the topics this image created, deleted or changed, `created`
  // says whether it created any.
  void set_topics(std::shared_ptr<const consumer::topic_image_view> topics, const std::set<std::string>& changed,
                  bool created);

  // ConsumerGroupHeartbeat; the answer comes out of the shard's output.
  // `first`: records of the shard's own written ahead of the heartbeat's
  // when it is accepted (the tombstone of an empty classic group of the
  // same id that the new consumer group replaces).
  // True when the heartbeat was accepted and its records (after `first`)
  // are being written.
  bool heartbeat(request_token token, int16_t version, const client_info& client,
                 const protocol::msg::consumer_group_heartbeat_request& request, int64_t now_ms,
                 std::vector<coordinator_record> first = {}, const consumer::topic_filter& may_describe = {});
  // With `upgraded` (the records that make a classic group of this id a
  // consumer group) the heartbeat starts from them.
  bool heartbeat_upgrading(request_token token, int16_t version, const client_info& client,
                           const protocol::msg::consumer_group_heartbeat_request& request, int64_t now_ms,
                           std::vector<coordinator_record> first, const consumer::topic_filter& may_describe,
                           const std::vector<consumer::consumer_group_record>& upgraded);
  // The records of an upgrade, or its refusal.
  std::variant<std::vector<consumer::consumer_group_record>, consumer::heartbeat_refusal> upgrade_records(
      const consumer::classic_group_snapshot& classic) const {
    return manager_.upgrade_records(classic, *topics_);
  }

  // Classic members in a consumer group with members (the shard routes
  // them here): JoinGroup answered once its records are durable, SyncGroup
  // once every earlier write is, Heartbeat at once, LeaveGroup once its
  // records are durable.
  void classic_join(request_token token, int16_t version, const client_info& client,
                    const protocol::msg::join_group_request& request, int64_t now_ms);
  void classic_sync(request_token token, const protocol::msg::sync_group_request& request, int64_t now_ms);
  void classic_heartbeat(request_token token, const protocol::msg::heartbeat_request& request, int64_t now_ms);
  void classic_leave(request_token token, const protocol::msg::leave_group_request& request, int64_t now_ms);

  // How a downgrade makes its classic group (returning the record to write
  // after the tombstones), and how a failed write of one takes it away.
  using make_classic = std::function<coordinator_record(const consumer::downgrade&, int64_t now_ms)>;
  using drop_classic = std::function<void(const std::string& group_id)>;
  void set_classic_side(make_classic make, drop_classic drop) {
    make_classic_ = std::move(make);
    drop_classic_ = std::move(drop);
  }

  // A consumer group without members gives way to a classic group of the
  // same id (Kafka's conversion of an empty group): its tombstones are
  // written, the group is gone (back if their append fails). False when
  // there is no such group, or it has members.
  bool remove_empty(const std::string& group_id);

  std::vector<protocol::msg::consumer_group_describe_response::described_group> describe(
      const std::vector<std::string>& group_ids) const;
  void list(const std::vector<std::string>& states, std::vector<protocol::msg::list_groups_response::listed_group>& out)
      const;

  // --- load, timers, durability ---------------------------------------------
  // A record read back at load (an invariant it breaks is the error).
  std::optional<std::string> replay(const consumer::consumer_group_record& record);
  void activate(int64_t now_ms);
  void tick(int64_t now_ms);
  std::optional<int64_t> next_deadline_ms() const;
  void clear();

  // Records other parts of the shard wrote about a consumer group (the
  // tombstones of DeleteGroups), applied once durable.
  void apply(const consumer::consumer_group_record& record) { (void)manager_.replay(record); }

  const consumer::consumer_group* find(const std::string& group_id) const { return manager_.group(group_id); }
  size_t size() const { return manager_.groups().size(); }
  uint64_t rebalances() const { return manager_.rebalances(); }
  const std::map<std::string, consumer::consumer_group>& groups() const { return manager_.groups(); }
  const consumer::topic_image_view& topics() const { return *topics_; }

 private:
  struct pending_write {
    // Each group the write touched, as it was before it (nullopt: none).
    std::map<std::string, std::optional<consumer::consumer_group>> before;
    std::vector<consumer::consumer_group_record> records;
    // Groups it handed back to the classic protocol.
    std::vector<std::string> downgraded;
  };

  // Appends the records (already replayed), then the records of the
  // classic groups `downgrades` make; `answer` called with the append's
  // outcome.
  void write(std::vector<coordinator_record> first, std::vector<consumer::consumer_group_record> records,
             std::map<std::string, std::optional<consumer::consumer_group>> before,
             std::function<void(protocol::error_code)> answer, std::vector<consumer::downgrade> downgrades = {},
             int64_t now_ms = 0);
  bool answer_heartbeat(request_token token, consumer::heartbeat_outcome out, const std::string& group_id,
                        std::vector<coordinator_record> first, int64_t now_ms);
  void roll_back(append_token token, int64_t now_ms);

  shard_context& ctx_;
  consumer::consumer_group_options options_;
  consumer::consumer_group_manager manager_;
  std::function<std::string()> new_member_id_;
  std::shared_ptr<const consumer::topic_image_view> topics_;
  std::map<append_token, pending_write> pending_;
  make_classic make_classic_;
  drop_classic drop_classic_;
};

// An image with no topics, until the broker's first one arrives.
std::shared_ptr<const consumer::topic_image_view> empty_topic_image();

}  // namespace hw::broker::group
