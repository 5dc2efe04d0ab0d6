// Client quotas in the metadata: ClientQuotaRecord replayed into the image
// and back out of a snapshot, AlterClientQuotas' checks and texts (Kafka's
// ClientQuotaControlManager), and DescribeClientQuotas' filters (Kafka's
// ClientQuotasImage.describe).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "controller/metadata/delta.h"
#include "controller/metadata/image_records.h"
#include "controller/metadata/quotas.h"
#include "controller/quota_control.h"
#include "tests/controller/snapshot_support.h"

namespace hw::controller {
namespace {

using alter_request = msg::alter_client_quotas_request;
using describe_request = msg::describe_client_quotas_request;

const int16_t invalid = static_cast<int16_t>(error_code::invalid_request);

quota_entity user(std::optional<std::string> name) { return {{"user", std::move(name)}}; }
quota_entity user_client(std::optional<std::string> u, std::optional<std::string> c) {
  return {{"user", std::move(u)}, {"client-id", std::move(c)}};
}

std::shared_ptr<const metadata_image> replayed(std::shared_ptr<const metadata_image> image,
                                               const std::vector<metadata_record>& records) {
  std::string error;
  auto next = replay_all(std::move(image), records, storage::offset(0), leader_epoch(1), &error);
  EXPECT_TRUE(next) << error;
  return next;
}

// One entry: entity (type, name) pairs as the wire lists them, and ops
// (key, value; nullopt removes).
alter_request::entry_data entry(std::vector<std::pair<std::string, std::optional<std::string>>> entity,
                                std::vector<std::pair<std::string, std::optional<double>>> ops) {
  alter_request::entry_data e;
  for (auto& [type, name] : entity) {
    auto& d = e.entity.emplace_back();
    d.entity_type = type;
    d.entity_name = name;
  }
  for (auto& [key, value] : ops) {
    auto& op = e.ops.emplace_back();
    op.key = key;
    op.value = value.value_or(0.0);
    op.remove = !value;
  }
  return e;
}

bool no_dns(const std::string& name) { return name == "10.0.0.1" || name == "::1"; }

TEST(Quotas, JavaHashMapOrderAndEntityText) {
  EXPECT_EQ(java_string_hash("user"), 3599307u);
  // client-id's bucket comes before user's in every small table.
  for (size_t hint : {0, 2, 3, 16})
    EXPECT_EQ(java_map_order({"user", "client-id"}, hint), (std::vector<std::string>{"client-id", "user"})) << hint;
  EXPECT_EQ(java_map_order({"user", "user"}, 2), std::vector<std::string>{"user"});
  EXPECT_EQ(quota_entity_text(user_client("alice", std::nullopt), {"client-id", "user"}),
            "ClientQuotaEntity(entries={client-id=null, user=alice})");
  const auto r = client_quota_record(user_client("alice", "app"), "producer_byte_rate", 1024);
  ASSERT_EQ(r.entity.size(), 2u);
  EXPECT_EQ(r.entity[0].entity_type, "client-id");
  EXPECT_EQ(r.entity[1].entity_name, "alice");
  EXPECT_FALSE(r.remove);
}

TEST(Quotas, ReplaySetsAndRemovesAndTheSnapshotKeepsThem) {
  std::vector<metadata_record> log{
      client_quota_record(user("alice"), "producer_byte_rate", 1000),
      client_quota_record(user("alice"), "consumer_byte_rate", 2000),
      client_quota_record(user(std::nullopt), "request_percentage", 12.5),
      client_quota_record(user_client("alice", std::nullopt), "producer_byte_rate", 10),
      client_quota_record({{"ip", "10.0.0.1"}}, "connection_creation_rate", 5),
      client_quota_record(user("alice"), "producer_byte_rate", 1500),
      client_quota_record({{"ip", "10.0.0.1"}}, "connection_creation_rate", std::nullopt),
      client_quota_record(user("bob"), "producer_byte_rate", std::nullopt),  // nothing to remove: no change
  };
  std::string error;
  auto image = testing::replay_from_empty(log, &error);
  ASSERT_TRUE(image) << error;
  ASSERT_EQ(image->client_quotas.size(), 3u);
  EXPECT_EQ(image->client_quotas.at(user("alice")),
            (quota_values{{"consumer_byte_rate", 2000}, {"producer_byte_rate", 1500}}));
  EXPECT_EQ(image->client_quotas.at(user(std::nullopt)), (quota_values{{"request_percentage", 12.5}}));
  EXPECT_EQ(image->client_quotas.at(user_client("alice", std::nullopt)), (quota_values{{"producer_byte_rate", 10}}));
  EXPECT_FALSE(image->client_quotas.count({{"ip", "10.0.0.1"}}));  // its last value removed
  EXPECT_FALSE(image->empty());

  // The snapshot's records rebuild it, after the configs and before the producer ids.
  const auto records = image_records(*image);
  auto rebuilt = testing::replay_from_empty(records, &error);
  ASSERT_TRUE(rebuilt) << error;
  EXPECT_EQ(rebuilt->client_quotas, image->client_quotas);
  size_t quota_records = 0;
  for (const auto& r : records) quota_records += std::holds_alternative<msg::client_quota_record>(r);
  EXPECT_EQ(quota_records, 4u);

  metadata_delta delta(image);
  EXPECT_FALSE(delta.client_quotas_changed());
  EXPECT_FALSE(delta.replay(client_quota_record(user("carol"), "producer_byte_rate", 1)).has_value());
  EXPECT_TRUE(delta.client_quotas_changed());
}

TEST(QuotaControl, RefusalsGetKafkasMessages) {
  auto image = std::make_shared<const metadata_image>();
  struct refusal {
    alter_request::entry_data entry;
    std::string message;
  };
  const std::vector<refusal> cases{
      {entry({}, {{"producer_byte_rate", 1}}), "Invalid empty client quota entity"},
      {entry({{"group", "g"}}, {{"producer_byte_rate", 1}}), "Unhandled client quota entity type: group"},
      {entry({{"user", ""}}, {{"producer_byte_rate", 1}}), "Empty user not supported"},
      {entry({{"ip", "10.0.0.1"}, {"user", "a"}}, {{"connection_creation_rate", 1}}),
       "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"},
      {entry({{"ip", "nowhere.invalid"}}, {{"connection_creation_rate", 1}}),
       "nowhere.invalid is not a valid IP or resolvable host."},
      {entry({{"user", "a"}}, {{"connection_creation_rate", 1}}), "Invalid configuration key connection_creation_rate"},
      {entry({{"ip", "::1"}}, {{"producer_byte_rate", 1}}), "Invalid configuration key producer_byte_rate"},
      {entry({{"user", "a"}}, {{"producer_byte_rate", 0}}), "Quota producer_byte_rate must be greater than 0"},
      {entry({{"client-id", "c"}}, {{"request_percentage", -1}}), "Quota request_percentage must be greater than 0"},
      {entry({{"user", "a"}}, {{"consumer_byte_rate", 10.5}}), "consumer_byte_rate cannot be a fractional value."},
      {entry({{"user", "a"}}, {{"consumer_byte_rate", 1e19}}),
       "Proposed value for consumer_byte_rate is too large for a LONG."},
      {entry({{"ip", std::nullopt}}, {{"connection_creation_rate", 3e9}}),
       "Proposed value for connection_creation_rate is too large for an INT."},
      {entry({{"ip", std::nullopt}}, {{"connection_creation_rate", 2.5}}),
       "connection_creation_rate cannot be a fractional value."},
  };
  for (const auto& c : cases) {
    alter_request request;
    request.entries = {c.entry};
    auto result = quota_control::alter_client_quotas(*image, request, no_dns);
    ASSERT_EQ(result.response.entries.size(), 1u) << c.message;
    EXPECT_EQ(result.response.entries[0].error_code, invalid) << c.message;
    EXPECT_EQ(result.response.entries[0].error_message, c.message);
    EXPECT_TRUE(result.records.empty()) << c.message;
    // The answer names the entity as the request did.
    EXPECT_EQ(result.response.entries[0].entity.size(), c.entry.entity.size()) << c.message;
  }
}

TEST(QuotaControl, EachEntryWholeOrNothingAndOnlyChangesAreWritten) {
  auto image = std::make_shared<const metadata_image>();
  alter_request request;
  request.entries = {
      entry({{"user", "alice"}}, {{"producer_byte_rate", 1024}, {"request_percentage", 50.5}}),
      // One refused op: none of the entry is written.
      entry({{"user", "bob"}}, {{"producer_byte_rate", 1024}, {"consumer_byte_rate", 1.5}}),
      entry({{"user", std::nullopt}, {"client-id", std::nullopt}}, {{"controller_mutation_rate", 0.25}}),
      entry({{"ip", "10.0.0.1"}}, {{"connection_creation_rate", 100}}),
  };
  auto result = quota_control::alter_client_quotas(*image, request, no_dns);
  ASSERT_EQ(result.response.entries.size(), 4u);
  int refused = 0;
  for (const auto& e : result.response.entries) {
    if (e.error_code == 0) {
      EXPECT_FALSE(e.error_message.has_value());
      continue;
    }
    ++refused;
    EXPECT_EQ(e.entity[0].entity_name, "bob");
    EXPECT_EQ(e.error_message, "consumer_byte_rate cannot be a fractional value.");
  }
  EXPECT_EQ(refused, 1);
  EXPECT_EQ(result.records.size(), 4u);

  // validate_only: the same answers, nothing written.
  request.validate_only = true;
  auto checked = quota_control::alter_client_quotas(*image, request, no_dns);
  EXPECT_EQ(checked.response.entries, result.response.entries);
  EXPECT_TRUE(checked.records.empty());

  image = replayed(image, result.records);
  EXPECT_EQ(image->client_quotas.size(), 3u);
  EXPECT_EQ(image->client_quotas.at(user_client(std::nullopt, std::nullopt)).at("controller_mutation_rate"), 0.25);

  // The same values again, and removals of keys not held: nothing to write.
  alter_request again;
  again.entries = {entry({{"user", "alice"}}, {{"producer_byte_rate", 1024}, {"consumer_byte_rate", std::nullopt}}),
                   entry({{"user", "nobody"}}, {{"no_such_key", std::nullopt}})};
  auto unchanged = quota_control::alter_client_quotas(*image, again, no_dns);
  for (const auto& e : unchanged.response.entries) EXPECT_EQ(e.error_code, 0);
  EXPECT_TRUE(unchanged.records.empty());

  // A removal and a change.
  alter_request change;
  change.entries = {entry({{"user", "alice"}}, {{"producer_byte_rate", std::nullopt}, {"request_percentage", 75}})};
  auto changed = quota_control::alter_client_quotas(*image, change, no_dns);
  ASSERT_EQ(changed.records.size(), 2u);
  image = replayed(image, changed.records);
  EXPECT_EQ(image->client_quotas.at(user("alice")), (quota_values{{"request_percentage", 75}}));
}

TEST(QuotaControl, DuplicatesAreAnsweredAsKafkasHashMapAnswersThem) {
  auto image = std::make_shared<const metadata_image>();
  alter_request request;
  // alice twice: the first entry's record is kept, the answer is the second's.
  request.entries = {entry({{"user", "alice"}}, {{"producer_byte_rate", 1024}}),
                     entry({{"user", "alice"}}, {{"consumer_byte_rate", 2048}}),
                     entry({{"user", "bob"}, {"client-id", "app"}},
                           {{"producer_byte_rate", 1}, {"producer_byte_rate", 2}})};
  auto result = quota_control::alter_client_quotas(*image, request, no_dns);
  ASSERT_EQ(result.response.entries.size(), 2u);
  ASSERT_EQ(result.records.size(), 1u);
  EXPECT_EQ(std::get<msg::client_quota_record>(result.records[0]).key, "producer_byte_rate");
  for (const auto& e : result.response.entries) {
    EXPECT_EQ(e.error_code, invalid);
    if (e.entity.size() == 1) {
      EXPECT_EQ(e.error_message, "Ignoring duplicate entity ClientQuotaEntity(entries={user=alice})");
    } else {
      // A repeated key answers the entry as a duplicate entity too.
      EXPECT_EQ(e.error_message,
                "Ignoring duplicate entity ClientQuotaEntity(entries={client-id=app, user=bob})");
      EXPECT_EQ(e.entity[0].entity_type, "client-id");
    }
  }
}

TEST(QuotaControl, IntegralKeysTakeWholeValuesAndNanPassesAsInKafka) {
  auto image = std::make_shared<const metadata_image>();
  alter_request request;
  request.entries = {entry({{"user", "a"}}, {{"producer_byte_rate", 1e18}, {"consumer_byte_rate", 5.0000001}}),
                     entry({{"user", "b"}}, {{"producer_byte_rate", std::nan("")}}),
                     entry({{"user", "c"}}, {{"request_percentage", std::numeric_limits<double>::infinity()}})};
  auto result = quota_control::alter_client_quotas(*image, request, no_dns);
  for (const auto& e : result.response.entries) EXPECT_EQ(e.error_code, 0) << e.entity[0].entity_name.value_or("");
  EXPECT_EQ(result.records.size(), 4u);
}

TEST(QuotaControl, IpNamesAreAddressesOrResolvableHosts) {
  EXPECT_TRUE(quota_control::resolvable_host("192.168.1.10"));
  EXPECT_TRUE(quota_control::resolvable_host("::1"));
  EXPECT_TRUE(quota_control::resolvable_host("[fe80::1]"));
  EXPECT_TRUE(quota_control::resolvable_host("localhost"));
  EXPECT_FALSE(quota_control::resolvable_host("[10.0.0.1]"));
  EXPECT_FALSE(quota_control::resolvable_host("no-such-host.invalid"));
}

describe_request::component_data component(std::string type, int8_t match_type, std::optional<std::string> match) {
  describe_request::component_data c;
  c.entity_type = std::move(type);
  c.match_type = match_type;
  c.match = std::move(match);
  return c;
}

std::set<quota_entity> described(const client_quota_table& quotas, std::vector<describe_request::component_data> cs,
                                 bool strict) {
  describe_request request;
  request.components = std::move(cs);
  request.strict = strict;
  auto response = describe_client_quotas(quotas, request);
  EXPECT_EQ(response.error_code, 0) << response.error_message.value_or("");
  EXPECT_EQ(response.error_message, "");  // Kafka's default, not null
  std::set<quota_entity> out;
  if (!response.entries) return out;
  for (const auto& e : *response.entries) {
    quota_entity entity;
    for (const auto& d : e.entity) entity[d.entity_type] = d.entity_name;
    EXPECT_EQ(e.values.size(), quotas.at(entity).size());
    out.insert(entity);
  }
  return out;
}

TEST(Quotas, DescribeFiltersMatchAsKafkas) {
  const client_quota_table quotas{
      {user("alice"), {{"producer_byte_rate", 1}}},
      {user(std::nullopt), {{"producer_byte_rate", 2}}},
      {user_client("alice", "app"), {{"producer_byte_rate", 3}, {"request_percentage", 4}}},
      {user_client("alice", std::nullopt), {{"producer_byte_rate", 5}}},
      {{{"client-id", "app"}}, {{"consumer_byte_rate", 6}}},
      {{{"ip", "10.0.0.1"}}, {{"connection_creation_rate", 7}}},
      {{{"ip", std::nullopt}}, {{"connection_creation_rate", 8}}},
  };
  constexpr int8_t exact = 0, by_default = 1, specified = 2;
  EXPECT_EQ(described(quotas, {}, false).size(), 7u);
  EXPECT_TRUE(described(quotas, {}, true).empty());
  EXPECT_EQ(described(quotas, {component("user", exact, "alice")}, false),
            (std::set<quota_entity>{user("alice"), user_client("alice", "app"), user_client("alice", std::nullopt)}));
  EXPECT_EQ(described(quotas, {component("user", exact, "alice")}, true), (std::set<quota_entity>{user("alice")}));
  EXPECT_EQ(described(quotas, {component("user", by_default, std::nullopt)}, false),
            (std::set<quota_entity>{user(std::nullopt)}));
  EXPECT_EQ(described(quotas, {component("client-id", specified, std::nullopt)}, false),
            (std::set<quota_entity>{user_client("alice", "app"), user_client("alice", std::nullopt),
                                    {{"client-id", "app"}}}));
  EXPECT_EQ(described(quotas, {component("user", specified, std::nullopt), component("client-id", by_default,
                                                                                       std::nullopt)},
                      true),
            (std::set<quota_entity>{user_client("alice", std::nullopt)}));
  EXPECT_EQ(described(quotas, {component("ip", specified, std::nullopt)}, true).size(), 2u);
  EXPECT_EQ(described(quotas, {component("ip", exact, "10.0.0.2")}, false).size(), 0u);
  // An entity's types in Kafka's HashMap order.
  describe_request request;
  request.components = {component("client-id", exact, "app"), component("user", exact, "alice")};
  auto one = describe_client_quotas(quotas, request);
  ASSERT_EQ(one.entries->size(), 1u);
  EXPECT_EQ((*one.entries)[0].entity[0].entity_type, "client-id");
}

TEST(Quotas, DescribeRefusesInvalidFiltersWithKafkasErrors) {
  struct refusal {
    std::vector<describe_request::component_data> components;
    error_code code;
    std::string message;
  };
  const std::vector<refusal> cases{
      {{component("", 2, std::nullopt)}, error_code::invalid_request, "Invalid empty entity type."},
      {{component("user", 2, std::nullopt), component("user", 0, "a")}, error_code::invalid_request,
       "Entity type user cannot appear more than once in the filter."},
      {{component("group", 0, "g")}, error_code::unsupported_version, "Unsupported entity type group"},
      {{component("user", 0, std::nullopt)}, error_code::invalid_request,
       "Request specified MATCH_TYPE_EXACT, but set match string to null."},
      {{component("user", 1, "a")}, error_code::invalid_request,
       "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."},
      {{component("user", 2, "a")}, error_code::invalid_request,
       "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string."},
      {{component("user", 7, std::nullopt)}, error_code::invalid_request, "Unknown match type 7"},
      {{component("ip", 2, std::nullopt), component("client-id", 1, std::nullopt)}, error_code::invalid_request,
       "Invalid entity filter component combination. IP filter component should not be used with user or "
       "clientId filter component."},
  };
  for (const auto& c : cases) {
    describe_request request;
    request.components = c.components;
    auto response = describe_client_quotas({}, request);
    EXPECT_EQ(response.error_code, static_cast<int16_t>(c.code)) << c.message;
    EXPECT_EQ(response.error_message, c.message);
    EXPECT_FALSE(response.entries.has_value()) << c.message;
  }
}

}  // namespace
}  // namespace hw::controller
