// Per-listener security keys as Kafka resolves them: listener.name.<l>.<key>
// over <key>, the JAAS value per mechanism, the JAAS file from KAFKA_OPTS.
#include <gtest/gtest.h>

#include "config/broker_config.h"
#include "config/listener_security.h"

namespace hw::config {
namespace {

std::vector<config_entry> base() {
  return {{"process.roles", "broker,controller", "test"},
          {"node.id", "1", "test"},
          {"controller.quorum.voters", "1@127.0.0.1:9093", "test"},
          {"listeners", "SASL_PLAINTEXT://:9092,CONTROLLER://:9093,INTERNAL://:9094", "test"},
          {"listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT,INTERNAL:SASL_PLAINTEXT",
           "test"},
          {"inter.broker.listener.name", "INTERNAL", "test"},
          {"controller.listener.names", "CONTROLLER", "test"}};
}

broker_config build(std::vector<config_entry> extra) {
  auto entries = base();
  entries.insert(entries.end(), extra.begin(), extra.end());
  load_result r = build_broker_config(entries);
  EXPECT_TRUE(r.config) << (r.errors.empty() ? "" : r.errors.front());
  return r.config ? *r.config : broker_config{};
}

const listener_endpoint& endpoint(const broker_config& c, const std::string& name) {
  for (const auto& l : c.listeners)
    if (l.name == name) return l;
  throw std::runtime_error("no listener " + name);
}

// Resolving listener fails, and the message names key.
void expect_refusal_naming(const broker_config& c, const std::string& listener, const std::string& key) {
  auto r = resolve_listener_security(c, endpoint(c, listener));
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_NE(std::get<std::string>(r).find(key), std::string::npos) << std::get<std::string>(r);
}

TEST(ListenerSecurity, PrefixedKeysAreKeptWithoutWarnings) {
  std::vector<config_entry> entries = base();
  entries.push_back({"listener.name.sasl_plaintext.plain.sasl.jaas.config", "secret text", "test"});
  load_result r = build_broker_config(entries);
  ASSERT_TRUE(r.config);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  EXPECT_EQ(r.config->listener_prefixed.at("listener.name.sasl_plaintext.plain.sasl.jaas.config"), "secret text");
}

TEST(ListenerSecurity, ListenerPrefixWinsOverTheBrokerKey) {
  broker_config c = build({{"sasl.enabled.mechanisms", "SCRAM-SHA-512", "test"},
                           {"listener.name.internal.sasl.enabled.mechanisms", "PLAIN, SCRAM-SHA-256", "test"},
                           {"listener.name.internal.sasl.server.max.receive.size", "1000", "test"},
                           {"connection.failed.authentication.delay.ms", "7", "test"}});
  auto internal = std::get<listener_security>(resolve_listener_security(c, endpoint(c, "INTERNAL")));
  EXPECT_EQ(internal.sasl_enabled_mechanisms, (std::vector<std::string>{"PLAIN", "SCRAM-SHA-256"}));
  EXPECT_EQ(internal.sasl_server_max_receive_size, 1000);
  EXPECT_EQ(internal.failed_authentication_delay_ms, 7);
  EXPECT_EQ(internal.protocol, "SASL_PLAINTEXT");
  auto outer = std::get<listener_security>(resolve_listener_security(c, endpoint(c, "SASL_PLAINTEXT")));
  EXPECT_EQ(outer.sasl_enabled_mechanisms, (std::vector<std::string>{"SCRAM-SHA-512"}));
  EXPECT_EQ(outer.sasl_server_max_receive_size, 524288);
}

TEST(ListenerSecurity, JaasConfigIsPerListenerAndMechanism) {
  broker_config c = build({{"sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256", "test"},
                           {"sasl.jaas.config", "ignored for the server", "test"},
                           {"listener.name.internal.plain.sasl.jaas.config", "plain-jaas", "test"},
                           {"listener.name.internal.scram-sha-256.sasl.jaas.config", "scram-jaas", "test"},
                           {"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config", "not enabled", "test"}});
  auto internal = std::get<listener_security>(resolve_listener_security(c, endpoint(c, "INTERNAL")));
  EXPECT_EQ(internal.sasl_jaas_config, (std::map<std::string, std::string>{{"PLAIN", "plain-jaas"},
                                                                           {"SCRAM-SHA-256", "scram-jaas"}}));
  auto outer = std::get<listener_security>(resolve_listener_security(c, endpoint(c, "SASL_PLAINTEXT")));
  EXPECT_TRUE(outer.sasl_jaas_config.empty());
}

TEST(ListenerSecurity, ReauthLimitIsPerMechanismThenListenerThenBroker) {
  broker_config c = build({{"sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512", "test"},
                           {"connections.max.reauth.ms", "3600000", "test"},
                           {"listener.name.internal.connections.max.reauth.ms", "60000", "test"},
                           {"listener.name.internal.scram-sha-256.connections.max.reauth.ms", "5000", "test"},
                           {"listener.name.internal.scram-sha-512.connections.max.reauth.ms", "0", "test"}});
  auto internal = std::get<listener_security>(resolve_listener_security(c, endpoint(c, "INTERNAL")));
  EXPECT_EQ(internal.connections_max_reauth_ms,
            (std::map<std::string, int64_t>{{"PLAIN", 60000}, {"SCRAM-SHA-256", 5000}}));
  auto outer = std::get<listener_security>(resolve_listener_security(c, endpoint(c, "SASL_PLAINTEXT")));
  EXPECT_EQ(outer.connections_max_reauth_ms, (std::map<std::string, int64_t>{{"PLAIN", 3600000},
                                                                             {"SCRAM-SHA-256", 3600000},
                                                                             {"SCRAM-SHA-512", 3600000}}));
  broker_config unset = build({{"sasl.enabled.mechanisms", "PLAIN", "test"}});
  EXPECT_TRUE(std::get<listener_security>(resolve_listener_security(unset, endpoint(unset, "INTERNAL")))
                  .connections_max_reauth_ms.empty())
      << "0 by default: logins last for ever";
  broker_config bad = build({{"listener.name.internal.plain.connections.max.reauth.ms", "soon", "test"},
                             {"sasl.enabled.mechanisms", "PLAIN", "test"}});
  expect_refusal_naming(bad, "INTERNAL", "listener.name.internal.plain.connections.max.reauth.ms");
}

TEST(ListenerSecurity, AnInvalidListenerReauthLimitIsRefusedEvenWhereEveryMechanismSetsItsOwn) {
  broker_config c = build({{"sasl.enabled.mechanisms", "PLAIN", "test"},
                           {"listener.name.internal.connections.max.reauth.ms", "soon", "test"},
                           {"listener.name.internal.plain.connections.max.reauth.ms", "5000", "test"}});
  expect_refusal_naming(c, "INTERNAL", "listener.name.internal.connections.max.reauth.ms");
}

TEST(ListenerSecurity, OauthKeysArePerMechanismThenListenerThenBroker) {
  broker_config c = build({{"sasl.enabled.mechanisms", "OAUTHBEARER", "test"},
                           {"sasl.oauthbearer.expected.issuer", "broker", "test"},
                           {"sasl.oauthbearer.jwks.endpoint.refresh.ms", "1000", "test"},
                           {"sasl.oauthbearer.clock.skew.seconds", "5", "test"},
                           {"listener.name.internal.sasl.oauthbearer.expected.issuer", "listener", "test"},
                           {"listener.name.internal.sasl.oauthbearer.jwks.endpoint.refresh.ms", "2000", "test"},
                           {"listener.name.internal.oauthbearer.sasl.oauthbearer.expected.issuer", "mechanism", "test"}});
  auto internal = std::get<listener_security>(resolve_listener_security(c, endpoint(c, "INTERNAL")));
  EXPECT_EQ(internal.oauth.expected_issuer, "mechanism");
  EXPECT_EQ(internal.oauth.jwks_refresh_ms, 2000);
  EXPECT_EQ(internal.oauth.clock_skew_seconds, 5);
  auto outer = std::get<listener_security>(resolve_listener_security(c, endpoint(c, "SASL_PLAINTEXT")));
  EXPECT_EQ(outer.oauth.expected_issuer, "broker");
  EXPECT_EQ(outer.oauth.jwks_refresh_ms, 1000);
  broker_config bad = build({{"sasl.enabled.mechanisms", "OAUTHBEARER", "test"},
                             {"listener.name.internal.oauthbearer.sasl.oauthbearer.clock.skew.seconds", "x", "test"}});
  expect_refusal_naming(bad, "INTERNAL", "listener.name.internal.oauthbearer.sasl.oauthbearer.clock.skew.seconds");
}

TEST(ListenerSecurity, AnInvalidPrefixedValueNamesThePrefixedKey) {
  broker_config c = build({{"listener.name.internal.sasl.server.max.receive.size", "lots", "test"}});
  expect_refusal_naming(c, "INTERNAL", "listener.name.internal.sasl.server.max.receive.size");
}

TEST(ListenerSecurity, JaasFileComesFromKafkaOpts) {
  config_sources sources;
  sources.environment = {"KAFKA_PROCESS_ROLES=broker,controller", "KAFKA_NODE_ID=1",
                         "KAFKA_CONTROLLER_QUORUM_VOTERS=1@127.0.0.1:9093",
                         "KAFKA_LISTENERS=PLAINTEXT://:9092,CONTROLLER://:9093",
                         "KAFKA_CONTROLLER_LISTENER_NAMES=CONTROLLER",
                         "KAFKA_OPTS=-Xmx1g -Djava.security.auth.login.config=/etc/kafka/jaas.conf\t-Dother=1"};
  load_result r = load_broker_config(sources);
  ASSERT_TRUE(r.config) << r.errors.front();
  EXPECT_EQ(r.config->jaas_file, "/etc/kafka/jaas.conf");

  sources.environment.back() = "KAFKA_OPTS=-Xmx1g";
  r = load_broker_config(sources);
  ASSERT_TRUE(r.config);
  EXPECT_FALSE(r.config->jaas_file);
}

}  // namespace
}  // namespace hw::config
