#pragma once
// metadata_delta: replays metadata records over a base image and publishes
// the next image. What the broker acts on comes with it: topics created and
// deleted, partitions whose registration changed (before and after),
// configs, brokers and features that changed.
//
// A record that does not fit the image (a partition of an unknown topic, a
// broker epoch that does not match, a producer-id block that does not move
// forward, ...) is refused as an error value and leaves the delta as it
// was: the caller decides whether that is fatal (a broker replaying a
// committed log should stop) or a bug to report.
//
// Transaction markers (Begin/End/AbortTransactionRecord) change nothing
// here: the log reader applies a transaction's records only once its end is
// committed. Records of features not kept in the image (ZK migration) are
// accepted and ignored. A DelegationTokenRecord adds or replaces a token,
// a RemoveDelegationTokenRecord removes it (one it does not hold changes
// nothing, as in Kafka). A ClientQuotaRecord sets
// or removes one key of an entity (removing one it does not hold changes
// nothing, as in Kafka); an entity left without values leaves the image.
// SCRAM credentials are kept: a UserScramCredentialRecord adds or replaces
// one (user, mechanism), a RemoveUserScramCredentialRecord of one that does
// not exist is refused (as Kafka's controller refuses it). ACLs likewise:
// an AccessControlEntryRecord adds one by its id, a
// RemoveAccessControlEntryRecord of an id the image does not hold is
// refused.
//
// Owner: whoever replays (the broker's metadata publisher, the controller);
// one thread. apply() ends the delta's life.

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controller/metadata/image.h"
#include "controller/metadata/records.h"

namespace hw::controller {

struct partition_change {
  controller::topic_id topic_id;
  std::string topic_name;
  int32_t partition = -1;
  std::optional<partition_registration> before;  // none for a new partition
  partition_registration after;
};

// The registration after a PartitionChangeRecord, as Kafka's
// PartitionRegistration.merge: absent fields keep their value, a leader
// field (even the same leader) bumps the leader epoch, every change bumps
// the partition epoch.
partition_registration merge(const partition_registration& current, const msg::partition_change_record& change);

class metadata_delta {
 public:
  explicit metadata_delta(std::shared_ptr<const metadata_image> base);

  const metadata_image& base() const { return *base_; }
  // The image as replayed so far (after apply(), the published one).
  const metadata_image& current() const { return published_ ? *published_ : next_; }

  // Empty on success; otherwise why the record was refused.
  [[nodiscard]] std::optional<std::string> replay(const metadata_record& record);

  // The next image, stamped with the offset and epoch of the last record
  // replayed. Call once, after the change lists are read or before: the
  // lists stay valid after apply().
  std::shared_ptr<const metadata_image> apply(storage::offset offset, leader_epoch epoch);

  // Topics whose TopicRecord was replayed here and that still exist.
  std::vector<topic_id> created_topics() const;
  // Topics of the base image removed here.
  std::vector<std::shared_ptr<const topic_image>> deleted_topics() const;
  // Partitions created or changed here, of topics that still exist.
  std::vector<partition_change> changed_partitions() const;
  const std::set<config_resource>& changed_configs() const { return changed_configs_; }
  // Brokers registered, changed or unregistered here.
  const std::set<node_id>& changed_brokers() const { return changed_brokers_; }
  bool features_changed() const { return features_changed_; }
  bool producer_ids_changed() const { return current().next_producer_id != base_->next_producer_id; }
  // A SCRAM credential was added, replaced or removed here.
  bool scram_changed() const { return scram_changed_; }
  // An ACL was added or removed here.
  bool acls_changed() const { return acls_changed_; }
  // A client quota was set or removed here.
  bool client_quotas_changed() const { return client_quotas_changed_; }
  // A delegation token was made, renewed, expired or removed here.
  bool delegation_tokens_changed() const { return delegation_tokens_changed_; }

 private:
  using replay_result = std::optional<std::string>;
  replay_result replay_topic(const msg::topic_record& r);
  replay_result replay_partition(const msg::partition_record& r);
  replay_result replay_partition_change(const msg::partition_change_record& r);
  replay_result replay_remove_topic(const msg::remove_topic_record& r);
  replay_result replay_clear_elr(const msg::clear_elr_record& r);
  replay_result replay_config(const msg::config_record& r);
  replay_result replay_register_broker(const msg::register_broker_record& r);
  replay_result replay_unregister_broker(const msg::unregister_broker_record& r);
  replay_result replay_fencing(int32_t id, int64_t epoch, int8_t fenced, int8_t shutdown,
                               const std::vector<protocol::uuid>* log_dirs,
                               const std::optional<std::vector<protocol::uuid>>* cordoned);
  replay_result replay_feature(const msg::feature_level_record& r);
  replay_result replay_producer_ids(const msg::producer_ids_record& r);
  replay_result replay_register_controller(const msg::register_controller_record& r);
  replay_result replay_scram(const msg::user_scram_credential_record& r);
  replay_result replay_remove_scram(const msg::remove_user_scram_credential_record& r);
  replay_result replay_acl(const msg::access_control_entry_record& r);
  replay_result replay_remove_acl(const msg::remove_access_control_entry_record& r);
  replay_result replay_client_quota(const msg::client_quota_record& r);
  replay_result replay_delegation_token(const msg::delegation_token_record& r);
  replay_result replay_remove_delegation_token(const msg::remove_delegation_token_record& r);

  // A private copy of the topic, replacing the shared one in next_.
  topic_image& mutable_topic(const topic_id& id);
  void clear_elr(topic_image& topic);

  std::shared_ptr<const metadata_image> base_;
  metadata_image next_;
  std::shared_ptr<const metadata_image> published_;
  std::map<topic_id, std::shared_ptr<topic_image>> owned_topics_;
  std::set<topic_id> created_topics_;
  std::map<topic_id, std::shared_ptr<const topic_image>> deleted_topics_;
  std::set<std::pair<topic_id, int32_t>> changed_partitions_;
  std::set<config_resource> changed_configs_;
  std::set<node_id> changed_brokers_;
  bool features_changed_ = false;
  bool scram_changed_ = false;
  bool acls_changed_ = false;
  bool client_quotas_changed_ = false;
  bool delegation_tokens_changed_ = false;
  bool applied_ = false;
};

// Replays records in order over base into the next image (stopping at the
// first refused record, whose index and reason land in *error).
std::shared_ptr<const metadata_image> replay_all(std::shared_ptr<const metadata_image> base,
                                                 const std::vector<metadata_record>& records,
                                                 storage::offset last_offset, leader_epoch epoch,
                                                 std::string* error);

}  // namespace hw::controller
