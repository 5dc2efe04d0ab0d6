#include <gtest/gtest.h>

#include "storage/io/faulty_file_system.h"
#include "storage/meta_properties.h"

namespace hw::storage {
namespace {

// 2026-11-29 09:19:56 UTC, the moment of the Kafka capture below.
const auto capture_time = std::chrono::system_clock::time_point(std::chrono::seconds(1795943996));

// Written by Apache Kafka 4.3.1: kafka.tools.StorageTool format -t MkU3OEVBNTcwNTJENDM2Qk.
constexpr std::string_view kafka_meta_properties =
    "#\n"
    "#Sun Nov 29 09:19:56 UTC 2026\n"
    "node.id=1\n"
    "directory.id=MRFQ1kJc60ikgupOdlqn1w\n"
    "version=1\n"
    "cluster.id=MkU3OEVBNTcwNTJENDM2Qk\n";

meta_properties kafka_props() {
  meta_properties m;
  m.version = 1;
  m.node = node_id(1);
  m.cluster_id = "MkU3OEVBNTcwNTJENDM2Qk";
  m.directory_id = protocol::uuid::parse("MRFQ1kJc60ikgupOdlqn1w");
  return m;
}

storage_error parse(std::string_view text, meta_properties* out) {
  return parse_meta_properties(text, "/logs/meta.properties", out);
}

TEST(meta_properties, writes_what_kafka_writes) {
  EXPECT_EQ(format_meta_properties(kafka_props(), capture_time), kafka_meta_properties);
}

TEST(meta_properties, reads_what_kafka_writes) {
  meta_properties m;
  auto err = parse(kafka_meta_properties, &m);
  ASSERT_FALSE(err) << err.message;
  EXPECT_EQ(m, kafka_props());
}

TEST(meta_properties, version_0_uses_broker_id) {
  meta_properties m;
  ASSERT_FALSE(parse("broker.id=3\ncluster.id=abc\n", &m));  // no version: version 0
  EXPECT_EQ(m.version, 0);
  EXPECT_EQ(m.node, node_id(3));
  ASSERT_FALSE(parse("version=0\n", &m));  // nothing is required in v0
  EXPECT_EQ(m.node, std::nullopt);
  EXPECT_EQ(m.cluster_id, std::nullopt);

  meta_properties v0;
  v0.version = 0;
  v0.node = node_id(7);
  meta_properties back;
  ASSERT_FALSE(parse(format_meta_properties(v0, capture_time), &back));
  EXPECT_EQ(back, v0);
}

TEST(meta_properties, rejects_what_kafka_rejects) {
  meta_properties m;
  EXPECT_EQ(parse("version=2\nnode.id=1\ncluster.id=x\n", &m).code, storage_errc::unsupported_version);
  EXPECT_EQ(parse("version=one\n", &m).code, storage_errc::malformed);
  auto err = parse("version=1\ncluster.id=x\n", &m);
  EXPECT_EQ(err.code, storage_errc::malformed);
  EXPECT_NE(err.message.find("node.id"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("/logs/meta.properties"), std::string::npos) << err.message;
  EXPECT_EQ(parse("version=1\nnode.id=1\n", &m).code, storage_errc::malformed);  // no cluster.id
  EXPECT_EQ(parse("version=1\nnode.id=x\ncluster.id=c\n", &m).code, storage_errc::malformed);
  EXPECT_EQ(parse("version=1\nnode.id=1\ncluster.id=c\ndirectory.id=nope\n", &m).code, storage_errc::malformed);
  EXPECT_EQ(parse("k=\\u00zz\n", &m).code, storage_errc::malformed);
}

TEST(meta_properties, accepts_version_with_spaces_and_ignores_unknown_keys) {
  meta_properties m;
  ASSERT_FALSE(parse("version = 1 \nnode.id=2\ncluster.id=c\nsomething.else=1\n", &m));
  EXPECT_EQ(m.version, 1);
  EXPECT_EQ(m.node, node_id(2));
}

// Each case was run through java.util.Properties.load (OpenJDK 17).
TEST(meta_properties, java_properties_parsing) {
  struct test_case {
    std::string_view in;
    std::map<std::string, std::string> out;
  };
  const test_case cases[] = {
      {"a=1\n", {{"a", "1"}}},
      {"  # c\n! c2\nkey : value with spaces  \n", {{"key", "value with spaces  "}}},
      {"k\\ ey=v\\=x\n", {{"k ey", "v=x"}}},
      {"k v\n", {{"k", "v"}}},
      {"k=\\\n   continued\\\n  more\n", {{"k", "continuedmore"}}},
      {"#x\\\nk=1\n", {{"k", "1"}}},
      {"k:=v\n", {{"k", "=v"}}},
      {"k\n", {{"k", ""}}},
      {"\\u0041=\\u00e9\n", {{"A", "\xc3\xa9"}}},
      {"k=v\\\n", {{"k", "v"}}},
  };
  for (const auto& c : cases) {
    std::map<std::string, std::string> out;
    std::string error;
    ASSERT_TRUE(parse_java_properties(c.in, &out, &error)) << c.in << error;
    EXPECT_EQ(out, c.out) << c.in;
  }
}

TEST(meta_properties, java_properties_escaping) {
  // Properties.store of cluster.id=" a=b:c#d!e\f<TAB>g" wrote this line.
  EXPECT_EQ(escape_java_property("cluster.id", true) + "=" + escape_java_property(" a=b:c#d!e\\f\tg", false),
            "cluster.id=\\ a\\=b\\:c\\#d\\!e\\\\f\\tg");
  std::map<std::string, std::string> out;
  std::string error;
  ASSERT_TRUE(parse_java_properties("cluster.id=\\ a\\=b\\:c\\#d\\!e\\\\f\\tg\n", &out, &error));
  EXPECT_EQ(out["cluster.id"], " a=b:c#d!e\\f\tg");
}

TEST(meta_properties, java_date) {
  EXPECT_EQ(java_date_string(capture_time), "Sun Nov 29 09:19:56 UTC 2026");
  EXPECT_EQ(java_date_string(std::chrono::system_clock::time_point{}), "Thu Jan 01 00:00:00 UTC 1970");
}

TEST(meta_properties, write_is_durable_and_reads_back) {
  faulty_file_system fs;
  ASSERT_FALSE(fs.create_directories("/logs"));
  ASSERT_FALSE(fs.sync_directory("/"));
  ASSERT_FALSE(write_meta_properties(fs, "/logs/meta.properties", kafka_props(), capture_time));
  fs.crash();
  meta_properties m;
  auto err = read_meta_properties(fs, "/logs/meta.properties", &m);
  ASSERT_FALSE(err) << err.message;
  EXPECT_EQ(m, kafka_props());
  EXPECT_EQ(read_meta_properties(fs, "/other/meta.properties", &m).code, std::errc::no_such_file_or_directory);
}

}  // namespace
}  // namespace hw::storage
