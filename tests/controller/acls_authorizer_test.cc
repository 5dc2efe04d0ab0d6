// The authorizer's decisions from a metadata image's ACLs, with the rules
// and scenarios of Kafka's StandardAuthorizer (and the default
// authorizeByResourceType every Kafka authorizer inherits), and a random
// comparison of the indexed search with a scan of every ACL.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "controller/metadata/acl_authorizer.h"

namespace hw::controller {
namespace {

using op = acl_operation;
using perm = acl_permission;
using pattern = acl_pattern_type;
using type = acl_resource_type;

constexpr pattern literal = pattern::literal;
constexpr pattern prefixed = pattern::prefixed;
constexpr perm allow = perm::allow;
constexpr perm deny = perm::deny;
constexpr std::string_view any_host = "*";
constexpr std::string_view here = "127.0.0.1";

acl_entry acl(type t, std::string name, pattern p, std::string principal, op o, perm permission,
              std::string host = "*") {
  return {t, std::move(name), p, std::move(principal), std::move(host), o, permission};
}

std::map<protocol::uuid, acl_entry> keyed(const std::vector<acl_entry>& acls) {
  std::map<protocol::uuid, acl_entry> out;
  uint32_t n = 0;
  for (const auto& a : acls) {
    protocol::uuid id;
    ++n;
    for (int i = 0; i < 4; ++i) id.bytes[i] = static_cast<uint8_t>(n >> (8 * i));
    out.emplace(id, a);
  }
  return out;
}

acl_authorizer make(const std::vector<acl_entry>& acls, std::set<std::string, std::less<>> super_users = {},
                    bool allow_everyone = false) {
  return acl_authorizer(keyed(acls), authorizer_settings{std::move(super_users), allow_everyone});
}

// The operations an ACL may name (every one but the filters' ANY and UNKNOWN).
const std::vector<op> concrete_operations = {op::all,           op::read,          op::write,
                                             op::create,        op::remove,        op::alter,
                                             op::describe,      op::cluster_action, op::describe_configs,
                                             op::alter_configs, op::idempotent_write, op::create_tokens,
                                             op::describe_tokens};

struct authorize_on {
  const acl_authorizer& a;
  std::string principal;
  std::string host = std::string(here);
  bool operator()(op o, type t, std::string_view name) const { return a.authorize(principal, host, o, t, name).allowed; }
  bool by_type(op o, type t) const { return a.authorize_by_resource_type(principal, host, o, t); }
};

// One question and its expected answer, for Kafka's scenarios written as tables.
struct asked {
  std::string principal;
  op o;
  type t;
  std::string name;
  bool allowed;
};

void expect_answers(const acl_authorizer& a, const std::vector<asked>& questions) {
  for (const auto& q : questions)
    EXPECT_EQ(a.authorize(q.principal, here, q.o, q.t, q.name).allowed, q.allowed)
        << q.principal << " " << to_string(q.o) << " " << to_string(q.t) << " " << q.name;
}

// ---- settings ----

TEST(AclsAuthorizer, SuperUsersAreSemicolonSeparatedTrimmedAndEmptyOnesSkipped) {
  using users = std::set<std::string, std::less<>>;
  EXPECT_EQ(std::get<users>(parse_super_users("")), users{});
  EXPECT_EQ(std::get<users>(parse_super_users(" ")), users{});
  EXPECT_EQ(std::get<users>(parse_super_users("User:bob;User:alice ")), (users{"User:bob", "User:alice"}));
  EXPECT_EQ(std::get<users>(parse_super_users(";  User:bob  ;  User:alice ;;")), (users{"User:bob", "User:alice"}));
  // Only the first colon separates: the rest belongs to the name, and an
  // empty type or name is still a principal.
  EXPECT_EQ(std::get<users>(parse_super_users("User:CN=a:b;:alice;User:")), (users{"User:CN=a:b", ":alice", "User:"}));
}

TEST(AclsAuthorizer, ASuperUserWithoutATypeIsRefusedWithKafkasMessage) {
  const auto parsed = parse_super_users("bob;:alice");
  ASSERT_TRUE(std::holds_alternative<std::string>(parsed));
  EXPECT_EQ(std::get<std::string>(parsed), "expected a string in format principalType:principalName but got bob");
  EXPECT_EQ(std::get<std::string>(parse_super_users("User:admin; broker ")),
            "expected a string in format principalType:principalName but got broker");
}

// ---- super users ----

TEST(AclsAuthorizer, ASuperUserIsAllowedEverythingWhateverTheDenies) {
  const auto a = make({acl(type::topic, "*", literal, "User:*", op::all, deny),
                       acl(type::cluster, "kafka-cluster", literal, "User:superman", op::all, deny)},
                      {"User:superman", "User:broker"});
  for (const op o : concrete_operations) {
    const auto d = a.authorize("User:superman", here, o, type::topic, "orders");
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.rule, acl_rule::super_user);
    EXPECT_EQ(d.acl, nullptr);
    EXPECT_TRUE(a.authorize("User:broker", here, o, type::cluster, "kafka-cluster").allowed);
  }
  EXPECT_FALSE(a.authorize("User:alice", here, op::read, type::topic, "orders").allowed);
}

TEST(AclsAuthorizer, SuperUsersAreMatchedAsWrittenNotAsPatterns) {
  const auto a = make({}, {"User:*", "User:Admin"});
  // "User:*" among the super users is one principal named "*", not everyone.
  EXPECT_FALSE(a.authorize("User:alice", here, op::read, type::topic, "t").allowed);
  EXPECT_TRUE(a.authorize("User:*", here, op::read, type::topic, "t").allowed);
  EXPECT_FALSE(a.authorize("User:admin", here, op::read, type::topic, "t").allowed);
  EXPECT_FALSE(a.authorize("Group:Admin", here, op::read, type::topic, "t").allowed);
  EXPECT_TRUE(a.authorize("User:Admin", here, op::read, type::topic, "t").allowed);
}

// ---- no ACL found ----

TEST(AclsAuthorizer, WithoutAclsEverythingIsDeniedByDefault) {
  const auto a = make({});
  const auto d = a.authorize("User:alice", here, op::read, type::topic, "t");
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.rule, acl_rule::no_acl_found);
  EXPECT_EQ(rule_text(d), "DefaultDeny");
}

TEST(AclsAuthorizer, AllowEveryoneAllowsOnlyResourcesNoAclCovers) {
  // An ACL for Alice on topic1: Bob is denied there, though no ACL names him
  // (the resource has ACLs), and allowed on topic2, which has none.
  const auto a = make({acl(type::topic, "topic1", literal, "User:Alice", op::read, allow)}, {"User:alice"}, true);
  const auto on_topic1 = a.authorize("User:Bob", here, op::read, type::topic, "topic1");
  EXPECT_FALSE(on_topic1.allowed);
  EXPECT_EQ(on_topic1.rule, acl_rule::no_matching_acl);
  EXPECT_EQ(rule_text(on_topic1), "DefaultDeny");
  const auto on_topic2 = a.authorize("User:Bob", here, op::read, type::topic, "topic2");
  EXPECT_TRUE(on_topic2.allowed);
  EXPECT_EQ(on_topic2.rule, acl_rule::no_acl_found);
  EXPECT_EQ(rule_text(on_topic2), "DefaultAllow");
  // Bob, other operations on topic1: still ACLs there, none his.
  EXPECT_FALSE(a.authorize("User:Bob", here, op::write, type::topic, "topic1").allowed);
}

TEST(AclsAuthorizer, WithoutAllowEveryoneAResourceWithoutAclsIsDenied) {
  const auto a = make({acl(type::topic, "topic1", literal, "User:Alice", op::read, allow)}, {"User:alice"}, false);
  EXPECT_FALSE(a.authorize("User:Bob", here, op::read, type::topic, "topic1").allowed);
  EXPECT_FALSE(a.authorize("User:Bob", here, op::read, type::topic, "topic2").allowed);
}

TEST(AclsAuthorizer, AnyAclOnTheResourceCountsAsFoundWhateverItsPrincipalHostOrOperation) {
  const auto a = make({acl(type::topic, "pay", prefixed, "User:carol", op::write, deny, "10.0.0.9"),
                       acl(type::group, "*", literal, "User:carol", op::read, allow),
                       acl(type::topic, "orders", literal, "User:carol", op::describe, allow)},
                      {}, true);
  // Covered by the prefix ACL, though it matches neither user, host nor operation.
  EXPECT_EQ(a.authorize("User:bob", here, op::read, type::topic, "payments").rule, acl_rule::no_matching_acl);
  EXPECT_FALSE(a.authorize("User:bob", here, op::read, type::topic, "payments").allowed);
  // Every group is covered by the wildcard.
  EXPECT_FALSE(a.authorize("User:bob", here, op::read, type::group, "g").allowed);
  // ACLs of other types and of other names do not count.
  EXPECT_TRUE(a.authorize("User:bob", here, op::read, type::topic, "pa").allowed);
  EXPECT_TRUE(a.authorize("User:bob", here, op::read, type::topic, "orders2").allowed);
  EXPECT_TRUE(a.authorize("User:bob", here, op::read, type::transactional_id, "payments").allowed);
}

// ---- resource patterns ----

TEST(AclsAuthorizer, ALiteralAclCoversOnlyItsExactName) {
  const auto a = make({acl(type::topic, "f", literal, "User:alice", op::read, allow)});
  authorize_on alice{a, "User:alice"};
  EXPECT_TRUE(alice(op::read, type::topic, "f"));
  EXPECT_FALSE(alice(op::read, type::topic, "foo"));
  EXPECT_FALSE(alice(op::read, type::topic, ""));
  EXPECT_FALSE(alice(op::read, type::group, "f"));
}

TEST(AclsAuthorizer, APrefixedAclCoversItsNameAndEveryNameStartingWithIt) {
  const auto a = make({acl(type::topic, "_", prefixed, "User:alice", op::read, allow)});
  authorize_on alice{a, "User:alice"};
  EXPECT_TRUE(alice(op::read, type::topic, "_foo"));
  EXPECT_TRUE(alice(op::read, type::topic, "_"));
  EXPECT_FALSE(alice(op::read, type::topic, "foo_"));
  EXPECT_FALSE(alice(op::read, type::topic, ""));
}

TEST(AclsAuthorizer, TheWildcardCoversEveryNameOfItsTypeEvenTheEmptyOne) {
  const auto a = make({acl(type::group, "*", literal, "User:alice", op::read, allow)});
  authorize_on alice{a, "User:alice"};
  EXPECT_TRUE(alice(op::read, type::group, "consumers"));
  EXPECT_TRUE(alice(op::read, type::group, ""));
  EXPECT_TRUE(alice(op::read, type::group, "*"));
  EXPECT_FALSE(alice(op::read, type::topic, "consumers"));
}

TEST(AclsAuthorizer, TheWildcardDoesNotCoverANameStartingWithAStarAsInKafka) {
  // Kafka's search takes LITERAL "*" for a literal name "*x" starts with,
  // and skips it: neither the ALLOW nor the DENY on every group applies.
  const auto a = make({acl(type::group, "*", literal, "User:alice", op::read, allow),
                       acl(type::group, "*", literal, "User:bob", op::read, deny)},
                      {}, true);
  const auto d = a.authorize("User:alice", here, op::read, type::group, "*x");
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.rule, acl_rule::no_acl_found);
  EXPECT_TRUE(a.authorize("User:bob", here, op::read, type::group, "*x").allowed);
  EXPECT_FALSE(a.authorize("User:bob", here, op::read, type::group, "x*").allowed);
  EXPECT_EQ(a.authorize("User:alice", here, op::read, type::group, "x*").rule, acl_rule::matching_allow);
  // A PREFIXED "*" is an ordinary prefix.
  const auto b = make({acl(type::group, "*", prefixed, "User:alice", op::read, allow)});
  EXPECT_TRUE(b.authorize("User:alice", here, op::read, type::group, "*x").allowed);
  EXPECT_FALSE(b.authorize("User:alice", here, op::read, type::group, "x").allowed);
}

TEST(AclsAuthorizer, UnrelatedPrefixesAroundTheNameDoNotHideTheOneThatCoversIt) {
  // Kafka's testAuthorizeWithPrefixedResource: DENYs on names that sort
  // near "foo-bar" (and would be met by a search that stopped too early).
  std::vector<acl_entry> acls;
  for (const char* name : {"a_other", "foo-1234", "foo-5678", "foo-9abc-zzz", "fooo-1", "fo-2", "fop-3", "fon-4",
                           "fon-", "z_other", "foo-bar-", "foo-bas", "foo-baq"})
    acls.push_back(acl(type::topic, name, prefixed, "User:alice", op::read, deny));
  acls.push_back(acl(type::topic, "a_other", literal, "User:alice", op::read, deny));
  acls.push_back(acl(type::topic, "z_other", literal, "User:alice", op::read, deny));
  acls.push_back(acl(type::topic, "foo-bar", literal, "User:alice", op::write, deny));
  acls.push_back(acl(type::topic, "foo", prefixed, "User:alice", op::read, allow));
  const auto a = make(acls);
  const auto d = a.authorize("User:alice", here, op::read, type::topic, "foo-bar");
  EXPECT_TRUE(d.allowed);
  ASSERT_NE(d.acl, nullptr);
  EXPECT_EQ(d.acl->resource_name, "foo");
  EXPECT_FALSE(a.authorize("User:alice", here, op::read, type::topic, "foo-bar-x").allowed);
  EXPECT_FALSE(a.authorize("User:alice", here, op::write, type::topic, "foo-bar").allowed);
}

TEST(AclsAuthorizer, KafkasPrefixScenario) {
  const auto a = make({acl(type::topic, "fooa", prefixed, "User:alice", op::all, allow),
                       acl(type::topic, "foobar", literal, "User:bob", op::all, allow),
                       acl(type::topic, "f", prefixed, "User:bob", op::all, allow)},
                      {"User:superman"});
  expect_answers(a, {
                        {"User:bob", op::write, type::topic, "foobarr", true},
                        {"User:bob", op::read, type::topic, "goobar", false},
                        {"User:bob", op::read, type::topic, "fooa", true},
                        {"User:alice", op::describe, type::topic, "fooa", true},
                        {"User:alice", op::write, type::topic, "bar", false},
                        {"User:alice", op::read, type::topic, "baz", false},
                    });
}

TEST(AclsAuthorizer, KafkasManyAclsScenario) {
  const auto a = make({acl(type::topic, "green2", literal, "User:*", op::read, allow),
                       acl(type::topic, "green", prefixed, "User:bob", op::read, allow),
                       acl(type::topic, "betamax4", literal, "User:bob", op::read, allow),
                       acl(type::topic, "betamax", literal, "User:bob", op::read, allow),
                       acl(type::topic, "beta", prefixed, "User:*", op::read, allow),
                       acl(type::topic, "alpha", prefixed, "User:*", op::read, allow),
                       acl(type::topic, "alp", prefixed, "User:bob", op::read, deny),
                       acl(type::group, "*", literal, "User:bob", op::write, allow),
                       acl(type::group, "wheel", literal, "User:*", op::write, deny)},
                      {"User:superman"});
  expect_answers(a, {
                        {"User:bob", op::read, type::topic, "green1", true},
                        {"User:bob", op::write, type::group, "wheel", false},
                        {"User:bob", op::read, type::topic, "alpha", false},
                        {"User:bob", op::write, type::group, "arbitrary", true},
                        {"User:bob", op::read, type::topic, "ala", false},
                        {"User:alice", op::read, type::topic, "alpha", true},
                        {"User:bob", op::read, type::topic, "betamax4", true},
                        {"User:alice", op::read, type::topic, "betamax4", true},
                        {"User:alice", op::read, type::topic, "green2", true},
                        {"User:alice", op::read, type::topic, "green1", false},
                    });
}

// ---- principals and hosts ----

TEST(AclsAuthorizer, TheWildcardPrincipalMatchesEveryUser) {
  const auto a = make({acl(type::group, "bar", literal, "User:*", op::read, deny),
                       acl(type::group, "bar", literal, "User:alice", op::all, allow),
                       acl(type::topic, "foo_", prefixed, "User:bob", op::read, allow)});
  const auto d = a.authorize("User:alice", here, op::read, type::group, "bar");
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.rule, acl_rule::matching_deny);
  EXPECT_EQ(d.acl->principal, "User:*");
  EXPECT_TRUE(a.authorize("User:alice", here, op::write, type::group, "bar").allowed);
  EXPECT_TRUE(a.authorize("User:bob", here, op::read, type::topic, "foo_bar").allowed);
  EXPECT_FALSE(a.authorize("User:alice", here, op::read, type::topic, "foo_bar").allowed);
}

TEST(AclsAuthorizer, UserStarMatchesPrincipalsOfEveryTypeAndNoOtherTypesStarIsAWildcard) {
  // Kafka matches an ACL against the principal itself and User:*, whatever
  // the principal's type: "User:*" covers Group:ops too, "Group:*" only a
  // principal literally named so.
  const auto a = make({acl(type::topic, "t", literal, "User:*", op::read, allow),
                       acl(type::topic, "u", literal, "Group:*", op::read, allow)});
  EXPECT_TRUE(a.authorize("Group:ops", here, op::read, type::topic, "t").allowed);
  EXPECT_TRUE(a.authorize("ServiceAccount:etl", here, op::read, type::topic, "t").allowed);
  EXPECT_FALSE(a.authorize("Group:ops", here, op::read, type::topic, "u").allowed);
  EXPECT_TRUE(a.authorize("Group:*", here, op::read, type::topic, "u").allowed);
}

TEST(AclsAuthorizer, PrincipalsAreComparedByTypeAndNameExactly) {
  const auto a = make({acl(type::topic, "t", literal, "User:alice", op::read, allow)});
  EXPECT_TRUE(a.authorize("User:alice", here, op::read, type::topic, "t").allowed);
  EXPECT_FALSE(a.authorize("User:Alice", here, op::read, type::topic, "t").allowed);
  EXPECT_FALSE(a.authorize("Group:alice", here, op::read, type::topic, "t").allowed);
}

TEST(AclsAuthorizer, AHostMatchesExactlyOrByTheWildcard) {
  // Kafka's testHostAddressAclValidation.
  const std::string host1 = "192.168.1.1", host2 = "192.168.1.2", local = "127.0.1.1";
  const auto a = make({acl(type::topic, "foo", literal, "User:alice", op::read, deny, host1),
                       acl(type::topic, "foo", literal, "User:alice", op::read, allow, "*"),
                       acl(type::topic, "bar", literal, "User:bob", op::read, allow, host2),
                       acl(type::topic, "bar", literal, "User:*", op::describe, allow, local)},
                      {"User:superman"});
  const auto results = [&](std::string principal, std::string host) {
    authorize_on who{a, std::move(principal), std::move(host)};
    return std::vector<bool>{who(op::read, type::topic, "foo"), who(op::read, type::topic, "bar"),
                             who(op::describe, type::topic, "bar")};
  };
  EXPECT_EQ(results("User:alice", local), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(results("User:alice", host1), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(results("User:alice", host2), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(results("User:bob", local), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(results("User:bob", host1), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(results("User:bob", host2), (std::vector<bool>{false, true, true}));
}

TEST(AclsAuthorizer, KafkasTopicAclScenarioOfUsersAndHosts) {
  const std::string host1 = "192.168.1.1", host2 = "192.168.1.2";
  const std::vector<acl_entry> acls = {
      acl(type::topic, "t", literal, "User:alice", op::read, allow, host1),
      acl(type::topic, "t", literal, "User:alice", op::read, allow, host2),
      acl(type::topic, "t", literal, "User:alice", op::read, deny, host1),
      acl(type::topic, "t", literal, "User:alice", op::write, allow, host1),
      acl(type::topic, "t", literal, "User:alice", op::describe, allow, "*"),
      acl(type::topic, "t", literal, "User:rob", op::read, allow, "*"),
      acl(type::topic, "t", literal, "User:batman", op::write, allow, "*"),
  };
  const auto a = make(acls);
  authorize_on alice1{a, "User:alice", host1}, alice2{a, "User:alice", host2};
  EXPECT_TRUE(alice2(op::read, type::topic, "t"));
  EXPECT_FALSE(alice1(op::read, type::topic, "t"));
  EXPECT_TRUE(alice1(op::write, type::topic, "t"));
  EXPECT_FALSE(alice2(op::write, type::topic, "t"));
  EXPECT_TRUE(alice1(op::describe, type::topic, "t"));
  EXPECT_TRUE(alice2(op::describe, type::topic, "t"));
  EXPECT_FALSE(alice1(op::alter, type::topic, "t"));
  EXPECT_FALSE(alice2(op::alter, type::topic, "t"));
  authorize_on rob{a, "User:rob", host1}, batman{a, "User:batman", host1};
  EXPECT_TRUE(rob(op::describe, type::topic, "t"));
  EXPECT_TRUE(batman(op::describe, type::topic, "t"));
  EXPECT_TRUE(rob(op::read, type::topic, "t"));
  EXPECT_TRUE(batman(op::write, type::topic, "t"));
}

// ---- DENY and ALLOW ----

TEST(AclsAuthorizer, ADenyBeatsAnAllowOnAPrefix) {
  const auto a = make({acl(type::topic, "orders", literal, "User:alice", op::write, allow),
                       acl(type::topic, "ord", prefixed, "User:alice", op::write, deny)});
  const auto d = a.authorize("User:alice", here, op::write, type::topic, "orders");
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.rule, acl_rule::matching_deny);
  EXPECT_EQ(d.acl->resource_name, "ord");
  EXPECT_EQ(d.acl->pattern_type, prefixed);
}

TEST(AclsAuthorizer, ADenyOnTheWildcardBeatsAnAllowOnTheName) {
  const auto a = make({acl(type::topic, "*", literal, "User:alice", op::read, allow, "192.168.3.1"),
                       acl(type::topic, "t", literal, "User:alice", op::write, allow, "192.168.3.1"),
                       acl(type::topic, "*", literal, "User:alice", op::write, deny, "192.168.3.1")});
  authorize_on alice{a, "User:alice", "192.168.3.1"};
  EXPECT_TRUE(alice(op::read, type::topic, "t"));
  EXPECT_FALSE(alice(op::write, type::topic, "t"));
  EXPECT_EQ(a.authorize("User:alice", "192.168.3.1", op::write, type::topic, "t").acl->resource_name, "*");
}

TEST(AclsAuthorizer, ADenyOfEverythingForOneUserBeatsAnAllowOfEverythingForAll) {
  const auto a = make({acl(type::topic, "t", literal, "User:*", op::all, allow),
                       acl(type::topic, "t", literal, "User:alice", op::all, deny, "192.168.2.1")});
  EXPECT_FALSE(a.authorize("User:alice", "192.168.2.1", op::read, type::topic, "t").allowed);
  EXPECT_TRUE(a.authorize("User:alice", "192.168.2.2", op::read, type::topic, "t").allowed);
  EXPECT_TRUE(a.authorize("User:random", "192.0.4.4", op::read, type::topic, "t").allowed);
}

TEST(AclsAuthorizer, KafkasDenyPrecedenceWithOperationAll) {
  const auto a = make({acl(type::topic, "foo", literal, "User:alice", op::all, deny),
                       acl(type::topic, "foo", prefixed, "User:alice", op::read, allow),
                       acl(type::topic, "foo", literal, "User:*", op::all, deny),
                       acl(type::topic, "foo", prefixed, "User:*", op::describe, allow)},
                      {"User:superman"});
  expect_answers(a, {
                        {"User:alice", op::write, type::topic, "foo", false},
                        {"User:alice", op::read, type::topic, "foo", false},
                        {"User:alice", op::describe, type::topic, "foo", false},
                        {"User:alice", op::read, type::topic, "foobar", true},
                        {"User:bob", op::describe, type::topic, "foo", false},
                        {"User:bob", op::read, type::topic, "foo", false},
                        {"User:bob", op::write, type::topic, "foo", false},
                        {"User:bob", op::describe, type::topic, "foobaz", true},
                        {"User:bob", op::read, type::topic, "foobaz", false},
                    });
}

TEST(AclsAuthorizer, KafkasTopicAclWithOperationAll) {
  const auto a = make({acl(type::topic, "foo", literal, "User:*", op::all, allow),
                       acl(type::topic, "bar", prefixed, "User:alice", op::all, allow),
                       acl(type::topic, "baz", literal, "User:bob", op::all, allow)},
                      {"User:superman"});
  expect_answers(a, {
                        {"User:alice", op::write, type::topic, "foo", true},
                        {"User:alice", op::describe_configs, type::topic, "bar", true},
                        {"User:alice", op::describe, type::topic, "baz", false},
                        {"User:bob", op::write, type::topic, "foo", true},
                        {"User:bob", op::read, type::topic, "bar", false},
                        {"User:bob", op::describe, type::topic, "baz", true},
                        {"User:malory", op::describe, type::topic, "foo", true},
                        {"User:malory", op::write, type::topic, "bar", false},
                        {"User:malory", op::read, type::topic, "baz", false},
                    });
}

// ---- operations ----

// What an ALLOW of `granted` on the cluster lets alice do, and what a DENY
// of it takes from an ALLOW of everything (Kafka's testAclInheritance).
std::vector<op> allowed_by(op granted) {
  const auto a = make({acl(type::cluster, "kafka-cluster", literal, "User:alice", granted, allow)});
  std::vector<op> out;
  for (const op o : concrete_operations)
    if (o != op::all && a.authorize("User:alice", "192.168.3.1", o, type::cluster, "kafka-cluster").allowed)
      out.push_back(o);
  return out;
}

std::vector<op> denied_by(op denied) {
  const auto a = make({acl(type::cluster, "kafka-cluster", literal, "User:alice", denied, deny),
                       acl(type::cluster, "kafka-cluster", literal, "User:alice", op::all, allow)});
  std::vector<op> out;
  for (const op o : concrete_operations)
    if (o != op::all && !a.authorize("User:alice", "192.168.3.1", o, type::cluster, "kafka-cluster").allowed)
      out.push_back(o);
  return out;
}

TEST(AclsAuthorizer, AllAllowsAndDeniesEveryOperation) {
  const std::vector<op> every(concrete_operations.begin() + 1, concrete_operations.end());
  EXPECT_EQ(allowed_by(op::all), every);
  EXPECT_EQ(denied_by(op::all), every);
}

TEST(AclsAuthorizer, AllowsOfReadWriteDeleteAndAlterImplyDescribe) {
  EXPECT_EQ(allowed_by(op::read), (std::vector<op>{op::read, op::describe}));
  EXPECT_EQ(allowed_by(op::write), (std::vector<op>{op::write, op::describe}));
  EXPECT_EQ(allowed_by(op::remove), (std::vector<op>{op::remove, op::describe}));
  EXPECT_EQ(allowed_by(op::alter), (std::vector<op>{op::alter, op::describe}));
  EXPECT_EQ(allowed_by(op::describe), (std::vector<op>{op::describe}));
  EXPECT_EQ(allowed_by(op::create), (std::vector<op>{op::create}));
}

TEST(AclsAuthorizer, AnAllowOfAlterConfigsImpliesDescribeConfigs) {
  EXPECT_EQ(allowed_by(op::alter_configs), (std::vector<op>{op::describe_configs, op::alter_configs}));
  EXPECT_EQ(allowed_by(op::describe_configs), (std::vector<op>{op::describe_configs}));
}

TEST(AclsAuthorizer, ADenyDeniesOnlyItsOwnOperationNothingItWouldImply) {
  for (const op o : {op::read, op::write, op::remove, op::alter, op::describe, op::alter_configs,
                     op::describe_configs, op::idempotent_write})
    EXPECT_EQ(denied_by(o), std::vector<op>{o}) << to_string(o);
  // A DENY of READ next to an ALLOW of READ: DESCRIBE stays allowed by the
  // ALLOW's implication.
  const auto a = make({acl(type::topic, "t", literal, "User:bob", op::read, allow),
                       acl(type::topic, "t", literal, "User:bob", op::read, deny)});
  EXPECT_FALSE(a.authorize("User:bob", here, op::read, type::topic, "t").allowed);
  EXPECT_TRUE(a.authorize("User:bob", here, op::describe, type::topic, "t").allowed);
}

TEST(AclsAuthorizer, KafkasSimpleAuthorizations) {
  const auto a = make({acl(type::topic, "foo_", prefixed, "User:bob", op::read, allow),
                       acl(type::topic, "foo_", prefixed, "User:bob", op::write, allow),
                       acl(type::group, "bar", literal, "User:*", op::describe_configs, allow),
                       acl(type::group, "bar", literal, "User:*", op::alter_configs, allow)},
                      {"User:superman"});
  EXPECT_TRUE(a.authorize("User:bob", here, op::read, type::topic, "foo_").allowed);
  EXPECT_TRUE(a.authorize("User:fred", here, op::alter_configs, type::group, "bar").allowed);
  EXPECT_TRUE(a.authorize("User:bob", here, op::describe, type::topic, "foo_bar").allowed);
  EXPECT_FALSE(a.authorize("User:bob", here, op::create, type::topic, "foo_bar").allowed);
}

// ---- what the decision says ----

TEST(AclsAuthorizer, ADeniedDecisionIsLoggedAsKafkaLogsIt) {
  const auto a = make({acl(type::topic, "alpha", prefixed, "User:*", op::read, allow),
                       acl(type::topic, "alp", prefixed, "User:bob", op::read, deny)},
                      {"User:superman"});
  const auto d = a.authorize("User:bob", "127.0.0.1", op::read, type::topic, "alpha");
  EXPECT_EQ(audit_text(d, "User:bob", "127.0.0.1", op::read, type::topic, "alpha", "Fetch", 1),
            "Principal = User:bob is Denied operation = READ from host = 127.0.0.1 on resource = Topic:LITERAL:alpha "
            "for request = Fetch with resourceRefCount = 1 based on rule MatchingAcl(acl=StandardAcl("
            "resourceType=TOPIC, resourceName=alp, patternType=PREFIXED, principal=User:bob, host=*, "
            "operation=READ, permissionType=DENY))");
}

TEST(AclsAuthorizer, AnAllowedDecisionIsLoggedAsKafkaLogsIt) {
  const auto a = make({acl(type::topic, "green", prefixed, "User:bob", op::read, allow)}, {"User:superman"});
  const auto d = a.authorize("User:bob", "127.0.0.1", op::read, type::topic, "green1");
  EXPECT_EQ(audit_text(d, "User:bob", "127.0.0.1", op::read, type::topic, "green1", "Fetch", 1),
            "Principal = User:bob is Allowed operation = READ from host = 127.0.0.1 on resource = Topic:LITERAL:green1 "
            "for request = Fetch with resourceRefCount = 1 based on rule MatchingAcl(acl=StandardAcl("
            "resourceType=TOPIC, resourceName=green, patternType=PREFIXED, principal=User:bob, host=*, "
            "operation=READ, permissionType=ALLOW))");
  const auto super = a.authorize("User:superman", "10.0.0.1", op::remove, type::transactional_id, "tx-1");
  EXPECT_EQ(audit_text(super, "User:superman", "10.0.0.1", op::remove, type::transactional_id, "tx-1", "Produce", 3),
            "Principal = User:superman is Allowed operation = DELETE from host = 10.0.0.1 on resource = "
            "TransactionalId:LITERAL:tx-1 for request = Produce with resourceRefCount = 3 based on rule SuperUser");
}

TEST(AclsAuthorizer, AclsNoCreateAclsCouldMakeAreLeftOut) {
  const auto a = make({acl(type::topic, "t", literal, "User:bob", op::unknown, deny),
                       acl(type::topic, "t", literal, "User:bob", op::any, deny),
                       acl(type::topic, "t", pattern::match, "User:bob", op::read, deny),
                       acl(type::topic, "t", literal, "User:bob", op::read, perm::unknown),
                       acl(type::any, "t", literal, "User:bob", op::read, deny),
                       acl(type::topic, "t", literal, "User:bob", op::read, allow)},
                      {}, true);
  EXPECT_EQ(a.acl_count(), 1u);
  EXPECT_TRUE(a.authorize("User:bob", here, op::read, type::topic, "t").allowed);
  EXPECT_FALSE(a.authorize("User:alice", here, op::read, type::topic, "t").allowed);
}

TEST(AclsAuthorizer, ManyAclsOnManyNamesAnswerExactly) {
  // 20,000 ACLs across many names: answers stay exact (the random test
  // below checks the search's reasoning; this its scale).
  std::vector<acl_entry> acls;
  for (int i = 0; i < 5000; ++i) {
    const std::string n = "topic-" + std::to_string(i);
    acls.push_back(acl(type::topic, n, literal, "User:u" + std::to_string(i % 50), op::read, allow));
    acls.push_back(acl(type::topic, n + "-", prefixed, "User:*", op::write, deny));
    acls.push_back(acl(type::group, "g" + std::to_string(i), prefixed, "User:*", op::read, allow));
    acls.push_back(acl(type::topic, n, literal, "User:u" + std::to_string(i % 50), op::write, allow, "10.0.0.1"));
  }
  const auto a = make(acls);
  EXPECT_EQ(a.acl_count(), 20000u);
  EXPECT_TRUE(a.authorize("User:u7", here, op::read, type::topic, "topic-1257").allowed);
  EXPECT_FALSE(a.authorize("User:u8", here, op::read, type::topic, "topic-1257").allowed);
  EXPECT_TRUE(a.authorize("User:u7", here, op::describe, type::topic, "topic-1257").allowed);
  EXPECT_TRUE(a.authorize("User:u7", "10.0.0.1", op::write, type::topic, "topic-1257").allowed);
  EXPECT_FALSE(a.authorize("User:u7", "10.0.0.1", op::write, type::topic, "topic-1257-x").allowed);
  EXPECT_EQ(a.authorize("User:u7", "10.0.0.1", op::read, type::topic, "topic-1257-x").rule, acl_rule::no_matching_acl);
  EXPECT_EQ(a.authorize("User:u7", here, op::read, type::topic, "topic-99999").rule, acl_rule::no_acl_found);
  EXPECT_TRUE(a.authorize("User:x", here, op::read, type::group, "g4999-consumers").allowed);
  EXPECT_TRUE(a.authorize("User:x", here, op::read, type::group, "g10").allowed);
  EXPECT_EQ(a.authorize("User:x", here, op::read, type::group, "g").rule, acl_rule::no_acl_found);
}

// ---- authorize_by_resource_type ----

TEST(AclsAuthorizer, ByTypeAnAllowOnOneTopicIsEnoughAndItsDenyTakesItBack) {
  const std::string host1 = "192.168.1.1";
  const auto without = make({});
  EXPECT_FALSE(without.authorize_by_resource_type("User:user1", host1, op::read, type::topic));
  const auto allowed = make({acl(type::topic, "sb1", literal, "User:user1", op::read, allow, host1)});
  EXPECT_TRUE(allowed.authorize_by_resource_type("User:user1", host1, op::read, type::topic));
  const auto denied = make({acl(type::topic, "sb1", literal, "User:user1", op::read, allow, host1),
                            acl(type::topic, "sb1", literal, "User:user1", op::read, deny, host1)});
  EXPECT_FALSE(denied.authorize_by_resource_type("User:user1", host1, op::read, type::topic));
}

TEST(AclsAuthorizer, ByTypeUnrelatedDenysDoNotCancelAnAllow) {
  const std::string host1 = "192.168.1.1", host2 = "192.168.1.2";
  const auto a = make({acl(type::topic, "sb1", literal, "User:user1", op::read, deny, host1),
                       acl(type::topic, "sb1", literal, "User:user2", op::read, deny, host1),
                       acl(type::topic, "sb1", literal, "User:user1", op::write, deny, host2),
                       acl(type::topic, "sb1", literal, "User:user2", op::read, deny, host2),
                       acl(type::topic, "sb1", literal, "User:user1", op::read, allow, host2),
                       acl(type::topic, "sb2", literal, "User:user1", op::read, deny, host2),
                       acl(type::group, "s", prefixed, "User:user1", op::read, deny, host2)});
  authorize_on u1h1{a, "User:user1", host1}, u1h2{a, "User:user1", host2};
  EXPECT_FALSE(u1h1.by_type(op::read, type::topic));
  EXPECT_FALSE(u1h1.by_type(op::read, type::group));
  EXPECT_FALSE(u1h1.by_type(op::read, type::transactional_id));
  EXPECT_FALSE(u1h1.by_type(op::read, type::cluster));
  EXPECT_TRUE(u1h2.by_type(op::read, type::topic));
}

TEST(AclsAuthorizer, ByTypeALiteralDenyCancelsTheLiteralAllowOnTheSameName) {
  const auto allowed = make({acl(type::topic, "sb1", literal, "User:user1", op::write, allow)});
  EXPECT_TRUE(allowed.authorize_by_resource_type("User:user1", here, op::write, type::topic));
  const auto denied = make({acl(type::topic, "sb1", literal, "User:user1", op::write, allow),
                            acl(type::topic, "sb1", literal, "User:user1", op::write, deny)});
  EXPECT_FALSE(denied.authorize_by_resource_type("User:user1", here, op::write, type::topic));
}

TEST(AclsAuthorizer, ByTypeAPrefixedDenyCancelsEveryAllowUnderIt) {
  std::vector<acl_entry> acls{acl(type::group, "abcde", prefixed, "User:user1", op::read, allow)};
  const auto step = [&](acl_entry added) {
    acls.push_back(std::move(added));
    return make(acls).authorize_by_resource_type("User:user1", here, op::read, type::group);
  };
  EXPECT_TRUE(make(acls).authorize_by_resource_type("User:user1", here, op::read, type::group));
  EXPECT_FALSE(step(acl(type::group, "abcd", prefixed, "User:user1", op::read, deny)));
  EXPECT_TRUE(step(acl(type::group, "abc", prefixed, "User:user1", op::read, allow)));
  EXPECT_FALSE(step(acl(type::group, "a", prefixed, "User:user1", op::read, deny)));
  EXPECT_FALSE(step(acl(type::group, "ab", prefixed, "User:user1", op::read, allow)));
  // A PREFIXED DENY on exactly the name of a LITERAL ALLOW covers it.
  EXPECT_FALSE(make({acl(type::group, "xyz", literal, "User:user1", op::read, allow),
                     acl(type::group, "xyz", prefixed, "User:user1", op::read, deny)})
                   .authorize_by_resource_type("User:user1", here, op::read, type::group));
}

TEST(AclsAuthorizer, ByTypeALiteralDenyDoesNotCancelAPrefixedAllow) {
  const auto a = make({acl(type::group, "ab", prefixed, "User:user1", op::read, allow),
                       acl(type::group, "ab", literal, "User:user1", op::read, deny),
                       acl(type::group, "abc", literal, "User:user1", op::read, deny)});
  EXPECT_TRUE(a.authorize_by_resource_type("User:user1", here, op::read, type::group));
}

TEST(AclsAuthorizer, ByTypeAWildcardDenyCancelsEveryAllow) {
  std::vector<acl_entry> acls{acl(type::group, "hello", prefixed, "User:user1", op::write, allow)};
  const auto step = [&](acl_entry added) {
    acls.push_back(std::move(added));
    return make(acls).authorize_by_resource_type("User:user1", here, op::write, type::group);
  };
  EXPECT_TRUE(make(acls).authorize_by_resource_type("User:user1", here, op::write, type::group));
  EXPECT_FALSE(step(acl(type::group, "*", literal, "User:user1", op::write, deny)));
  EXPECT_FALSE(step(acl(type::group, "*", literal, "User:user1", op::write, allow)));
  EXPECT_FALSE(step(acl(type::group, "aloha", literal, "User:user1", op::write, allow)));
}

TEST(AclsAuthorizer, ByTypeAWildcardAllowIsEnough) {
  const auto a = make({acl(type::transactional_id, "*", literal, "User:user1", op::write, allow),
                       acl(type::transactional_id, "tx", prefixed, "User:user1", op::write, deny)});
  EXPECT_TRUE(a.authorize_by_resource_type("User:user1", here, op::write, type::transactional_id));
}

TEST(AclsAuthorizer, ByTypeCountsAllButNoImpliedOperation) {
  const std::string host1 = "192.168.1.1";
  EXPECT_FALSE(make({}).authorize_by_resource_type("User:user1", host1, op::read, type::topic));
  const auto allow_all = make({acl(type::topic, "sb1", literal, "User:user1", op::write, deny, host1),
                               acl(type::topic, "sb1", literal, "User:user1", op::all, allow, host1)});
  EXPECT_TRUE(allow_all.authorize_by_resource_type("User:user1", host1, op::read, type::topic));
  EXPECT_FALSE(allow_all.authorize_by_resource_type("User:user1", host1, op::write, type::topic));
  const auto deny_all = make({acl(type::topic, "sb1", literal, "User:user1", op::write, deny, host1),
                              acl(type::topic, "sb1", literal, "User:user1", op::all, allow, host1),
                              acl(type::topic, "sb1", literal, "User:user1", op::all, deny, host1)});
  EXPECT_FALSE(deny_all.authorize_by_resource_type("User:user1", host1, op::read, type::topic));
  // READ allowed on a topic implies DESCRIBE there, but not for this question.
  const auto read = make({acl(type::topic, "sb1", literal, "User:user1", op::read, allow)});
  EXPECT_TRUE(read.authorize("User:user1", host1, op::describe, type::topic, "sb1").allowed);
  EXPECT_FALSE(read.authorize_by_resource_type("User:user1", host1, op::describe, type::topic));
}

TEST(AclsAuthorizer, ByTypeHostsMatchExactlyOrByTheWildcard) {
  const std::string host1 = "192.168.1.1", host2 = "192.168.1.2";
  std::vector<acl_entry> acls{acl(type::topic, "sb1", literal, "User:user1", op::read, allow, host1)};
  const auto by_type = [&](const std::string& host) {
    return make(acls).authorize_by_resource_type("User:user1", host, op::read, type::topic);
  };
  EXPECT_TRUE(by_type(host1));
  acls.push_back(acl(type::topic, "sb1", literal, "User:user1", op::read, deny, "*"));
  EXPECT_FALSE(by_type(host1));
  acls.push_back(acl(type::topic, "sb2", literal, "User:user1", op::read, deny, host1));
  EXPECT_FALSE(by_type(host1));
  EXPECT_FALSE(by_type(host2));
  acls.push_back(acl(type::topic, "sb2", literal, "User:user1", op::read, allow, "*"));
  EXPECT_TRUE(by_type(host2));
  acls.push_back(acl(type::topic, "sb2", literal, "User:user1", op::read, deny, "*"));
  EXPECT_FALSE(by_type(host2));
}

TEST(AclsAuthorizer, ByTypeTheWildcardPrincipalMatchesEveryUser) {
  const std::string host1 = "192.168.1.1";
  std::vector<acl_entry> acls{acl(type::topic, "sb1", literal, "User:user1", op::read, allow, host1)};
  const auto by_type = [&](const std::string& principal) {
    return make(acls).authorize_by_resource_type(principal, host1, op::read, type::topic);
  };
  EXPECT_TRUE(by_type("User:user1"));
  acls.push_back(acl(type::topic, "sb1", literal, "User:*", op::read, deny, host1));
  EXPECT_FALSE(by_type("User:user1"));
  acls.push_back(acl(type::topic, "sb2", literal, "User:user1", op::read, deny, host1));
  EXPECT_FALSE(by_type("User:user1"));
  EXPECT_FALSE(by_type("User:user2"));
  acls.push_back(acl(type::topic, "sb2", literal, "User:*", op::read, allow, host1));
  EXPECT_TRUE(by_type("User:user2"));
  acls.push_back(acl(type::topic, "sb2", literal, "User:*", op::read, deny, host1));
  EXPECT_FALSE(by_type("User:user2"));
}

TEST(AclsAuthorizer, ByTypeASuperUserIsAllowedWhateverTheDenies) {
  std::vector<acl_entry> acls;
  for (const type t : {type::topic, type::cluster, type::group, type::transactional_id})
    acls.push_back(acl(t, "*", literal, "User:*", op::all, deny));
  const auto a = make(acls, {"User:superuser1"});
  for (const type t : {type::topic, type::cluster, type::group, type::transactional_id}) {
    EXPECT_TRUE(a.authorize_by_resource_type("User:superuser1", "192.0.4.4", op::read, t));
    EXPECT_FALSE(a.authorize_by_resource_type("User:alice", "192.0.4.4", op::read, t));
  }
}

TEST(AclsAuthorizer, ByTypeAllowEveryoneAllowsWhenNoAclCoversKafkasProbeName) {
  // Kafka asks first about a topic named "hardcode": with
  // allow.everyone.if.no.acl.found and no ACL covering that name, the
  // answer is yes, whatever DENYs other topics have.
  const auto none = make({}, {}, true);
  EXPECT_TRUE(none.authorize_by_resource_type("User:alice", here, op::read, type::topic));
  EXPECT_TRUE(none.authorize_by_resource_type("User:alice", here, op::write, type::topic));
  const auto elsewhere = make({acl(type::topic, "orders", prefixed, "User:alice", op::write, deny)}, {}, true);
  EXPECT_TRUE(elsewhere.authorize_by_resource_type("User:alice", here, op::write, type::topic));
  const auto covered = make({acl(type::topic, "hard", prefixed, "User:bob", op::write, allow)}, {}, true);
  EXPECT_FALSE(covered.authorize_by_resource_type("User:alice", here, op::write, type::topic));
  const auto everything = make({acl(type::topic, "*", literal, "User:alice", op::write, deny)}, {}, true);
  EXPECT_FALSE(everything.authorize_by_resource_type("User:alice", here, op::write, type::topic));
  // The probe goes through the full rules, implication included.
  const auto probe = make({acl(type::topic, "hardcode", literal, "User:alice", op::read, allow)});
  EXPECT_TRUE(probe.authorize_by_resource_type("User:alice", here, op::describe, type::topic));
}

TEST(AclsAuthorizer, ByTypeFilterValuesAreNeverAllowed) {
  const auto a = make({}, {"User:admin"}, true);
  EXPECT_FALSE(a.authorize_by_resource_type("User:admin", here, op::any, type::topic));
  EXPECT_FALSE(a.authorize_by_resource_type("User:admin", here, op::unknown, type::topic));
  EXPECT_FALSE(a.authorize_by_resource_type("User:admin", here, op::read, type::any));
  EXPECT_FALSE(a.authorize_by_resource_type("User:admin", here, op::read, type::unknown));
  EXPECT_TRUE(a.authorize_by_resource_type("User:admin", here, op::read, type::topic));
}

// ---- authorized operations ----

TEST(AclsAuthorizer, TheOperationsKafkaReportsPerResourceType) {
  // Bits as Kafka answers without an authorizer (Metadata's 3576 for a
  // topic, 8096 for the cluster).
  EXPECT_EQ(supported_operations_bits(type::topic), 3576);
  EXPECT_EQ(supported_operations_bits(type::cluster), 8096);
  EXPECT_EQ(supported_operations_bits(type::group), (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11));
  EXPECT_EQ(supported_operations_bits(type::transactional_id), (1 << 4) | (1 << 8) | (1 << 15));
  EXPECT_EQ(supported_operations_bits(type::delegation_token), 1 << 8);
  EXPECT_EQ(supported_operations_bits(type::user), (1 << 13) | (1 << 14));
  EXPECT_EQ(supported_operations_bits(type::any), 0);
  EXPECT_TRUE(supported_operations(type::unknown).empty());
}

TEST(AclsAuthorizer, AuthorizedOperationsHasTheBitOfEachAllowedSupportedOperation) {
  const auto a = make({acl(type::topic, "orders", literal, "User:alice", op::read, allow),
                       acl(type::topic, "ord", prefixed, "User:alice", op::alter_configs, allow),
                       acl(type::topic, "pay", prefixed, "User:bob", op::all, allow),
                       acl(type::topic, "payments", literal, "User:bob", op::remove, deny),
                       acl(type::cluster, "kafka-cluster", literal, "User:bob", op::idempotent_write, allow),
                       acl(type::group, "*", literal, "User:*", op::read, allow)},
                      {"User:admin"});
  EXPECT_EQ(a.authorized_operations("User:alice", here, type::topic, "orders"),
            (1 << 3) | (1 << 8) | (1 << 10) | (1 << 11));
  EXPECT_EQ(a.authorized_operations("User:bob", here, type::topic, "payments"), 3576 & ~(1 << 6));
  EXPECT_EQ(a.authorized_operations("User:bob", here, type::cluster, "kafka-cluster"), 1 << 12);
  EXPECT_EQ(a.authorized_operations("User:carol", here, type::group, "g"), (1 << 3) | (1 << 8));
  EXPECT_EQ(a.authorized_operations("User:carol", here, type::topic, "orders"), 0);
  EXPECT_EQ(a.authorized_operations("User:admin", here, type::topic, "orders"), 3576);
  EXPECT_EQ(a.authorized_operations("User:admin", here, type::cluster, "kafka-cluster"), 8096);
}

TEST(AclsAuthorizer, AuthorizedOperationsWithAllowEveryoneAndNoAclsIsEverything) {
  const auto a = make({acl(type::topic, "orders", literal, "User:alice", op::read, allow)}, {}, true);
  EXPECT_EQ(a.authorized_operations("User:bob", here, type::topic, "t"), 3576);
  EXPECT_EQ(a.authorized_operations("User:bob", here, type::topic, "orders"), 0);
}

// ---- the search against a scan of every ACL ----

// The rules written out directly, one ACL at a time.
bool covers(const acl_entry& a, type t, std::string_view name) {
  if (a.resource_type != t) return false;
  if (a.pattern_type == prefixed) return name.starts_with(a.resource_name);
  if (a.resource_name == name) return true;
  return a.resource_name == "*" && !name.starts_with('*');  // Kafka's wildcard, see above
}

bool matches(const acl_entry& a, std::string_view principal, std::string_view host, op o) {
  if (a.principal != principal && a.principal != "User:*") return false;
  if (a.host != "*" && a.host != host) return false;
  if (a.operation == op::all || a.operation == o) return true;
  if (a.permission == deny) return false;
  if (o == op::describe)
    return a.operation == op::read || a.operation == op::write || a.operation == op::remove || a.operation == op::alter;
  return o == op::describe_configs && a.operation == op::alter_configs;
}

acl_decision scan(const std::vector<acl_entry>& acls, const std::set<std::string, std::less<>>& super_users,
                  bool allow_everyone, std::string_view principal, std::string_view host, op o, type t,
                  std::string_view name) {
  if (super_users.contains(principal)) return {true, acl_rule::super_user, nullptr};
  bool covered = false, allowed = false, denied = false;
  for (const auto& a : acls) {
    if (!covers(a, t, name)) continue;
    covered = true;
    if (!matches(a, principal, host, o)) continue;
    (a.permission == deny ? denied : allowed) = true;
  }
  if (denied) return {false, acl_rule::matching_deny, nullptr};
  if (allowed) return {true, acl_rule::matching_allow, nullptr};
  if (!covered) return {allow_everyone, acl_rule::no_acl_found, nullptr};
  return {false, acl_rule::no_matching_acl, nullptr};
}

TEST(AclsAuthorizer, TheIndexedSearchAgreesWithAScanOfEveryAcl) {
  std::mt19937 rng(20240917);
  const auto pick = [&](const auto& options) { return options[rng() % options.size()]; };
  // Few letters, so names share prefixes often; "!" sorts below "*" and "*"
  // below the letters, which puts the wildcard among the names.
  const std::vector<char> letters = {'a', 'b', 'c', '*', '!'};
  const auto name = [&](size_t max) {
    std::string s;
    const size_t n = rng() % (max + 1);
    for (size_t i = 0; i < n; ++i) s += pick(letters);
    return s;
  };
  const std::vector<std::string> principals = {"User:alice", "User:bob", "User:*", "Group:alice", "Group:*"};
  const std::vector<std::string> askers = {"User:alice", "User:bob", "User:carol", "Group:alice", "Group:*"};
  const std::vector<std::string> hosts = {"*", "10.0.0.1", "10.0.0.2"};
  const std::vector<type> types = {type::topic, type::group};
  const std::vector<op> queried = {op::read,     op::write,         op::describe,     op::describe_configs,
                                   op::alter,    op::alter_configs, op::remove,       op::create};
  std::map<acl_rule, int> answers;
  for (int round = 0; round < 2000; ++round) {
    std::vector<acl_entry> acls;
    const size_t count = rng() % 40;
    for (size_t i = 0; i < count; ++i) {
      const pattern p = rng() % 2 ? literal : prefixed;
      std::string n = rng() % 6 == 0 ? "*" : name(4);
      if (n.empty()) n = "a";  // CreateAcls refuses an empty name
      const op o = rng() % 4 == 0 ? pick(concrete_operations) : pick(queried);
      acls.push_back(acl(pick(types), n, p, pick(principals), o, rng() % 3 ? allow : deny, rng() % 2 ? "*" : pick(hosts)));
    }
    const std::set<std::string, std::less<>> super_users =
        rng() % 4 == 0 ? std::set<std::string, std::less<>>{"User:bob"} : std::set<std::string, std::less<>>{};
    const bool allow_everyone = rng() % 2;
    const auto a = make(acls, super_users, allow_everyone);
    for (int q = 0; q < 50; ++q) {
      const std::string principal = pick(askers);
      const std::string host = rng() % 2 ? "10.0.0.1" : "10.0.0.2";
      const op o = pick(queried);
      const type t = pick(types);
      // Names of ACLs, extended or cut, and fresh ones.
      std::string n = name(5);
      if (!acls.empty() && rng() % 2) {
        n = pick(acls).resource_name;
        if (rng() % 2) n += name(2);
        else n = n.substr(0, rng() % (n.size() + 1));
      }
      const auto got = a.authorize(principal, host, o, t, n);
      const auto want = scan(acls, super_users, allow_everyone, principal, host, o, t, n);
      ASSERT_EQ(got.allowed, want.allowed) << principal << "@" << host << " " << to_string(o) << " " << to_string(t)
                                           << " '" << n << "' round " << round;
      ASSERT_EQ(got.rule, want.rule) << principal << " " << to_string(o) << " '" << n << "' round " << round;
      ++answers[got.rule];
      if (got.rule == acl_rule::matching_allow || got.rule == acl_rule::matching_deny) {
        ASSERT_NE(got.acl, nullptr);
        EXPECT_TRUE(covers(*got.acl, t, n));
        EXPECT_TRUE(matches(*got.acl, principal, host, o));
        EXPECT_EQ(got.acl->permission, got.allowed ? allow : deny);
      } else {
        EXPECT_EQ(got.acl, nullptr);
      }
    }
  }
  // The draw exercised every kind of answer, each many times (the seed
  // gives about 1,900 DENYs and more of the others).
  for (const acl_rule r : {acl_rule::super_user, acl_rule::matching_allow, acl_rule::matching_deny,
                           acl_rule::no_acl_found, acl_rule::no_matching_acl})
    EXPECT_GT(answers[r], 1000) << int(r);
}

}  // namespace
}  // namespace hw::controller
