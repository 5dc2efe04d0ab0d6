#pragma once
// The consumer groups (KIP-848) of one group shard: the consumer group
// manager (consumer/consumer_group_manager.h) with what the shard gives it
// — the topic image the glue hands in, the shard's appends, its clock.
// A heartbeat's records are replayed into the group as they are written and
// its answer goes once they are durable; when their append fails, every
// group they touched is put back as it was before them (with the writes
// still in flight after them replayed on top again, as they may yet
// succeed) and the member is answered with the append's error. Session
// expiry runs from the shard's tick. Owned by the group_shard; on its
// strand.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
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
  };

  // Appends the records (already replayed), `answer` called with the
  // append's outcome.
  void write(std::vector<coordinator_record> first, std::vector<consumer::consumer_group_record> records,
             std::map<std::string, std::optional<consumer::consumer_group>> before,
             std::function<void(protocol::error_code)> answer);
  void roll_back(append_token token, int64_t now_ms);

  shard_context& ctx_;
  consumer::consumer_group_options options_;
  consumer::consumer_group_manager manager_;
  std::function<std::string()> new_member_id_;
  std::shared_ptr<const consumer::topic_image_view> topics_;
  std::map<append_token, pending_write> pending_;
};

// An image with no topics, until the broker's first one arrives.
std::shared_ptr<const consumer::topic_image_view> empty_topic_image();

}  // namespace hw::broker::group
