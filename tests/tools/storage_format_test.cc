// kafka-storage.sh's pure parts and its format/info over real directories:
// Java's orders and forms, Kafka's meta.properties checks and messages, and
// what the broker's own reader makes of the files format writes.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "protocol/records/record_batch.h"
#include "storage/io/file_system.h"
#include "storage/meta_properties.h"
#include "tools/commands/java.h"
#include "tools/commands/storage_tool.h"

namespace hw::tools {
namespace {

namespace fs = std::filesystem;

class StorageDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("storage-format-test-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  void TearDown() override { fs::remove_all(root); }
  std::string dir(const std::string& name) const { return (root / name).string(); }
  format_request request() const {
    format_request r;
    r.node_id = 1;
    r.cluster_id = "MkU3OEVBNTcwNTJENDM2Qk";
    r.directories = {dir("d1"), dir("d2")};
    r.metadata_directory = dir("meta");
    r.features = {{"eligible.leader.replicas.version", 1}, {"group.version", 1}, {"transaction.version", 2}};
    return r;
  }
  fs::path root;
};

TEST(StorageOrders, HashMapOrderAsKafkaVisitedTheseDirectories) {
  // Kafka 4.3.1's format printed these directories in this order.
  EXPECT_EQ(java::hash_map_order({"/tmp/h-quorum/sf/d1", "/tmp/h-quorum/sf/d2", "/tmp/h-quorum/sf/meta"}),
            (std::vector<std::string>{"/tmp/h-quorum/sf/d2", "/tmp/h-quorum/sf/d1", "/tmp/h-quorum/sf/meta"}));
  EXPECT_EQ(java::hash_map_order({"/tmp/h-quorum/kf/d1", "/tmp/h-quorum/kf/d2"}),
            (std::vector<std::string>{"/tmp/h-quorum/kf/d2", "/tmp/h-quorum/kf/d1"}));
  EXPECT_EQ(java_path_string("//tmp///a/"), "/tmp/a");
  EXPECT_EQ(java_path_string("/"), "/");
}

TEST(StorageOrders, BootstrapMetadataLineAsKafkaPrintsIt) {
  // With Kafka's own defaults at 4.3-IV0 the line is the one Kafka printed.
  EXPECT_EQ(bootstrap_metadata_string(30, {{"eligible.leader.replicas.version", 1}, {"group.version", 1},
                                           {"kraft.version", 0}, {"share.version", 1}, {"streams.version", 1},
                                           {"transaction.version", 2}}),
            "BootstrapMetadata(records=[ApiMessageAndVersion(FeatureLevelRecord(name='metadata.version', "
            "featureLevel=30) at version 0), ApiMessageAndVersion(FeatureLevelRecord(name='eligible.leader.replicas."
            "version', featureLevel=1) at version 0), ApiMessageAndVersion(FeatureLevelRecord(name='group.version', "
            "featureLevel=1) at version 0), ApiMessageAndVersion(FeatureLevelRecord(name='share.version', "
            "featureLevel=1) at version 0), ApiMessageAndVersion(FeatureLevelRecord(name='streams.version', "
            "featureLevel=1) at version 0), ApiMessageAndVersion(FeatureLevelRecord(name='transaction.version', "
            "featureLevel=2) at version 0)], metadataVersionLevel=30, source=format command)");
}

TEST(StorageMeta, KafkasChecksAndMessages) {
  kafka_meta m;
  std::string error;
  ASSERT_TRUE(kafka_meta_from({{"version", "1"}, {"node.id", "3"}, {"cluster.id", "c"}, {"directory.id", "AWqIlZmyQlO8Hy9Me-itPg"}},
                              &m, &error))
      << error;
  EXPECT_EQ(kafka_meta_string(m), "{cluster.id=c, directory.id=AWqIlZmyQlO8Hy9Me-itPg, node.id=3, version=1}");
  EXPECT_FALSE(kafka_meta_from({{"version", "1"}, {"cluster.id", "c"}}, &m, &error));
  EXPECT_EQ(error, "Failed to find node.id");
  EXPECT_FALSE(kafka_meta_from({{"version", "1"}, {"node.id", "x"}}, &m, &error));
  EXPECT_EQ(error, "Unable to read node.id as a base-10 number.");
  EXPECT_FALSE(kafka_meta_from({{"version", "2"}}, &m, &error));
  EXPECT_EQ(error, "Unknown meta.properties version number 2");
  EXPECT_FALSE(kafka_meta_from({{"version", "1"}, {"node.id", "1"}}, &m, &error));
  EXPECT_EQ(error, "cluster.id was not found.");
  // Version 0 (no version key): broker.id is optional.
  ASSERT_TRUE(kafka_meta_from({{"cluster.id", "c"}}, &m, &error));
  EXPECT_EQ(kafka_meta_string(m), "{cluster.id=c, version=0}");
  EXPECT_TRUE(reserved_directory_id(*protocol::uuid::parse("AAAAAAAAAAAAAAAAAAAAYw")));   // 99
  EXPECT_FALSE(reserved_directory_id(*protocol::uuid::parse("AAAAAAAAAAAAAAAAAAAAZA")));  // 100
}

TEST_F(StorageDirs, FormatThenInfoAndTheBrokersReaderAgrees) {
  std::string out, error;
  ASSERT_TRUE(format_directories(request(), &out, &error)) << error;
  EXPECT_NE(out.find("Formatting data directory " + dir("d1") + " with metadata.version 4.3-IV0.\n"), std::string::npos);
  EXPECT_NE(out.find("Formatting metadata directory " + dir("meta") + " with metadata.version 4.3-IV0.\n"),
            std::string::npos);
  auto posix = storage::make_posix_file_system();
  for (const char* d : {"d1", "d2", "meta"}) {
    storage::meta_properties props;
    ASSERT_FALSE(storage::read_meta_properties(*posix, fs::path(dir(d)) / "meta.properties", &props)) << d;
    EXPECT_EQ(props.cluster_id, "MkU3OEVBNTcwNTJENDM2Qk");
    EXPECT_EQ(props.node, storage::node_id(1));
    EXPECT_TRUE(props.directory_id);
  }
  std::string info;
  EXPECT_EQ(storage_info(true, {dir("meta"), dir("d1"), dir("d2")}, &info), 0) << info;
  EXPECT_EQ(info.rfind("Found log directories:\n  " + dir("d1") + "\n  " + dir("d2") + "\n  " + dir("meta") +
                           "\n\nFound metadata: {cluster.id=MkU3OEVBNTcwNTJENDM2Qk, directory.id=",
                       0),
            0u)
      << info;

  out.clear();
  EXPECT_FALSE(format_directories(request(), &out, &error));
  EXPECT_NE(error.find(" is already formatted. Use --ignore-formatted to ignore this directory and format the others."),
            std::string::npos);
  format_request again = request();
  again.ignore_formatted = true;
  ASSERT_TRUE(format_directories(again, &out, &error)) << error;
  EXPECT_EQ(out, "All of the log directories are already formatted.\n");
  again.cluster_id = "other";
  EXPECT_FALSE(format_directories(again, &out, &error));
  EXPECT_NE(error.find("java.lang.RuntimeException: Invalid cluster.id in: "), std::string::npos) << error;
}

TEST_F(StorageDirs, StandaloneMetadataDirectoryIsTheVoters) {
  format_request r = request();
  r.voter_directory_id = *protocol::uuid::parse("AWqIlZmyQlO8Hy9Me-itPg");
  r.initial_voters = std::vector<dynamic_voter>{{1, "127.0.0.1", 9093, *r.voter_directory_id}};
  r.controller_listener = "CONTROLLER";
  std::string out, error;
  ASSERT_TRUE(format_directories(r, &out, &error)) << error;
  // The quorum's checkpoint, in the metadata directory only.
  EXPECT_TRUE(fs::exists(fs::path(dir("meta")) / bootstrap_snapshot_path));
  EXPECT_FALSE(fs::exists(fs::path(dir("d1")) / bootstrap_snapshot_path));
  EXPECT_NE(out.find("Formatting dynamic metadata voter directory " + dir("meta")), std::string::npos) << out;
  auto posix = storage::make_posix_file_system();
  storage::meta_properties props;
  ASSERT_FALSE(storage::read_meta_properties(*posix, fs::path(dir("meta")) / "meta.properties", &props));
  EXPECT_EQ(props.directory_id, r.voter_directory_id);
}

TEST_F(StorageDirs, InfoProblems) {
  fs::create_directories(dir("empty"));
  std::ofstream(dir("file")) << "x";
  std::string out;
  EXPECT_EQ(storage_info(true, {dir("missing"), dir("empty"), dir("file")}, &out), 1);
  EXPECT_EQ(out, "Found log directory:\n  " + dir("empty") + "\n\nFound problems:\n  " + dir("empty") +
                     " is not formatted.\n  " + dir("file") + " is not a directory\n  " + dir("missing") +
                     " does not exist\n\n");
  out.clear();
  EXPECT_EQ(storage_info(true, {}, &out), 0);
  EXPECT_EQ(out, "No directories specified.\n");
}

TEST(StorageFeatures, DependenciesWithTheStorageToolsMessages) {
  std::string out, error;
  ASSERT_TRUE(storage_feature_dependencies({"eligible.leader.replicas.version=1", "metadata.version=30"}, &out, &error));
  EXPECT_EQ(out, "eligible.leader.replicas.version=1 requires:\n    metadata.version=23 (4.0-IV1)\n"
                 "metadata.version=30 (4.3-IV0) has no dependencies.\n");
  EXPECT_FALSE(storage_feature_dependencies({"group.version=7"}, &out, &error));
  EXPECT_EQ(error, "Feature level 7 is not supported for feature group.version");
  EXPECT_FALSE(storage_feature_dependencies({"foo"}, &out, &error));
  EXPECT_EQ(error, "Invalid feature format: foo. Expected format: 'feature=version' (e.g. 'group.version=1')");
}

}  // namespace
}  // namespace hw::tools

namespace hw::tools {
namespace {

// --initial-controllers as Kafka's DynamicVoters.parse reads it (the
// messages compared with Kafka 4.3.1's in tests/compat/native_storage_test.cc).
TEST(StorageVoters, ParsesKafkasVoterStrings) {
  std::vector<dynamic_voter> voters;
  std::string error;
  ASSERT_TRUE(parse_dynamic_voters(" 2@[::1]:9094:j17ozX9Do4gj-PLMc-l95g,,1@h:9093:tzSCx4mZSXqF6sNl0m0BXw, ", &voters, &error))
      << error;
  ASSERT_EQ(voters.size(), 2u);
  EXPECT_EQ(voters[0].id, 2);
  EXPECT_EQ(voters[0].host, "::1");
  EXPECT_EQ(voters[0].port, 9094);
  EXPECT_EQ(voters[1].directory_id.to_string(), "tzSCx4mZSXqF6sNl0m0BXw");
  const std::pair<const char*, const char*> bad[] = {
      {"", "No voters given."},
      {"1h:1:tzSCx4mZSXqF6sNl0m0BXw", "No @ found in dynamic voter string."},
      {"@h:1:tzSCx4mZSXqF6sNl0m0BXw", "Invalid @ at beginning of dynamic voter string."},
      {"-3@h:1:tzSCx4mZSXqF6sNl0m0BXw", "Invalid negative node id -3 in dynamic voter string."},
      {"1@", "No hostname found after node id."},
      {"1@h:99999:tzSCx4mZSXqF6sNl0m0BXw", "Invalid port 99999 in dynamic voter string."},
      {"1@h:1:x", "Failed to parse directory ID in dynamic voter string."},
      {"1@h:1:tzSCx4mZSXqF6sNl0m0BXw,1@g:2:j17ozX9Do4gj-PLMc-l95g", "Node id 1 was specified more than once."},
  };
  for (const auto& [input, message] : bad) {
    EXPECT_FALSE(parse_dynamic_voters(input, &voters, &error)) << input;
    EXPECT_EQ(error, message) << input;
  }
}

// The checkpoint: a snapshot at offset 0 whose header batch holds
// KRaftVersion 1 and the voters by id, then the footer at offset 3.
TEST(StorageVoters, BootstrapSnapshotHoldsTheVoters) {
  std::vector<dynamic_voter> voters;
  std::string error;
  ASSERT_TRUE(parse_dynamic_voters("2@b:2:j17ozX9Do4gj-PLMc-l95g,1@a:1:tzSCx4mZSXqF6sNl0m0BXw", &voters, &error));
  const auto bytes = bootstrap_snapshot_bytes(voters, "CONTROLLER", 1'700'000'000'000);
  protocol::record_batch_walker walker(protocol::bytes_view(bytes.data(), bytes.size()));
  protocol::record_batch_view b;
  ASSERT_TRUE(walker.next(b));
  EXPECT_EQ(b.record_count(), 3);
  EXPECT_EQ(b.partition_leader_epoch(), 0);
  ASSERT_TRUE(walker.next(b));
  EXPECT_EQ(b.base_offset(), 3);
  EXPECT_FALSE(walker.next(b));
}

}  // namespace
}  // namespace hw::tools
