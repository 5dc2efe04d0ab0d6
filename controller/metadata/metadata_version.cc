#include "controller/metadata/metadata_version.h"

#include <array>

namespace hw::controller {

namespace {

// Index = level - 7.
constexpr std::array<std::string_view, 25> names = {
    "3.3-IV3", "3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1",
    "3.6-IV2", "3.7-IV0", "3.7-IV1", "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0",
    "3.9-IV0", "4.0-IV0", "4.0-IV1", "4.0-IV2", "4.0-IV3", "4.1-IV0", "4.1-IV1",
    "4.2-IV0", "4.2-IV1", "4.3-IV0", "4.4-IV0",
};

}  // namespace

std::string_view metadata_version::name() const {
  int index = level - minimum_metadata_version.level;
  if (index < 0 || index >= static_cast<int>(names.size())) return {};
  return names[static_cast<size_t>(index)];
}

std::optional<metadata_version> metadata_version::from_name(std::string_view name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return metadata_version{static_cast<int16_t>(minimum_metadata_version.level + i)};
  }
  return std::nullopt;
}

}  // namespace hw::controller
