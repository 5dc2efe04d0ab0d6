// Three combined nodes with nothing on PLAINTEXT: clients and brokers on
// SASL_SSL (PLAIN), the controllers' quorum and the brokers' controller
// channel on SASL_SSL too, every node checking the others' certificates
// and host names. The quorum forms, the brokers register, a replication
// factor 3 topic with min.insync.replicas=2 takes acks=all writes (so
// followers fetch over the secured inter-broker listener) and librdkafka
// reads them back. Every login lasts 3 s (connections.max.reauth.ms on
// every listener): the nodes' own connections (raft, controller channel,
// replica fetchers) re-authenticate in place and none is closed for an
// expired login, so replication keeps going past many lifetimes.

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "metrics_scrape.h"
#include "tests/support/test_certificates.h"

namespace hw::testing {
namespace {

constexpr const char* k_password = "cluster-tls-secret";
constexpr const char* k_jaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
    "password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

struct tally {
  int delivered = 0;
  std::string error;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* t = static_cast<tally*>(opaque);
  if (!m->err) ++t->delivered;
  else if (t->error.empty()) t->error = rd_kafka_err2str(m->err);
}

rd_kafka_conf_t* client_conf(const std::string& bootstrap, const std::string& certs) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"bootstrap.servers", bootstrap},
           {"security.protocol", "SASL_SSL"},
           {"ssl.ca.location", certs + "/ca.crt"},
           {"sasl.mechanism", "PLAIN"},
           {"sasl.username", "alice"},
           {"sasl.password", "alice-secret"}})
    EXPECT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err), RD_KAFKA_CONF_OK) << k << ": " << err;
  return conf;
}

TEST(SecureClusterIT, EveryListenerSaslSsl) {
  const test_certificates made(k_password, "localhost", "alice");
  ASSERT_TRUE(made.ok());
  const std::string& certs = made.path();
  setenv("CLUSTER_ID", "SecureClusterITclustAA", 1);
  std::vector<std::unique_ptr<broker_process>> nodes;
  std::vector<broker_process*> all;
  for (int i = 0; i < 3; ++i) {
    nodes.push_back(std::make_unique<broker_process>());
    all.push_back(nodes.back().get());
  }
  auto started = start_on_fresh_ports(3, [&](const std::vector<uint16_t>& ports) {
    std::string voters;
    for (int i = 0; i < 3; ++i) voters += (i ? "," : "") + std::to_string(i + 1) + "@127.0.0.1:" + std::to_string(ports[i]);
    std::vector<int> up(3, 0);
    std::vector<std::thread> starting;
    for (int i = 0; i < 3; ++i) {
      starting.emplace_back([&, i] {
        std::vector<std::string> settings{
            "node.id=" + std::to_string(i + 1),
            "listeners=SASL_SSL://127.0.0.1:0,CONTROLLER://127.0.0.1:" + std::to_string(ports[i]),
            "listener.security.protocol.map=SASL_SSL:SASL_SSL,CONTROLLER:SASL_SSL",
            "inter.broker.listener.name=SASL_SSL",
            "controller.listener.names=CONTROLLER",
            "controller.quorum.voters=" + voters,
            "ssl.keystore.type=PKCS12",
            "ssl.keystore.location=" + certs + "/localhost.keystore.p12",
            std::string("ssl.keystore.password=") + k_password,
            "ssl.truststore.type=PKCS12",
            "ssl.truststore.location=" + certs + "/truststore.p12",
            std::string("ssl.truststore.password=") + k_password,
            "sasl.enabled.mechanisms=PLAIN",
            "sasl.mechanism.inter.broker.protocol=PLAIN",
            "sasl.mechanism.controller.protocol=PLAIN",
            std::string("listener.name.sasl_ssl.plain.sasl.jaas.config=") + k_jaas,
            std::string("listener.name.controller.plain.sasl.jaas.config=") + k_jaas,
            "min.insync.replicas=2",
            "default.replication.factor=3",
            "offsets.topic.replication.factor=3",
            "group.initial.rebalance.delay.ms=0",
            "connections.max.reauth.ms=3000",
            "highwater.metrics.port=0",
            "highwater.metrics.host=127.0.0.1",
        };
        std::vector<std::string> args;
        for (auto& s : settings) {
          args.push_back("--override");
          args.push_back(s);
        }
        up[i] = nodes[i]->start(args, 60s);
      });
    }
    for (auto& t : starting) t.join();
    return started_or_port_taken(up[0] && up[1] && up[2], all);
  });
  unsetenv("CLUSTER_ID");
  auto logs = [&] {
    std::string out;
    for (size_t i = 0; i < nodes.size(); ++i) out += "---- node " + std::to_string(i + 1) + " ----\n" + nodes[i]->log();
    return out;
  };
  ASSERT_TRUE(started) << logs();

  std::string bootstrap;
  for (int i = 0; i < 3; ++i) bootstrap += (i ? "," : "") + std::string("127.0.0.1:") + std::to_string(nodes[i]->port("SASL_SSL"));

  tally t;
  char err[512];
  rd_kafka_conf_t* pconf = client_conf(bootstrap, certs);
  rd_kafka_conf_set(pconf, "acks", "all", err, sizeof err);
  rd_kafka_conf_set(pconf, "message.timeout.ms", "30000", err, sizeof err);
  rd_kafka_conf_set_opaque(pconf, &t);
  rd_kafka_conf_set_dr_msg_cb(pconf, on_delivery);
  rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, pconf, err, sizeof err);
  ASSERT_NE(producer, nullptr) << err;
  constexpr int n = 50;
  for (int i = 0; i < n; ++i) {
    const std::string v = "secure-" + std::to_string(i);
    rd_kafka_producev(producer, RD_KAFKA_V_TOPIC("secure"), RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()),
                      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
  }
  ASSERT_TRUE(wait_until([&] {
    rd_kafka_poll(producer, 50);
    return t.delivered == n || !t.error.empty();
  }, 60s)) << logs();
  rd_kafka_destroy(producer);
  ASSERT_EQ(t.delivered, n) << t.error << "\n" << logs();

  rd_kafka_conf_t* cconf = client_conf(bootstrap, certs);
  rd_kafka_conf_set(cconf, "group.id", "secure-readers", err, sizeof err);
  rd_kafka_conf_set(cconf, "auto.offset.reset", "earliest", err, sizeof err);
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, cconf, err, sizeof err);
  ASSERT_NE(consumer, nullptr) << err;
  rd_kafka_poll_set_consumer(consumer);
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, "secure", RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(consumer, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  int consumed = 0;
  wait_until([&] {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 100);
    if (m) {
      if (!m->err) ++consumed;
      rd_kafka_message_destroy(m);
    }
    return consumed >= n;
  }, 60s);
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  EXPECT_EQ(consumed, n) << logs();
  // The nodes' own connections renew their logins: over three lifetimes
  // the controller listeners count re-authentications and no expired
  // login is closed there (librdkafka's connections on SASL_SSL may be:
  // this client version does not re-authenticate).
  auto summed = [&](const std::string& sample) {
    double sum = 0;
    for (auto& node : nodes) sum += metric_sample(scrape_metrics(node->port("METRICS")), sample).value_or(0);
    return sum;
  };
  const std::string renewed =
      "kafka_server_socket_server_metrics_successful_reauthentication_total{listener=\"CONTROLLER\",mechanism=\"PLAIN\"}";
  const std::string killed =
      "kafka_server_socket_server_metrics_expired_connections_killed_count{listener=\"CONTROLLER\"}";
  const std::string refused =
      "kafka_server_socket_server_metrics_failed_reauthentication_total{listener=\"SASL_SSL\",mechanism=\"PLAIN\"}";
  const double renewed_before = summed(renewed);
  EXPECT_TRUE(wait_until([&] { return summed(renewed) >= renewed_before + 6; }, 30s)) << logs();
  EXPECT_EQ(summed(killed), 0) << logs();
  EXPECT_EQ(summed(refused), 0) << logs();
  // Replication still runs over the renewed connections.
  tally after;
  rd_kafka_conf_t* again = client_conf(bootstrap, certs);
  rd_kafka_conf_set(again, "acks", "all", err, sizeof err);
  rd_kafka_conf_set_opaque(again, &after);
  rd_kafka_conf_set_dr_msg_cb(again, on_delivery);
  producer = rd_kafka_new(RD_KAFKA_PRODUCER, again, err, sizeof err);
  ASSERT_NE(producer, nullptr) << err;
  for (int i = 0; i < n; ++i) {
    const std::string v = "renewed-" + std::to_string(i);
    rd_kafka_producev(producer, RD_KAFKA_V_TOPIC("secure"), RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()),
                      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
  }
  EXPECT_TRUE(wait_until([&] {
    rd_kafka_poll(producer, 50);
    return after.delivered == n || !after.error.empty();
  }, 60s)) << logs();
  rd_kafka_destroy(producer);
  EXPECT_EQ(after.delivered, n) << after.error << "\n" << logs();
  // No node's own connection was ever refused.
  EXPECT_EQ(logs().find("Authentication with"), std::string::npos) << logs();
  EXPECT_EQ(logs().find("Re-authentication with"), std::string::npos) << logs();
  EXPECT_EQ(logs().find("TLS handshake with"), std::string::npos) << logs();
}

}  // namespace
}  // namespace hw::testing
