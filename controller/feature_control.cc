#include "controller/feature_control.h"

#include <algorithm>
#include <string>

namespace hw::controller {

namespace {

msg::feature_level_record feature(std::string name, int16_t level) {
  msg::feature_level_record r;
  r.name = std::move(name);
  r.feature_level = level;
  return r;
}

}  // namespace

bool feature_control::elr_enabled(const metadata_image& image) {
  return image.version().elr_supported() && image.feature_level("eligible.leader.replicas.version").value_or(0) >= 1;
}

protocol::error_code feature_control::registration_error(const metadata_image& image,
                                                         const supported_features& supported) {
  using protocol::error_code;
  bool lists_metadata_version = false;
  for (const auto& f : supported) {
    lists_metadata_version |= f.name == metadata_version::feature_name;
    int16_t finalized = image.feature_level(f.name).value_or(0);
    if (finalized < f.min_supported_version || finalized > f.max_supported_version) {
      return error_code::unsupported_version;
    }
  }
  if (!lists_metadata_version) return error_code::invalid_registration;
  for (const auto& [name, level] : image.features) {
    bool listed = std::any_of(supported.begin(), supported.end(), [&](const auto& f) { return f.name == name; });
    if (!listed && level != 0) return error_code::unsupported_version;
  }
  return error_code::none;
}

std::vector<metadata_record> feature_control::bootstrap_records(
    metadata_version mv, int32_t min_insync_replicas, const std::vector<msg::user_scram_credential_record>& scram) {
  std::vector<metadata_record> out;
  bool transaction = mv.level >= 13;  // metadata transactions since 3.6-IV1
  if (transaction) {
    msg::begin_transaction_record begin;
    begin.name = "Bootstrap records";
    out.push_back(begin);
  }
  out.push_back(feature(std::string(metadata_version::feature_name), mv.level));
  // The other features Kafka 4.3.1's storage tool finalizes by default at
  // 4.3-IV0, except share.version: Highwater has no share groups, so its
  // brokers do not support it (and would be refused registration). Older
  // metadata versions start with metadata.version alone.
  if (mv >= latest_production_metadata_version) {
    out.push_back(feature("eligible.leader.replicas.version", 1));
    out.push_back(feature("group.version", 1));
    out.push_back(feature("streams.version", 1));
    out.push_back(feature("transaction.version", 2));
  }
  out.insert(out.end(), scram.begin(), scram.end());
  if (mv >= latest_production_metadata_version) {
    // With ELR on, the cluster-wide min ISR is fixed in the log.
    msg::config_record min_isr;
    min_isr.resource_type = static_cast<int8_t>(config_resource_type::broker);
    min_isr.resource_name = "";
    min_isr.name = "min.insync.replicas";
    min_isr.value = std::to_string(min_insync_replicas);
    out.push_back(min_isr);
  }
  if (transaction) out.push_back(msg::end_transaction_record{});
  return out;
}

}  // namespace hw::controller
