// kafka-metadata-quorum.sh's and kafka-features.sh's output formats, and
// the argparse4j command line they share with kafka-storage.sh, against
// what Kafka 4.3.1's Java tools printed (captured from their runs).

#include <gtest/gtest.h>

#include "protocol/messages/api_versions.h"
#include "protocol/messages/describe_quorum.h"
#include "tools/commands/feature_levels.h"
#include "tools/commands/features.h"
#include "tools/commands/metadata_quorum.h"

namespace hw::tools {
namespace {

quorum_info three_voters() {
  quorum_info q;
  q.leader_id = 2;
  q.leader_epoch = 7;
  q.high_watermark = 120;
  q.voters = {{1, {}, 118, 1000, 900}, {2, {}, 120, 1005, 1005}, {3, {}, 110, 1001, 800}};
  q.observers = {{4, {}, 120, 1004, std::nullopt}};
  q.endpoints[1] = {{"CONTROLLER", "127.0.0.1", 9093}};
  q.endpoints[2] = {{"CONTROLLER", "::1", 9094}};
  return q;
}

TEST(QuorumFormat, StatusAsKafkaPrintsIt) {
  std::string out, error;
  ASSERT_TRUE(format_quorum_status("abc", three_voters(), &out, &error)) << error;
  EXPECT_EQ(out,
            "ClusterId:              abc\n"
            "LeaderId:               2\n"
            "LeaderEpoch:            7\n"
            "HighWatermark:          120\n"
            "MaxFollowerLag:         10\n"
            "MaxFollowerLagTimeMs:   205\n"
            "CurrentVoters:          [{\"id\": 1, \"endpoints\": [\"CONTROLLER://127.0.0.1:9093\"]}, {\"id\": 2, "
            "\"endpoints\": [\"CONTROLLER://[::1]:9094\"]}, {\"id\": 3}]\n"
            "CurrentObservers:       [{\"id\": 4}]\n");
}

TEST(QuorumFormat, LagTimeIsZeroWhenTheLeaderIsTheFirstOfTheFurthestBehind) {
  quorum_info q = three_voters();
  q.voters = {{2, {}, 120, 1005, 1005}, {1, {}, 120, 1000, 900}};
  std::string out, error;
  ASSERT_TRUE(format_quorum_status("c", q, &out, &error));
  EXPECT_NE(out.find("MaxFollowerLag:         0\nMaxFollowerLagTimeMs:   0\n"), std::string::npos) << out;
  // The same offsets with a follower listed first: Kafka measures against it.
  q.voters = {{1, {}, 120, 1000, 900}, {2, {}, 120, 1005, 1005}};
  ASSERT_TRUE(format_quorum_status("c", q, &out, &error));
  EXPECT_NE(out.find("MaxFollowerLagTimeMs:   105\n"), std::string::npos) << out;
}

TEST(QuorumFormat, DirectoryIdsShownWhenNotZero) {
  quorum_info q = three_voters();
  q.voters[0].directory_id = *protocol::uuid::parse("AWqIlZmyQlO8Hy9Me-itPg");
  EXPECT_EQ(format_replica_list(q, {q.voters[0]}),
            "[{\"id\": 1, \"directoryId\": \"AWqIlZmyQlO8Hy9Me-itPg\", \"endpoints\": [\"CONTROLLER://127.0.0.1:9093\"]}]");
}

TEST(QuorumFormat, NoLeaderIsKafkasNoValuePresent) {
  quorum_info q = three_voters();
  q.leader_id = -1;
  std::string out, error;
  EXPECT_FALSE(format_quorum_status("c", q, &out, &error));
  EXPECT_EQ(error, "No value present");
  EXPECT_FALSE(format_quorum_replication(q, false, 0, &out, &error));
}

TEST(QuorumFormat, ReplicationTableIsKafkasPaddedTabbedTable) {
  std::string out, error;
  ASSERT_TRUE(format_quorum_replication(three_voters(), false, 0, &out, &error)) << error;
  EXPECT_EQ(out,
            "NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t\n"
            "2     \tAAAAAAAAAAAAAAAAAAAAAA\t120         \t0  \t1005              \t1005                 \tLeader  \t\n"
            "1     \tAAAAAAAAAAAAAAAAAAAAAA\t118         \t2  \t1000              \t900                  \tFollower\t\n"
            "3     \tAAAAAAAAAAAAAAAAAAAAAA\t110         \t10 \t1001              \t800                  \tFollower\t\n"
            "4     \tAAAAAAAAAAAAAAAAAAAAAA\t120         \t0  \t1004              \t-1                   \tObserver\t\n");
}

TEST(QuorumFormat, HumanReadableIsMillisecondsAgoAndRejectsTheFuture) {
  std::string out, error;
  ASSERT_TRUE(format_quorum_replication(three_voters(), true, 2000, &out, &error)) << error;
  EXPECT_NE(out.find("995 ms ago"), std::string::npos) << out;
  EXPECT_FALSE(format_quorum_replication(three_voters(), true, 1002, &out, &error));
  EXPECT_EQ(error,
            "Error while computing relative time, possible drift in system clock.\nCurrent timestamp is 1002, last "
            "fetch timestamp is 1005");
}

TEST(QuorumFormat, AnswersKafkasClientRejects) {
  protocol::msg::describe_quorum_response resp;
  quorum_info q;
  std::string error;
  EXPECT_FALSE(quorum_info_from(resp, &q, &error));
  EXPECT_EQ(error, "DescribeMetadataQuorum received 0 topics when 1 was expected");
  resp.topics.push_back({"__cluster_metadata", {}, {}});
  resp.topics[0].partitions.resize(1);
  resp.topics[0].partitions[0].error_code = 6;
  resp.topics[0].partitions[0].error_message = std::nullopt;
  EXPECT_FALSE(quorum_info_from(resp, &q, &error));
  EXPECT_EQ(error.rfind("For requests intended only for the leader", 0), 0u) << error;
  resp.topics[0].partitions[0].error_code = 0;
  resp.topics[0].partitions[0].leader_id = 1;
  resp.topics[0].partitions[0].current_voters.push_back({1, {}, 5, -1, 7, {}});
  resp.nodes.push_back({1, {{"CONTROLLER", "h", 9093, {}}}, {}});
  ASSERT_TRUE(quorum_info_from(resp, &q, &error)) << error;
  EXPECT_FALSE(q.voters[0].last_fetch_ms);
  EXPECT_EQ(q.voters[0].last_caught_up_ms, 7);
  EXPECT_EQ(q.endpoints.at(1).front().host, "h");
}

TEST(FeaturesFormat, DescribeLinesAsKafkaPrintsThem) {
  protocol::msg::api_versions_response resp;
  resp.supported_features = {{"transaction.version", 0, 2, {}}, {"metadata.version", 7, 30, {}}};
  resp.finalized_features = {{"metadata.version", 30, 30, {}}};
  resp.finalized_features_epoch = 9;
  EXPECT_EQ(format_feature_describe(resp),
            "Feature: metadata.version                          SupportedMinVersion: 3.3-IV3          "
            "SupportedMaxVersion: 4.3-IV0          FinalizedVersionLevel: 4.3-IV0          Epoch: 9\n"
            "Feature: transaction.version                       SupportedMinVersion: 0                "
            "SupportedMaxVersion: 2                FinalizedVersionLevel: 0                Epoch: 9\n");
  resp.finalized_features_epoch = -1;
  EXPECT_NE(format_feature_describe(resp).find("Epoch: -\n"), std::string::npos);
  EXPECT_EQ(feature_level_string("metadata.version", 99), "UNKNOWN 99");
}

TEST(FeaturesFormat, UpdatesFromTheCommandLine) {
  cli::arg_parser p = features_parser();
  cli::arg_values v;
  cli::arg_error e;
  std::vector<std::string> args{"upgrade", "--release-version", "3.9-IV0"};
  ASSERT_TRUE(p.parse(args, &v, &e)) << e.message;
  std::map<std::string, int16_t> updates;
  std::string notice, error;
  ASSERT_TRUE(feature_updates_from("upgrade", v, &updates, &notice, &error)) << error;
  // An upgrade leaves out what 3.9 does not turn on.
  EXPECT_EQ(updates, (std::map<std::string, int16_t>{{"kraft.version", 1}, {"metadata.version", 21}}));
  ASSERT_TRUE(feature_updates_from("downgrade", v, &updates, &notice, &error)) << error;
  EXPECT_EQ(updates.size(), 7u);
  EXPECT_EQ(updates.at("group.version"), 0);

  args = {"upgrade", "--metadata", "4.3", "--feature", "metadata.version=30"};
  ASSERT_TRUE(p.parse(args, &v, &e)) << e.message;
  EXPECT_FALSE(feature_updates_from("upgrade", v, &updates, &notice, &error));
  EXPECT_EQ(notice, " `metadata` flag is deprecated and may be removed in a future release.\n");
  EXPECT_EQ(error, "Feature metadata.version was specified more than once.");

  // What the admin client's FeatureUpdate refuses before sending.
  args = {"upgrade", "--feature", "group.version=0"};
  ASSERT_TRUE(p.parse(args, &v, &e)) << e.message;
  EXPECT_FALSE(feature_updates_from("upgrade", v, &updates, &notice, &error));
  EXPECT_EQ(error, "The upgradeType flag should be set to SAFE_DOWNGRADE or UNSAFE_DOWNGRADE when the provided "
                   "maxVersionLevel:0 is < 1.");
  args = {"downgrade", "--feature", "group.version=-2"};
  ASSERT_TRUE(p.parse(args, &v, &e)) << e.message;
  EXPECT_FALSE(feature_updates_from("downgrade", v, &updates, &notice, &error));
  EXPECT_EQ(error, "Cannot specify a negative version level.");
  args = {"downgrade", "--feature", "group.version=0"};
  ASSERT_TRUE(p.parse(args, &v, &e)) << e.message;
  EXPECT_TRUE(feature_updates_from("downgrade", v, &updates, &notice, &error)) << error;
}

TEST(FeaturesFormat, UpdateResultsSortedByFeature) {
  const std::map<std::string, int16_t> updates{{"metadata.version", 30}, {"group.version", 1}};
  EXPECT_EQ(format_update_results("upgrade", updates, {{"metadata.version", "The node does not support UPDATE_FEATURES"}},
                                  true),
            "group.version can be upgraded to 1.\n"
            "Can not upgrade metadata.version to 30. The node does not support UPDATE_FEATURES\n");
  EXPECT_EQ(format_update_results("disable", {{"group.version", 0}}, {}, false), "group.version was disabled.\n");
}

TEST(FeaturesFormat, NameAndLevel) {
  std::string name, error;
  int16_t level = 0;
  ASSERT_TRUE(parse_feature_level(" group.version = +1 ", &name, &level, &error));
  EXPECT_EQ(name, "group.version");
  EXPECT_EQ(level, 1);
  EXPECT_FALSE(parse_feature_level("group.version=40000", &name, &level, &error));
  EXPECT_EQ(error, "Can't parse feature=level string group.version=40000: unable to parse 40000 as a short.");
}

TEST(FeatureLevels, Kafka431Tables) {
  ASSERT_TRUE(metadata_version_from_string("3.7", false));
  EXPECT_EQ(metadata_version_from_string("3.7", false)->name, "3.7-IV4");  // the newest 3.7
  EXPECT_EQ(metadata_version_from_string("3.7.1", false)->name, "3.7-IV4");
  EXPECT_FALSE(metadata_version_from_string("4.4-IV0", false));
  EXPECT_TRUE(metadata_version_from_string("4.4-IV0", true));
  EXPECT_FALSE(metadata_version_from_string("4.4", true));  // no production 4.4 yet
  EXPECT_EQ(version_mapping_text(*metadata_version_by_level(21), "3.9-IV0"),
            "metadata.version=21 (3.9-IV0)\nkraft.version=1\ntransaction.version=0\ngroup.version=0\n"
            "eligible.leader.replicas.version=0\nshare.version=0\nstreams.version=0\n");
  std::string out, error;
  ASSERT_TRUE(feature_dependencies_text({"eligible.leader.replicas.version=1", "kraft.version=0"}, &out, &error));
  EXPECT_EQ(out, "eligible.leader.replicas.version=1 requires:\n    metadata.version=23 (4.0-IV1)\n"
                 "kraft.version=0 has no dependencies.\n");
  EXPECT_FALSE(feature_dependencies_text({"group.version=5"}, &out, &error));
  EXPECT_EQ(error, "No feature:group.version with feature level 5");
}

}  // namespace
}  // namespace hw::tools
