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
// Members of the classic protocol live in a consumer group too (KIP-848's
// migration, consumer_group_manager_classic.cc): a classic group is
// upgraded when a consumer-protocol member joins it, classic members join,
// sync, heartbeat and leave a consumer group, and a group whose last
// consumer-protocol member leaves is handed back as a classic group
// (`downgrade`), under group.consumer.migration.policy.

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "broker/group/consumer/classic_protocol.h"
#include "broker/group/consumer/consumer_group.h"
#include "broker/group/consumer/heartbeat_request.h"
#include "broker/group/consumer/member_reconciliation.h"
#include "broker/group/consumer/target_assignment.h"
#include "protocol/error_code.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/sync_group.h"

namespace hw::broker::group::consumer {

// group.consumer.migration.policy: which way a group may change protocol
// while it has members.
enum class migration_policy { disabled, upgrade, downgrade, bidirectional };
std::optional<migration_policy> migration_policy_from(std::string_view text);

// Kafka 4.3's group.consumer.* keys and defaults, but for the heartbeat
// interval: 1 s where Kafka's is 5 s (config/broker_keys.cc says why).
struct consumer_group_options {
  int32_t session_timeout_ms = 45000;
  int32_t heartbeat_interval_ms = 1000;
  int32_t max_size = std::numeric_limits<int32_t>::max();
  std::vector<std::string> assignors{"uniform", "range"};  // the first is the default
  // group.consumer.assignment.interval.ms: the least time between two
  // target assignments of a group (0: none).
  int32_t assignment_interval_ms = 1000;
  // group.consumer.regex.refresh.interval.ms: how old a resolution of the
  // group's regular expressions may grow before it is done again.
  int32_t regex_refresh_interval_ms = 10 * 60 * 1000;
  migration_policy migration = migration_policy::bidirectional;
  // group.max.size: a group larger than this is not handed back to the
  // classic protocol.
  int32_t classic_max_size = std::numeric_limits<int32_t>::max();

  bool upgrade_enabled() const {
    return migration == migration_policy::upgrade || migration == migration_policy::bidirectional;
  }
  bool downgrade_enabled() const {
    return migration == migration_policy::downgrade || migration == migration_policy::bidirectional;
  }
};

// A classic group as an upgrade reads it and a downgrade makes it: its
// generation (the consumer group's epoch), protocol, and members with
// what they hold (an upgrade: the classic assignment's bytes; a downgrade:
// the consumer group's target for the member).
struct classic_member_snapshot {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::vector<classic_protocol> protocols;
  std::vector<uint8_t> assignment;
  topic_partitions target;
};
struct classic_group_snapshot {
  std::string group_id;
  int32_t generation = 0;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::vector<classic_member_snapshot> members;
};

// A consumer group handed back to the classic protocol: its tombstones are
// among the records; the caller makes the classic group (Stable at the
// group's epoch, each member's target as its assignment) and writes its
// record after them, then prepares a rebalance when asked.
struct downgrade {
  classic_group_snapshot group;
  bool rebalance = false;
};

// Kafka resolves a group's regular expressions at most this often.
inline constexpr int64_t regex_min_refresh_interval_ms = 10000;

// One call's records and the group they change (consumer_group_manager.cc).
class draft;

// Which topics the heartbeating member may see (DESCRIBE); regular
// expressions resolved in its heartbeat match only those, as Kafka resolves
// them in the member's context. Empty: every topic (no authorizer).
using topic_filter = std::function<bool(const std::string&)>;

// The tombstones that delete `group` from the log, in Kafka's order: the
// members' current and target assignments, the target's epoch, the
// members, the regular expressions, the subscription metadata, the group.
std::vector<consumer_group_record> deletion_records(const consumer_group& group);

struct heartbeat_outcome {
  std::vector<consumer_group_record> records;  // already replayed into the group
  protocol::msg::consumer_group_heartbeat_response response;
  // With records: the group as it was before them (nullopt: there was
  // none), what rolling them back puts back.
  std::optional<consumer_group> before;
  // The member's leave handed the group back to the classic protocol.
  std::optional<downgrade> downgraded;
};

// A classic member's JoinGroup or LeaveGroup in a consumer group. A
// response with an error changed nothing.
struct classic_join_outcome {
  std::vector<consumer_group_record> records;
  std::optional<consumer_group> before;
  protocol::msg::join_group_response response;
  std::optional<downgrade> downgraded;
};
struct classic_leave_outcome {
  std::vector<consumer_group_record> records;
  std::optional<consumer_group> before;
  protocol::msg::leave_group_response response;
  std::optional<downgrade> downgraded;
};

// Session, rebalance, join and sync timeouts that ended: the records that
// fence their members, and the groups handed back to the classic protocol
// by them.
struct expiry {
  std::vector<consumer_group_record> records;
  std::vector<downgrade> downgrades;
};

class consumer_group_manager {
 public:
  explicit consumer_group_manager(consumer_group_options options);

  // `upgraded`: the records that turn the classic group of this id into a
  // consumer group (`upgrade_records`), replayed ahead of the heartbeat's.
  heartbeat_outcome heartbeat(const protocol::msg::consumer_group_heartbeat_request& request, int16_t version,
                              const std::string& client_id, const std::string& client_host,
                              const topic_image_view& topics, int64_t now_ms,
                              const std::function<std::string()>& new_member_id,
                              const topic_filter& may_describe = {},
                              const std::vector<consumer_group_record>* upgraded = nullptr);

  // --- Classic members (consumer_group_manager_classic.cc) ----------------
  // The records that make `classic` a consumer group (Kafka's
  // convertToConsumerGroup: members Stable at the generation, holding and
  // targeted at their classic assignment), or the refusal
  // (GROUP_ID_NOT_FOUND with Kafka's message) when the policy, the group's
  // protocol, its size or its assignments do not allow it.
  std::variant<std::vector<consumer_group_record>, heartbeat_refusal> upgrade_records(
      const classic_group_snapshot& classic, const topic_image_view& topics) const;
  // A classic member's JoinGroup to a consumer group with members: it
  // joins or rejoins as a consumer member whose subscription is the one
  // its protocols embed, and is answered with its epoch as the generation
  // once the records are durable.
  classic_join_outcome classic_join(const protocol::msg::join_group_request& request, int16_t version,
                                    const std::string& client_id, const std::string& client_host,
                                    const topic_image_view& topics, int64_t now_ms,
                                    const std::function<std::string()>& new_member_id);
  // SyncGroup: the member's assigned partitions as a ConsumerProtocol
  // assignment (no records; the caller answers once earlier writes are
  // durable), or REBALANCE_IN_PROGRESS when it must rejoin first.
  protocol::msg::sync_group_response classic_sync(const protocol::msg::sync_group_request& request,
                                                  const topic_image_view& topics, int64_t now_ms);
  // Heartbeat: REBALANCE_IN_PROGRESS when the member must rejoin (behind
  // the target, revoking, or its waited-for partitions are free).
  protocol::msg::heartbeat_response classic_heartbeat(const protocol::msg::heartbeat_request& request,
                                                      int64_t now_ms);
  // LeaveGroup (also an administrator removing members by instance id).
  classic_leave_outcome classic_leave(const protocol::msg::leave_group_request& request,
                                      const topic_image_view& topics);

  // Fences every member whose session ended by now, and every member still
  // at the epoch it was told to give partitions up in when its rebalance
  // timeout ended: the records that remove them (and give their
  // partitions to the others).
  expiry expire_sessions(int64_t now_ms, const topic_image_view& topics);
  // When the next session or rebalance timeout ends, if any.
  std::optional<int64_t> next_deadline_ms() const;

  // The group's deletion_records, already replayed: the group is gone.
  // Empty when there is no such group or its records refuse.
  std::vector<consumer_group_record> delete_group(const std::string& group_id);

  // Where group-level configs are read (consumer.session.timeout.ms,
  // consumer.heartbeat.interval.ms, consumer.assignment.interval.ms over
  // the options); null: the options alone. Must outlive its use.
  void set_config_source(const topic_image_view* source) { configs_ = source; }

  // A record read from the log at load.
  std::optional<std::string> replay(const consumer_group_record& record);
  // Loading is over: every member's session starts now, and each group's
  // metadata hash is checked against the image at its next heartbeat.
  void activate(int64_t now_ms);

  // The topic image changed: groups that subscribe to a `changed` topic
  // (created, deleted, repartitioned, moved) check their metadata hash at
  // their next heartbeat; with `created`, regular expressions are resolved
  // again at the next heartbeat of a group that has some (at most every
  // regex_min_refresh_interval_ms).
  void on_topics_changed(const std::set<std::string>& changed, bool created, int64_t image_version);

  // What rolling back a write needs: the group as it stands (nullopt when
  // there is none) and putting such a copy back. Members the copy brings
  // back get a new session from now; members it drops lose theirs.
  std::optional<consumer_group> snapshot(const std::string& group_id) const;
  void restore(const std::string& group_id, std::optional<consumer_group> group, int64_t now_ms);
  // The groups with a member whose session or rebalance timeout ended by now.
  std::set<std::string> groups_with_ended_sessions(int64_t now_ms) const;

  const consumer_group* group(const std::string& group_id) const;
  const std::map<std::string, consumer_group>& groups() const { return groups_; }
  // Group epoch bumps this manager wrote (Kafka's consumer group rebalances).
  uint64_t rebalances() const { return rebalances_; }
  void clear() {
    groups_.clear();
    sessions_.clear();
    rebalance_timeouts_.clear();
    join_timeouts_.clear();
    sync_timeouts_.clear();
    hash_checked_.clear();
  }

 private:
  struct session_key {
    std::string group_id;
    std::string member_id;
    auto operator<=>(const session_key&) const = default;
  };

  heartbeat_outcome refuse(protocol::error_code code, std::string message) const;
  // A leave: -1, or -2 for a static member gone for now (it keeps its
  // partitions until its session ends or it comes back); nullopt when the
  // group's records refuse it.
  std::optional<heartbeat_outcome> leave(const protocol::msg::consumer_group_heartbeat_request& request,
                                         const topic_image_view& topics);
  // The records removing `member_ids` from the group (a leave or a fence),
  // the group changed by them; nullopt (the group unchanged) when its
  // records refuse them. When only classic members would be left and the
  // policy allows it, the group is deleted instead and handed back to the
  // classic protocol (`downgraded`; Kafka's consumerGroupFenceMembers).
  struct fence_result {
    std::vector<consumer_group_record> records;
    std::optional<downgrade> downgraded;
  };
  std::optional<fence_result> fence_members(const std::string& group_id, const std::set<std::string>& member_ids,
                                            const topic_image_view& topics);
  // Whether fencing `member_ids` hands the group back to the classic protocol.
  bool downgrades_when_fenced(const consumer_group& group, const std::set<std::string>& member_ids) const;
  // The classic group a downgrade makes: every member but `leaving`, each
  // with its target (`joining` in the place of the static member it replaces).
  classic_group_snapshot classic_snapshot(const consumer_group& group, const std::set<std::string>& leaving,
                                          const consumer_member* joining) const;
  // The heartbeat interval a member's answer carries (heartbeat_interval.h).
  int32_t heartbeat_interval_for(const std::string& group_id, const consumer_member& member) const;
  // Step 2 of a heartbeat or a classic join: a new target assignment when
  // the group epoch is ahead of it and the assignment interval has passed.
  std::optional<heartbeat_refusal> maybe_assign(draft& d, const std::optional<std::string>& asked_assignor,
                                                const topic_image_view& topics, int64_t now_ms) const;
  // A member's new or changed subscription into the draft: its record, its
  // regular expression resolved (or refused) and the one it left forgotten.
  // `bump`: the subscribed topics changed (names, or a regular expression
  // resolved).
  std::optional<heartbeat_refusal> subscribe(draft& d, const consumer_member& member,
                                             const consumer_member& updated, const topic_image_view& topics,
                                             const topic_filter& may_describe, int64_t now_ms, bool& bump) const;
  // Who a heartbeat (not a leave) comes from: a known member whose epoch
  // checks out, a new one joining, or a static member back under a new
  // member id (its replacement's records already in the draft); else the
  // refusal. `known`: the member was in the group (or replaces one).
  struct known_member {
    consumer_member member;
    bool known = false;
  };
  std::variant<known_member, heartbeat_refusal> identify(draft& d,
                                                         const protocol::msg::consumer_group_heartbeat_request& request,
                                                         const std::string& member_id,
                                                         const std::optional<topic_partitions>& owned) const;
  // The end of an accepted heartbeat: the draft's group put in place (the
  // one it replaces kept in the outcome), the member's session and
  // revocation deadline set, the answer made. `made_by_upgrade`: the draft
  // began from a classic group's upgrade records, whose members keep their
  // sessions.
  heartbeat_outcome commit_heartbeat(draft& d, const protocol::msg::consumer_group_heartbeat_request& request,
                                     const known_member& before, const consumer_member& updated, int64_t now_ms,
                                     bool made_by_upgrade);
  // Who a classic JoinGroup comes from: a member (new or known), or a
  // static member back under a new member id taking the place of the one
  // holding its instance id (its replacement's records already in the
  // draft; `replaced`: the id it takes the place of); else the refusal.
  struct classic_joiner {
    consumer_member member;
    bool known = false;
    std::optional<std::string> replaced;
  };
  std::variant<classic_joiner, heartbeat_refusal> identify_classic(draft& d,
                                                                   const protocol::msg::join_group_request& request,
                                                                   const std::string& member_id) const;
  // The records that put `replacement` (a static member back under a new
  // member id) in the place of `old_member`, keeping its target.
  void replace_static_member(draft& d, const consumer_member& old_member, const consumer_member& replacement) const;
  // What reconciling `member` needs from the group as the heartbeat leaves it.
  static reconciliation_input reconciliation_of(const consumer_group& group, const consumer_member& member,
                                                const std::optional<topic_partitions>& owned,
                                                bool subscription_changed, const topic_image_view& topics);
  int64_t metadata_hash_of(const std::map<std::string, subscription_count>& subscribed,
                           const topic_image_view& topics) const;
  // The group's regular expressions resolved again when due (Kafka's
  // batch refresh): a record for each, and whether any matches other
  // topics now.
  bool refresh_regexes(draft& d, const topic_image_view& topics, const topic_filter& may_describe,
                       int64_t now_ms) const;
  // The group epoch record when the subscribed topics changed (`bump`) or
  // the group's hash no longer matches the image; the hash marked checked.
  void maybe_bump_epoch(draft& d, bool bump, const topic_image_view& topics);
  // nullptr when the name is not among group.consumer.assignors.
  const assignor* assignor_for(const consumer_group& group, const std::optional<std::string>& asked) const;

  // The group's value of a group.consumer.* option: its group-level config
  // when set, else the broker's.
  int32_t group_option(const std::string& group_id, std::string_view key, int32_t broker_value) const;
  int32_t session_timeout_ms(const std::string& group_id) const;

  consumer_group_options options_;
  const topic_image_view* configs_ = nullptr;
  std::map<std::string, std::unique_ptr<const assignor>> assignors_;  // group.consumer.assignors, made once
  std::map<std::string, consumer_group> groups_;
  std::map<session_key, int64_t> sessions_;  // when each member's session ends
  // A member told to give partitions up (UNREVOKED_PARTITIONS) is fenced
  // if it is still at that epoch when its rebalance timeout ends.
  struct rebalance_timeout {
    int64_t deadline_ms = 0;
    int32_t epoch = 0;
  };
  std::map<session_key, rebalance_timeout> rebalance_timeouts_;
  // A classic member told to rejoin is fenced if it has not within its
  // rebalance timeout; one that joined, if it has not synced within it.
  std::map<session_key, int64_t> join_timeouts_;
  std::map<session_key, int64_t> sync_timeouts_;
  // Starts or cancels `member`'s rebalance timeout as its state says (a
  // classic member's only at load: it has its join and sync timeouts).
  void track_revocation(const std::string& group_id, const consumer_member& member, int64_t now_ms,
                        bool classic_too = false);
  // A classic member told to rejoin (REBALANCE_IN_PROGRESS), its join
  // timeout started unless it runs already.
  protocol::error_code ask_to_rejoin(const std::string& group_id, const consumer_member& member, int64_t now_ms);
  // A member's session timeout: its JoinGroup's for a classic member.
  int32_t session_timeout_of(const std::string& group_id, const consumer_member& member) const;
  void forget_member(const std::string& group_id, const std::string& member_id);
  // The group epoch at which each group's metadata hash was last checked
  // against the image (absent: due at its next heartbeat; an epoch above
  // the group's: a rolled-back check, due again), as Kafka's refresh
  // deadline.
  std::map<std::string, int32_t> hash_checked_;
  // The image version that last created topics (regular expressions
  // resolved before it are due for a refresh).
  int64_t new_topics_version_ = -1;
  uint64_t rebalances_ = 0;
};

}  // namespace hw::broker::group::consumer
