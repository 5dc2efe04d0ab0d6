#include "config/broker_config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <fstream>

#include "config/value_parse.h"

namespace hw::config {
namespace {

load_result build(std::vector<config_entry> entries) { return build_broker_config(entries); }

broker_config build_ok(std::vector<config_entry> entries) {
  auto r = build(std::move(entries));
  for (auto& e : r.errors) ADD_FAILURE() << e;
  return r.config ? *r.config : broker_config{};
}

std::string first_error(std::vector<config_entry> entries) {
  auto r = build(std::move(entries));
  EXPECT_FALSE(r.config.has_value());
  return r.errors.empty() ? "" : r.errors.front();
}

TEST(KeyTable, EveryDefaultParsesAndNamesAreUnique) {
  std::set<std::string_view> names;
  for (const config_key& k : broker_config_keys()) {
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
    EXPECT_FALSE(k.doc.empty()) << k.name;
    if (auto text = k.default_text()) {
      auto r = parse_value(k, *text);
      EXPECT_TRUE(std::holds_alternative<config_value>(r)) << k.name << ": " << std::get<std::string>(r);
    }
  }
  for (const char* required :
       {"node.id", "process.roles", "listeners", "advertised.listeners", "listener.security.protocol.map",
        "controller.listener.names", "inter.broker.listener.name", "controller.quorum.voters",
        "controller.quorum.bootstrap.servers", "log.dirs", "log.dir", "metadata.log.dir", "num.io.threads",
        "num.network.threads", "socket.request.max.bytes", "socket.send.buffer.bytes", "socket.receive.buffer.bytes",
        "connections.max.idle.ms", "queued.max.requests", "max.connections", "message.max.bytes",
        "auto.create.topics.enable", "num.partitions", "default.replication.factor", "min.insync.replicas",
        "offsets.topic.num.partitions", "offsets.topic.replication.factor", "transaction.state.log.num.partitions",
        "log.segment.bytes", "log.retention.ms", "log.retention.hours", "log.flush.interval.messages",
        "log.flush.interval.ms", "group.initial.rebalance.delay.ms", "unclean.leader.election.enable", "broker.id"})
    EXPECT_NE(find_broker_key(required), nullptr) << required;
}

TEST(BrokerConfig, Defaults) {
  broker_config c = build_ok({});
  EXPECT_EQ(c.node_id, 1);
  EXPECT_TRUE(c.has_role("broker"));
  EXPECT_TRUE(c.has_role("controller"));
  ASSERT_EQ(c.listeners.size(), 1u);
  EXPECT_EQ(c.listeners[0].to_string(), "PLAINTEXT://localhost:9092");
  EXPECT_EQ(c.advertised_listeners, c.listeners);
  EXPECT_EQ(c.inter_broker_listener_name, "PLAINTEXT");
  EXPECT_EQ(c.socket_request_max_bytes, 104857600);
  EXPECT_EQ(c.socket_send_buffer_bytes, 102400);
  EXPECT_EQ(c.connections_max_idle_ms, 600000);
  EXPECT_EQ(c.queued_max_requests, 500);
  EXPECT_EQ(c.max_connections, 2147483647);
  EXPECT_EQ(c.connection_max_inflight_requests, 64);
  EXPECT_EQ(c.message_max_bytes, 1048588);
  EXPECT_EQ(c.offsets_topic_num_partitions, 50);
  EXPECT_EQ(c.offsets_topic_replication_factor, 1);  // a one-node cluster: see below
  EXPECT_EQ(c.transaction_state_log_num_partitions, 50);
  EXPECT_EQ(c.log_segment_bytes, 1073741824);
  EXPECT_EQ(c.log_retention_ms, 168LL * 3600 * 1000);
  EXPECT_EQ(c.log_flush_interval_messages, INT64_MAX);
  EXPECT_EQ(c.log_flush_interval_ms, INT64_MAX);
  EXPECT_EQ(c.group_initial_rebalance_delay_ms, 3000);
  EXPECT_FALSE(c.unclean_leader_election_enable);
  EXPECT_TRUE(c.auto_create_topics_enable);
  EXPECT_EQ(c.log_dirs, std::vector<std::string>{"./data"});
  EXPECT_EQ(c.metadata_log_dir, "./data");
  EXPECT_GE(c.num_io_threads, 1);
  EXPECT_TRUE(c.is_null("log.retention.ms"));
  EXPECT_FALSE(c.is_set("listeners"));
}

// Kafka's defaults for the internal topics (RF 3, min ISR 2) can never be
// met by a one-voter cluster; such a node takes the values of Kafka's
// sample server.properties unless told otherwise, a larger quorum Kafka's.
TEST(BrokerConfig, InternalTopicsDefaultToOneReplicaOnlyInAOneVoterCluster) {
  broker_config alone = build_ok({});
  EXPECT_EQ(alone.get_int("offsets.topic.replication.factor"), 1);
  EXPECT_EQ(alone.get_int("transaction.state.log.replication.factor"), 1);
  EXPECT_EQ(alone.get_int("transaction.state.log.min.isr"), 1);
  broker_config one_voter = build_ok({{"controller.quorum.voters", "1@localhost:9093", "test"},
                                      {"listeners", "PLAINTEXT://:9092,CONTROLLER://:9093", "test"},
                                      {"controller.listener.names", "CONTROLLER", "test"}});
  EXPECT_EQ(one_voter.offsets_topic_replication_factor, 1);
  broker_config told = build_ok({{"offsets.topic.replication.factor", "2", "test"}});
  EXPECT_EQ(told.offsets_topic_replication_factor, 2);
  EXPECT_EQ(told.get_int("transaction.state.log.min.isr"), 1);
  broker_config cluster =
      build_ok({{"controller.quorum.voters", "1@localhost:9093,2@localhost:9095,3@localhost:9097", "test"},
                {"listeners", "PLAINTEXT://:9092,CONTROLLER://:9093", "test"},
                {"controller.listener.names", "CONTROLLER", "test"}});
  EXPECT_EQ(cluster.offsets_topic_replication_factor, 3);
  EXPECT_EQ(cluster.get_int("transaction.state.log.replication.factor"), 3);
  EXPECT_EQ(cluster.get_int("transaction.state.log.min.isr"), 2);
}

TEST(BrokerConfig, KafkaErrorWording) {
  EXPECT_EQ(first_error({{"socket.request.max.bytes", "-5", "--override"}}),
            "Invalid value -5 for configuration socket.request.max.bytes: Value must be at least 1");
  EXPECT_EQ(first_error({{"num.partitions", "many", "--override"}}),
            "Invalid value many for configuration num.partitions: Not a number of type INT");
  EXPECT_EQ(first_error({{"num.partitions", "4294967296", "--override"}}),
            "Invalid value 4294967296 for configuration num.partitions: Not a number of type INT");
  EXPECT_EQ(first_error({{"auto.create.topics.enable", "yes", "--override"}}),
            "Invalid value yes for configuration auto.create.topics.enable: Expected value to be either true or false");
  EXPECT_EQ(first_error({{"process.roles", "broker,zookeeper", "--override"}}),
            "Invalid value broker,zookeeper for configuration process.roles: String must be one of: broker, controller");
  EXPECT_EQ(first_error({{"log.message.timestamp.type", "Now", "--override"}}),
            "Invalid value Now for configuration log.message.timestamp.type: String must be one of: CreateTime, LogAppendTime");
  EXPECT_EQ(first_error({{"log.segment.bytes", "1000", "--override"}}),
            "Invalid value 1000 for configuration log.segment.bytes: Value must be at least 1048576");
  EXPECT_EQ(first_error({{"ssl.keystore.password", "x", "f"}, {"num.partitions", "0", "f"}}),
            "Invalid value 0 for configuration num.partitions: Value must be at least 1");
}

TEST(BrokerConfig, ValuesAreTrimmedAndCaseInsensitiveBooleans) {
  broker_config c = build_ok({{"num.partitions", "  7 ", "f"}, {"auto.create.topics.enable", "FALSE", "f"},
                              {"log.dirs", " /a , /b,", "f"}});
  EXPECT_EQ(c.num_partitions, 7);
  EXPECT_FALSE(c.auto_create_topics_enable);
  EXPECT_EQ(c.log_dirs, (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(c.metadata_log_dir, "/a");
}

TEST(BrokerConfig, UnknownKeysWarn) {
  auto r = build({{"no.such.key", "1", "server.properties:3"}});
  ASSERT_TRUE(r.config.has_value());
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("'no.such.key'"), std::string::npos);
  EXPECT_NE(r.warnings[0].find("server.properties:3"), std::string::npos);
}

TEST(BrokerConfig, LaterEntriesWin) {
  broker_config c = build_ok({{"num.partitions", "3", "file"}, {"num.partitions", "bad", "env"}, {"num.partitions", "5", "--override"}});
  EXPECT_EQ(c.num_partitions, 5);
  EXPECT_EQ(c.explicitly_set.at("num.partitions"), "--override");
}

TEST(BrokerConfig, BrokerIdIsAnAliasOfNodeId) {
  EXPECT_EQ(build_ok({{"broker.id", "7", "f"}}).node_id, 7);
  EXPECT_EQ(build_ok({{"node.id", "7", "f"}, {"broker.id", "7", "f"}}).node_id, 7);
  EXPECT_NE(first_error({{"node.id", "7", "f"}, {"broker.id", "8", "f"}}).find("must have the same value"),
            std::string::npos);
}

TEST(BrokerConfig, RetentionResolution) {
  EXPECT_EQ(build_ok({{"log.retention.hours", "1", "f"}}).log_retention_ms, 3600000);
  EXPECT_EQ(build_ok({{"log.retention.hours", "1", "f"}, {"log.retention.minutes", "2", "f"}}).log_retention_ms, 120000);
  EXPECT_EQ(build_ok({{"log.retention.minutes", "2", "f"}, {"log.retention.ms", "5", "f"}}).log_retention_ms, 5);
  EXPECT_EQ(build_ok({{"log.retention.ms", "-7", "f"}}).log_retention_ms, -1);
  EXPECT_EQ(build_ok({{"log.flush.interval.ms", "10", "f"}}).log_flush_interval_ms, 10);
}

TEST(BrokerConfig, Listeners) {
  broker_config c = build_ok({{"listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0", "f"},
                              {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT", "f"},
                              {"controller.listener.names", "controller", "f"}});
  ASSERT_EQ(c.listeners.size(), 2u);
  ASSERT_EQ(c.advertised_listeners.size(), 1u);
  EXPECT_EQ(c.advertised_listeners[0].name, "PLAINTEXT");
  EXPECT_EQ(c.controller_listener_names, std::vector<std::string>{"CONTROLLER"});

  EXPECT_EQ(first_error({{"listeners", "bogus", "f"}}),
            "Invalid value bogus for configuration listeners: Unable to parse bogus to a broker endpoint");
  EXPECT_NE(first_error({{"listeners", "INTERNAL://:9092", "f"}}).find("No security protocol defined for listener INTERNAL"),
            std::string::npos);
  EXPECT_NE(first_error({{"advertised.listeners", "PLAINTEXT://0.0.0.0:9092", "f"}}).find("nonroutable"),
            std::string::npos);
  EXPECT_NE(first_error({{"inter.broker.listener.name", "OTHER", "f"}}).find("inter.broker.listener.name"),
            std::string::npos);
  EXPECT_NE(first_error({{"inter.broker.listener.name", "PLAINTEXT", "f"},
                         {"security.inter.broker.protocol", "PLAINTEXT", "f"}})
                .find("Only one of"),
            std::string::npos);
}

// As Kafka in KRaft mode: with listener.security.protocol.map at its
// default, controller listener names it lacks are PLAINTEXT; a map set
// explicitly must name them.
TEST(BrokerConfig, ControllerListenersArePlaintextUnlessTheMapIsSet) {
  broker_config c = build_ok({{"listeners", "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093", "f"},
                              {"controller.listener.names", "CONTROLLER", "f"}});
  ASSERT_EQ(c.listeners.size(), 2u);
  EXPECT_EQ(c.listeners[1].name, "CONTROLLER");
  EXPECT_EQ(c.listeners[1].security_protocol, "PLAINTEXT");
  ASSERT_EQ(c.advertised_listeners.size(), 1u);
  EXPECT_EQ(c.advertised_listeners[0].name, "PLAINTEXT");

  EXPECT_NE(first_error({{"listeners", "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093", "f"},
                         {"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT", "f"},
                         {"controller.listener.names", "CONTROLLER", "f"}})
                .find("No security protocol defined for listener CONTROLLER"),
            std::string::npos);
  // Only controller listener names get the default.
  EXPECT_NE(first_error({{"listeners", "PLAINTEXT://127.0.0.1:9092,INTERNAL://127.0.0.1:9094", "f"},
                         {"controller.listener.names", "CONTROLLER", "f"}})
                .find("No security protocol defined for listener INTERNAL"),
            std::string::npos);
}

// early.start.listeners as Kafka reads it: the controller's by default,
// else the names given (as written: the listeners' own are upper case),
// each a listener or a controller listener name.
TEST(BrokerConfig, EarlyStartListeners) {
  const std::vector<config_entry> base = {
      {"listeners", "PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:9093", "f"},
      {"controller.listener.names", "CONTROLLER", "f"}};
  auto with = [&](std::vector<config_entry> more) {
    auto all = base;
    all.insert(all.end(), more.begin(), more.end());
    return all;
  };
  EXPECT_EQ(build_ok(base).early_start_listeners, std::vector<std::string>{"CONTROLLER"});
  EXPECT_EQ(build_ok(with({{"early.start.listeners", "CONTROLLER, PLAINTEXT,", "f"}})).early_start_listeners,
            (std::vector<std::string>{"CONTROLLER", "PLAINTEXT"}));
  EXPECT_TRUE(build_ok(with({{"early.start.listeners", "", "f"}})).early_start_listeners.empty());
  EXPECT_EQ(first_error(with({{"early.start.listeners", "plaintext", "f"}})),
            "early.start.listeners contains listener plaintext, but this is not contained in listeners or "
            "controller.listener.names");
  EXPECT_EQ(first_error(with({{"early.start.listeners", "OTHER", "f"}})),
            "early.start.listeners contains listener OTHER, but this is not contained in listeners or "
            "controller.listener.names");
}

TEST(BrokerConfig, GenericAccessors) {
  broker_config c = build_ok({{"min.cleanable.dirty.ratio", "0.5", "f"}});  // unknown: warns only
  EXPECT_EQ(c.get_int("socket.listen.backlog.size"), 50);
  EXPECT_EQ(c.get_string("compression.type"), "producer");
  EXPECT_EQ(c.get_list("log.cleanup.policy"), std::vector<std::string>{"delete"});
  EXPECT_TRUE(c.get_bool("delete.topic.enable"));
}

TEST(LoadBrokerConfig, SourcesInOrder) {
  std::string path = ::testing::TempDir() + "/hw_config_test.properties";
  {
    std::ofstream f(path);
    f << "# test\nnum.partitions=2\nnode.id=4\nmessage.max.bytes=100\nfrom.file=1\n";
  }
  config_sources s;
  s.properties_path = path;
  s.environment = {"PATH=/bin", "KAFKA_NUM_PARTITIONS=3", "KAFKA_HEAP_OPTS=-Xmx1G", "KAFKA_MESSAGE_MAX_BYTES=200"};
  s.overrides = {"message.max.bytes=300"};
  auto r = load_broker_config(s);
  for (auto& e : r.errors) ADD_FAILURE() << e;
  ASSERT_TRUE(r.config);
  EXPECT_EQ(r.config->node_id, 4);
  EXPECT_EQ(r.config->num_partitions, 3);
  EXPECT_EQ(r.config->message_max_bytes, 300);
  EXPECT_EQ(r.config->explicitly_set.at("num.partitions"), "environment variable KAFKA_NUM_PARTITIONS");
  EXPECT_EQ(r.config->explicitly_set.at("node.id"), path + ":3");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("from.file"), std::string::npos);
  std::remove(path.c_str());
}

TEST(LoadBrokerConfig, Errors) {
  config_sources s;
  s.properties_path = "/nonexistent/server.properties";
  s.overrides = {"novalue"};
  auto r = load_broker_config(s);
  EXPECT_FALSE(r.config);
  ASSERT_GE(r.errors.size(), 2u);
  EXPECT_NE(r.errors[0].find("/nonexistent/server.properties"), std::string::npos);
  EXPECT_NE(r.errors[1].find("novalue"), std::string::npos);

  config_sources bad;
  bad.overrides = {"socket.request.max.bytes=-1"};
  r = load_broker_config(bad);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "Invalid value -1 for configuration socket.request.max.bytes: Value must be at least 1");
}

TEST(ValueParse, PasswordsAreNotShown) {
  const config_key* k = find_broker_key("ssl.keystore.password");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(invalid_value_message(*k, "secret", "why"), "Invalid value [hidden] for configuration ssl.keystore.password: why");
}

}  // namespace
}  // namespace hw::config
