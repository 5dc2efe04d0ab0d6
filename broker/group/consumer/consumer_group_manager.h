#pragma once
// The consumer groups of one `__consumer_offsets` shard and the
// ConsumerGroupHeartbeat that drives them (Kafka's GroupMetadataManager for
// the consumer protocol): a member joins, heartbeats, is reconciled towards
// its target and leaves or is fenced when its session ends. Each call
// returns the records that persist what it decided, already replayed into
// the group (the caller appends them and answers once they are durable),
// and the answer. Pure: the caller supplies the clock, the topic image and
// new member ids; on the shard's strand.
//
// Built so far: dynamic members subscribing by names or a regular
// expression (resolved at once against the image), joins, heartbeats,
// leaves and session expiry. Not yet: static members' leave (-2) and
// return, the rebalance timeout of a member that does not revoke, the
// assignment interval, rollback of writes whose append failed, classic
// groups of the same id and the migration between them.

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/group/consumer/consumer_group.h"
#include "broker/group/consumer/heartbeat_request.h"
#include "broker/group/consumer/member_reconciliation.h"
#include "broker/group/consumer/target_assignment.h"
#include "protocol/error_code.h"
#include "protocol/messages/consumer_group_heartbeat.h"

namespace hw::broker::group::consumer {

// Kafka 4.3's group.consumer.* keys and defaults.
struct consumer_group_options {
  int32_t session_timeout_ms = 45000;
  int32_t heartbeat_interval_ms = 5000;
  int32_t max_size = std::numeric_limits<int32_t>::max();
  std::vector<std::string> assignors{"uniform", "range"};  // the first is the default
};

// One call's records and the group they change (consumer_group_manager.cc).
struct draft;

struct heartbeat_outcome {
  std::vector<consumer_group_record> records;  // already replayed into the group
  protocol::msg::consumer_group_heartbeat_response response;
};

class consumer_group_manager {
 public:
  explicit consumer_group_manager(consumer_group_options options);

  heartbeat_outcome heartbeat(const protocol::msg::consumer_group_heartbeat_request& request, int16_t version,
                              const std::string& client_id, const std::string& client_host,
                              const topic_image_view& topics, int64_t now_ms,
                              const std::function<std::string()>& new_member_id);

  // Fences every member whose session ended by now: the records that remove
  // them (and give their partitions to the others).
  std::vector<consumer_group_record> expire_sessions(int64_t now_ms, const topic_image_view& topics);
  // When the next session ends, if any member has one.
  std::optional<int64_t> next_deadline_ms() const;

  // A record read from the log at load.
  std::optional<std::string> replay(const consumer_group_record& record);

  const consumer_group* group(const std::string& group_id) const;
  void clear() {
    groups_.clear();
    sessions_.clear();
  }

 private:
  struct session_key {
    std::string group_id;
    std::string member_id;
    auto operator<=>(const session_key&) const = default;
  };

  heartbeat_outcome refuse(protocol::error_code code, std::string message) const;
  // A leave (-1, or -2 for now): nullopt when the group's records refuse it.
  std::optional<heartbeat_outcome> leave(const protocol::msg::consumer_group_heartbeat_request& request,
                                         const topic_image_view& topics);
  // The records removing `member_id` from the group (a leave or a fence),
  // the group changed by them; nullopt (the group unchanged) when its
  // records refuse them.
  std::optional<std::vector<consumer_group_record>> remove_member(consumer_group& group, const std::string& member_id,
                                                                  const topic_image_view& topics);
  // A member's new or changed subscription into the draft: its record, its
  // regular expression resolved (or refused) and the one it left forgotten,
  // and the group epoch bumped when the topics it subscribes to changed.
  std::optional<heartbeat_refusal> subscribe(draft& d, const consumer_member& member,
                                             const consumer_member& updated, const topic_image_view& topics,
                                             int64_t now_ms) const;
  // What reconciling `member` needs from the group as the heartbeat leaves it.
  static reconciliation_input reconciliation_of(const consumer_group& group, const consumer_member& member,
                                                const std::optional<topic_partitions>& owned,
                                                bool subscription_changed, const topic_image_view& topics);
  int64_t metadata_hash_of(const std::map<std::string, subscription_count>& subscribed,
                           const topic_image_view& topics) const;
  // nullptr when the name is not among group.consumer.assignors.
  const assignor* assignor_for(const consumer_group& group, const std::optional<std::string>& asked) const;

  consumer_group_options options_;
  std::map<std::string, std::unique_ptr<const assignor>> assignors_;  // group.consumer.assignors, made once
  std::map<std::string, consumer_group> groups_;
  std::map<session_key, int64_t> sessions_;  // when each member's session ends
};

}  // namespace hw::broker::group::consumer
