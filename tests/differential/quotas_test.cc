// Client quotas: the same AlterClientQuotas and DescribeClientQuotas to
// Kafka 4.3.1 and Highwater, compared field by field, with the error
// messages checked word for word (the common allowlist compares only their
// presence). Kafka answers AlterClientQuotas in its HashMap's order,
// which Highwater reproduces, so those compare as they are; it lists
// DescribeClientQuotas' entries (and each entry's values) in hash orders
// that depend on the history of its image, so those compare as sets, each
// entity's types in order. Every test names fresh users and client ids;
// default entities and ips are shared, and both brokers see the same
// requests, so they hold the same quotas throughout.

#include <set>
#include <tuple>

#include "broker_process.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/describe_client_quotas.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_describe = 48, k_alter = 49;
constexpr int8_t k_exact = 0, k_default = 1, k_specified = 2;

using name = std::optional<std::string>;
using entity_list = std::vector<std::pair<std::string, name>>;
using op = std::pair<std::string, std::optional<double>>;  // nullopt: remove

msg::alter_client_quotas_request::entry_data entry(const entity_list& entity, const std::vector<op>& ops) {
  msg::alter_client_quotas_request::entry_data e;
  for (const auto& [type, n] : entity) {
    auto& d = e.entity.emplace_back();
    d.entity_type = type;
    d.entity_name = n;
  }
  for (const auto& [key, value] : ops) {
    auto& o = e.ops.emplace_back();
    o.key = key;
    o.value = value.value_or(0.0);
    o.remove = !value;
  }
  return e;
}

msg::alter_client_quotas_request altering(std::vector<msg::alter_client_quotas_request::entry_data> entries,
                                          bool validate_only = false) {
  msg::alter_client_quotas_request r;
  r.entries = std::move(entries);
  r.validate_only = validate_only;
  return r;
}

msg::describe_client_quotas_request::component_data component(std::string type, int8_t match_type, name match) {
  msg::describe_client_quotas_request::component_data c;
  c.entity_type = std::move(type);
  c.match_type = match_type;
  c.match = std::move(match);
  return c;
}

msg::describe_client_quotas_request describing(std::vector<msg::describe_client_quotas_request::component_data> cs,
                                               bool strict) {
  msg::describe_client_quotas_request r;
  r.components = std::move(cs);
  r.strict = strict;
  return r;
}

// An entry of DescribeClientQuotas: its entity in order, its values as a set.
using described_entry = std::pair<entity_list, std::set<std::pair<std::string, double>>>;
std::optional<std::set<described_entry>> entries_of(const msg::describe_client_quotas_response& r) {
  if (!r.entries) return std::nullopt;
  std::set<described_entry> out;
  for (const auto& e : *r.entries) {
    described_entry d;
    for (const auto& x : e.entity) d.first.emplace_back(x.entity_type, x.entity_name);
    for (const auto& v : e.values) d.second.emplace(v.key, v.value);
    out.insert(std::move(d));
  }
  return out;
}

void expect_same_describe(const exchange& e) {
  expect_same(e, {{"entries*", allowed::rule::may_be_absent, "hash order; compared as sets below"}});
  const auto k = e.as<msg::describe_client_quotas_response>(side::kafka);
  const auto h = e.as<msg::describe_client_quotas_response>(side::highwater);
  EXPECT_EQ(h.error_message, k.error_message) << e.what;
  EXPECT_EQ(entries_of(h), entries_of(k)) << e.what;
}

void expect_same_alter(const exchange& e) {
  expect_same(e);
  const auto k = e.as<msg::alter_client_quotas_response>(side::kafka);
  const auto h = e.as<msg::alter_client_quotas_response>(side::highwater);
  ASSERT_EQ(h.entries.size(), k.entries.size()) << e.what;
  for (size_t i = 0; i < k.entries.size(); ++i)
    EXPECT_EQ(h.entries[i].error_message, k.entries[i].error_message) << e.what << " entry " << i;
}

class QuotasDifferential : public DifferentialTest {
 protected:
  // Kafka's broker applies the controller's records asynchronously: wait
  // until both describe the entity with this many values.
  void wait_described(const std::vector<msg::describe_client_quotas_request::component_data>& exact,
                      size_t values) {
    const bool settled = wait_until(
        [&] {
          auto e = t().call("wait", k_describe, 1, describing(exact, true));
          for (side s : k_sides) {
            auto r = e.as<msg::describe_client_quotas_response>(s);
            size_t n = r.entries && !r.entries->empty() ? (*r.entries)[0].values.size() : 0;
            if (n != values) return false;
          }
          return true;
        },
        10s);
    EXPECT_TRUE(settled) << "the quotas did not settle at " << values << " values";
  }
};

TEST_F(QuotasDifferential, AlterThenDescribeByEveryFilter) {
  const std::string user = fresh_name("quser"), client = fresh_name("qclient");
  for (int16_t v : {0, 1}) {
    const double rate = 1024 * (v + 1);
    expect_same_alter(t().call("alter", k_alter, v,
                               altering({entry({{"user", user}}, {{"producer_byte_rate", rate}, {"consumer_byte_rate", 2048}}),
                                         entry({{"user", user}, {"client-id", client}},
                                               {{"request_percentage", 50.5}, {"controller_mutation_rate", 0.25}}),
                                         entry({{"client-id", client}, {"user", std::nullopt}},
                                               {{"producer_byte_rate", 4096}}),
                                         entry({{"client-id", client}}, {{"consumer_byte_rate", 1}}),
                                         entry({{"ip", "192.0.2.7"}}, {{"connection_creation_rate", 12}})})));
  }
  wait_described({component("user", k_exact, user)}, 2);
  wait_described({component("client-id", k_exact, client)}, 1);
  for (int16_t v : {0, 1}) {
    expect_same_describe(t().call("user exact", k_describe, v, describing({component("user", k_exact, user)}, false)));
    expect_same_describe(t().call("user exact strict", k_describe, v,
                                  describing({component("user", k_exact, user)}, true)));
    expect_same_describe(t().call("user and client", k_describe, v,
                                  describing({component("user", k_exact, user),
                                              component("client-id", k_exact, client)},
                                             true)));
    expect_same_describe(t().call("client of the default user", k_describe, v,
                                  describing({component("client-id", k_exact, client),
                                              component("user", k_default, std::nullopt)},
                                             false)));
    expect_same_describe(t().call("client exact", k_describe, v,
                                  describing({component("client-id", k_exact, client)}, false)));
    expect_same_describe(t().call("every ip", k_describe, v,
                                  describing({component("ip", k_specified, std::nullopt)}, true)));
    expect_same_describe(t().call("users with a client", k_describe, v,
                                  describing({component("user", k_specified, std::nullopt),
                                              component("client-id", k_exact, client)},
                                             true)));
    expect_same_describe(t().call("nobody", k_describe, v,
                                  describing({component("user", k_exact, fresh_name("nobody"))}, false)));
    expect_same_describe(t().call("everything", k_describe, v, describing({}, false)));
  }
  // Removals, an unchanged value, and a removal of a key not held.
  expect_same_alter(t().call("remove", k_alter, 1,
                             altering({entry({{"user", user}}, {{"producer_byte_rate", std::nullopt},
                                                                {"consumer_byte_rate", 2048},
                                                                {"request_percentage", std::nullopt}}),
                                       entry({{"client-id", client}}, {{"consumer_byte_rate", std::nullopt}})})));
  wait_described({component("user", k_exact, user)}, 1);
  wait_described({component("client-id", k_exact, client)}, 0);
  expect_same_describe(t().call("after removal", k_describe, 1, describing({component("user", k_exact, user)}, false)));
  expect_same_describe(t().call("client gone", k_describe, 1,
                                describing({component("client-id", k_exact, client)}, true)));
}

TEST_F(QuotasDifferential, RefusedAlterationsAnswerPerEntity) {
  const std::string user = fresh_name("quser"), client = fresh_name("qclient");
  const std::vector<msg::alter_client_quotas_request::entry_data> refused{
      entry({}, {{"producer_byte_rate", 1}}),
      entry({{"group", "g"}}, {{"producer_byte_rate", 1}}),
      entry({{"user", ""}}, {{"producer_byte_rate", 1}}),
      entry({{"client-id", ""}, {"user", user}}, {{"producer_byte_rate", 1}}),
      entry({{"ip", "192.0.2.8"}, {"user", user}}, {{"connection_creation_rate", 1}}),
      entry({{"ip", "not an address"}}, {{"connection_creation_rate", 1}}),
      entry({{"ip", "192.0.2.9"}}, {{"producer_byte_rate", 1}}),
      entry({{"user", user}}, {{"connection_creation_rate", 1}}),
      entry({{"user", user}}, {{"made_up_rate", 1}}),
      entry({{"user", user}}, {{"producer_byte_rate", 0}}),
      entry({{"user", user}}, {{"request_percentage", -5}}),
      entry({{"user", user}}, {{"consumer_byte_rate", 10.5}}),
      entry({{"user", user}}, {{"consumer_byte_rate", 1e19}}),
      entry({{"ip", std::nullopt}}, {{"connection_creation_rate", 3e9}}),
      entry({{"ip", std::nullopt}}, {{"connection_creation_rate", 2.5}}),
      entry({{"user", user}}, {{"producer_byte_rate", 5}, {"producer_byte_rate", 6}}),
      entry({{"user", user}, {"user", client}}, {{"producer_byte_rate", 7}}),
      // Two bad ops: the first in Kafka's HashMap order is the one named.
      entry({{"client-id", client}}, {{"request_percentage", -1}, {"producer_byte_rate", 1.5}, {"x_rate", 1}}),
  };
  for (int16_t v : {0, 1})
    for (const auto& e : refused) expect_same_alter(t().call("refused", k_alter, v, altering({e})));
  // All at once, with valid entries between them: each answered on its
  // own, in Kafka's order; the valid ones written.
  std::vector<msg::alter_client_quotas_request::entry_data> mixed = refused;
  mixed.push_back(entry({{"client-id", client}}, {{"producer_byte_rate", 100}}));
  mixed.push_back(entry({{"user", user}, {"client-id", std::nullopt}}, {{"request_percentage", 1}}));
  expect_same_alter(t().call("mixed", k_alter, 1, altering(mixed)));
  // An entity named twice: the first entry is written, the answer says it was ignored.
  expect_same_alter(t().call("duplicate entity", k_alter, 1,
                             altering({entry({{"user", user}}, {{"producer_byte_rate", 1000}}),
                                       entry({{"user", user}}, {{"consumer_byte_rate", 2000}})})));
  // The client's valid entry came after a refused one of the same entity:
  // ignored as a duplicate, so the client holds nothing.
  wait_described({component("user", k_exact, user)}, 1);
  expect_same_describe(t().call("after", k_describe, 1, describing({component("user", k_exact, user)}, false)));
  expect_same_describe(t().call("client", k_describe, 1, describing({component("client-id", k_exact, client)}, false)));
}

TEST_F(QuotasDifferential, ValidateOnlyWritesNothing) {
  const std::string user = fresh_name("quser");
  expect_same_alter(t().call("validate", k_alter, 1,
                             altering({entry({{"user", user}}, {{"producer_byte_rate", 1}}),
                                       entry({{"user", user}, {"client-id", "c"}}, {{"producer_byte_rate", 0.5}})},
                                      true)));
  // Then a real write of another user: once it shows, the first never will.
  const std::string other = fresh_name("quser");
  expect_same_alter(t().call("write", k_alter, 1, altering({entry({{"user", other}}, {{"producer_byte_rate", 1}})})));
  wait_described({component("user", k_exact, other)}, 1);
  expect_same_describe(t().call("not written", k_describe, 1, describing({component("user", k_exact, user)}, false)));
}

TEST_F(QuotasDifferential, InvalidFiltersAreRefused) {
  const std::vector<std::pair<std::string, msg::describe_client_quotas_request>> filters{
      {"empty type", describing({component("", k_specified, std::nullopt)}, false)},
      {"twice", describing({component("user", k_specified, std::nullopt), component("user", k_exact, "a")}, false)},
      {"unknown type", describing({component("group", k_exact, "g")}, false)},
      {"exact without a name", describing({component("user", k_exact, std::nullopt)}, false)},
      {"default with a name", describing({component("user", k_default, "a")}, false)},
      {"specified with a name", describing({component("client-id", k_specified, "a")}, false)},
      {"unknown match type", describing({component("user", 3, std::nullopt)}, false)},
      {"ip with user", describing({component("ip", k_specified, std::nullopt), component("user", k_default,
                                                                                          std::nullopt)},
                                  true)},
  };
  for (int16_t v : {0, 1})
    for (const auto& [what, f] : filters) expect_same_describe(t().call(what, k_describe, v, f));
}

TEST_F(QuotasDifferential, AUserWithoutRightsIsRefused) {
  twin bob("SASL_PLAINTEXT", "bob", "bob-secret");
  ASSERT_TRUE(bob.connected());
  for (int16_t v : {0, 1}) {
    auto described = bob.call("bob describes", k_describe, v, describing({}, false));
    expect_same_describe(described);
    auto altered = bob.call("bob alters", k_alter, v,
                            altering({entry({{"user", "bob"}}, {{"producer_byte_rate", 1}}),
                                      entry({{"user", "bob"}, {"client-id", std::nullopt}}, {{"x", 1}})}));
    expect_same_alter(altered);
  }
}

}  // namespace
}  // namespace hw::testing::differential

namespace hw::testing::differential {
namespace {

// More than 10,000 records in one alteration: Kafka's controller refuses
// the whole operation (its bound on one user operation's records).
TEST_F(QuotasDifferential, AnAlterationOfMoreThanTenThousandRecordsIsRefusedWhole) {
  const std::string stem = fresh_name("bulk");
  std::vector<msg::alter_client_quotas_request::entry_data> entries;
  for (int i = 0; i < 10'001; ++i)
    entries.push_back(entry({{"user", stem + "-" + std::to_string(i)}}, {{"producer_byte_rate", 1024}}));
  auto e = t().call("too many", k_alter, 1, altering(std::move(entries)));
  expect_same_alter(e);
  for (side s : k_sides)
    for (const auto& answer : e.as<msg::alter_client_quotas_response>(s).entries)
      ASSERT_EQ(answer.error_code, 44) << side_name(s) << " POLICY_VIOLATION for every entry";
  expect_same_describe(t().call("none written", k_describe, 1,
                                describing({component("user", k_exact, stem + "-0")}, true)));
}

}  // namespace
}  // namespace hw::testing::differential
