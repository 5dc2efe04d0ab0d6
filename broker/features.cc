#include "broker/features.h"

#include <array>

#include "controller/metadata/image.h"
#include "controller/metadata/metadata_version.h"

namespace hw::broker {

std::span<const supported_feature> supported_features() {
  static constexpr std::array<supported_feature, 6> kFeatures{{
      {"metadata.version", 7, 30},
      {"kraft.version", 0, 1},
      {"transaction.version", 0, 2},
      {"group.version", 0, 1},
      {"eligible.leader.replicas.version", 0, 1},
      {"streams.version", 0, 1},
  }};
  return kFeatures;
}

finalized_features bootstrap_finalized_features() {
  finalized_features f;
  f.epoch = 0;
  for (const auto& s : supported_features())
    if (s.name == "metadata.version") f.features.push_back({std::string(s.name), s.max_version});
  return f;
}

std::optional<finalized_features> finalized_features_of(const controller::metadata_image& image) {
  if (!image.feature_level(controller::metadata_version::feature_name)) return std::nullopt;
  finalized_features f;
  f.epoch = image.provenance.offset.value;
  for (const auto& [name, level] : image.features)
    if (level != 0) f.features.push_back({name, level});
  return f;
}

}  // namespace hw::broker
