#include "controller/feature_control.h"

#include <algorithm>
#include <string>

#include "controller/metadata/quotas.h"

namespace hw::controller {

namespace {

msg::feature_level_record feature(std::string name, int16_t level) {
  msg::feature_level_record r;
  r.name = std::move(name);
  r.feature_level = level;
  return r;
}

// VersionRange.toString: "1", "0-2", "3+".
std::string range_text(const supported_feature& r) {
  if (r.min_version == r.max_version) return std::to_string(r.min_version);
  if (r.max_version == INT16_MAX) return std::to_string(r.min_version) + "+";
  return std::to_string(r.min_version) + "-" + std::to_string(r.max_version);
}

// QuorumFeatures.reasonNotSupported.
std::optional<std::string> reason_not_supported(int16_t level, const std::string& who, const supported_feature& range) {
  if (level >= range.min_version && level <= range.max_version) return std::nullopt;
  if (range.max_version == 0) return who + " does not support this feature.";
  return who + " only supports versions " + range_text(range);
}

template <class Map>
supported_feature range_of(const Map& features, std::string_view name) {
  auto it = features.find(std::string(name));
  return it == features.end() ? supported_feature{} : it->second;  // Kafka's DISABLED: 0-0
}

// FeatureControlManager.reasonNotSupported: this controller, every
// registered broker (fenced or not), every registered controller, and
// (from 3.7-IV0, when controllers register) every voter must have registered.
std::optional<std::string> reason_not_supported(const metadata_image& image, const feature_update_context& context,
                                                std::string_view name, int16_t level) {
  if (auto r = reason_not_supported(level, "Local controller " + std::to_string(context.node_id),
                                    range_of(context.local_supported, name)))
    return r;
  for (const auto& [id, broker] : image.brokers)
    if (auto r = reason_not_supported(level, "Broker " + std::to_string(id.value), range_of(broker.features, name)))
      return r;
  if (!image.version().controller_registration_supported()) return std::nullopt;
  for (const auto& [id, c] : image.controllers) {
    if (id.value == context.node_id) continue;
    if (auto r = reason_not_supported(level, "Controller " + std::to_string(id.value), range_of(c.features, name)))
      return r;
  }
  for (int32_t id : context.quorum_node_ids)
    if (id != context.node_id && !image.controllers.count(node_id{id}))
      return "controller " + std::to_string(id) + " has not registered, and may not support this feature";
  return std::nullopt;
}

api_error invalid_update(const std::string& feature, int16_t level, const std::string& why) {
  return {error_code::invalid_update_version,
          "Invalid update version " + std::to_string(level) + " for feature " + feature + ". " + why};
}

// MetadataVersion.didMetadataChange, by level (7..31).
bool metadata_changed_at(int16_t level) {
  switch (level) {
    case 7: case 8: case 11: case 13: case 14: case 15: case 17: case 23: case 30: return true;
    default: return false;
  }
}

// MetadataVersion.checkIfMetadataChanged between two known levels.
bool metadata_changed_between(int16_t a, int16_t b) {
  if (a == b) return false;
  int16_t high = std::max(a, b), low = std::min(a, b);
  int16_t v = high;
  while (!metadata_changed_at(v) && v != low && v > minimum_metadata_version.level) --v;
  return v != low;
}

// The features (besides metadata.version) a level needs, from Kafka 4.3.1's
// Feature enums: only eligible.leader.replicas.version 1 has one.
std::vector<std::pair<std::string, int16_t>> dependencies_of(std::string_view name, int16_t level) {
  if (name == "eligible.leader.replicas.version" && level >= 1) return {{"metadata.version", 23}};
  return {};
}

// FeatureControlManager.updateMetadataVersion, after the common checks.
api_error update_metadata_version(int16_t current, const feature_update& u, std::vector<metadata_record>& records) {
  const int16_t level = u.level;
  if (metadata_version{level}.name().empty())
    return {error_code::invalid_update_version,
            "Invalid metadata.version " + std::to_string(level) + ". Valid versions are from " +
                std::to_string(minimum_metadata_version.level) + " to " +
                std::to_string(latest_testing_metadata_version.level) + "."};
  if (level < current && metadata_changed_between(current, level)) {
    const std::string head = "Unsupported metadata.version downgrade from " + std::to_string(current) + " to " +
                             std::to_string(level) + ". ";
    if (u.upgrade_type == 3)
      return {error_code::invalid_update_version, head + "Unsafe metadata downgrade is not supported in this version."};
    return {error_code::invalid_update_version,
            head + "Refusing to perform the requested downgrade because it might delete metadata information."};
  }
  records.push_back(feature(u.name, level));
  return {};
}

// kraft.version, which the raft layer changes: downgrades refused, an
// upgrade handed over (a NoOpRecord is something to wait on before answering).
api_error update_kraft_version(int16_t current, const feature_update& u, bool validate_only,
                               const feature_update_context& context, std::vector<metadata_record>& records) {
  if (u.upgrade_type != 1) {
    if (u.level != current) return invalid_update(u.name, u.level, "Can't downgrade the version of this feature.");
    return {};
  }
  if (!context.upgrade_kraft_version)
    return {error_code::invalid_update_version, "Invalid upgrade of kraft.version from version " +
                                                    std::to_string(current) + " to " + std::to_string(u.level)};
  if (api_error e = context.upgrade_kraft_version(u.level, validate_only); !e.ok()) return e;
  records.push_back(msg::no_op_record{});
  return {};
}

api_error update_one(const metadata_image& image, const feature_update& u,
                     const std::map<std::string, int16_t, std::less<>>& proposed, bool validate_only,
                     const feature_update_context& context, std::vector<metadata_record>& records) {
  const std::string& name = u.name;
  const int16_t level = u.level;
  if (u.upgrade_type < 1 || u.upgrade_type > 3)
    return invalid_update(name, level, "The controller does not support the given upgrade type.");
  const bool upgrade = u.upgrade_type == 1;
  const bool is_mv = name == metadata_version::feature_name, is_kraft = name == "kraft.version";
  const int16_t current = is_mv ? image.version().level
                          : is_kraft ? context.kraft_version
                                     : image.feature_level(name).value_or(0);
  if (level < 0) return invalid_update(name, level, "A feature version cannot be less than 0.");
  if (auto why = reason_not_supported(image, context, name, level)) return invalid_update(name, level, *why);
  if (level < current && upgrade)
    return invalid_update(name, level,
                          "Can't downgrade the version of this feature without setting the upgrade type to either safe "
                          "or unsafe downgrade.");
  if (level > current && !upgrade) return invalid_update(name, level, "Can't downgrade to a newer version.");

  if (is_mv) return update_metadata_version(current, u, records);
  if (is_kraft) return update_kraft_version(current, u, validate_only, context, records);
  for (const auto& [dep, needed] : dependencies_of(name, level)) {
    auto it = proposed.find(dep);
    if (it == proposed.end() || it->second < needed)
      return invalid_update(name, level,
                            name + " could not be set to " + std::to_string(level) + " because it depends on " + dep +
                                " level " + std::to_string(needed));
  }
  records.push_back(feature(name, level));
  return {};
}

}  // namespace

controller_result<api_error> feature_control::update_features(const metadata_image& image,
                                                               const std::vector<feature_update>& updates,
                                                               bool validate_only,
                                                               const feature_update_context& context) {
  // Each feature's last update counts, at its first place (HashMap.put).
  std::map<std::string, feature_update, std::less<>> by_name;
  std::vector<std::string> names;
  for (const feature_update& u : updates) {
    names.push_back(u.name);
    by_name[u.name] = u;
  }
  std::map<std::string, int16_t, std::less<>> proposed(image.features.begin(), image.features.end());
  proposed[std::string(metadata_version::feature_name)] = image.version().level;
  for (const auto& [name, u] : by_name) proposed[name] = u.level;

  controller_result<api_error> out;
  std::vector<metadata_record> records;
  for (const std::string& name : java_map_order(names, 16)) {
    api_error e = update_one(image, by_name.at(name), proposed, validate_only, context, records);
    if (!e.ok()) {
      out.response = std::move(e);
      return out;
    }
  }
  if (!validate_only) out.records = std::move(records);
  return out;
}

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
    metadata_version mv, int32_t min_insync_replicas, const std::vector<msg::user_scram_credential_record>& scram,
    const std::map<std::string, int16_t>* features) {
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
  // brokers do not support it (and would be refused registration).
  static const std::map<std::string, int16_t> latest_defaults{{"eligible.leader.replicas.version", 1},
                                                              {"group.version", 1},
                                                              {"streams.version", 1},
                                                              {"transaction.version", 2}};
  static const std::map<std::string, int16_t> none;
  const auto& levels = features ? *features : mv >= latest_production_metadata_version ? latest_defaults : none;
  bool elr = false;
  for (const auto& [name, level] : levels) {
    if (name == metadata_version::feature_name || name == "kraft.version" || level <= 0) continue;
    out.push_back(feature(name, level));
    elr |= name == "eligible.leader.replicas.version" && mv.elr_supported();
  }
  out.insert(out.end(), scram.begin(), scram.end());
  if (elr) {
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
