// ACLs against the real binary: CreateAcls, DescribeAcls and DeleteAcls
// with StandardAuthorizer turned on (super.users, SASL PLAIN users), as an
// administrator and as a user without rights, the ACLs surviving a
// restart (replayed from the metadata log), a broker without an
// authorizer answering SECURITY_DISABLED as Kafka's does, and the
// controller authorizing the client an EnvelopeRequest carries.

#include <gtest/gtest.h>

#include <csignal>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "broker_process.h"
#include "raw_requests.h"
#include "sasl_login.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/envelope.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/principal_data.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"

namespace hw::testing {
namespace {

constexpr int16_t k_describe_acls = 29, k_create_acls = 30, k_delete_acls = 31;
// Kafka's ids: TOPIC 2, GROUP 3, CLUSTER 4; ANY 1, MATCH 2, LITERAL 3, PREFIXED 4; READ 3, WRITE 4,
// ALTER 7, DESCRIBE 8; DENY 2, ALLOW 3.
constexpr int8_t k_any = 1, k_topic = 2, k_group = 3, k_cluster = 4;
constexpr int8_t k_match = 2, k_literal = 3, k_prefixed = 4;
constexpr int8_t k_read = 3, k_write = 4, k_describe = 8;
constexpr int8_t k_deny = 2, k_allow = 3;
constexpr int16_t k_cluster_authorization_failed = 31, k_invalid_request = 42, k_security_disabled = 54;

constexpr const char* k_jaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
    "password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

std::vector<std::string> secured_args() {
  return {"--override", "listeners=SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
          "--override", "inter.broker.listener.name=SASL_PLAINTEXT",
          "--override", "sasl.enabled.mechanisms=PLAIN",
          "--override", "sasl.mechanism.inter.broker.protocol=PLAIN",
          "--override", std::string("listener.name.sasl_plaintext.plain.sasl.jaas.config=") + k_jaas,
          "--override", "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
          "--override", "super.users=User:admin"};
}

msg::create_acls_request::acl_creation creation(int8_t type, std::string name, int8_t pattern, std::string principal,
                                                int8_t operation, int8_t permission = k_allow,
                                                std::string host = "*") {
  msg::create_acls_request::acl_creation c;
  c.resource_type = type;
  c.resource_name = std::move(name);
  c.resource_pattern_type = pattern;
  c.principal = std::move(principal);
  c.host = std::move(host);
  c.operation = operation;
  c.permission_type = permission;
  return c;
}

msg::describe_acls_request everything() {
  msg::describe_acls_request r;
  r.resource_type_filter = k_any;
  r.resource_name_filter = std::nullopt;
  r.pattern_type_filter = k_any;
  r.principal_filter = std::nullopt;
  r.host_filter = std::nullopt;
  r.operation = k_any;
  r.permission_type = k_any;
  return r;
}

// (type, name, pattern, principal, operation, permission) of every ACL described.
using acl_row = std::tuple<int, std::string, int, std::string, int, int>;
std::set<acl_row> rows(const msg::describe_acls_response& r) {
  std::set<acl_row> out;
  for (const auto& res : r.resources)
    for (const auto& a : res.acls)
      out.insert({res.resource_type, res.resource_name, res.pattern_type, a.principal, a.operation,
                  a.permission_type});
  return out;
}

class AclsIT : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new broker_process();
    if (!broker_->start(secured_args())) start_error_ = broker_->log();
  }
  static void TearDownTestSuite() {
    delete broker_;
    broker_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(start_error_.empty()) << start_error_; }
  void TearDown() override {
    if (HasFailure()) ADD_FAILURE() << "broker log:\n" << broker_->log();
  }

  // A connection logged in as user.
  static std::unique_ptr<raw_client> login(const std::string& user, const std::string& password) {
    auto c = std::make_unique<raw_client>(broker_->port("SASL_PLAINTEXT"));
    auto result = sasl_login(c->socket(), {"PLAIN", user, password});
    EXPECT_TRUE(result) << result.error;
    return c;
  }

  static broker_process* broker_;
  static std::string start_error_;
};

broker_process* AclsIT::broker_ = nullptr;
std::string AclsIT::start_error_;

TEST_F(AclsIT, AnAdministratorCreatesDescribesAndDeletesAcls) {
  auto admin = login("admin", "admin-secret");
  msg::create_acls_request create;
  create.creations = {creation(k_topic, "orders", k_literal, "User:alice", k_read),
                      creation(k_topic, "orders", k_literal, "User:alice", k_read),  // twice: written once
                      creation(k_topic, "pay-", k_prefixed, "User:alice", k_write),
                      creation(k_group, "*", k_literal, "User:*", k_read, k_deny),
                      creation(k_cluster, "other", k_literal, "User:alice", k_describe),
                      creation(k_topic, "", k_literal, "User:alice", k_read)};
  auto created = admin->call<msg::create_acls_response>(k_create_acls, 3, create);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->results.size(), 6u);
  for (int i : {0, 1, 2, 3}) EXPECT_EQ(created->results[i].error_code, 0) << i;
  EXPECT_EQ(created->results[4].error_code, k_invalid_request);
  EXPECT_EQ(created->results[4].error_message, "The only valid name for the CLUSTER resource is kafka-cluster");
  EXPECT_EQ(created->results[5].error_code, k_invalid_request);
  EXPECT_EQ(created->results[5].error_message, "Invalid empty resource name");

  auto all = admin->call<msg::describe_acls_response>(k_describe_acls, 3, everything());
  ASSERT_TRUE(all);
  EXPECT_EQ(all->error_code, 0);
  EXPECT_EQ(rows(*all), (std::set<acl_row>{{k_topic, "orders", k_literal, "User:alice", k_read, k_allow},
                                           {k_topic, "pay-", k_prefixed, "User:alice", k_write, k_allow},
                                           {k_group, "*", k_literal, "User:*", k_read, k_deny}}));

  // MATCH: what applies to the topic pay-in (the prefix), and nothing of orders.
  auto match = everything();
  match.resource_type_filter = k_topic;
  match.resource_name_filter = "pay-in";
  match.pattern_type_filter = k_match;
  auto matched = admin->call<msg::describe_acls_response>(k_describe_acls, 3, match);
  ASSERT_TRUE(matched);
  EXPECT_EQ(rows(*matched), (std::set<acl_row>{{k_topic, "pay-", k_prefixed, "User:alice", k_write, k_allow}}));

  // Delete alice's topic ACLs; the group's stays.
  msg::delete_acls_request del;
  msg::delete_acls_request::delete_acls_filter f;
  f.resource_type_filter = k_topic;
  f.resource_name_filter = std::nullopt;
  f.pattern_type_filter = k_any;
  f.principal_filter = "User:alice";
  f.host_filter = std::nullopt;
  f.operation = k_any;
  f.permission_type = k_any;
  del.filters = {f};
  auto deleted = admin->call<msg::delete_acls_response>(k_delete_acls, 3, del);
  ASSERT_TRUE(deleted);
  ASSERT_EQ(deleted->filter_results.size(), 1u);
  EXPECT_EQ(deleted->filter_results[0].error_code, 0);
  EXPECT_EQ(deleted->filter_results[0].matching_acls.size(), 2u);
  auto after = admin->call<msg::describe_acls_response>(k_describe_acls, 3, everything());
  ASSERT_TRUE(after);
  EXPECT_EQ(rows(*after), (std::set<acl_row>{{k_group, "*", k_literal, "User:*", k_read, k_deny}}));
}

TEST_F(AclsIT, AUserWithoutRightsIsRefusedUntilGrantedAndTheGrantSurvivesARestart) {
  auto alice = login("alice", "alice-secret");
  auto refused = alice->call<msg::describe_acls_response>(k_describe_acls, 3, everything());
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error_code, k_cluster_authorization_failed);
  EXPECT_TRUE(refused->resources.empty());
  msg::create_acls_request grant;
  grant.creations = {creation(k_cluster, "kafka-cluster", k_literal, "User:alice", k_describe)};
  auto not_allowed = alice->call<msg::create_acls_response>(k_create_acls, 3, grant);
  ASSERT_TRUE(not_allowed);
  ASSERT_EQ(not_allowed->results.size(), 1u);
  EXPECT_EQ(not_allowed->results[0].error_code, k_cluster_authorization_failed);
  // PLAINTEXT's User:ANONYMOUS is no super user either.
  raw_client anonymous(broker_->port("PLAINTEXT"));
  auto anonymous_refused = anonymous.call<msg::describe_acls_response>(k_describe_acls, 3, everything());
  ASSERT_TRUE(anonymous_refused);
  EXPECT_EQ(anonymous_refused->error_code, k_cluster_authorization_failed);

  // The administrator grants it; alice's next request is allowed (the
  // answer waits until this broker has applied the record).
  auto admin = login("admin", "admin-secret");
  auto granted = admin->call<msg::create_acls_response>(k_create_acls, 3, grant);
  ASSERT_TRUE(granted);
  EXPECT_EQ(granted->results.at(0).error_code, 0);
  auto described = alice->call<msg::describe_acls_response>(k_describe_acls, 3, everything());
  ASSERT_TRUE(described);
  EXPECT_EQ(described->error_code, 0);
  EXPECT_TRUE(rows(*described).count({k_cluster, "kafka-cluster", k_literal, "User:alice", k_describe, k_allow}));

  // DESCRIBE does not give ALTER.
  auto still_refused = alice->call<msg::create_acls_response>(k_create_acls, 3, grant);
  ASSERT_TRUE(still_refused);
  EXPECT_EQ(still_refused->results.at(0).error_code, k_cluster_authorization_failed);

  // After a restart the grant is replayed from the metadata log.
  alice.reset();
  admin.reset();
  ASSERT_EQ(broker_->stop(SIGTERM), 0) << broker_->log();
  ASSERT_TRUE(broker_->start(secured_args())) << broker_->log();
  auto again = login("alice", "alice-secret");
  auto after_restart = again->call<msg::describe_acls_response>(k_describe_acls, 3, everything());
  ASSERT_TRUE(after_restart);
  EXPECT_EQ(after_restart->error_code, 0);
  EXPECT_TRUE(rows(*after_restart).count({k_cluster, "kafka-cluster", k_literal, "User:alice", k_describe, k_allow}));
}

TEST_F(AclsIT, ABindingWithAnUnknownFieldClosesTheConnection) {
  auto admin = login("admin", "admin-secret");
  msg::create_acls_request create;
  create.creations = {creation(k_topic, "t", k_literal, "User:alice", /*UNKNOWN*/ 0)};
  std::vector<uint8_t> body;
  protocol::writer w(body);
  create.encode(w, 3);
  ASSERT_TRUE(admin->socket().send_frame(request_frame(k_create_acls, 3, 99, body)));
  EXPECT_TRUE(admin->socket().closed_by_peer());
}

TEST(AclsWithoutAuthorizerIT, TheAclApisAnswerSecurityDisabled) {
  broker_process broker;
  ASSERT_TRUE(broker.start({})) << broker.log();
  raw_client c(broker.port());
  auto described = c.call<msg::describe_acls_response>(k_describe_acls, 3, everything());
  ASSERT_TRUE(described);
  EXPECT_EQ(described->error_code, k_security_disabled);
  EXPECT_EQ(described->error_message, "No Authorizer is configured on the broker");
  msg::create_acls_request create;
  create.creations = {creation(k_topic, "t", k_literal, "User:alice", k_read)};
  auto created = c.call<msg::create_acls_response>(k_create_acls, 3, create);
  ASSERT_TRUE(created);
  ASSERT_EQ(created->results.size(), 1u);
  EXPECT_EQ(created->results[0].error_code, k_security_disabled);
  EXPECT_EQ(created->results[0].error_message, "No Authorizer is configured.");
}

TEST(AclsConfigIT, AnAuthorizerOtherThanKafkasStandardOneIsRefusedAtStartUp) {
  broker_process broker;
  EXPECT_FALSE(broker.start({"--override", "authorizer.class.name=kafka.security.authorizer.AclAuthorizer"}));
  EXPECT_NE(broker.log().find("Invalid value kafka.security.authorizer.AclAuthorizer for configuration "
                              "authorizer.class.name"),
            std::string::npos)
      << broker.log();
  broker_process malformed;
  EXPECT_FALSE(malformed.start({"--override",
                                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                                "--override", "super.users=User:admin;bob"}));
  EXPECT_NE(malformed.log().find("super.users"), std::string::npos) << malformed.log();
}

// An admin request a broker forwards travels in an EnvelopeRequest with
// the client's principal and address: the controller takes it only from a
// sender with CLUSTER_ACTION, and then authorizes the client it carries,
// as Kafka's ControllerApis does. One node with a PLAINTEXT controller
// listener (User:ANONYMOUS, no super user) sends the envelopes by hand.
// Kafka's principal in an envelope: the version (0), then
// DefaultPrincipalData.
std::vector<uint8_t> principal_bytes(const std::string& type, const std::string& name) {
  msg::default_principal_data data;
  data.type = type;
  data.name = name;
  std::vector<uint8_t> out;
  protocol::writer w(out);
  w.write_int16(0);
  data.encode(w, 0);
  return out;
}

class AclsEnvelopeIT : public ::testing::Test {
 protected:
  void SetUp() override {
    auto chosen = start_on_fresh_ports(1, [&](const std::vector<uint16_t>& ports) {
      const std::string controller = "127.0.0.1:" + std::to_string(ports[0]);
      std::vector<std::string> args = secured_args();
      for (auto& a : args)
        if (a.starts_with("listeners=")) a = "listeners=SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://" + controller;
      for (const std::string& extra : std::vector<std::string>{
               "controller.listener.names=CONTROLLER", "controller.quorum.voters=1@" + controller,
            std::string("listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT")}) {
        args.push_back("--override");
        args.push_back(extra);
      }
      return started_or_port_taken(node_.start(args), {&node_});
    });
    ASSERT_TRUE(chosen) << node_.log();
    controller_port_ = chosen->at(0);
  }
  void TearDown() override {
    if (HasFailure()) ADD_FAILURE() << "broker log:\n" << node_.log();
  }

  std::unique_ptr<raw_client> admin() {
    auto c = std::make_unique<raw_client>(node_.port("SASL_PLAINTEXT"));
    auto result = sasl_login(c->socket(), {"PLAIN", "admin", "admin-secret"});
    EXPECT_TRUE(result) << result.error;
    return c;
  }
  void grant(const msg::create_acls_request::acl_creation& c) {
    msg::create_acls_request r;
    r.creations = {c};
    auto done = admin()->call<msg::create_acls_response>(k_create_acls, 3, r);
    ASSERT_TRUE(done);
    ASSERT_EQ(done->results.at(0).error_code, 0);
  }

  // CreateTopics v7 of `topic` as `principal` from `address`, in an envelope
  // sent on the controller listener; the envelope's answer.
  std::optional<msg::envelope_response> enveloped(const std::string& principal_type, const std::string& principal_name,
                                                 const std::string& topic, std::vector<uint8_t> address = {127, 0, 0, 1}) {
    msg::create_topics_request create;
    auto& t = create.topics.emplace_back();
    t.name = topic;
    t.num_partitions = 1;
    t.replication_factor = 1;
    std::vector<uint8_t> body;
    {
      protocol::writer w(body);
      create.encode(w, 7);
    }
    msg::request_header header;
    header.request_api_key = 19;
    header.request_api_version = 7;
    header.correlation_id = 77;
    header.client_id = "forwarded-client";
    msg::envelope_request envelope;
    {
      protocol::writer w(envelope.request_data);
      header.encode(w, protocol::request_header_version(19, 7));
      w.write_raw(std::span<const uint8_t>(body));
    }
    envelope.request_principal = principal_bytes(principal_type, principal_name);
    envelope.client_host_address = std::move(address);
    raw_client controller({"127.0.0.1", controller_port_});
    return controller.call<msg::envelope_response>(58, 0, envelope);
  }
  // The inner CreateTopics answer of an envelope's (header v1 skipped).
  static msg::create_topics_response inner(const msg::envelope_response& e) {
    protocol::reader r(protocol::bytes_view(e.response_data->data(), e.response_data->size()));
    msg::response_header h;
    h.decode(r, 1);
    EXPECT_EQ(h.correlation_id, 77);
    msg::create_topics_response out;
    out.decode(r, 7);
    EXPECT_TRUE(r.ok());
    return out;
  }

  broker_process node_;
  uint16_t controller_port_ = 0;
};

TEST_F(AclsEnvelopeIT, TheControllerAuthorizesTheClientTheEnvelopeCarries) {
  grant(creation(k_topic, "env-", k_prefixed, "User:alice", 5 /* CREATE */));
  // User:ANONYMOUS may not forward: the envelope itself is refused.
  auto refused = enveloped("User", "alice", "env-a");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error_code, k_cluster_authorization_failed);
  EXPECT_FALSE(refused->response_data);

  grant(creation(k_cluster, "kafka-cluster", k_literal, "User:ANONYMOUS", 9 /* CLUSTER_ACTION */));
  // bob has no CREATE: the request inside is refused as bob's would be.
  auto bobs = enveloped("User", "bob", "env-b");
  ASSERT_TRUE(bobs);
  EXPECT_EQ(bobs->error_code, 0);
  ASSERT_TRUE(bobs->response_data);
  auto bob_answer = inner(*bobs);
  ASSERT_EQ(bob_answer.topics.size(), 1u);
  EXPECT_EQ(bob_answer.topics[0].error_code, 29);  // TOPIC_AUTHORIZATION_FAILED
  EXPECT_EQ(bob_answer.topics[0].error_message, "Authorization failed.");
  // alice may create env-*: created, on behalf of her and not of the sender.
  auto alices = enveloped("User", "alice", "env-a");
  ASSERT_TRUE(alices);
  ASSERT_TRUE(alices->response_data);
  auto alice_answer = inner(*alices);
  ASSERT_EQ(alice_answer.topics.size(), 1u);
  EXPECT_EQ(alice_answer.topics[0].error_code, 0) << alice_answer.topics[0].error_message.value_or("");
  // A DENY for alice's host, carried as her address, refuses her.
  grant(creation(k_topic, "env-", k_prefixed, "User:alice", 5, k_deny, "10.9.8.7"));
  auto from_denied_host = enveloped("User", "alice", "env-c", {10, 9, 8, 7});
  ASSERT_TRUE(from_denied_host);
  EXPECT_EQ(inner(*from_denied_host).topics.at(0).error_code, 29);
}

TEST_F(AclsEnvelopeIT, AnEnvelopeThatCannotBeOpenedIsRefused) {
  grant(creation(k_cluster, "kafka-cluster", k_literal, "User:ANONYMOUS", 9 /* CLUSTER_ACTION */));
  auto bad_address = enveloped("User", "alice", "env-x", {1, 2, 3});
  ASSERT_TRUE(bad_address);
  EXPECT_EQ(bad_address->error_code, k_invalid_request);
  // A principal without a type cannot be read back.
  auto no_type = enveloped("", "alice", "env-x");
  ASSERT_TRUE(no_type);
  EXPECT_EQ(no_type->error_code, 97);  // PRINCIPAL_DESERIALIZATION_FAILURE
  // An envelope inside an envelope.
  msg::envelope_request outer;
  {
    msg::request_header header;
    header.request_api_key = 58;
    header.request_api_version = 0;
    header.client_id = "nested";
    protocol::writer w(outer.request_data);
    header.encode(w, protocol::request_header_version(58, 0));
    msg::envelope_request nested;
    nested.request_principal = principal_bytes("User", "alice");
    nested.client_host_address = {127, 0, 0, 1};
    nested.encode(w, 0);
  }
  outer.request_principal = principal_bytes("User", "alice");
  outer.client_host_address = {127, 0, 0, 1};
  raw_client controller({"127.0.0.1", controller_port_});
  auto nested = controller.call<msg::envelope_response>(58, 0, outer);
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->error_code, k_invalid_request);
}

}  // namespace
}  // namespace hw::testing
