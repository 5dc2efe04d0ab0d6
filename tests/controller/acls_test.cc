// ACLs in the metadata: the enumerations' names and ids, the filters
// DescribeAcls and DeleteAcls match with (Kafka's AclBindingFilter), the
// validation of a new binding, replay into the image and the snapshot's
// records.

#include <gtest/gtest.h>

#include "controller/acl_control.h"
#include "controller/metadata/acls.h"
#include "controller/metadata/delta.h"
#include "controller/metadata/image_records.h"
#include "tests/controller/snapshot_support.h"

namespace hw::controller {
namespace {

acl_entry acl(acl_resource_type type, std::string name, acl_pattern_type pattern, std::string principal = "User:alice",
              acl_operation op = acl_operation::read, acl_permission permission = acl_permission::allow,
              std::string host = "*") {
  return {type, std::move(name), pattern, std::move(principal), std::move(host), op, permission};
}

TEST(Acls, NamesAndIdsAreKafkas) {
  EXPECT_EQ(to_string(acl_resource_type::transactional_id), "TRANSACTIONAL_ID");
  EXPECT_EQ(to_string(acl_operation::remove), "DELETE");
  EXPECT_EQ(to_string(acl_operation::idempotent_write), "IDEMPOTENT_WRITE");
  EXPECT_EQ(to_string(acl_pattern_type::prefixed), "PREFIXED");
  EXPECT_EQ(to_string(acl_permission::deny), "DENY");
  EXPECT_EQ(acl_operation_of(14), acl_operation::describe_tokens);
  EXPECT_EQ(acl_operation_of(15), acl_operation::two_phase_commit);  // KIP-939, Kafka 4.x
  EXPECT_EQ(acl_operation_of(16), acl_operation::unknown);
  EXPECT_EQ(acl_resource_type_of(7), acl_resource_type::user);
  EXPECT_EQ(acl_resource_type_of(-1), acl_resource_type::unknown);
  EXPECT_EQ(parse_acl_operation("idempotent_write"), acl_operation::idempotent_write);
  EXPECT_EQ(parse_acl_operation("Delete"), acl_operation::remove);
  EXPECT_EQ(parse_acl_resource_type("Transactional_Id"), acl_resource_type::transactional_id);
  EXPECT_FALSE(parse_acl_operation("reed"));
  EXPECT_FALSE(parse_acl_pattern_type(""));
}

TEST(Acls, AMatchFilterFindsTheLiteralTheWildcardAndThePrefixesOfAName) {
  const auto literal = acl(acl_resource_type::topic, "orders", acl_pattern_type::literal);
  const auto wildcard = acl(acl_resource_type::topic, "*", acl_pattern_type::literal);
  const auto prefix = acl(acl_resource_type::topic, "ord", acl_pattern_type::prefixed);
  const auto other_prefix = acl(acl_resource_type::topic, "pay", acl_pattern_type::prefixed);
  const auto group = acl(acl_resource_type::group, "orders", acl_pattern_type::literal);
  acl_filter match;
  match.resource_type = acl_resource_type::topic;
  match.resource_name = "orders";
  match.pattern_type = acl_pattern_type::match;
  EXPECT_TRUE(match.matches(literal));
  EXPECT_TRUE(match.matches(wildcard));
  EXPECT_TRUE(match.matches(prefix));
  EXPECT_FALSE(match.matches(other_prefix));
  EXPECT_FALSE(match.matches(group));
  // LITERAL "*" is the wildcard pattern itself, not every name.
  acl_filter star;
  star.resource_type = acl_resource_type::topic;
  star.resource_name = "*";
  star.pattern_type = acl_pattern_type::literal;
  EXPECT_TRUE(star.matches(wildcard));
  EXPECT_FALSE(star.matches(literal));
  // ANY pattern type with a name: that name in any pattern type.
  acl_filter any;
  any.resource_name = "ord";
  EXPECT_TRUE(any.matches(prefix));
  EXPECT_FALSE(any.matches(literal));
  // No name: everything of the type and pattern.
  acl_filter all;
  EXPECT_TRUE(all.matches(literal) && all.matches(group) && all.matches(other_prefix));
  // The entry's side.
  acl_filter entry;
  entry.principal = "User:bob";
  EXPECT_FALSE(entry.matches(literal));
  entry.principal = "User:alice";
  entry.host = "10.0.0.1";
  EXPECT_FALSE(entry.matches(literal));
  entry.host = "*";
  entry.operation = acl_operation::write;
  EXPECT_FALSE(entry.matches(literal));
  entry.operation = acl_operation::read;
  entry.permission = acl_permission::deny;
  EXPECT_FALSE(entry.matches(literal));
  entry.permission = acl_permission::allow;
  EXPECT_TRUE(entry.matches(literal));
}

TEST(Acls, ValidationGivesKafkasMessages) {
  EXPECT_FALSE(invalid_new_acl(acl(acl_resource_type::topic, "t", acl_pattern_type::prefixed)));
  EXPECT_EQ(invalid_new_acl(acl(acl_resource_type::any, "t", acl_pattern_type::literal)), "Invalid resourceType ANY");
  EXPECT_EQ(invalid_new_acl(acl(acl_resource_type::topic, "t", acl_pattern_type::match)), "Invalid patternType MATCH");
  EXPECT_EQ(invalid_new_acl(acl(acl_resource_type::topic, "t", acl_pattern_type::literal, "User:a", acl_operation::any)),
            "Invalid operation ANY");
  EXPECT_EQ(invalid_new_acl(acl(acl_resource_type::topic, "t", acl_pattern_type::literal, "User:a", acl_operation::read,
                                acl_permission::any)),
            "Invalid permissionType ANY");
  EXPECT_EQ(invalid_new_acl(acl(acl_resource_type::topic, "", acl_pattern_type::literal)),
            "Resource name should not be empty");
  // A principal needs its type (Kafka 4.3; "User:" and ":bob" pass).
  EXPECT_EQ(invalid_new_acl(acl(acl_resource_type::topic, "t", acl_pattern_type::literal, "bob")),
            "Could not parse principal from `bob` (no colon is present separating the principal type from the "
            "principal name)");
  EXPECT_EQ(invalid_new_acl(acl(acl_resource_type::topic, "t", acl_pattern_type::literal, "")),
            "Could not parse principal from `` (no colon is present separating the principal type from the "
            "principal name)");
  EXPECT_FALSE(invalid_new_acl(acl(acl_resource_type::topic, "t", acl_pattern_type::literal, "User:")));
  EXPECT_FALSE(invalid_new_acl(acl(acl_resource_type::topic, "t", acl_pattern_type::literal, ":bob")));
  acl_filter f;
  EXPECT_FALSE(invalid_delete_filter(f));
  f.pattern_type = acl_pattern_type::unknown;
  EXPECT_EQ(invalid_delete_filter(f), "Unknown patternFilter.");
  f.pattern_type = acl_pattern_type::any;
  f.permission = acl_permission::unknown;
  EXPECT_EQ(invalid_delete_filter(f), "Unknown entryFilter.");
}

protocol::uuid id(uint8_t n) {
  protocol::uuid u;
  u.bytes[15] = n;
  return u;
}

TEST(Acls, ReplayAddsAndRemovesByIdAndTheSnapshotKeepsThem) {
  const auto a = acl(acl_resource_type::topic, "orders", acl_pattern_type::literal);
  const auto b = acl(acl_resource_type::group, "app-", acl_pattern_type::prefixed, "User:*", acl_operation::read,
                     acl_permission::deny, "10.0.0.1");
  const auto c = acl(acl_resource_type::cluster, "kafka-cluster", acl_pattern_type::literal, "User:admin",
                     acl_operation::alter);
  std::vector<metadata_record> log{acl_record(id(1), a), acl_record(id(2), b), acl_record(id(3), c)};
  msg::remove_access_control_entry_record gone;
  gone.id = id(1);
  log.push_back(gone);
  std::string error;
  auto image = testing::replay_from_empty(log, &error);
  ASSERT_TRUE(image) << error;
  ASSERT_EQ(image->acls.size(), 2u);
  EXPECT_EQ(image->acls.at(id(2)), b);
  EXPECT_EQ(image->acls.at(id(3)), c);
  EXPECT_FALSE(image->empty());

  // The snapshot's records rebuild it.
  auto rebuilt = testing::replay_from_empty(image_records(*image), &error);
  ASSERT_TRUE(rebuilt) << error;
  EXPECT_EQ(rebuilt->acls, image->acls);

  // Removing an id the image does not hold, or adding an invalid binding, is refused.
  metadata_delta delta(image);
  EXPECT_TRUE(delta.replay(gone).has_value());
  EXPECT_FALSE(delta.acls_changed());
  auto bad = acl_record(id(4), acl(acl_resource_type::topic, "", acl_pattern_type::literal));
  EXPECT_TRUE(delta.replay(bad).has_value());
  EXPECT_FALSE(delta.acls_changed());
  EXPECT_FALSE(delta.replay(acl_record(id(4), a)).has_value());
  EXPECT_TRUE(delta.acls_changed());
}

msg::create_acls_request::acl_creation creation(const acl_entry& a) {
  msg::create_acls_request::acl_creation c;
  c.resource_type = static_cast<int8_t>(a.resource_type);
  c.resource_name = a.resource_name;
  c.resource_pattern_type = static_cast<int8_t>(a.pattern_type);
  c.principal = a.principal;
  c.host = a.host;
  c.operation = static_cast<int8_t>(a.operation);
  c.permission_type = static_cast<int8_t>(a.permission);
  return c;
}

std::shared_ptr<const metadata_image> applied(std::shared_ptr<const metadata_image> image,
                                              const std::vector<metadata_record>& records) {
  std::string error;
  auto next = replay_all(std::move(image), records, storage::offset(0), leader_epoch(1), &error);
  EXPECT_TRUE(next) << error;
  return next;
}

TEST(AclControl, CreationsAreWrittenOnceAndRefusalsGetKafkasMessages) {
  acl_control control(7);
  auto image = std::make_shared<const metadata_image>();
  const auto read = acl(acl_resource_type::topic, "orders", acl_pattern_type::literal);
  const auto admin = acl(acl_resource_type::cluster, "kafka-cluster", acl_pattern_type::literal, "User:admin",
                         acl_operation::alter);
  msg::create_acls_request request;
  request.creations = {creation(read), creation(read), creation(admin),
                       creation(acl(acl_resource_type::cluster, "other", acl_pattern_type::literal)),
                       creation(acl(acl_resource_type::topic, "", acl_pattern_type::literal))};
  auto result = control.create_acls(*image, request);
  ASSERT_EQ(result.response.results.size(), 5u);
  for (int i : {0, 1, 2}) EXPECT_EQ(result.response.results[i].error_code, 0) << i;
  const auto invalid = static_cast<int16_t>(error_code::invalid_request);
  EXPECT_EQ(result.response.results[3].error_code, invalid);
  EXPECT_EQ(result.response.results[3].error_message, "The only valid name for the CLUSTER resource is kafka-cluster");
  EXPECT_EQ(result.response.results[4].error_message, "Invalid empty resource name");
  ASSERT_EQ(result.records.size(), 2u);  // read once, admin
  image = applied(image, result.records);
  ASSERT_EQ(image->acls.size(), 2u);

  // A filter's value in any creation fails them all, unwritten.
  for (const auto& bad : {acl(acl_resource_type::topic, "t", acl_pattern_type::match),
                          acl(acl_resource_type::any, "t", acl_pattern_type::literal),
                          acl(acl_resource_type::topic, "t", acl_pattern_type::literal, "User:a", acl_operation::any),
                          acl(acl_resource_type::topic, "t", acl_pattern_type::literal, "User:a", acl_operation::read,
                              acl_permission::any)}) {
    msg::create_acls_request mixed;
    mixed.creations = {creation(acl(acl_resource_type::topic, "new", acl_pattern_type::literal)), creation(bad)};
    auto failed = control.create_acls(*image, mixed);
    EXPECT_TRUE(failed.records.empty());
    ASSERT_EQ(failed.response.results.size(), 2u);
    for (const auto& r : failed.response.results) {
      EXPECT_EQ(r.error_code, static_cast<int16_t>(error_code::unknown_server_error));
      EXPECT_FALSE(r.error_message.has_value());
    }
  }

  // Again: nothing new to write, every creation still succeeds.
  msg::create_acls_request again;
  again.creations = {creation(read), creation(admin)};
  auto second = control.create_acls(*image, again);
  EXPECT_TRUE(second.records.empty());
  for (const auto& r : second.response.results) EXPECT_EQ(r.error_code, 0);
}

TEST(AclControl, EachFilterListsWhatItMatchesAndEveryAclIsRemovedOnce) {
  acl_control control(9);
  auto image = std::make_shared<const metadata_image>();
  msg::create_acls_request request;
  request.creations = {creation(acl(acl_resource_type::topic, "orders", acl_pattern_type::literal)),
                       creation(acl(acl_resource_type::topic, "ord", acl_pattern_type::prefixed)),
                       creation(acl(acl_resource_type::group, "g", acl_pattern_type::literal, "User:bob")),
                       creation(acl(acl_resource_type::topic, "payments", acl_pattern_type::literal))};
  image = applied(image, control.create_acls(*image, request).records);
  ASSERT_EQ(image->acls.size(), 4u);

  msg::delete_acls_request del;
  msg::delete_acls_request::delete_acls_filter orders;  // MATCH orders: the literal and the prefix
  orders.resource_type_filter = static_cast<int8_t>(acl_resource_type::topic);
  orders.resource_name_filter = "orders";
  orders.pattern_type_filter = static_cast<int8_t>(acl_pattern_type::match);
  orders.principal_filter = std::nullopt;
  orders.host_filter = std::nullopt;
  orders.operation = static_cast<int8_t>(acl_operation::any);
  orders.permission_type = static_cast<int8_t>(acl_permission::any);
  auto alice = orders;  // everything of alice's on topics
  alice.resource_name_filter = std::nullopt;
  alice.pattern_type_filter = static_cast<int8_t>(acl_pattern_type::any);
  alice.principal_filter = "User:alice";
  auto nothing = orders;
  nothing.resource_name_filter = "absent";
  nothing.pattern_type_filter = static_cast<int8_t>(acl_pattern_type::literal);
  del.filters = {orders, alice, nothing};
  auto result = acl_control::delete_acls(*image, del);
  ASSERT_EQ(result.response.filter_results.size(), 3u);
  EXPECT_EQ(result.response.filter_results[0].matching_acls.size(), 2u);
  EXPECT_EQ(result.response.filter_results[1].matching_acls.size(), 3u);
  EXPECT_TRUE(result.response.filter_results[2].matching_acls.empty());
  EXPECT_EQ(result.response.filter_results[2].error_code, 0);
  EXPECT_EQ(result.records.size(), 3u);  // orders, ord, payments; once each
  image = applied(image, result.records);
  ASSERT_EQ(image->acls.size(), 1u);
  EXPECT_EQ(image->acls.begin()->second.principal, "User:bob");
}

}  // namespace
}  // namespace hw::controller
