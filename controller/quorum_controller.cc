#include "controller/quorum_controller.h"

#include <cassert>

namespace hw::controller {

quorum_controller::quorum_controller(quorum_controller_options options,
                                     std::shared_ptr<const metadata_image> committed)
    : configuration_(std::move(options.configuration)),
      replication_(std::move(options.replication), configuration_),
      cluster_(std::move(options.cluster), replication_),
      acls_(options.acl_random_seed),
      tokens_(std::move(options.delegation_tokens)),
      token_check_interval_ms_(options.delegation_token_check_interval_ms),
      image_(committed ? std::move(committed) : std::make_shared<const metadata_image>()) {}

void quorum_controller::flush() const {
  if (!pending_) return;
  image_ = pending_->apply(image_->provenance.offset, image_->provenance.epoch);
  pending_.reset();
}

std::optional<std::string> quorum_controller::replay(const metadata_record& record) {
  // Records replayed one by one gather in one delta, published when the
  // image is next needed: replaying a long log costs one image copy, not
  // one per record.
  if (!pending_) pending_ = std::make_unique<metadata_delta>(image_);
  return pending_->replay(record);
}

std::optional<std::string> quorum_controller::replay(const std::vector<metadata_record>& records) {
  flush();
  return replay(records, image_->provenance.offset, image_->provenance.epoch);
}

std::optional<std::string> quorum_controller::replay(const std::vector<metadata_record>& records,
                                                     storage::offset last_offset, leader_epoch epoch) {
  if (!pending_) pending_ = std::make_unique<metadata_delta>(image_);
  for (const auto& r : records) {
    if (auto refused = pending_->replay(r)) {
      flush();
      return refused;
    }
  }
  image_ = pending_->apply(last_offset, epoch);
  pending_.reset();
  return std::nullopt;
}

void quorum_controller::revert_to(std::shared_ptr<const metadata_image> committed) {
  assert(committed);
  pending_.reset();
  image_ = std::move(committed);
  cluster_.forget_sessions();
}

controller_result<msg::broker_registration_response> quorum_controller::register_broker(
    const msg::broker_registration_request& request, int64_t new_broker_epoch, int64_t now_ms) {
  return cluster_.register_broker(image(), request, new_broker_epoch, now_ms);
}

controller_result<msg::broker_heartbeat_response> quorum_controller::broker_heartbeat(
    const msg::broker_heartbeat_request& request, int64_t next_offset, int64_t now_ms) {
  return cluster_.broker_heartbeat(image(), request, next_offset, now_ms);
}

controller_result<msg::unregister_broker_response> quorum_controller::unregister_broker(
    const msg::unregister_broker_request& request) {
  return cluster_.unregister_broker(image(), request);
}

controller_result<msg::controller_registration_response> quorum_controller::register_controller(
    const msg::controller_registration_request& request) {
  return cluster_control::register_controller(image(), request);
}

controller_result<msg::update_features_response> quorum_controller::update_features(
    const msg::update_features_request& request, int16_t version, const feature_update_context& context) {
  // Kafka's controller reads UpgradeType alone: a v0 request (AllowDowngrade)
  // is an upgrade.
  std::vector<feature_update> updates;
  int16_t elr_level = 0;
  for (const auto& u : request.feature_updates) {
    updates.push_back({u.feature, u.max_version_level, u.upgrade_type});
    if (u.feature == "eligible.leader.replicas.version") elr_level = u.max_version_level;
  }
  auto result = feature_control::update_features(image(), updates, request.validate_only, context);
  controller_result<msg::update_features_response> out;
  if (!result.response.ok()) {
    out.response.error_code = static_cast<int16_t>(result.response.code);
    out.response.error_message =
        "The update failed for all features since the following feature had an error: " + result.response.message;
    return out;
  }
  out.response.error_message = std::nullopt;
  if (version <= 1)
    for (const auto& u : request.feature_updates) {
      msg::update_features_response::updatable_feature_result r;
      r.feature = u.feature;
      r.error_message = "NONE";  // Errors.NONE.message()
      out.response.results.push_back(std::move(r));
    }
  if (!request.validate_only && elr_level > 0) out.records = configuration_.elr_safety_records(image());
  out.records.insert(out.records.end(), result.records.begin(), result.records.end());
  return out;
}

controller_result<msg::create_topics_response> quorum_controller::create_topics(
    const msg::create_topics_request& request, const partition_change_quota& quota) {
  return replication_.create_topics(image(), request, quota);
}

controller_result<msg::delete_topics_response> quorum_controller::delete_topics(
    const msg::delete_topics_request& request, int16_t version, const partition_change_quota& quota) {
  return replication_.delete_topics(image(), request, version, quota);
}

controller_result<msg::create_partitions_response> quorum_controller::create_partitions(
    const msg::create_partitions_request& request, const partition_change_quota& quota) {
  return replication_.create_partitions(image(), request, quota);
}

controller_result<msg::alter_partition_response> quorum_controller::alter_partition(
    const msg::alter_partition_request& request, int16_t version) {
  return replication_.alter_partition(image(), request, version);
}

controller_result<msg::elect_leaders_response> quorum_controller::elect_leaders(
    const msg::elect_leaders_request& request, int16_t version) {
  return replication_.elect_leaders(image(), request, version);
}

controller_result<msg::assign_replicas_to_dirs_response> quorum_controller::assign_replicas_to_dirs(
    const msg::assign_replicas_to_dirs_request& request) {
  return replication_.assign_replicas_to_dirs(image(), request);
}

controller_result<msg::alter_partition_reassignments_response> quorum_controller::alter_partition_reassignments(
    const msg::alter_partition_reassignments_request& request, int16_t version) {
  return replication_.alter_partition_reassignments(image(), request, version);
}

msg::list_partition_reassignments_response quorum_controller::list_partition_reassignments(
    const msg::list_partition_reassignments_request& request) const {
  return replication_.list_partition_reassignments(image(), request);
}

controller_result<msg::incremental_alter_configs_response> quorum_controller::incremental_alter_configs(
    const msg::incremental_alter_configs_request& request) {
  return configuration_.incremental_alter_configs(image(), request);
}

controller_result<msg::alter_configs_response> quorum_controller::alter_configs(
    const msg::alter_configs_request& request) {
  return configuration_.alter_configs(image(), request);
}

controller_result<msg::allocate_producer_ids_response> quorum_controller::allocate_producer_ids(
    const msg::allocate_producer_ids_request& request) {
  return producer_id_control::allocate_producer_ids(image(), request);
}

controller_result<msg::alter_user_scram_credentials_response> quorum_controller::alter_user_scram_credentials(
    const msg::alter_user_scram_credentials_request& request) {
  return scram_control::alter_credentials(image(), request);
}

controller_result<msg::create_acls_response> quorum_controller::create_acls(const msg::create_acls_request& request) {
  return acls_.create_acls(image(), request);
}

controller_result<msg::delete_acls_response> quorum_controller::delete_acls(const msg::delete_acls_request& request) {
  return acl_control::delete_acls(image(), request);
}

controller_result<msg::alter_client_quotas_response> quorum_controller::alter_client_quotas(
    const msg::alter_client_quotas_request& request) {
  return quota_control::alter_client_quotas(image(), request);
}

controller_result<msg::create_delegation_token_response> quorum_controller::create_delegation_token(
    const msg::create_delegation_token_request& request, const std::string& requester_type,
    const std::string& requester_name, int64_t now_ms) {
  return tokens_.create(image(), request, requester_type, requester_name, now_ms);
}

controller_result<msg::renew_delegation_token_response> quorum_controller::renew_delegation_token(
    const msg::renew_delegation_token_request& request, const std::string& requester, int64_t now_ms) {
  return tokens_.renew(image(), request, requester, now_ms);
}

controller_result<msg::expire_delegation_token_response> quorum_controller::expire_delegation_token(
    const msg::expire_delegation_token_request& request, const std::string& requester, int64_t now_ms) {
  return tokens_.expire(image(), request, requester, now_ms);
}

std::vector<metadata_record> quorum_controller::tick(int64_t now_ms) {
  std::vector<metadata_record> fenced = cluster_.fence_expired(image(), now_ms);
  if (!fenced.empty()) return fenced;  // elections next tick, over the fenced image
  std::vector<metadata_record> out = replication_.periodic_elections(image(), now_ms);
  if (!out.empty() || now_ms < next_token_sweep_ms_) return out;
  bool more = false;
  out = tokens_.sweep(image(), now_ms, &more);
  // More than one batch's worth: the next tick goes on.
  next_token_sweep_ms_ = more ? now_ms : now_ms + token_check_interval_ms_;
  return out;
}

}  // namespace hw::controller
