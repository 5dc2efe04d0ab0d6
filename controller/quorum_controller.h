#pragma once
// The active controller's front: admin and broker-lifecycle requests in,
// metadata records and a response out, each request routed to the control
// manager that owns its part of the image (controller/README.md):
//
//   cluster_control        brokers and controllers: registration, heartbeats, fencing
//   replication_control    topics and partitions: creation, placement, elections, ISR, reassignment
//   configuration_control  dynamic configs and a topic's effective values
//   feature_control        finalized features, metadata.version
//   producer_id_control    producer-id blocks
//   scram_control          SCRAM credentials (KIP-554)
//   acl_control            ACLs
//   quota_control          client quotas
//   delegation_token_control  delegation tokens (KIP-48)
//
// What the front owns is the working image: every manager *generates*
// records from it and changes nothing there; the caller appends the
// records to the metadata log (one batch, in order) and hands them back
// through replay() before the next request — as Kafka's controller does,
// so the next request is validated against the records already on their
// way to commit. On loss of leadership the caller reverts the working
// image to the last committed one (revert_to). Standby controllers replay
// committed records the same way.
//
// Owner: the controller strand; not thread-safe. Pure: no I/O, the clock is
// the now_ms every call carries.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "controller/acl_control.h"
#include "controller/cluster_control.h"
#include "controller/configuration_control.h"
#include "controller/controller_result.h"
#include "controller/feature_control.h"
#include "controller/metadata/delta.h"
#include "controller/metadata/image.h"
#include "controller/metadata/records.h"
#include "controller/producer_id_control.h"
#include "controller/delegation_token_control.h"
#include "controller/quota_control.h"
#include "controller/replication_control.h"
#include "controller/scram_control.h"
#include "protocol/messages/update_features.h"

namespace hw::controller {

struct quorum_controller_options {
  cluster_control_options cluster;
  replication_control_options replication;
  configuration_control_options configuration;
  uint64_t acl_random_seed = 0;  // new ACLs' ids
  delegation_token_settings delegation_tokens;
  int64_t delegation_token_check_interval_ms = 3600000;  // delegation.token.expiry.check.interval.ms
};

class quorum_controller {
 public:
  explicit quorum_controller(quorum_controller_options options,
                             std::shared_ptr<const metadata_image> committed = nullptr);
  quorum_controller(const quorum_controller&) = delete;
  quorum_controller& operator=(const quorum_controller&) = delete;

  // The image with every generated record replayed, committed or not.
  const std::shared_ptr<const metadata_image>& working_image() const {
    flush();
    return image_;
  }
  const metadata_image& image() const { return *working_image(); }

  // Replays records into the working image (the caller's own generated
  // records, or committed ones on a standby). Stops at the first refused
  // record and returns why; the image then keeps the records before it.
  std::optional<std::string> replay(const metadata_record& record);
  std::optional<std::string> replay(const std::vector<metadata_record>& records);
  // The same, stamping the image with where the last record landed (when the
  // caller knows it), so working_image()->provenance follows the log.
  std::optional<std::string> replay(const std::vector<metadata_record>& records, storage::offset last_offset,
                                    leader_epoch epoch);
  // Back to the last committed image (leadership lost); drops heartbeat
  // sessions, which restart at the next contact.
  void revert_to(std::shared_ptr<const metadata_image> committed);

  const cluster_control& cluster() const { return cluster_; }
  const replication_control& replication() const { return replication_; }
  const configuration_control& configuration() const { return configuration_; }

  // Cluster control.
  controller_result<msg::broker_registration_response> register_broker(
      const msg::broker_registration_request& request, int64_t new_broker_epoch, int64_t now_ms);
  controller_result<msg::broker_heartbeat_response> broker_heartbeat(const msg::broker_heartbeat_request& request,
                                                                     int64_t next_offset, int64_t now_ms);
  controller_result<msg::unregister_broker_response> unregister_broker(const msg::unregister_broker_request& request);
  controller_result<msg::controller_registration_response> register_controller(
      const msg::controller_registration_request& request);

  // Feature control: UpdateFeatures as Kafka 4.3.1's controller answers it
  // at this request version (context: feature_control.h).
  controller_result<msg::update_features_response> update_features(const msg::update_features_request& request,
                                                                     int16_t version,
                                                                     const feature_update_context& context);

  // Replication control.
  // quota: the client's controller mutation quota (controller_result.h).
  controller_result<msg::create_topics_response> create_topics(const msg::create_topics_request& request,
                                                                const partition_change_quota& quota = {});
  controller_result<msg::delete_topics_response> delete_topics(const msg::delete_topics_request& request,
                                                               int16_t version, const partition_change_quota& quota = {});
  controller_result<msg::create_partitions_response> create_partitions(const msg::create_partitions_request& request,
                                                                       const partition_change_quota& quota = {});
  controller_result<msg::alter_partition_response> alter_partition(const msg::alter_partition_request& request,
                                                                   int16_t version);
  controller_result<msg::elect_leaders_response> elect_leaders(const msg::elect_leaders_request& request,
                                                               int16_t version);
  controller_result<msg::assign_replicas_to_dirs_response> assign_replicas_to_dirs(
      const msg::assign_replicas_to_dirs_request& request);
  controller_result<msg::alter_partition_reassignments_response> alter_partition_reassignments(
      const msg::alter_partition_reassignments_request& request, int16_t version);
  msg::list_partition_reassignments_response list_partition_reassignments(
      const msg::list_partition_reassignments_request& request) const;

  // Configuration control.
  controller_result<msg::incremental_alter_configs_response> incremental_alter_configs(
      const msg::incremental_alter_configs_request& request);
  controller_result<msg::alter_configs_response> alter_configs(const msg::alter_configs_request& request);

  // Producer-id control.
  controller_result<msg::allocate_producer_ids_response> allocate_producer_ids(
      const msg::allocate_producer_ids_request& request);

  // SCRAM control.
  controller_result<msg::alter_user_scram_credentials_response> alter_user_scram_credentials(
      const msg::alter_user_scram_credentials_request& request);

  // ACL control.
  controller_result<msg::create_acls_response> create_acls(const msg::create_acls_request& request);
  controller_result<msg::delete_acls_response> delete_acls(const msg::delete_acls_request& request);

  // Quota control.
  controller_result<msg::alter_client_quotas_response> alter_client_quotas(
      const msg::alter_client_quotas_request& request);

  // Delegation token control; the requester as its principal ("User:alice").
  controller_result<msg::create_delegation_token_response> create_delegation_token(
      const msg::create_delegation_token_request& request, const std::string& requester_type,
      const std::string& requester_name, int64_t now_ms);
  controller_result<msg::renew_delegation_token_response> renew_delegation_token(
      const msg::renew_delegation_token_request& request, const std::string& requester, int64_t now_ms);
  controller_result<msg::expire_delegation_token_response> expire_delegation_token(
      const msg::expire_delegation_token_request& request, const std::string& requester, int64_t now_ms);

  // Periodic work: fences brokers whose session expired and moves their
  // leaderships away; in a tick that fences nobody, runs the periodic
  // elections that are due and, every delegation.token.expiry.check.interval.ms,
  // removes the expired delegation tokens.
  std::vector<metadata_record> tick(int64_t now_ms);
  // When the first session of an unfenced broker runs out if no heartbeat
  // comes (the tick that fences it is due then); nullopt: none to watch.
  std::optional<int64_t> next_session_expiry_ms() const { return cluster_.next_session_expiry_ms(image()); }

 private:
  // Publishes the records replayed one at a time since the last publish.
  void flush() const;

  // Declared in the order they are built: each refers to the ones before.
  configuration_control configuration_;
  replication_control replication_;
  cluster_control cluster_;
  acl_control acls_;
  delegation_token_control tokens_;
  int64_t token_check_interval_ms_;
  int64_t next_token_sweep_ms_ = 0;
  // The working image and the records replayed over it not yet published
  // (both mutable: publishing changes no observable state).
  mutable std::shared_ptr<const metadata_image> image_;
  mutable std::unique_ptr<metadata_delta> pending_;
};

}  // namespace hw::controller
