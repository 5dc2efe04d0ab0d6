// ACLs and authorization: the same CreateAcls, DescribeAcls and DeleteAcls
// to Kafka 4.3.1 and Highwater (both run the StandardAuthorizer; the
// principals the other tests use are super users, bob is not: see
// twin_environment.cc), as the super user admin and as bob, answers
// compared field by field. Kafka lists DescribeAcls' resources and entries
// in hash order, so those compare as sets; every other field compares as
// it is. Each test removes the ACLs it made.

#include <algorithm>
#include <set>
#include <tuple>

#include "broker_process.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_describe_acls = 29, k_create_acls = 30, k_delete_acls = 31;
constexpr int8_t k_any = 1, k_topic = 2, k_group = 3, k_cluster = 4, k_transactional_id = 5;
constexpr int8_t k_match = 2, k_literal = 3, k_prefixed = 4;
constexpr int8_t k_all = 2, k_read = 3, k_write = 4, k_alter = 7, k_describe = 8, k_two_phase_commit = 15;
constexpr int8_t k_deny = 2, k_allow = 3;

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

msg::describe_acls_request describing(int8_t type, std::optional<std::string> name, int8_t pattern,
                                      std::optional<std::string> principal = std::nullopt) {
  msg::describe_acls_request r;
  r.resource_type_filter = type;
  r.resource_name_filter = std::move(name);
  r.pattern_type_filter = pattern;
  r.principal_filter = std::move(principal);
  r.host_filter = std::nullopt;
  r.operation = k_any;
  r.permission_type = k_any;
  return r;
}

msg::delete_acls_request::delete_acls_filter deleting(int8_t type, std::optional<std::string> name, int8_t pattern,
                                                      std::optional<std::string> principal = std::nullopt) {
  msg::delete_acls_request::delete_acls_filter f;
  f.resource_type_filter = type;
  f.resource_name_filter = std::move(name);
  f.pattern_type_filter = pattern;
  f.principal_filter = std::move(principal);
  f.host_filter = std::nullopt;
  f.operation = k_any;
  f.permission_type = k_any;
  return f;
}

using acl_row = std::tuple<int, std::string, int, std::string, std::string, int, int>;
std::set<acl_row> rows(const msg::describe_acls_response& r) {
  std::set<acl_row> out;
  for (const auto& res : r.resources)
    for (const auto& a : res.acls)
      out.insert({res.resource_type, res.resource_name, res.pattern_type, a.principal, a.host, a.operation,
                  a.permission_type});
  return out;
}
std::set<acl_row> rows(const msg::delete_acls_response::delete_acls_filter_result& r) {
  std::set<acl_row> out;
  for (const auto& a : r.matching_acls)
    out.insert({a.resource_type, a.resource_name, a.pattern_type, a.principal, a.host, a.operation,
                a.permission_type});
  return out;
}

// DescribeAcls: everything but the resources field by field, the
// resources as sets.
void expect_same_describe(const exchange& e) {
  expect_same(e, {{"resources*", allowed::rule::any_value, "hash order; compared as sets below"}});
  const auto k = e.as<msg::describe_acls_response>(side::kafka);
  const auto h = e.as<msg::describe_acls_response>(side::highwater);
  EXPECT_EQ(rows(k), rows(h)) << e.what;
}

// DeleteAcls: each filter's matches as sets.
void expect_same_delete(const exchange& e) {
  expect_same(e, {{"filter_results[*].matching_acls*", allowed::rule::any_value, "compared as sets below"}});
  const auto k = e.as<msg::delete_acls_response>(side::kafka);
  const auto h = e.as<msg::delete_acls_response>(side::highwater);
  ASSERT_EQ(k.filter_results.size(), h.filter_results.size()) << e.what;
  for (size_t i = 0; i < k.filter_results.size(); ++i)
    EXPECT_EQ(rows(k.filter_results[i]), rows(h.filter_results[i])) << e.what << " filter " << i;
}

class AclsDifferential : public DifferentialTest {
 protected:
  void SetUp() override {
    DifferentialTest::SetUp();
    admin_ = std::make_unique<twin>("SASL_PLAINTEXT", "admin", "admin-secret");
    ASSERT_TRUE(admin_->connected());
  }
  twin& admin() { return *admin_; }

  // Kafka applies an ACL change asynchronously: wait until both describe
  // it (Highwater answers once it has applied it).
  void wait_described(const std::string& topic, size_t count) {
    const bool settled = wait_until(
        [&] {
          auto e = admin().call("wait", k_describe_acls, 3, describing(k_topic, topic, k_match));
          return rows(e.as<msg::describe_acls_response>(side::kafka)).size() == count &&
                 rows(e.as<msg::describe_acls_response>(side::highwater)).size() == count;
        },
        10s);
    EXPECT_TRUE(settled) << "the ACLs of " << topic << " did not settle at " << count;
  }

 private:
  std::unique_ptr<twin> admin_;
};

TEST_F(AclsDifferential, CreateDescribeAndDeleteAsTheSuperUser) {
  const std::string topic = fresh_name("acl-topic");
  msg::create_acls_request create;
  create.creations = {creation(k_topic, topic, k_literal, "User:bob", k_read),
                      creation(k_topic, topic, k_literal, "User:bob", k_read),
                      creation(k_topic, topic.substr(0, 6), k_prefixed, "User:bob", k_write, k_deny, "10.0.0.1"),
                      creation(k_topic, "*", k_literal, "User:carol", k_all),
                      creation(k_transactional_id, topic, k_literal, "User:bob", k_two_phase_commit),
                      creation(k_cluster, "other", k_literal, "User:bob", k_alter),
                      creation(k_cluster, "kafka-cluster", k_literal, "User:bob", k_describe, k_deny),
                      creation(k_topic, "", k_literal, "User:bob", k_read)};
  expect_same(admin().call("create", k_create_acls, 3, create));
  // A filter's value in one creation fails them all (Kafka cannot make a
  // binding of it), written or not.
  for (const auto& bad : {creation(k_topic, topic, k_match, "User:bob", k_read),
                          creation(k_any, topic, k_literal, "User:bob", k_read),
                          creation(k_group, topic, k_literal, "User:bob", k_any),
                          creation(k_group, topic, k_literal, "User:bob", k_read, k_any)}) {
    msg::create_acls_request mixed;
    mixed.creations = {creation(k_group, topic, k_literal, "User:bob", k_read), bad};
    expect_same(admin().call("create with a filter's value", k_create_acls, 3, mixed));
  }
  wait_described(topic, 3);  // the literal, the prefix and the wildcard

  for (int16_t v : {1, 2, 3}) {
    expect_same_describe(admin().call("describe all of bob's", k_describe_acls, v,
                                      describing(k_any, std::nullopt, k_any, "User:bob")));
    expect_same_describe(admin().call("describe MATCH " + topic, k_describe_acls, v,
                                      describing(k_topic, topic, k_match)));
    expect_same_describe(admin().call("describe LITERAL *", k_describe_acls, v, describing(k_topic, "*", k_literal)));
    expect_same_describe(admin().call("describe PREFIXED", k_describe_acls, v,
                                      describing(k_topic, topic.substr(0, 6), k_prefixed)));
  }

  msg::delete_acls_request del;
  del.filters = {deleting(k_topic, topic, k_match), deleting(k_any, std::nullopt, k_any, "User:bob"),
                 deleting(k_topic, "absent", k_literal)};
  expect_same_delete(admin().call("delete", k_delete_acls, 3, del));
  // carol's wildcard and bob's cluster DENY are gone too (the second filter
  // matched bob's; the first the wildcard).
  expect_same_describe(admin().call("describe after", k_describe_acls, 3, describing(k_any, std::nullopt, k_any)));
}

// Kafka's refusal of a cluster operation names the request as its network
// layer prints it (thread, connection, Java object hashes, and for a
// forwarded one the envelope): what both must say is the end.
void expect_refusal_message(const exchange& e, const std::optional<std::string>& message, const std::string& op) {
  ASSERT_TRUE(message.has_value()) << e.what;
  EXPECT_TRUE(message->starts_with("Request Request(processor=")) << e.what << ": " << *message;
  EXPECT_TRUE(message->ends_with(") needs " + op + " permission.")) << e.what << ": " << *message;
}

TEST_F(AclsDifferential, AUserWithoutRightsIsRefusedAsKafkaRefusesIt) {
  twin bob("SASL_PLAINTEXT", "bob", "bob-secret");
  ASSERT_TRUE(bob.connected());
  const allowlist messages{{"*error_message", allowed::rule::same_nullness, "the request as Kafka's network layer "
                                                                            "prints it; the end is checked below"}};
  for (int16_t v : {1, 3}) {
    auto described = bob.call("bob describes", k_describe_acls, v, describing(k_any, std::nullopt, k_any));
    expect_same(described, messages);
    for (side s : k_sides)
      expect_refusal_message(described, described.as<msg::describe_acls_response>(s).error_message, "DESCRIBE");
    msg::create_acls_request create;
    create.creations = {creation(k_topic, "t", k_literal, "User:bob", k_read),
                        creation(k_group, "g", k_literal, "User:bob", k_read)};
    auto created = bob.call("bob creates", k_create_acls, v, create);
    expect_same(created, messages);
    for (side s : k_sides)
      for (const auto& r : created.as<msg::create_acls_response>(s).results)
        expect_refusal_message(created, r.error_message, "ALTER");
    msg::delete_acls_request del;
    del.filters = {deleting(k_any, std::nullopt, k_any)};
    auto deleted = bob.call("bob deletes", k_delete_acls, v, del);
    expect_same(deleted, messages);
    for (side s : k_sides)
      for (const auto& r : deleted.as<msg::delete_acls_response>(s).filter_results)
        expect_refusal_message(deleted, r.error_message, "ALTER");
  }
}

}  // namespace
}  // namespace hw::testing::differential
