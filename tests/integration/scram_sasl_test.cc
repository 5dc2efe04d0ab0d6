// SCRAM logins against the real binary: a SASL_PLAINTEXT listener enabling
// SCRAM-SHA-256 and SCRAM-SHA-512 checks librdkafka's logins against the
// metadata's credentials, set through AlterUserScramCredentials on a
// PLAINTEXT listener beside it (the login works as soon as the alter has
// answered, and stops working once the credential is deleted), or
// bootstrapped at format time (`kafka-storage.sh format --add-scram`,
// KIP-900): then a cluster whose brokers authenticate to each other with
// SCRAM starts, because the credentials are in the image before any broker
// connects.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <fstream>
#include <string>
#include <vector>

#include "broker_process.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/sasl/scram.h"
#include "raw_requests.h"
#include "replication_cluster.h"
#include "sasl_support.h"

namespace hw::testing {
namespace {

namespace msg = protocol::msg;
using alter_request = msg::alter_user_scram_credentials_request;
using alter_response = msg::alter_user_scram_credentials_response;
using describe_response = msg::describe_user_scram_credentials_response;
using protocol::scram_mechanism;

const char* const k_scram_login =
    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\"admin-secret\";";
const char* const k_plain_login =
    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"admin-secret\" "
    "user_admin=\"admin-secret\";";

// A broker with a SCRAM listener and a PLAINTEXT one for the admin requests.
std::vector<std::string> scram_listener_args() {
  return {"--override", "listeners=SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
          "--override", "inter.broker.listener.name=PLAINTEXT",
          "--override", "sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512",
          "--override", std::string("listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=") + k_scram_login,
          "--override", std::string("listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=") + k_scram_login,
          "--override", "connection.failed.authentication.delay.ms=100"};
}

int16_t alter(uint16_t port, const alter_request& req) {
  raw_client c(port);
  auto resp = c.call<alter_response>(51, 0, req);
  if (!resp || resp->results.empty()) return -1;
  for (const auto& r : resp->results)
    if (r.error_code != 0) return r.error_code;
  return 0;
}

alter_request::scram_credential_upsertion upsert(const std::string& user, scram_mechanism m,
                                                 const std::string& password, int32_t iterations) {
  alter_request::scram_credential_upsertion u;
  u.name = user;
  u.mechanism = protocol::scram_mechanism_type(m);
  u.iterations = iterations;
  u.salt = protocol::scram::random_salt();
  u.salted_password = protocol::scram::salted_password(m, password, u.salt, iterations);
  return u;
}

// "user mechanism:iterations ..." for one user, from DescribeUserScramCredentials.
std::string described(uint16_t port, const std::string& user) {
  raw_client c(port);
  msg::describe_user_scram_credentials_request req;
  req.users.emplace().push_back({user, {}});
  auto resp = c.call<describe_response>(50, 0, req);
  if (!resp || resp->results.size() != 1) return "no answer";
  std::string line = resp->results[0].user + " " + std::to_string(resp->results[0].error_code);
  for (const auto& info : resp->results[0].credential_infos)
    line += " " + std::to_string(info.mechanism) + ":" + std::to_string(info.iterations);
  return line;
}

std::string refusal_text(const std::string& mechanism) {
  return "Authentication failed during authentication due to invalid credentials with SASL mechanism " + mechanism;
}

// kafka-storage.sh format through the native tool; its exit code, its output in *out.
int native_format(const std::string& dir, const std::string& properties, const std::vector<std::string>& args,
                  std::string* out) {
  const std::string config = dir + "/format.properties", log = dir + "/format.out";
  std::ofstream(config) << properties;
  std::string cmd = std::string("'") + HW_TOOLS_BINARY + "' kafka-storage.sh format -c '" + config + "'";
  for (const auto& a : args) cmd += " '" + a + "'";  // no argument here holds a single quote
  cmd += " >'" + log + "' 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream in(log);
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class ScramSaslIT : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure()) ADD_FAILURE() << "broker log:\n" << broker.log();
  }
  uint16_t sasl_port() { return broker.port("SASL_PLAINTEXT"); }
  uint16_t plain_port() { return broker.port("PLAINTEXT"); }
  broker_process broker;
};

TEST_F(ScramSaslIT, LoginsFollowAlterUserScramCredentials) {
  ASSERT_TRUE(broker.start(scram_listener_args()));
  const std::string password = "alice-pw-7f3e";
  // One request per mechanism: Kafka refuses a user twice in one request.
  alter_request set;
  set.upsertions = {upsert("alice", scram_mechanism::sha256, password, 4096)};
  ASSERT_EQ(alter(plain_port(), set), 0);
  set.upsertions = {upsert("alice", scram_mechanism::sha512, password, 8192)};
  ASSERT_EQ(alter(plain_port(), set), 0);
  // The alter answered once this broker applied the records: the login works at once.
  auto r256 = produce_one(sasl_port(), "SCRAM-SHA-256", "alice", password, "scram-it");
  EXPECT_TRUE(r256.delivered) << r256.error;
  auto r512 = produce_one(sasl_port(), "SCRAM-SHA-512", "alice", password, "scram-it");
  EXPECT_TRUE(r512.delivered) << r512.error;

  auto wrong = produce_one(sasl_port(), "SCRAM-SHA-256", "alice", "not-alices-pw-x9", "scram-it");
  EXPECT_FALSE(wrong.delivered);
  EXPECT_NE(wrong.error.find(refusal_text("SCRAM-SHA-256")), std::string::npos) << wrong.error;
  auto unknown = produce_one(sasl_port(), "SCRAM-SHA-512", "mallory", password, "scram-it");
  EXPECT_FALSE(unknown.delivered);
  EXPECT_NE(unknown.error.find(refusal_text("SCRAM-SHA-512")), std::string::npos) << unknown.error;

  // Deleting the SHA-256 credential ends those logins; SHA-512 still works.
  alter_request gone;
  gone.deletions = {{"alice", protocol::scram_mechanism_type(scram_mechanism::sha256), {}}};
  ASSERT_EQ(alter(plain_port(), gone), 0);
  auto deleted = produce_one(sasl_port(), "SCRAM-SHA-256", "alice", password, "scram-it");
  EXPECT_FALSE(deleted.delivered);
  EXPECT_NE(deleted.error.find(refusal_text("SCRAM-SHA-256")), std::string::npos) << deleted.error;
  EXPECT_TRUE(produce_one(sasl_port(), "SCRAM-SHA-512", "alice", password, "scram-it").delivered);

  // Nothing secret reached the log.
  for (const char* secret : {"alice-pw-7f3e", "not-alices-pw-x9", "admin-secret"})
    EXPECT_EQ(broker.log().find(secret), std::string::npos) << secret;
}

TEST_F(ScramSaslIT, CredentialsBootstrappedAtFormatTimeAreThereAtTheFirstRequest) {
  std::string out;
  // The broker's defaults: a combined node, its data (and metadata) in ./data.
  ASSERT_EQ(native_format(broker.dir(), "process.roles=broker,controller\nnode.id=1\nlog.dirs=" + broker.dir() + "/data\n",
                          {"-t", "ScramBootstrapITcluster", "-N", "--add-scram",
                           "SCRAM-SHA-512=[name=alice,iterations=8192,password=alice-boot-pw]", "--add-scram",
                           "SCRAM-SHA-256=[name=bob,password=bob-boot-pw]"},
                          &out),
            0)
      << out;
  EXPECT_EQ(out.find("alice-boot-pw"), std::string::npos) << out;
  ASSERT_TRUE(broker.start(scram_listener_args()));
  // The first request the broker answers already sees them.
  EXPECT_EQ(described(plain_port(), "alice"), "alice 0 2:8192");
  EXPECT_EQ(described(plain_port(), "bob"), "bob 0 1:4096");
  auto r = produce_one(sasl_port(), "SCRAM-SHA-512", "alice", "alice-boot-pw", "scram-boot");
  EXPECT_TRUE(r.delivered) << r.error;
  auto wrong = produce_one(sasl_port(), "SCRAM-SHA-256", "bob", "alice-boot-pw", "scram-boot");
  EXPECT_FALSE(wrong.delivered);
  EXPECT_NE(wrong.error.find(refusal_text("SCRAM-SHA-256")), std::string::npos) << wrong.error;
  EXPECT_NE(broker.log().find("Wrote the bootstrap metadata records of a new cluster (2 SCRAM credentials)"),
            std::string::npos);
}

// Three combined nodes whose inter-broker listener (INTERNAL) is
// SASL_PLAINTEXT with SCRAM-SHA-512 and whose controller listener is
// SASL_PLAINTEXT with PLAIN (a quorum cannot log in with credentials kept
// in its own log); the brokers' SCRAM user is bootstrapped at format time.
class ScramClusterIT : public replication_cluster {
 protected:
  std::vector<std::string> extra_overrides() const override {
    return {"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
            "inter.broker.listener.name=INTERNAL",
            "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512",
            "sasl.mechanism.controller.protocol=PLAIN",
            "listener.name.internal.sasl.enabled.mechanisms=SCRAM-SHA-512",
            std::string("listener.name.internal.scram-sha-512.sasl.jaas.config=") + k_scram_login,
            "listener.name.controller.sasl.enabled.mechanisms=PLAIN",
            std::string("listener.name.controller.plain.sasl.jaas.config=") + k_plain_login};
  }
  std::vector<std::string> node_overrides(int i) const override {
    return {"listeners=PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0,CONTROLLER://127.0.0.1:" +
            std::to_string(controller_ports[i])};
  }
  bool before_start(int i) override {
    const std::string dir = nodes[i]->dir();
    std::string out;
    const int code = native_format(
        dir,
        "process.roles=broker,controller\nnode.id=" + std::to_string(i + 1) + "\ncontroller.quorum.voters=" + voters +
            "\ncontroller.listener.names=CONTROLLER\nlog.dirs=" + dir + "/data\n",
        {"-t", "ReplicationITclusterAA", "--ignore-formatted", "--add-scram",
         "SCRAM-SHA-512=[name=admin,password=admin-secret]", "--add-scram",
         "SCRAM-SHA-512=[name=alice,iterations=4096,password=alice-cluster-pw]"},
        &out);
    EXPECT_EQ(code, 0) << out;
    return code == 0;
  }
};

TEST_F(ScramClusterIT, BrokersReplicateOverScramFromTheFirstStart) {
  // Replication (followers' fetches), ISR changes and the metadata all go
  // over the SASL listeners.
  create_replicated("scram-replicated");
  std::vector<rd_kafka_resp_err_t> errors;
  auto produced = produce_all(at(0), "scram-replicated", messages("k", 20), "all", &errors);
  EXPECT_TRUE(errors.empty()) << logs();
  for (const auto& r : produced) EXPECT_GE(r.offset, 0);
  EXPECT_TRUE(wait_until([&] { return segments_identical("scram-replicated"); }, 20s)) << logs();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(isr_is(i, "scram-replicated", {1, 2, 3})) << logs();
  // A client logs in on the inter-broker listener with a bootstrapped user.
  auto r = produce_one(nodes[1]->port("INTERNAL"), "SCRAM-SHA-512", "alice", "alice-cluster-pw", "scram-client");
  EXPECT_TRUE(r.delivered) << r.error;
  for (const char* secret : {"admin-secret", "alice-cluster-pw"}) EXPECT_EQ(logs().find(secret), std::string::npos);
}

}  // namespace
}  // namespace hw::testing
