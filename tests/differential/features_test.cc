// UpdateFeatures: the same requests to Kafka 4.3.1 and Highwater (both one
// combined node 1, controller quorum of itself), compared field by field
// and their messages word for word. Successes are asked validate_only, so
// the twin's levels never move under the other tests; every refusal
// changes nothing by definition.

#include <tuple>

#include "protocol/messages/update_features.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_update_features = 57;
constexpr int8_t k_upgrade = 1, k_safe = 2, k_unsafe = 3;

msg::update_features_request updating(std::vector<std::tuple<std::string, int16_t, int8_t>> updates,
                                      bool validate_only = true) {
  msg::update_features_request r;
  r.timeout_ms = 30000;
  r.validate_only = validate_only;
  for (auto& [name, level, type] : updates) {
    auto& u = r.feature_updates.emplace_back();
    u.feature = name;
    u.max_version_level = level;
    u.upgrade_type = type;
    u.allow_downgrade = type != k_upgrade;
  }
  return r;
}

void expect_same_update(const exchange& e) {
  expect_same(e);
  const auto k = e.as<msg::update_features_response>(side::kafka);
  const auto h = e.as<msg::update_features_response>(side::highwater);
  EXPECT_EQ(h.error_message, k.error_message) << e.what;
  ASSERT_EQ(h.results.size(), k.results.size()) << e.what;
  for (size_t i = 0; i < k.results.size(); ++i)
    EXPECT_EQ(h.results[i].error_message, k.results[i].error_message) << e.what << " result " << i;
}

using FeaturesDifferential = DifferentialTest;

TEST_F(FeaturesDifferential, AcceptedUpdatesAtEveryVersion) {
  for (int16_t v : {0, 1, 2}) {
    expect_same_update(t().call("same levels", k_update_features, v,
                                updating({{"metadata.version", 30, k_upgrade}, {"group.version", 1, k_upgrade}})));
    expect_same_update(t().call("empty", k_update_features, v, updating({})));
  }
  expect_same_update(t().call("disable", k_update_features, 2, updating({{"streams.version", 0, k_safe}})));
  expect_same_update(t().call("downgrade", k_update_features, 2, updating({{"transaction.version", 1, k_safe}})));
  expect_same_update(t().call("unsafe", k_update_features, 1, updating({{"group.version", 0, k_unsafe}})));
}

TEST_F(FeaturesDifferential, RefusalsAndTheirOrder) {
  const std::vector<std::pair<std::string, std::vector<std::tuple<std::string, int16_t, int8_t>>>> cases = {
      {"unknown feature", {{"no.such.feature", 1, k_upgrade}}},
      {"negative", {{"group.version", -1, k_safe}}},
      {"past the range", {{"group.version", 2, k_upgrade}}},
      {"metadata past", {{"metadata.version", 31, k_upgrade}}},
      {"metadata below", {{"metadata.version", 6, k_safe}}},
      {"downgrade as upgrade", {{"group.version", 0, k_upgrade}}},
      {"downgrade upward", {{"metadata.version", 31, k_safe}}},
      {"unknown type", {{"group.version", 1, 9}}},
      {"type zero", {{"group.version", 1, 0}}},
      {"lossy metadata downgrade", {{"metadata.version", 29, k_safe}}},
      {"unsafe metadata downgrade", {{"metadata.version", 29, k_unsafe}}},
      {"elr dependency", {{"metadata.version", 22, k_safe}, {"eligible.leader.replicas.version", 1, k_upgrade}}},
      {"kraft downgrade", {{"kraft.version", 0, k_safe}}},
      {"first in hash order", {{"foo.bar", 1, k_upgrade}, {"group.version", -1, k_upgrade}}},
      {"several bad", {{"zzz", 1, k_upgrade}, {"aaa", 3, k_upgrade}, {"transaction.version", 7, k_upgrade},
                       {"metadata.version", 5, k_upgrade}}},
  };
  for (int16_t v : {1, 2})
    for (const auto& [what, updates] : cases) {
      expect_same_update(t().call(what, k_update_features, v, updating(updates)));
      expect_same_update(t().call(what + " (applied)", k_update_features, v, updating(updates, false)));
    }
  // Version 0 has no UpgradeType: a downgrade is refused as an upgrade would be.
  expect_same_update(t().call("v0 downgrade", k_update_features, 0, updating({{"group.version", 0, k_safe}})));
}

}  // namespace
}  // namespace hw::testing::differential
