#include "twin_environment.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "broker_process.h"
#include "kafka_server.h"
#include "oauth_tokens.h"
#include "tests/support/test_certificates.h"

namespace hw::testing::differential {
namespace {

// The settings both brokers run with where their defaults differ or the
// tests need them: one partition for new and internal topics, replication
// factor 1, no initial rebalance delay (every JoinGroup starts a new group),
// automatic topic creation as Kafka's default; a partition leader passes a
// transaction coordinator's CONCURRENT_TRANSACTIONS on at once instead of
// asking again for 100 ms, so that the answer a writer gets while the
// markers of its last transaction are out can be seen.
const std::vector<std::pair<std::string, std::string>> k_shared_settings = {
    {"add.partitions.to.txn.retry.backoff.max.ms", "0"},
    {"num.partitions", "1"},
    {"default.replication.factor", "1"},
    {"offsets.topic.num.partitions", "1"},
    {"offsets.topic.replication.factor", "1"},
    {"group.initial.rebalance.delay.ms", "0"},
    {"auto.create.topics.enable", "true"},
    // ACLs (acls_test.cc): every principal the other tests log in as is a
    // super user, so they see what they saw before; bob is not.
    {"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
    {"super.users", "User:ANONYMOUS;User:admin;User:alice;User:scram-user;User:oauth-user"},
    // Delegation tokens (delegation_tokens_test.cc): without a secret Kafka
    // refuses them all (DELEGATION_TOKEN_AUTH_DISABLED). Lifetimes shorter
    // than the defaults (7 days, a day) and unlike each other, so that a
    // test sees which bound a timestamp comes from.
    {"delegation.token.secret.key", "differential-token-secret"},
    {"delegation.token.max.lifetime.ms", "7200000"},
    {"delegation.token.expiry.time.ms", "3600000"},
};

// The secured listeners (name, protocol), in the order Kafka's script binds
// them after its PLAINTEXT and CONTROLLER ones.
const std::vector<std::pair<std::string, std::string>> k_secured_listeners = {
    {"SASL_PLAINTEXT", "SASL_PLAINTEXT"}, {"SSL", "SSL"},      {"MTLS", "SSL"},
    {"SASL_SSL", "SASL_SSL"},             {"REAUTH", "SASL_PLAINTEXT"}};
// After those, on the brokers HW_DIFF_OAUTH names (oauthbearer_test.cc).
const std::vector<std::pair<std::string, std::string>> k_oauth_listeners = {{"OAUTH", "SASL_PLAINTEXT"},
                                                                            {"OIDC", "SASL_PLAINTEXT"}};

// Which brokers get the OAUTHBEARER listeners: both (unset, or
// HW_DIFF_OAUTH=1); HW_DIFF_OAUTH=kafka Kafka alone (its stories checked
// and printed, run twice in place of a comparison); HW_DIFF_OAUTH=0 neither.
oauth_listeners oauth_mode_from_environment() {
  const char* v = std::getenv("HW_DIFF_OAUTH");
  if (!v) return oauth_listeners::both;
  const std::string s = v;
  if (s == "kafka") return oauth_listeners::kafka_only;
  if (s == "0") return oauth_listeners::none;
  return oauth_listeners::both;
}

constexpr const char* k_store_password = "differential-secret";

// Their keys, the same on both brokers: PLAIN users alice and admin, the
// SCRAM mechanisms (credentials made by the tests) on SASL_PLAINTEXT; a
// PKCS12 key store for localhost; client certificates required on MTLS and
// mapped to a short name; SASL_SSL with PLAIN only; REAUTH (SASL_PLAINTEXT,
// PLAIN and SCRAM-SHA-256) whose logins last 1.5 s (connections.max.reauth.ms,
// KIP-368). A small receive limit
// before authentication, so that the tests can exceed it cheaply.
std::vector<std::pair<std::string, std::string>> secured_settings(const std::string& certs) {
  const std::string plain_jaas =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
      "password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\" "
      "user_bob=\"bob-secret\";";
  const std::string scram_jaas = "org.apache.kafka.common.security.scram.ScramLoginModule required;";
  return {
      {"sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"},
      {"listener.name.sasl_plaintext.plain.sasl.jaas.config", plain_jaas},
      {"listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config", scram_jaas},
      {"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config", scram_jaas},
      {"listener.name.sasl_ssl.sasl.enabled.mechanisms", "PLAIN"},
      {"listener.name.sasl_ssl.plain.sasl.jaas.config", plain_jaas},
      {"listener.name.reauth.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256"},
      {"listener.name.reauth.plain.sasl.jaas.config", plain_jaas},
      {"listener.name.reauth.scram-sha-256.sasl.jaas.config", scram_jaas},
      {"listener.name.reauth.connections.max.reauth.ms", "1500"},
      {"sasl.server.max.receive.size", "4096"},
      {"ssl.keystore.type", "PKCS12"},
      {"ssl.keystore.location", certs + "/localhost.keystore.p12"},
      {"ssl.keystore.password", k_store_password},
      {"listener.name.mtls.ssl.client.auth", "required"},
      {"listener.name.mtls.ssl.truststore.type", "PKCS12"},
      {"listener.name.mtls.ssl.truststore.location", certs + "/truststore.p12"},
      {"listener.name.mtls.ssl.truststore.password", k_store_password},
      {"listener.name.mtls.ssl.principal.mapping.rules", "RULE:^CN=(.*?),OU=.*$/$1/L,DEFAULT"},
  };
}

// The OAUTHBEARER listeners' keys, the same on both brokers. OAUTH: the
// unsecured validator (Kafka's default for OAUTHBEARER), every token needing
// the scope kafka-access and tolerating a minute of clock skew. Kafka's
// login module makes the broker's own unsecured token from the same options
// at start-up whenever there are any, and fails to start without a subject
// for it: hence unsecuredLoginStringClaim_sub, a token that a listener that
// is not the inter-broker one never sends. OIDC: tokens
// signed with a key of the JWKS file in keys_dir (RS256 kid rs-key, ES256
// kid es-key), for the audience highwater-test from the issuer
// https://issuer.test, the scope in the claim "scp", a minute of clock
// skew, and logins that last at most 10 minutes (connections.max.reauth.ms)
// whatever the token's exp.
std::vector<std::pair<std::string, std::string>> oauth_settings(const std::string& keys_dir) {
  const std::string module = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required";
  return {
      {"listener.name.oauth.sasl.enabled.mechanisms", "OAUTHBEARER"},
      {"listener.name.oauth.oauthbearer.sasl.jaas.config",
       module + " unsecuredLoginStringClaim_sub=\"broker\" unsecuredValidatorRequiredScope=\"kafka-access\" "
                "unsecuredValidatorAllowableClockSkewMs=\"60000\";"},
      {"listener.name.oidc.sasl.enabled.mechanisms", "OAUTHBEARER"},
      {"listener.name.oidc.oauthbearer.sasl.jaas.config", module + ";"},
      {"listener.name.oidc.oauthbearer.sasl.server.callback.handler.class",
       "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"},
      {"listener.name.oidc.sasl.oauthbearer.jwks.endpoint.url", "file:" + jwks_file(keys_dir)},
      {"listener.name.oidc.sasl.oauthbearer.expected.audience", "highwater-test"},
      {"listener.name.oidc.sasl.oauthbearer.expected.issuer", "https://issuer.test"},
      {"listener.name.oidc.sasl.oauthbearer.scope.claim.name", "scp"},
      {"listener.name.oidc.sasl.oauthbearer.clock.skew.seconds", "60"},
      {"listener.name.oidc.connections.max.reauth.ms", "600000"},
  };
}

// Kafka reads a JWKS file only when the JVM is told it may: the file: URL
// must be listed in org.apache.kafka.sasl.oauthbearer.allowed.urls (the
// check on sasl.oauthbearer.jwks.endpoint.url; allowed.files guards the
// other file options, and is listed too). Highwater reads the same -D
// entries from KAFKA_OPTS, so both processes inherit it.
void allow_jwks_file(const std::string& keys_dir) {
  std::string opts = std::getenv("KAFKA_OPTS") ? std::getenv("KAFKA_OPTS") : "";
  opts += (opts.empty() ? "" : " ") + std::string("-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=file:") +
          jwks_file(keys_dir) + " -Dorg.apache.kafka.sasl.oauthbearer.allowed.files=" + jwks_file(keys_dir);
  ::setenv("KAFKA_OPTS", opts.c_str(), 1);
}

brokers_environment* g_instance = nullptr;  // the test binary's one environment

}  // namespace

brokers_environment::brokers_environment() : oauth_(oauth_mode_from_environment()) { g_instance = this; }
brokers_environment::~brokers_environment() {
  if (g_instance == this) g_instance = nullptr;
}

brokers_environment& brokers_environment::instance() {
  EXPECT_NE(g_instance, nullptr) << "the differential environment is not registered";
  return *g_instance;
}

void brokers_environment::SetUp() {
  const auto started = std::chrono::steady_clock::now();
  // Certificates for localhost and clients alice and expired (a day past
  // its end); mallory's comes from another authority.
  certificates_ = std::make_unique<test_certificates>(k_store_password, "localhost", "alice");
  if (!certificates_->ok() || !certificates_->add(k_store_password, "", "expired", certificates_->path(), -1) ||
      !certificates_->add(k_store_password, "localhost", "mallory", certificates_->path() + "/other")) {
    error_ = "scripts/make-certs.sh failed";
    FAIL() << error_;
  }
  if (oauth_ != oauth_listeners::none) {
    if (!std::filesystem::create_directories(oauth_keys_dir()) || !write_oauth_keys(oauth_keys_dir())) {
      error_ = "the OAUTHBEARER keys could not be made in " + oauth_keys_dir();
      FAIL() << error_;
    }
    allow_jwks_file(oauth_keys_dir());
  }
  std::string props;
  std::vector<std::string> args;
  std::vector<std::string> kafka_listeners;
  std::string listeners = "PLAINTEXT://127.0.0.1:0", protocols = "PLAINTEXT:PLAINTEXT";
  auto secured = k_secured_listeners;
  auto settings = k_shared_settings;
  for (const auto& kv : secured_settings(certificates_->path())) settings.push_back(kv);
  auto kafka_settings = settings;
  if (oauth_ != oauth_listeners::none)
    for (const auto& kv : oauth_settings(oauth_keys_dir())) kafka_settings.push_back(kv);
  if (oauth_ == oauth_listeners::both) {
    secured.insert(secured.end(), k_oauth_listeners.begin(), k_oauth_listeners.end());
    settings = kafka_settings;
  }
  for (const auto& [name, protocol] : secured) {
    listeners += "," + name + "://127.0.0.1:0";
    protocols += "," + name + ":" + protocol;
  }
  for (const auto& [k, v] : settings) {
    args.push_back("--override");
    args.push_back(k + "=" + v);
  }
  for (const auto& [k, v] : kafka_settings) props += k + "=" + v + "\n";
  for (const auto& [name, protocol] : kafka_listener_names()) kafka_listeners.push_back(name + ":" + protocol);
  args.insert(args.end(), {"--override", "listeners=" + listeners, "--override",
                           "listener.security.protocol.map=" + protocols, "--override",
                           "inter.broker.listener.name=PLAINTEXT"});
  if (const char* external = std::getenv("HW_DIFF_HIGHWATER_PORT")) {
    // A broker already listening (another Kafka: how the allowlist was
    // checked to hold only what differs between any two clusters).
    ports_[static_cast<int>(side::highwater)] = static_cast<uint16_t>(std::atoi(external));
  } else {
    highwater_ = std::make_unique<broker_process>();
    if (!highwater_->start(args)) {
      error_ = "highwater did not start:\n" + highwater_->log();
      FAIL() << error_;
    }
    ports_[static_cast<int>(side::highwater)] = highwater_->port();
  }
  kafka_ = std::make_unique<kafka_server>();
  if (!kafka_->start(props, kafka_listeners)) {
    error_ = "Apache Kafka 4.3.1 did not start (scripts/kafka-server.sh; jars from scripts/fetch-kafka.sh):\n" +
             kafka_->error();
    FAIL() << error_;
  }
  ports_[static_cast<int>(side::kafka)] = kafka_->port();
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started);
  std::printf("differential: Kafka on 127.0.0.1:%u, Highwater on 127.0.0.1:%u (started in %lds)\n",
              kafka_->port(), port(side::highwater), static_cast<long>(secs.count()));
}

void brokers_environment::TearDown() {
  if (kafka_) kafka_->stop();
  kafka_.reset();
  highwater_.reset();
  certificates_.reset();
}

uint16_t brokers_environment::port(side s, const std::string& listener) const {
  if (s == side::highwater) {
    if (!highwater_) return 0;  // an outside broker: its secured listeners are unknown
    return highwater_->port(listener);
  }
  const auto names = kafka_listener_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i].first == listener) return kafka_ ? kafka_->extra_port(i) : 0;
  return 0;
}

std::vector<std::pair<std::string, std::string>> brokers_environment::kafka_listener_names() const {
  auto names = k_secured_listeners;
  if (oauth_ != oauth_listeners::none) names.insert(names.end(), k_oauth_listeners.begin(), k_oauth_listeners.end());
  return names;
}

std::string brokers_environment::oauth_keys_dir() const { return certificates_dir() + "/oauth"; }

std::string brokers_environment::certificates_dir() const { return certificates_ ? certificates_->path() : ""; }

std::string brokers_environment::highwater_log() const { return highwater_ ? highwater_->log() : std::string(); }
bool brokers_environment::highwater_alive() { return !highwater_ || highwater_->running(); }

}  // namespace hw::testing::differential
