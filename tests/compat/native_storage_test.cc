// The native kafka-storage.sh against Kafka 4.3.1's StorageTool: the same
// sub-commands on the same kind of fresh directories print the same lines,
// and the directories the native tool formats start a highwater broker.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "broker_process.h"
#include "kafka_tool.h"
#include "native_tool.h"
#include "controller/bootstrap_metadata.h"
#include "controller/raft/snapshot_file.h"
#include "protocol/messages/kraft_control_records.h"
#include "protocol/wire/uuid.h"

namespace hw::testing {
namespace {

namespace fs = std::filesystem;
const char* const k_storage_tool = "kafka.tools.StorageTool";
const std::string k_cluster = "MkU3OEVBNTcwNTJENDM2Qk";

std::string read_all(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class NativeStorageIT : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("native-storage-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  void TearDown() override { fs::remove_all(root); }
  std::string path(const std::string& name) const { return (root / name).string(); }
  // A combined node with a dynamic quorum (what --standalone is for).
  std::string write_config(uint16_t controller_port) const {
    const std::string file = path("server.properties");
    std::ofstream(file) << "process.roles=broker,controller\nnode.id=1\ncontroller.listener.names=CONTROLLER\n"
                        << "listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:" << controller_port << "\n"
                        << "controller.quorum.bootstrap.servers=127.0.0.1:" << controller_port << "\n"
                        << "log.dirs=" << path("d1") << "," << path("d2") << "\nmetadata.log.dir=" << path("meta") << "\n";
    return file;
  }
  void wipe() {
    for (const char* d : {"d1", "d2", "meta"}) fs::remove_all(path(d));
  }
  fs::path root;
};

// The one line that differs by design: Kafka bootstraps share.version too,
// which the Highwater broker does not support, so the native tool shows the
// features the broker will in fact finalize.
std::string without_unsupported_features(std::string line) {
  for (const char* f : {"share.version"}) {
    const std::string record =
        ", ApiMessageAndVersion(FeatureLevelRecord(name='" + std::string(f) + "', featureLevel=1) at version 0)";
    if (auto at = line.find(record); at != std::string::npos) line.erase(at, record.size());
  }
  return line;
}

// Directory ids are random on every format: only their form is compared.
std::string mask_directory_ids(const std::string& text) {
  static const std::regex id("directory.id=[A-Za-z0-9_-]{22}");
  return std::regex_replace(text, id, "directory.id=<id>");
}

TEST_F(NativeStorageIT, RandomUuidIsAKafkaUuid) {
  auto a = run_native_tool(path(""), "kafka-storage.sh", {"random-uuid"});
  auto b = run_native_tool(path(""), "kafka-storage.sh", {"random-uuid"});
  ASSERT_EQ(a.exit_code, 0) << a.all();
  const auto lines = lines_of(a.out);
  ASSERT_EQ(lines.size(), 1u) << a.all();
  EXPECT_TRUE(std::regex_match(lines[0], std::regex("[A-Za-z0-9_][A-Za-z0-9_-]{21}"))) << lines[0];
  auto id = protocol::uuid::parse(lines[0]);
  ASSERT_TRUE(id) << lines[0];
  EXPECT_FALSE(id->is_reserved());
  EXPECT_NE(a.out, b.out);
  // Kafka's own tool accepts it as a cluster id below; the Java one makes the same form.
  auto java = run_kafka_tool(path(""), k_storage_tool, {"random-uuid"});
  EXPECT_TRUE(std::regex_match(tool_lines(java).at(0), std::regex("[A-Za-z0-9_][A-Za-z0-9_-]{21}")));
}

TEST_F(NativeStorageIT, FormatAndInfoAsKafkaThenTheBrokerStarts) {
  broker_process broker;
  auto chosen = start_on_fresh_ports(1, [&](const std::vector<uint16_t>& ports) {
    const std::string config = write_config(ports[0]);
    wipe();
    // Kafka's tool first, on the directories the native one then formats afresh
    // (the same paths: Kafka reports directories in its HashMap's order).
    auto java = run_kafka_tool(path(""), k_storage_tool, {"format", "-c", config, "-t", k_cluster, "--standalone"});
    EXPECT_EQ(java.exit_code, 0) << java.all();
    auto java_info = run_kafka_tool(path(""), k_storage_tool, {"info", "-c", config});
    wipe();
    auto native = run_native_tool(path(""), "kafka-storage.sh", {"format", "-c", config, "-t", k_cluster, "--standalone"});
    EXPECT_EQ(native.exit_code, 0) << native.all();
    auto java_lines = tool_lines(java), native_lines = lines_of(native.out);
    EXPECT_EQ(java_lines.size(), native_lines.size()) << java.all() << native.all();
    for (size_t i = 0; i < std::min(java_lines.size(), native_lines.size()); ++i)
      EXPECT_EQ(i == 0 ? without_unsupported_features(java_lines[i]) : java_lines[i], native_lines[i]);
    auto native_info = run_native_tool(path(""), "kafka-storage.sh", {"info", "-c", config});
    EXPECT_EQ(native_info.exit_code, java_info.exit_code) << native_info.all();
    EXPECT_EQ(mask_directory_ids(native_info.out), mask_directory_ids(java_info.out));
    // Kafka's tool reads what the native one wrote the same way.
    auto java_reads_native = run_kafka_tool(path(""), k_storage_tool, {"info", "-c", config});
    EXPECT_EQ(tool_lines(java_reads_native), lines_of(native_info.out));

    // Formatted twice: Kafka's refusal, and --ignore-formatted.
    auto again = run_native_tool(path(""), "kafka-storage.sh", {"format", "-c", config, "-t", k_cluster, "--standalone"});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find("is already formatted. Use --ignore-formatted"), std::string::npos) << again.all();
    auto ignored = run_native_tool(path(""), "kafka-storage.sh",
                                   {"format", "-c", config, "-t", k_cluster, "--standalone", "--ignore-formatted"});
    EXPECT_EQ(ignored.out, "All of the log directories are already formatted.\n");

    const std::string controller = "127.0.0.1:" + std::to_string(ports[0]);
    return started_or_port_taken(
        broker.start({"--config", config, "--override", "listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://" + controller}),
        {&broker});
  });
  ASSERT_TRUE(chosen) << broker.log();
  // The broker took the formatted identity: its cluster id, through the native quorum tool.
  auto status = run_native_tool(path(""), "kafka-metadata-quorum.sh",
                                {"--bootstrap-server", "127.0.0.1:" + std::to_string(broker.port()), "describe", "--status"});
  ASSERT_EQ(status.exit_code, 0) << status.all() << broker.log();
  EXPECT_TRUE(printed_line(status, "ClusterId:              " + k_cluster)) << status.all();
}

TEST_F(NativeStorageIT, ErrorsAndRefusalsAsKafka) {
  const std::string config = write_config(9093);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"format", "-c", config}, {"frob"}, {"format", "-c", config, "-t", k_cluster, "-s", "-N"},
        {"format", "-c", config, "-t", k_cluster},  // a controller without voters must say which quorum
        {"version-mapping", "-r", "9.9"}, {"feature-dependencies", "-f", "group.version=7"}}) {
    SCOPED_TRACE(args[0]);
    auto java = run_kafka_tool(path(""), k_storage_tool, args);
    auto native = run_native_tool(path(""), "kafka-storage.sh", args);
    EXPECT_EQ(native.exit_code, java.exit_code) << native.all() << java.all();
    EXPECT_EQ(native.err, java.err);
    EXPECT_EQ(lines_of(native.out), tool_lines(java));
  }
  for (const std::vector<std::string>& args : {std::vector<std::string>{"version-mapping"}, {"version-mapping", "-r", "3.9"},
                                                {"feature-dependencies", "-f", "eligible.leader.replicas.version=1"}}) {
    auto java = run_kafka_tool(path(""), k_storage_tool, args);
    auto native = run_native_tool(path(""), "kafka-storage.sh", args);
    EXPECT_EQ(native.exit_code, 0) << native.all();
    EXPECT_EQ(lines_of(native.out), tool_lines(java));
  }
  // An older release: the same bootstrap metadata and lines as Kafka's.
  for (const char* release : {"3.9", "4.0-IV1", "3.5-IV2"}) {
    SCOPED_TRACE(release);
    wipe();
    auto java = run_kafka_tool(path(""), k_storage_tool, {"format", "-c", config, "-t", k_cluster, "-N", "-r", release});
    wipe();
    auto native = run_native_tool(path(""), "kafka-storage.sh", {"format", "-c", config, "-t", k_cluster, "-N", "-r", release});
    EXPECT_EQ(native.exit_code, 0) << native.all();
    EXPECT_EQ(java.exit_code, 0) << java.all();
    auto java_lines = tool_lines(java), native_lines = lines_of(native.out);
    ASSERT_EQ(java_lines.size(), native_lines.size()) << java.all() << native.all();
    for (size_t i = 0; i < java_lines.size(); ++i)
      EXPECT_EQ(i == 0 ? without_unsupported_features(java_lines[i]) : java_lines[i], native_lines[i]);
  }
  wipe();
}

// The line Kafka prints with the keys and the random salts as the native
// tool prints them: keys redacted (the native tool never prints one), a
// random salt masked on both sides.
std::string comparable_bootstrap_line(std::string line, const std::vector<std::string>& random_salt_users) {
  line = without_unsupported_features(line);
  static const std::regex keys("(storedKey|serverKey)=\\[[-0-9, ]*\\]");
  line = std::regex_replace(line, keys, "$1=[redacted]");
  for (const auto& user : random_salt_users) {
    const std::regex salt("(name='" + user + "', mechanism=[12], salt=)\\[[-0-9, ]*\\]");
    line = std::regex_replace(line, salt, "$1[random]");
  }
  return line;
}

TEST_F(NativeStorageIT, AddScramAsKafka) {
  const std::string config = write_config(9093);
  const std::vector<std::string> format{"format", "-c", config, "-t", k_cluster, "-N"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = format;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  // Every refusal: same status, same message, nothing formatted.
  for (const std::string& bad :
       {"SCRAM-SHA-256", "SCRAM-SHA-1=[name=a,password=b]", "SCRAM-SHA-256=name=a,password=b]",
        "SCRAM-SHA-256=[name=a,password=b", "SCRAM-SHA-256=[password=b]", "SCRAM-SHA-256=[name=a]",
        "SCRAM-SHA-256=[name=a,saltedpassword=YCE=]", "SCRAM-SHA-256=[name=a,salt=%%%,password=b]",
        "SCRAM-SHA-256=[name=a,iterations=x1,password=b]", "SCRAM-SHA-256=[name=a,iterations=100,password=b]",
        "SCRAM-SHA-512=[name=a,iterations=20000,password=b]", "SCRAM-SHA-256=[name=a,password=b,foo=1,bar=2]",
        "SCRAM-SHA-256=[name=a,,password=b]", "SCRAM-SHA-256=[]"}) {
    SCOPED_TRACE(bad);
    wipe();
    auto java = run_kafka_tool(path(""), k_storage_tool, with({"--add-scram", bad}));
    auto native = run_native_tool(path(""), "kafka-storage.sh", with({"--add-scram", bad}));
    EXPECT_EQ(native.exit_code, java.exit_code);
    EXPECT_EQ(native.exit_code, 1);
    EXPECT_EQ(native.err, java.err);
    EXPECT_EQ(lines_of(native.out), tool_lines(java));
    EXPECT_FALSE(fs::exists(path("meta")));
  }
  {  // A metadata.version before SCRAM: Kafka's refusal, not the native tool's own.
    auto args = with({"-r", "3.4-IV0", "-S", "SCRAM-SHA-256=[name=a,password=b]"});
    auto java = run_kafka_tool(path(""), k_storage_tool, args);
    auto native = run_native_tool(path(""), "kafka-storage.sh", args);
    EXPECT_EQ(native.exit_code, java.exit_code);
    EXPECT_EQ(native.err, java.err);
  }
  {  // Kafka quotes an undecodable salted password; the native tool does not.
    auto args = with({"-S", "SCRAM-SHA-256=[name=a,salt=N3E=,saltedpassword=@@s3cret@@]"});
    auto java = run_kafka_tool(path(""), k_storage_tool, args);
    auto native = run_native_tool(path(""), "kafka-storage.sh", args);
    EXPECT_EQ(java.err, "Failed to decode given saltedPassword: @@s3cret@@\n");
    EXPECT_EQ(native.exit_code, java.exit_code);
    EXPECT_EQ(native.err, "Failed to decode given saltedPassword\n");
  }
  // Accepted: the same lines (keys redacted, random salts aside).
  const auto ok = with({"--add-scram", "SCRAM-SHA-256=[name=alice,password=alice-secret]", "-S",
                        "SCRAM-SHA-512=[name=bob,iterations=8192,salt=\"N3E=\",saltedpassword=\"YCE=\"]"});
  wipe();
  auto java = run_kafka_tool(path(""), k_storage_tool, ok);
  ASSERT_EQ(java.exit_code, 0) << java.all();
  const std::string java_meta = read_all(path("meta") + "/bootstrap.checkpoint");
  wipe();
  auto native = run_native_tool(path(""), "kafka-storage.sh", ok);
  ASSERT_EQ(native.exit_code, 0) << native.all();
  const auto java_lines = tool_lines(java), native_lines = lines_of(native.out);
  ASSERT_EQ(native_lines.size(), java_lines.size()) << native.all() << java.all();
  EXPECT_EQ(comparable_bootstrap_line(native_lines[0], {"alice"}),
            comparable_bootstrap_line(java_lines[0], {"alice"}));
  for (size_t i = 1; i < java_lines.size(); ++i) EXPECT_EQ(native_lines[i], java_lines[i]);
  EXPECT_NE(native.out.find("storedKey=[redacted], serverKey=[redacted]"), std::string::npos);
  // Both files hold the same credentials (alice's salt is each tool's own).
  for (const char* dir : {"d1", "d2", "meta"}) {
    SCOPED_TRACE(dir);
    const std::string ours = read_all(path(dir) + "/bootstrap.checkpoint");
    controller::bootstrap_metadata k, n;
    std::string error;
    ASSERT_TRUE(controller::decode_bootstrap_metadata(
        protocol::bytes_view(reinterpret_cast<const uint8_t*>(java_meta.data()), java_meta.size()), "kafka", &k, &error))
        << error;
    ASSERT_TRUE(controller::decode_bootstrap_metadata(
        protocol::bytes_view(reinterpret_cast<const uint8_t*>(ours.data()), ours.size()), "native", &n, &error))
        << error;
    ASSERT_EQ(n.scram.size(), 2u);
    ASSERT_EQ(k.scram.size(), 2u);
    EXPECT_EQ(n.scram[1], k.scram[1]);  // bob: all given, so byte for byte
    EXPECT_EQ(n.scram[0].name, "alice");
    EXPECT_EQ(n.scram[0].iterations, k.scram[0].iterations);
    EXPECT_EQ(n.features.at("metadata.version"), k.features.at("metadata.version"));
  }
}

// The quorum's first voters (KIP-853): the bootstrap checkpoint Kafka's tool
// and the native one write for --initial-controllers hold the same
// VotersRecord, byte for byte (the directory ids are given); --standalone's
// names this node on its controller listener with the directory
// meta.properties got; bad voter strings fail with Kafka's messages.
controller::raft::decoded_snapshot read_checkpoint(const std::string& meta_dir) {
  const std::string bytes = read_all(meta_dir + "/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint");
  return controller::raft::decode_snapshot(protocol::bytes_view(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

TEST_F(NativeStorageIT, InitialControllersAsKafka) {
  const std::string config = write_config(9093);
  const std::string dir_a = "tzSCx4mZSXqF6sNl0m0BXw", dir_b = "j17ozX9Do4gj-PLMc-l95g";
  auto format_with = [&](const std::string& voters) {
    return std::vector<std::string>{"format", "-c", config, "-t", k_cluster, "--initial-controllers", voters};
  };
  for (const std::string& voters : {"1@127.0.0.1:9093:" + dir_a + ",2@127.0.0.1:9094:" + dir_b,  // this node listed
                                    "2@127.0.0.1:9094:" + dir_b}) {                               // not listed
    SCOPED_TRACE(voters);
    wipe();
    auto java = run_kafka_tool(path(""), k_storage_tool, format_with(voters));
    ASSERT_EQ(java.exit_code, 0) << java.all();
    auto java_snapshot = read_checkpoint(path("meta"));
    const std::string java_meta = mask_directory_ids(read_all(path("d1") + "/meta.properties"));
    wipe();
    auto native = run_native_tool(path(""), "kafka-storage.sh", format_with(voters));
    ASSERT_EQ(native.exit_code, 0) << native.all();
    auto java_lines = tool_lines(java), native_lines = lines_of(native.out);
    ASSERT_EQ(java_lines.size(), native_lines.size()) << java.all() << native.all();
    for (size_t i = 1; i < java_lines.size(); ++i) EXPECT_EQ(native_lines[i], java_lines[i]);
    auto ours = read_checkpoint(path("meta"));
    ASSERT_TRUE(java_snapshot.ok()) << java_snapshot.error;
    ASSERT_TRUE(ours.ok()) << ours.error;
    EXPECT_EQ(ours.kraft_version, java_snapshot.kraft_version);
    EXPECT_EQ(ours.voters_record, java_snapshot.voters_record);
    EXPECT_TRUE(ours.records.empty());
    EXPECT_FALSE(fs::exists(path("d1") + "/__cluster_metadata-0"));  // the metadata directory alone
    if (voters.starts_with("1@")) EXPECT_NE(read_all(path("meta") + "/meta.properties").find("directory.id=" + dir_a), std::string::npos);
  }
  // --standalone: this node on its controller listener, with its new directory.
  wipe();
  auto standalone = run_native_tool(path(""), "kafka-storage.sh", {"format", "-c", config, "-t", k_cluster, "-s"});
  ASSERT_EQ(standalone.exit_code, 0) << standalone.all();
  auto snap = read_checkpoint(path("meta"));
  ASSERT_TRUE(snap.ok()) << snap.error;
  ASSERT_TRUE(snap.voters_record);
  protocol::reader r(protocol::bytes_view(snap.voters_record->data(), snap.voters_record->size()));
  protocol::msg::voters_record voters;
  voters.decode(r, 0);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(voters.voters.size(), 1u);
  EXPECT_EQ(voters.voters[0].voter_id, 1);
  ASSERT_EQ(voters.voters[0].endpoints.size(), 1u);
  EXPECT_EQ(voters.voters[0].endpoints[0].name, "CONTROLLER");
  EXPECT_EQ(voters.voters[0].endpoints[0].host, "127.0.0.1");
  EXPECT_EQ(voters.voters[0].endpoints[0].port, 9093);
  EXPECT_NE(read_all(path("meta") + "/meta.properties").find("directory.id=" + voters.voters[0].voter_directory_id.to_string()),
            std::string::npos);

  // Bad voter strings: Kafka's IllegalArgumentException (the JVM's first line), nothing formatted.
  // (Not "@...": argparse4j reads it as an arguments file, and its message wraps after a ':' where
  // the native layout does not.)
  for (const std::string& bad : std::vector<std::string>{"", "1", "x@h:1:" + dir_a, "-1@h:1:" + dir_a, "1@", "1@[::1:1:" + dir_a, "1@h",
                                 "1@[::1]1:" + dir_a, "1@h:1", "1@h:x:" + dir_a, "1@h:70000:" + dir_a, "1@h:1:bogus",
                                 "1@h:1:" + dir_a + ",1@g:2:" + dir_b}) {
    SCOPED_TRACE(bad);
    wipe();
    auto java = run_kafka_tool(path(""), k_storage_tool, format_with(bad));
    auto native = run_native_tool(path(""), "kafka-storage.sh", format_with(bad));
    EXPECT_EQ(native.exit_code, java.exit_code);
    EXPECT_EQ(native.exit_code, 1);
    ASSERT_FALSE(lines_of(java.err).empty()) << java.all();
    // argparse4j's own refusals (-1@... read as an option) whole; the parser's as the JVM's first line.
    if (java.err.starts_with("usage:"))
      EXPECT_EQ(native.err, java.err);
    else
      EXPECT_EQ(lines_of(native.err), std::vector<std::string>{lines_of(java.err)[0]}) << java.all();
    EXPECT_FALSE(fs::exists(path("meta")));
  }
}

}  // namespace
}  // namespace hw::testing
