#pragma once
// Feature control: the cluster's finalized features, metadata.version among
// them (the image's `features`, written by FeatureLevelRecords). It answers
// whether a node announcing its supported ranges may join, whether ELR is
// on, and what a new cluster's log starts with. UpdateFeatures lands here
// when it is built.
//
// Owner: the controller strand, through quorum_controller. Stateless
// beyond the image it is handed; generates, never mutates.

#include <cstdint>
#include <vector>

#include "controller/metadata/image.h"
#include "controller/metadata/metadata_version.h"
#include "controller/metadata/records.h"
#include "protocol/error_code.h"
#include "protocol/messages/broker_registration.h"

namespace hw::controller {

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

  // The records a new cluster's log starts with, as `kafka-storage format`
  // writes them at metadata.version mv: metadata.version and the other
  // finalized features Kafka 4.3.1 enables by default, the SCRAM credentials
  // of the bootstrap metadata (`format --add-scram`, bootstrap_metadata.h),
  // and (with ELR) the cluster-wide min.insync.replicas, inside a metadata
  // transaction.
  static std::vector<metadata_record> bootstrap_records(
      metadata_version mv, int32_t min_insync_replicas = 1,
      const std::vector<msg::user_scram_credential_record>& scram = {});
};

}  // namespace hw::controller
