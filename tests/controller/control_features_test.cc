// UpdateFeatures on the quorum controller (feature_control.h): Kafka 4.3.1's
// checks in its order, its messages, the records an upgrade writes and what
// the new levels switch.

#include <gtest/gtest.h>

#include "controller_harness.h"

namespace hw::controller::testing {
namespace {

constexpr int16_t upgrade = 1, safe_downgrade = 2, unsafe_downgrade = 3;
const std::string all_failed = "The update failed for all features since the following feature had an error: ";

struct features_harness : harness {
  explicit features_harness(metadata_version mv) : harness({}, mv) {
    context.node_id = 3000;
    context.local_supported = {{"metadata.version", {7, 30}},        {"kraft.version", {0, 1}},
                               {"transaction.version", {0, 2}},      {"group.version", {0, 1}},
                               {"eligible.leader.replicas.version", {0, 1}}, {"streams.version", {0, 1}}};
    context.quorum_node_ids = {3000};
  }

  // A broker registering the ranges this build supports (metadata.version up to max_mv).
  void add_broker(int32_t id, int16_t max_mv = 30) {
    auto r = registration(id);
    r.features.clear();
    for (const auto& [name, range] : context.local_supported)
      r.features.push_back({name, range.min_version, name == "metadata.version" ? max_mv : range.max_version, {}});
    auto response = run(controller.register_broker(r, next_offset, now_ms));
    ASSERT_EQ(response.error_code, 0) << id;
  }

  msg::update_features_response update(std::vector<std::tuple<std::string, int16_t, int8_t>> updates,
                                        int16_t version = 2, bool validate_only = false) {
    msg::update_features_request request;
    request.validate_only = validate_only;
    for (auto& [name, level, type] : updates) {
      auto& u = request.feature_updates.emplace_back();
      u.feature = name;
      u.max_version_level = level;
      u.upgrade_type = type;
    }
    auto result = controller.update_features(request, version, context);
    written = result.records;
    return run(std::move(result));
  }

  feature_update_context context;
  std::vector<metadata_record> written;
};

TEST(FeatureUpdates, UpgradingMetadataVersionWritesOneRecordAndTheImageFollows) {
  features_harness h(metadata_version{21});  // 3.9-IV0
  h.add_broker(1);
  h.add_broker(2);
  auto r = h.update({{"metadata.version", 30, upgrade}}, 1);
  EXPECT_EQ(r.error_code, 0);
  EXPECT_FALSE(r.error_message.has_value());  // Kafka's ApiError.NONE message: null
  ASSERT_EQ(r.results.size(), 1u);            // versions 0 and 1 list each feature
  EXPECT_EQ(r.results[0].feature, "metadata.version");
  EXPECT_EQ(r.results[0].error_message, "NONE");
  ASSERT_EQ(h.written.size(), 1u);
  const auto* rec = std::get_if<msg::feature_level_record>(&h.written[0]);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->feature_level, 30);
  EXPECT_EQ(h.image().version().level, 30);
  EXPECT_TRUE(h.image().version().elr_supported());
  // Version 2 lists no results.
  EXPECT_TRUE(h.update({{"group.version", 1, upgrade}}).results.empty());
  EXPECT_EQ(h.image().feature_level("group.version"), 1);
}

TEST(FeatureUpdates, ValidateOnlyWritesNothing) {
  features_harness h(metadata_version{21});
  h.add_broker(1);
  auto r = h.update({{"metadata.version", 30, upgrade}}, 2, true);
  EXPECT_EQ(r.error_code, 0);
  EXPECT_TRUE(h.written.empty());
  EXPECT_EQ(h.image().version().level, 21);
}

TEST(FeatureUpdates, EveryRegisteredNodeMustSupportTheLevel) {
  features_harness h(metadata_version{21});
  h.add_broker(1);
  h.add_broker(2, 28);
  auto r = h.update({{"metadata.version", 30, upgrade}});
  EXPECT_EQ(r.error_code, static_cast<int16_t>(error_code::invalid_update_version));
  EXPECT_EQ(r.error_message,
            all_failed + "Invalid update version 30 for feature metadata.version. Broker 2 only supports versions 7-28");
  EXPECT_TRUE(h.written.empty());
  // A feature nobody here knows: this controller refuses it first.
  r = h.update({{"share.version", 1, upgrade}});
  EXPECT_EQ(r.error_message,
            all_failed + "Invalid update version 1 for feature share.version. Local controller 3000 does not support "
                         "this feature.");
  // A level past this build's.
  r = h.update({{"metadata.version", 31, upgrade}});
  EXPECT_EQ(r.error_message, all_failed +
                                 "Invalid update version 31 for feature metadata.version. Local controller 3000 only "
                                 "supports versions 7-30");
}

TEST(FeatureUpdates, EveryVoterMustHaveRegisteredOnceControllersRegister) {
  features_harness h(metadata_version{21});
  h.add_broker(1);
  h.context.quorum_node_ids = {3000, 3001};
  auto r = h.update({{"group.version", 1, upgrade}});
  EXPECT_EQ(r.error_message, all_failed +
                                 "Invalid update version 1 for feature group.version. controller 3001 has not "
                                 "registered, and may not support this feature");
  // Before 3.7-IV0 controllers do not register: nothing to check.
  features_harness old(metadata_version{14});
  old.add_broker(1);
  old.context.quorum_node_ids = {3000, 3001};
  EXPECT_EQ(old.update({{"metadata.version", 21, upgrade}}).error_code, 0);
}

TEST(FeatureUpdates, DirectionAndTypeMustAgree) {
  features_harness h(latest_production_metadata_version);
  h.add_broker(1);
  auto r = h.update({{"group.version", 0, upgrade}});
  EXPECT_EQ(r.error_message, all_failed +
                                 "Invalid update version 0 for feature group.version. Can't downgrade the version of "
                                 "this feature without setting the upgrade type to either safe or unsafe downgrade.");
  r = h.update({{"transaction.version", 2, safe_downgrade}});  // already 2: no change, allowed
  EXPECT_EQ(r.error_code, 0);
  h.update({{"transaction.version", 1, safe_downgrade}});
  r = h.update({{"transaction.version", 2, safe_downgrade}});
  EXPECT_EQ(r.error_message,
            all_failed + "Invalid update version 2 for feature transaction.version. Can't downgrade to a newer version.");
  r = h.update({{"group.version", 1, 7}});
  EXPECT_EQ(r.error_message, all_failed +
                                 "Invalid update version 1 for feature group.version. The controller does not support "
                                 "the given upgrade type.");
  r = h.update({{"group.version", -1, safe_downgrade}});
  EXPECT_EQ(r.error_message,
            all_failed + "Invalid update version -1 for feature group.version. A feature version cannot be less than 0.");
}

TEST(FeatureUpdates, DisablingAFeatureRemovesIt) {
  features_harness h(latest_production_metadata_version);
  h.add_broker(1);
  ASSERT_EQ(h.image().feature_level("group.version"), 1);
  EXPECT_EQ(h.update({{"group.version", 0, safe_downgrade}}).error_code, 0);
  EXPECT_FALSE(h.image().feature_level("group.version").has_value());
}

TEST(FeatureUpdates, MetadataDowngradesThatLoseMetadataAreRefused) {
  features_harness h(latest_production_metadata_version);
  h.add_broker(1);
  auto r = h.update({{"metadata.version", 29, safe_downgrade}});
  EXPECT_EQ(r.error_message, all_failed +
                                 "Unsupported metadata.version downgrade from 30 to 29. Refusing to perform the "
                                 "requested downgrade because it might delete metadata information.");
  r = h.update({{"metadata.version", 29, unsafe_downgrade}});
  EXPECT_EQ(r.error_message, all_failed +
                                 "Unsupported metadata.version downgrade from 30 to 29. Unsafe metadata downgrade is "
                                 "not supported in this version.");
  // 4.2-IV1 down to 4.0-IV1: no version between changed the metadata.
  features_harness mid(metadata_version{29});
  mid.add_broker(1);
  EXPECT_EQ(mid.update({{"metadata.version", 23, safe_downgrade}}).error_code, 0);
  EXPECT_EQ(mid.image().version().level, 23);
  EXPECT_NE(mid.update({{"metadata.version", 22, safe_downgrade}}).error_code, 0);  // 4.0-IV1 added ELR
}

TEST(FeatureUpdates, DependenciesAreCheckedAgainstTheProposedLevels) {
  features_harness h(metadata_version{22});  // 4.0-IV0: no ELR yet
  h.add_broker(1);
  auto r = h.update({{"eligible.leader.replicas.version", 1, upgrade}});
  EXPECT_EQ(r.error_message, all_failed +
                                 "Invalid update version 1 for feature eligible.leader.replicas.version. "
                                 "eligible.leader.replicas.version could not be set to 1 because it depends on "
                                 "metadata.version level 23");
  // With metadata.version in the same request it goes through, and turning
  // ELR on fixes the cluster-wide min.insync.replicas first.
  r = h.update({{"metadata.version", 30, upgrade}, {"eligible.leader.replicas.version", 1, upgrade}});
  ASSERT_EQ(r.error_code, 0) << r.error_message.value_or("");
  ASSERT_GE(h.written.size(), 3u);
  const auto* min_isr = std::get_if<msg::config_record>(&h.written[0]);
  ASSERT_NE(min_isr, nullptr);
  EXPECT_EQ(min_isr->resource_name, "");
  EXPECT_EQ(min_isr->name, "min.insync.replicas");
  EXPECT_EQ(min_isr->value, "1");
  EXPECT_TRUE(feature_control::elr_enabled(h.image()));
}

TEST(FeatureUpdates, TheFirstRefusalInKafkasHashMapOrderIsTheAnswer) {
  features_harness h(latest_production_metadata_version);
  h.add_broker(1);
  // java.util.HashMap walks {foo.bar, group.version} as [group.version, foo.bar].
  auto r = h.update({{"foo.bar", 1, upgrade}, {"group.version", -1, upgrade}});
  EXPECT_EQ(r.error_message,
            all_failed + "Invalid update version -1 for feature group.version. A feature version cannot be less than 0.");
  EXPECT_TRUE(h.written.empty());
  EXPECT_EQ(feature_control::update_features(h.image(), {{"group.version", 1, upgrade}, {"foo.bar", 1, upgrade}},
                                             false, h.context)
                .response.message,
            "Invalid update version 1 for feature foo.bar. Local controller 3000 does not support this feature.");
}

TEST(FeatureUpdates, KraftVersionGoesToTheRaftLayer) {
  features_harness h(latest_production_metadata_version);
  h.add_broker(1);
  std::vector<std::pair<int16_t, bool>> asked;
  h.context.kraft_version = 1;
  h.context.upgrade_kraft_version = [&](int16_t level, bool validate_only) {
    asked.emplace_back(level, validate_only);
    return api_error{};
  };
  auto r = h.update({{"kraft.version", 1, upgrade}});
  EXPECT_EQ(r.error_code, 0);
  ASSERT_EQ(asked.size(), 1u);
  ASSERT_EQ(h.written.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<msg::no_op_record>(h.written[0]));
  r = h.update({{"kraft.version", 0, safe_downgrade}});
  EXPECT_EQ(r.error_message,
            all_failed + "Invalid update version 0 for feature kraft.version. Can't downgrade the version of this feature.");
  h.context.upgrade_kraft_version = [](int16_t, bool) {
    return api_error{error_code::invalid_update_version, "Invalid upgrade of kraft.version from version 0 to 1"};
  };
  h.context.kraft_version = 0;
  r = h.update({{"kraft.version", 1, upgrade}});
  EXPECT_EQ(r.error_message, all_failed + "Invalid upgrade of kraft.version from version 0 to 1");
}

}  // namespace
}  // namespace hw::controller::testing
