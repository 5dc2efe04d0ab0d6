// SSL, mutual TLS and SASL_SSL listeners against the real binary, with
// certificates made by scripts/make-certs.sh: librdkafka produces and
// consumes over each (a consume reads the log's file ranges through TLS),
// and is refused for an untrusted server, a missing client certificate and
// a wrong SASL password; a plaintext client on a TLS port and a TLS client
// on a plaintext port are closed; key stores that cannot be used stop the
// broker at start-up with a message naming the file.

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "broker_process.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "raw_requests.h"
#include "tests/support/test_certificates.h"

namespace hw::testing {
namespace {

constexpr const char* k_password = "tls-test-secret";
constexpr const char* k_jaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
    "password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

// The suite's certificates (localhost, client alice) and, in other/, a
// second authority the broker does not trust (client mallory).
const test_certificates& certs() {
  static const test_certificates made(k_password, "localhost", "alice");
  return made;
}

std::string certs_dir() {
  static const bool other = certs().ok() && certs().add(k_password, "localhost", "mallory", certs().path() + "/other");
  return other ? certs().path() : std::string();
}

class TlsIT : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string c = certs_dir();
    if (c.empty()) {
      start_error_ = "scripts/make-certs.sh failed";
      return;
    }
    broker_ = new broker_process();
    const bool up = broker_->start({
        "--override",
        "listeners=SSL://127.0.0.1:0,MTLS://127.0.0.1:0,SASL_SSL://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
        "--override", "listener.security.protocol.map=SSL:SSL,MTLS:SSL,SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT",
        "--override", "inter.broker.listener.name=PLAINTEXT",
        // SSL: PKCS12 key store typed as Kafka's default JKS (Java reads it too).
        "--override", "ssl.keystore.location=" + c + "/localhost.keystore.p12",
        "--override", std::string("ssl.keystore.password=") + k_password,
        // MTLS: client certificates required, checked against the CA.
        "--override", "listener.name.mtls.ssl.client.auth=required",
        "--override", "listener.name.mtls.ssl.truststore.type=PKCS12",
        "--override", "listener.name.mtls.ssl.truststore.location=" + c + "/truststore.p12",
        "--override", std::string("listener.name.mtls.ssl.truststore.password=") + k_password,
        "--override", "listener.name.mtls.ssl.principal.mapping.rules=RULE:^CN=(.*?),OU=.*$/$1/L,DEFAULT",
        // SASL_SSL: a PEM key store (encrypted key) and PLAIN.
        "--override", "listener.name.sasl_ssl.ssl.keystore.type=PEM",
        "--override", "listener.name.sasl_ssl.ssl.keystore.location=" + c + "/localhost.pem",
        "--override", std::string("listener.name.sasl_ssl.ssl.key.password=") + k_password,
        "--override", "listener.name.sasl_ssl.sasl.enabled.mechanisms=PLAIN",
        "--override", std::string("listener.name.sasl_ssl.plain.sasl.jaas.config=") + k_jaas,
        "--override", "group.initial.rebalance.delay.ms=0",
    });
    if (!up) start_error_ = broker_->log();
  }
  static void TearDownTestSuite() {
    delete broker_;
    broker_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(start_error_.empty()) << start_error_; }
  void TearDown() override {
    if (HasFailure() && broker_) ADD_FAILURE() << "broker log:\n" << broker_->log();
  }

  static broker_process* broker_;
  static std::string start_error_;
};

broker_process* TlsIT::broker_ = nullptr;
std::string TlsIT::start_error_;

using settings = std::vector<std::pair<std::string, std::string>>;

struct outcome {
  int delivered = 0;
  int consumed = 0;
  std::string error;
};

void on_error(rd_kafka_t*, int err, const char* reason, void* opaque) {
  auto* o = static_cast<outcome*>(opaque);
  if (o->error.empty()) o->error = std::string(rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err))) + ": " + reason;
}

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  if (!m->err) ++static_cast<outcome*>(opaque)->delivered;
}

rd_kafka_conf_t* make_conf(uint16_t port, const settings& extra, outcome* o) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  settings all{{"bootstrap.servers", "127.0.0.1:" + std::to_string(port)}};
  all.insert(all.end(), extra.begin(), extra.end());
  for (const auto& [k, v] : all)
    EXPECT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err), RD_KAFKA_CONF_OK) << k << ": " << err;
  rd_kafka_conf_set_opaque(conf, o);
  rd_kafka_conf_set_error_cb(conf, on_error);
  return conf;
}

// Produces n records to topic, then (when they all landed) reads them back
// from the start with a consumer on the same listener.
outcome round_trip(uint16_t port, const settings& extra, const std::string& topic, int n = 20) {
  outcome o;
  char err[512];
  rd_kafka_conf_t* pconf = make_conf(port, extra, &o);
  rd_kafka_conf_set_dr_msg_cb(pconf, on_delivery);
  rd_kafka_conf_set(pconf, "message.timeout.ms", "10000", err, sizeof err);
  rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, pconf, err, sizeof err);
  if (!producer) return {0, 0, err};
  const std::string value(2000, 'v');  // records bigger than a TLS fragment's worth together
  for (int i = 0; i < n; ++i)
    rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()),
                      RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()), RD_KAFKA_V_END);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (o.delivered < n && o.error.empty() && std::chrono::steady_clock::now() < deadline) rd_kafka_poll(producer, 50);
  rd_kafka_destroy(producer);
  if (o.delivered < n) return o;

  rd_kafka_conf_t* cconf = make_conf(port, extra, &o);
  rd_kafka_conf_set(cconf, "group.id", ("g-" + topic).c_str(), err, sizeof err);
  rd_kafka_conf_set(cconf, "auto.offset.reset", "earliest", err, sizeof err);
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, cconf, err, sizeof err);
  if (!consumer) return {o.delivered, 0, err};
  rd_kafka_poll_set_consumer(consumer);
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(consumer, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (o.consumed < n && std::chrono::steady_clock::now() < until) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 100);
    if (!m) continue;
    if (!m->err && m->len == value.size()) ++o.consumed;
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  return o;
}

// What a client configured this way gets on its first request: an error
// (refused) or none (served) within the deadline.
outcome first_contact(uint16_t port, const settings& extra) {
  outcome o;
  char err[512];
  rd_kafka_conf_t* conf = make_conf(port, extra, &o);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) return {0, 0, err};
  const rd_kafka_metadata_t* md = nullptr;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (o.error.empty() && std::chrono::steady_clock::now() < deadline) {
    if (rd_kafka_metadata(rk, 0, nullptr, &md, 500) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_metadata_destroy(md);
      o.delivered = 1;  // served
      break;
    }
    rd_kafka_poll(rk, 50);
  }
  rd_kafka_destroy(rk);
  return o;
}

settings tls_client(const std::string& ca) {
  return {{"security.protocol", "SSL"}, {"ssl.ca.location", ca}, {"ssl.endpoint.identification.algorithm", "https"}};
}

TEST_F(TlsIT, SslProducesAndConsumes) {
  auto o = round_trip(broker_->port("SSL"), tls_client(certs_dir() + "/ca.crt"), "tls-ssl");
  EXPECT_EQ(o.delivered, 20) << o.error;
  EXPECT_EQ(o.consumed, 20) << o.error;
}

TEST_F(TlsIT, MutualTlsWithAClientCertificate) {
  settings s = tls_client(certs_dir() + "/ca.crt");
  s.push_back({"ssl.certificate.location", certs_dir() + "/alice.crt"});
  s.push_back({"ssl.key.location", certs_dir() + "/alice.key.pem"});
  s.push_back({"ssl.key.password", k_password});
  auto o = round_trip(broker_->port("MTLS"), s, "tls-mtls");
  EXPECT_EQ(o.delivered, 20) << o.error;
  EXPECT_EQ(o.consumed, 20) << o.error;
}

TEST_F(TlsIT, MutualTlsRefusesNoOrAnUntrustedClientCertificate) {
  auto none = first_contact(broker_->port("MTLS"), tls_client(certs_dir() + "/ca.crt"));
  EXPECT_EQ(none.delivered, 0);
  EXPECT_FALSE(none.error.empty());
  settings s = tls_client(certs_dir() + "/ca.crt");
  s.push_back({"ssl.certificate.location", certs_dir() + "/other/mallory.crt"});
  s.push_back({"ssl.key.location", certs_dir() + "/other/mallory.key.pem"});
  s.push_back({"ssl.key.password", k_password});
  auto untrusted = first_contact(broker_->port("MTLS"), s);
  EXPECT_EQ(untrusted.delivered, 0);
  EXPECT_FALSE(untrusted.error.empty());
  EXPECT_NE(broker_->log().find("SSL handshake failed"), std::string::npos);
}

TEST_F(TlsIT, ClientRefusesAnUntrustedOrWronglyNamedServer) {
  auto untrusted = first_contact(broker_->port("SSL"), tls_client(certs_dir() + "/other/ca.crt"));
  EXPECT_EQ(untrusted.delivered, 0);
  EXPECT_NE(untrusted.error.find("certificate verify failed"), std::string::npos) << untrusted.error;
  // The broker's certificate names localhost and 127.0.0.1, not 127.0.0.2.
  settings s = tls_client(certs_dir() + "/ca.crt");
  outcome wrong_name;
  {
    char err[512];
    rd_kafka_conf_t* conf = make_conf(broker_->port("SSL"), s, &wrong_name);
    const std::string other = "127.0.0.2:" + std::to_string(broker_->port("SSL"));
    rd_kafka_conf_set(conf, "bootstrap.servers", other.c_str(), err, sizeof err);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    ASSERT_NE(rk, nullptr);
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (wrong_name.error.empty() && std::chrono::steady_clock::now() < deadline) rd_kafka_poll(rk, 50);
    rd_kafka_destroy(rk);
  }
  EXPECT_FALSE(wrong_name.error.empty());
}

TEST_F(TlsIT, SaslSslPlain) {
  settings s = tls_client(certs_dir() + "/ca.crt");
  s[0] = {"security.protocol", "SASL_SSL"};
  s.push_back({"sasl.mechanism", "PLAIN"});
  s.push_back({"sasl.username", "alice"});
  s.push_back({"sasl.password", "alice-secret"});
  auto o = round_trip(broker_->port("SASL_SSL"), s, "tls-sasl-ssl");
  EXPECT_EQ(o.delivered, 20) << o.error;
  EXPECT_EQ(o.consumed, 20) << o.error;
  s.back() = {"sasl.password", "not-alices"};
  auto refused = first_contact(broker_->port("SASL_SSL"), s);
  EXPECT_EQ(refused.delivered, 0);
  EXPECT_NE(refused.error.find("Invalid username or password"), std::string::npos) << refused.error;
}

TEST_F(TlsIT, PlaintextClientOnATlsPortAndTlsClientOnAPlaintextPortAreClosed) {
  raw_client plain(broker_->port("SSL"));
  ASSERT_TRUE(plain.socket().send_frame(api_versions_frame(3, 1)));
  EXPECT_TRUE(plain.socket().closed_by_peer());

  auto tls_on_plain = first_contact(broker_->port("PLAINTEXT"), tls_client(certs_dir() + "/ca.crt"));
  EXPECT_EQ(tls_on_plain.delivered, 0);
  EXPECT_FALSE(tls_on_plain.error.empty());
  // The broker still serves.
  raw_client ok(broker_->port("PLAINTEXT"));
  msg::metadata_request req;
  req.topics = std::vector<msg::metadata_request::metadata_request_topic>{};
  EXPECT_TRUE(ok.call<msg::metadata_response>(3, k_metadata_version, req));
}

// A key store that cannot be used stops the broker with a message that
// names the file (and no password).
std::string start_failure(const std::vector<std::string>& extra) {
  broker_process b;
  std::vector<std::string> args{"--override", "listeners=SSL://127.0.0.1:0,PLAINTEXT://127.0.0.1:0", "--override",
                                "listener.security.protocol.map=SSL:SSL,PLAINTEXT:PLAINTEXT", "--override",
                                "inter.broker.listener.name=PLAINTEXT"};
  args.insert(args.end(), extra.begin(), extra.end());
  if (b.start(args, 20s)) return "started";
  return b.log();
}

TEST(TlsStartIT, WrongKeystorePasswordNamesTheFile) {
  ASSERT_FALSE(certs_dir().empty());
  const std::string store = certs_dir() + "/localhost.keystore.p12";
  std::string log = start_failure({"--override", "ssl.keystore.location=" + store, "--override",
                                   "ssl.keystore.type=PKCS12", "--override", "ssl.keystore.password=guess-1234"});
  EXPECT_NE(log.find("Failed to load SSL keystore " + store + " of type PKCS12: keystore password was incorrect"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("guess-1234"), std::string::npos);
}

TEST(TlsStartIT, AJksKeystoreIsRefusedWithHowToConvertIt) {
  ASSERT_FALSE(certs_dir().empty());
  const std::string jks = certs_dir() + "/server.jks";
  const std::string cmd = "keytool -genkeypair -alias s -keyalg RSA -dname CN=localhost -storetype JKS -keystore " +
                          jks + " -storepass " + k_password + " -keypass " + k_password + " >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "keytool is not installed";
  std::string log = start_failure({"--override", "ssl.keystore.location=" + jks, "--override",
                                   std::string("ssl.keystore.password=") + k_password});
  EXPECT_NE(log.find("it is a JKS store"), std::string::npos) << log;
  EXPECT_NE(log.find("-deststoretype PKCS12"), std::string::npos) << log;
}

TEST(TlsStartIT, NoKeystoreAtAll) {
  std::string log = start_failure({});
  EXPECT_NE(log.find("Listener SSL (SSL): no key store"), std::string::npos) << log;
}

// The subject and fingerprint of the certificate a TLS listener presents now.
std::string served_subject(uint16_t port) {
  const std::string cmd = "openssl s_client -connect 127.0.0.1:" + std::to_string(port) +
                          " </dev/null 2>/dev/null | openssl x509 -noout -subject -fingerprint -nameopt RFC2253 "
                          "2>/dev/null";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  return out;
}

std::optional<msg::incremental_alter_configs_response> alter_broker(raw_client& c, const std::string& broker,
                                                                   const settings& sets) {
  msg::incremental_alter_configs_request req;
  auto& r = req.resources.emplace_back();
  r.resource_type = 4;  // BROKER
  r.resource_name = broker;
  for (const auto& [k, v] : sets) {
    auto& entry = r.configs.emplace_back();
    entry.name = k;
    entry.config_operation = 0;  // SET
    entry.value = v;
  }
  return c.call<msg::incremental_alter_configs_response>(44, 1, req);
}

TEST(TlsReloadIT, KeystoreAlteredWithKafkaConfigsServesNewConnections) {
  const std::string c = certs_dir();
  ASSERT_FALSE(c.empty());
  // A certificate of another name, and localhost's renewed (same name,
  // another key and authority), for the same listener.
  ASSERT_TRUE(certs().add(k_password, "reloaded", "", c));
  ASSERT_TRUE(certs().add(k_password, "localhost", "", c + "/renewed"));
  const std::vector<std::string> args{"--override", "listeners=SSL://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
                                      "--override", "listener.security.protocol.map=SSL:SSL,PLAINTEXT:PLAINTEXT",
                                      "--override", "inter.broker.listener.name=PLAINTEXT",
                                      "--override", "ssl.keystore.location=" + c + "/localhost.keystore.p12",
                                      "--override", std::string("ssl.keystore.password=") + k_password};
  broker_process b;
  ASSERT_TRUE(b.start(args)) << b.log();
  const std::string original = served_subject(b.port("SSL"));
  EXPECT_NE(original.find("CN=localhost"), std::string::npos) << original;
  raw_client admin(b.port("PLAINTEXT"));

  // At the cluster-wide level a key store is refused, as Kafka refuses it.
  auto cluster = alter_broker(admin, "", {{"listener.name.ssl.ssl.keystore.location", c + "/reloaded.keystore.p12"}});
  ASSERT_TRUE(cluster);
  EXPECT_EQ(cluster->responses[0].error_code, 42) << cluster->responses[0].error_message.value_or("");
  EXPECT_NE(cluster->responses[0].error_message.value_or("").find("broker id must be specified"), std::string::npos);

  // A wrong password is refused and the old certificate keeps serving.
  auto wrong = alter_broker(admin, "1", {{"listener.name.ssl.ssl.keystore.location", c + "/renewed/localhost.keystore.p12"},
                                         {"listener.name.ssl.ssl.keystore.password", "guess-9999"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->responses[0].error_code, 40);  // INVALID_CONFIG
  EXPECT_NE(wrong->responses[0].error_message.value_or("").find("Validation of dynamic config update of SSLFactory failed"),
            std::string::npos)
      << wrong->responses[0].error_message.value_or("");
  EXPECT_EQ(wrong->responses[0].error_message.value_or("").find("guess-9999"), std::string::npos);

  // A certificate of another subject is refused as Kafka's SslFactory
  // refuses it (unless ssl.allow.dn.changes); the names as Java prints
  // them (RFC 2253 order: the host certificates' subject is CN first).
  auto renamed = alter_broker(admin, "1", {{"listener.name.ssl.ssl.keystore.location", c + "/reloaded.keystore.p12"},
                                           {"listener.name.ssl.ssl.keystore.password", k_password}});
  ASSERT_TRUE(renamed);
  EXPECT_EQ(renamed->responses[0].error_code, 40);
  EXPECT_NE(renamed->responses[0].error_message.value_or("").find(
                "org.apache.kafka.common.config.ConfigException: Keystore DistinguishedName does not match:  "
                "existing={alias=localhost, DN=O=Highwater, OU=test, CN=localhost}, new={alias=reloaded, "
                "DN=O=Highwater, OU=test, CN=reloaded}"),
            std::string::npos)
      << renamed->responses[0].error_message.value_or("");
  EXPECT_EQ(served_subject(b.port("SSL")), original);

  // The renewed certificate is taken for new connections.
  auto ok = alter_broker(admin, "1", {{"listener.name.ssl.ssl.keystore.location", c + "/renewed/localhost.keystore.p12"},
                                      {"listener.name.ssl.ssl.keystore.password", k_password}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->responses[0].error_code, 0) << ok->responses[0].error_message.value_or("");
  std::string renewed;
  EXPECT_TRUE(wait_until([&] {
    renewed = served_subject(b.port("SSL"));
    return !renewed.empty() && renewed != original;
  }, 15s)) << renewed << b.log();
  EXPECT_NE(renewed.find("CN=localhost"), std::string::npos) << renewed;

  // After a restart the dynamic key store is still the one served; with
  // ssl.allow.dn.changes the other subject is taken too.
  ASSERT_EQ(b.stop(SIGTERM), 0);
  auto allowing = args;
  allowing.insert(allowing.end(), {"--override", "listener.name.ssl.ssl.allow.dn.changes=true"});
  ASSERT_TRUE(b.start(allowing)) << b.log();
  EXPECT_EQ(served_subject(b.port("SSL")), renewed) << b.log();
  raw_client admin2(b.port("PLAINTEXT"));
  auto allowed = alter_broker(admin2, "1", {{"listener.name.ssl.ssl.keystore.location", c + "/reloaded.keystore.p12"},
                                            {"listener.name.ssl.ssl.keystore.password", k_password}});
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->responses[0].error_code, 0) << allowed->responses[0].error_message.value_or("");
  EXPECT_TRUE(wait_until([&] { return served_subject(b.port("SSL")).find("CN=reloaded") != std::string::npos; }, 15s))
      << served_subject(b.port("SSL")) << b.log();
}

}  // namespace
}  // namespace hw::testing
