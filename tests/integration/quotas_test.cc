// Client quotas against the real binary: what AlterClientQuotas sets and
// removes is in the metadata log, so a restart (clean or a crash) replays
// it and DescribeClientQuotas answers the same afterwards.

#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "broker_process.h"
#include "raw_requests.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/describe_client_quotas.h"

namespace hw::testing {
namespace {

constexpr int16_t k_describe = 48, k_alter = 49;

// (entity type, name or "<default>") of an entity, one per type.
using entity_key = std::map<std::string, std::string>;
using quota_table = std::map<entity_key, std::map<std::string, double>>;

msg::alter_client_quotas_request::entry_data entry(std::optional<std::string> user,
                                                    std::optional<std::string> client,
                                                    const std::string& key, std::optional<double> value) {
  msg::alter_client_quotas_request::entry_data e;
  if (user) {
    auto& u = e.entity.emplace_back();
    u.entity_type = "user";
    u.entity_name = *user == "<default>" ? std::nullopt : std::optional<std::string>(*user);
  }
  if (client) {
    auto& c = e.entity.emplace_back();
    c.entity_type = "client-id";
    c.entity_name = *client == "<default>" ? std::nullopt : std::optional<std::string>(*client);
  }
  auto& op = e.ops.emplace_back();
  op.key = key;
  op.remove = !value.has_value();
  op.value = value.value_or(0);
  return e;
}

// Every quota the broker describes (no components, not strict: all).
std::optional<quota_table> describe_all(raw_client& c) {
  msg::describe_client_quotas_request r;
  r.strict = false;
  auto described = c.call<msg::describe_client_quotas_response>(k_describe, 1, r);
  if (!described || described->error_code != 0 || !described->entries) return std::nullopt;
  quota_table out;
  for (const auto& e : *described->entries) {
    entity_key key;
    for (const auto& who : e.entity) key[who.entity_type] = who.entity_name.value_or("<default>");
    for (const auto& v : e.values) out[key][v.key] = v.value;
  }
  return out;
}

void restart_keeps_quotas(int sig) {
  broker_process b;
  ASSERT_TRUE(b.start()) << b.log();
  {
    raw_client c(b.port());
    msg::alter_client_quotas_request set;
    set.entries = {entry("alice", std::nullopt, "producer_byte_rate", 1048576),
                   entry("alice", "app-1", "consumer_byte_rate", 2097152),
                   entry("<default>", std::nullopt, "request_percentage", 50),
                   entry(std::nullopt, "<default>", "controller_mutation_rate", 10)};
    auto done = c.call<msg::alter_client_quotas_response>(k_alter, 1, set);
    ASSERT_TRUE(done);
    for (const auto& e : done->entries) EXPECT_EQ(e.error_code, 0) << e.error_message.value_or("");
    // One removed again: gone from the log's last word too.
    msg::alter_client_quotas_request remove;
    remove.entries = {entry(std::nullopt, "<default>", "controller_mutation_rate", std::nullopt)};
    auto removed = c.call<msg::alter_client_quotas_response>(k_alter, 1, remove);
    ASSERT_TRUE(removed);
    ASSERT_EQ(removed->entries.size(), 1u);
    EXPECT_EQ(removed->entries[0].error_code, 0);
  }
  const quota_table expected = {
      {{{"user", "alice"}}, {{"producer_byte_rate", 1048576}}},
      {{{"user", "alice"}, {"client-id", "app-1"}}, {{"consumer_byte_rate", 2097152}}},
      {{{"user", "<default>"}}, {{"request_percentage", 50}}},
  };
  {
    raw_client c(b.port());
    EXPECT_EQ(describe_all(c), expected);
  }
  ASSERT_TRUE(b.stop(sig, 30s).has_value()) << b.log();
  ASSERT_TRUE(b.start()) << b.log();
  raw_client again(b.port());
  EXPECT_EQ(describe_all(again), expected) << b.log();
}

TEST(QuotasIT, QuotasSurviveACleanRestart) { restart_keeps_quotas(SIGTERM); }
TEST(QuotasIT, QuotasSurviveACrash) { restart_keeps_quotas(SIGKILL); }

}  // namespace
}  // namespace hw::testing
