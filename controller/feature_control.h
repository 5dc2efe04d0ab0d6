#pragma once
// Feature control: the cluster's finalized features, metadata.version among
// them (the image's `features`, written by FeatureLevelRecords). It answers
// whether a node announcing its supported ranges may join, whether ELR is
// on, and what a new cluster's log starts with, and it carries out
// UpdateFeatures (kafka-features.sh upgrade | downgrade | disable) with
// Kafka 4.3.1's checks.
//
// Owner: the controller strand, through quorum_controller. Stateless
// beyond the image it is handed; generates, never mutates.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "controller/controller_result.h"
#include "controller/metadata/image.h"
#include "controller/metadata/metadata_version.h"
#include "controller/metadata/records.h"
#include "protocol/error_code.h"
#include "protocol/messages/broker_registration.h"

namespace hw::controller {

// One feature UpdateFeatures asks to change.
struct feature_update {
  std::string name;
  int16_t level = 0;
  int8_t upgrade_type = 1;  // Kafka's codes: 1 upgrade, 2 safe and 3 unsafe downgrade; others unknown
};

// What UpdateFeatures weighs beyond the image (Kafka's QuorumFeatures and
// KRaftVersionAccessor): this controller's id and supported ranges, the
// quorum's voters (each must have registered with ranges that allow the
// level), and kraft.version, which the raft log holds rather than a
// FeatureLevelRecord.
struct feature_update_context {
  int32_t node_id = -1;
  std::map<std::string, supported_feature, std::less<>> local_supported;
  std::vector<int32_t> quorum_node_ids;
  int16_t kraft_version = 0;
  // Asks the raft layer for kraft.version at this level (validate_only:
  // checks alone); an error refuses the whole request. Empty: refused as
  // Kafka refuses an upgrade it cannot make.
  std::function<api_error(int16_t level, bool validate_only)> upgrade_kraft_version;
};

class feature_control {
 public:
  using supported_features = std::vector<msg::broker_registration_request::feature>;

  // Whether partitions keep ELRs: metadata.version supports them and the
  // eligible.leader.replicas.version feature is on.
  static bool elr_enabled(const metadata_image& image);

  // Why a broker supporting these ranges cannot register (none when it can):
  // every finalized feature must be in its range (one it does not list
  // counts as supporting only level 0), and it must list metadata.version.
  static protocol::error_code registration_error(const metadata_image& image, const supported_features& supported);

  // UpdateFeatures (Kafka's FeatureControlManager.updateFeatures): each
  // update checked in the order Kafka's HashMap of them walks
  // (java_map_order, metadata/quotas.h); the first refusal refuses the
  // whole request with its INVALID_UPDATE_VERSION message and nothing is
  // written. Then one FeatureLevelRecord per feature (a NoOpRecord for
  // kraft.version, whose change the raft layer writes), none when
  // validate_only.
  static controller_result<api_error> update_features(const metadata_image& image,
                                                      const std::vector<feature_update>& updates, bool validate_only,
                                                      const feature_update_context& context);

  // The records a new cluster's log starts with, as `kafka-storage format`
  // writes them at metadata.version mv: metadata.version and the other
  // finalized features (`features`, the bootstrap file's levels, when given;
  // else those Kafka 4.3.1 enables by default at 4.3-IV0, none at an older
  // version; kraft.version is the raft log's), the SCRAM credentials
  // of the bootstrap metadata (`format --add-scram`, bootstrap_metadata.h),
  // and (with ELR) the cluster-wide min.insync.replicas, inside a metadata
  // transaction.
  static std::vector<metadata_record> bootstrap_records(
      metadata_version mv, int32_t min_insync_replicas = 1,
      const std::vector<msg::user_scram_credential_record>& scram = {},
      const std::map<std::string, int16_t>* features = nullptr);
};

}  // namespace hw::controller
