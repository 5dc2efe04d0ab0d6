#include "tools/commands/features.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "protocol/messages/api_versions.h"
#include "tools/commands/feature_levels.h"

namespace hw::tools {
namespace {

std::string trim(std::string_view s) {
  // String.trim: every character up to ' ' counts as space.
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return std::string(s);
}

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::string feature_level_string(std::string_view feature, int16_t level) {
  if (feature != "metadata.version") return std::to_string(level);
  const metadata_version_info* v = metadata_version_by_level(level);
  return v ? std::string(v->name) : "UNKNOWN " + std::to_string(level);
}

std::string format_feature_describe(const protocol::msg::api_versions_response& resp) {
  std::vector<const protocol::msg::api_versions_response::supported_feature_key*> supported;
  for (const auto& f : resp.supported_features) supported.push_back(&f);
  std::sort(supported.begin(), supported.end(), [](auto* a, auto* b) { return a->name < b->name; });
  const std::string epoch = resp.finalized_features_epoch >= 0 ? std::to_string(resp.finalized_features_epoch) : "-";
  std::string out;
  for (const auto* f : supported) {
    int16_t finalized = 0;
    for (const auto& fin : resp.finalized_features)
      if (fin.name == f->name) finalized = fin.max_version_level;
    out += "Feature: " + pad(f->name, 40) + "  SupportedMinVersion: " + pad(feature_level_string(f->name, f->min_version), 15) +
           "  SupportedMaxVersion: " + pad(feature_level_string(f->name, f->max_version), 15) +
           "  FinalizedVersionLevel: " + pad(feature_level_string(f->name, finalized), 15) + "  Epoch: " + epoch + "\n";
  }
  return out;
}

bool parse_feature_level(const std::string& input, std::string* name, int16_t* level, std::string* error) {
  const size_t eq = input.find('=');
  if (eq == std::string::npos) {
    *error = "Can't parse feature=level string " + input + ": equals sign not found.";
    return false;
  }
  *name = trim(std::string_view(input).substr(0, eq));
  const std::string level_text = trim(std::string_view(input).substr(eq + 1));
  auto parsed = java_parse_short(level_text);
  if (!parsed) {
    *error = "Can't parse feature=level string " + input + ": unable to parse " + level_text + " as a short.";
    return false;
  }
  *level = *parsed;
  return true;
}

bool feature_updates_from(const std::string& op, const cli::arg_values& v, std::map<std::string, int16_t>* updates,
                          std::string* notice, std::string* error) {
  const auto metadata = v.value("metadata");
  const auto features = v.values("feature");
  const auto release = v.value("release_version");
  const bool upgrade = op == "upgrade";
  updates->clear();
  if (release && (metadata || v.has("feature"))) {
    *error = "Can not specify `release-version` with other feature flags.";
    return false;
  }
  if (release) {
    const metadata_version_info* mv = metadata_version_from_string(*release, true);
    if (!mv) {
      *error = unknown_metadata_version_message(*release, true);
      return false;
    }
    (*updates)["metadata.version"] = mv->level;
    for (const auto& f : production_features()) {
      const int16_t level = f.default_level(mv->level);
      if (upgrade && level <= 0) continue;  // an upgrade leaves features a release does not turn on
      (*updates)[std::string(f.name)] = level;
    }
  }
  if (metadata) {
    *notice += " `metadata` flag is deprecated and may be removed in a future release.\n";
    const metadata_version_info* mv = metadata_version_from_string(*metadata, true);
    if (!mv) {
      *error = unknown_metadata_version_message(*metadata, true);
      return false;
    }
    (*updates)["metadata.version"] = mv->level;
  }
  for (const auto& f : features) {
    std::string name;
    int16_t level = 0;
    if (!parse_feature_level(f, &name, &level, error)) return false;
    // The admin client's FeatureUpdate refuses these before anything is sent.
    if (level == 0 && upgrade) {
      *error = "The upgradeType flag should be set to SAFE_DOWNGRADE or UNSAFE_DOWNGRADE when the provided "
               "maxVersionLevel:0 is < 1.";
      return false;
    }
    if (level < 0) {
      *error = "Cannot specify a negative version level.";
      return false;
    }
    if (!updates->emplace(name, level).second) {
      *error = "Feature " + name + " was specified more than once.";
      return false;
    }
  }
  return true;
}

std::string format_update_results(const std::string& op, const std::map<std::string, int16_t>& updates,
                                  const std::map<std::string, std::string>& failures, bool dry_run) {
  std::string out;
  for (const auto& [feature, level] : updates) {
    auto failed = failures.find(feature);
    if (failed != failures.end()) {
      out += std::string(dry_run ? "Can not " : "Could not ") +
             (op == "disable" ? "disable " + feature : op + " " + feature + " to " + std::to_string(level)) + ". " +
             failed->second + "\n";
    } else {
      out += feature + (dry_run ? " can be " : " was ") +
             (op == "disable" ? std::string("disabled.") : op + "d to " + std::to_string(level) + ".") + "\n";
    }
  }
  return out;
}

bool feature_dependencies_text(const std::vector<std::string>& features, std::string* out, std::string* error) {
  for (const auto& input : features) {
    std::string name;
    int16_t level = 0;
    if (!parse_feature_level(input, &name, &level, error)) return false;
    if (name == "metadata.version") {
      const metadata_version_info* mv = metadata_version_by_level(level);
      if (!mv) {
        *error = "Unknown metadata.version " + std::to_string(level);
        return false;
      }
      *out += name + "=" + std::to_string(level) + " (" + std::string(mv->name) + ") has no dependencies.\n";
      continue;
    }
    const feature_info* feature = feature_by_name(name);
    if (!feature) {
      *error = "Unknown feature: " + name;
      return false;
    }
    const feature_version_info* version = feature->version(level, true);
    if (!version) {
      *error = "No feature:" + name + " with feature level " + std::to_string(level);
      return false;
    }
    *out += dependencies_text(name + "=" + std::to_string(level), *version);
  }
  return true;
}

}  // namespace hw::tools
