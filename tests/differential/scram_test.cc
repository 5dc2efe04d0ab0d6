// DescribeUserScramCredentials and AlterUserScramCredentials (KIP-554): the
// same upsertions, deletions and refusals to Kafka 4.3.1 and Highwater
// (every refusal of ScramControlManager and of the describe), answers
// compared user by user. Kafka lists results in its HashMaps' order (and a
// user's mechanisms in an enum-keyed HashMap's, which changes between
// JVMs), so requests with several users compare as sets; a single user's
// answer compares field by field.

#include <algorithm>
#include <tuple>

#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/sasl/scram.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;
using alter_request = msg::alter_user_scram_credentials_request;
using alter_response = msg::alter_user_scram_credentials_response;
using describe_request = msg::describe_user_scram_credentials_request;
using describe_response = msg::describe_user_scram_credentials_response;

constexpr int8_t k_sha256 = 1, k_sha512 = 2;

alter_request::scram_credential_upsertion upsert(const std::string& user, int8_t mechanism, int32_t iterations) {
  alter_request::scram_credential_upsertion u;
  u.name = user;
  u.mechanism = mechanism;
  u.iterations = iterations;
  u.salt = {'s', 'a', 'l', 't'};
  u.salted_password = protocol::scram::salted_password(
      protocol::scram_mechanism_from_type(mechanism).value_or(protocol::scram_mechanism::sha256), "secret", u.salt,
      4096);
  return u;
}

alter_request::scram_credential_deletion del(const std::string& user, int8_t mechanism) {
  return {user, mechanism, {}};
}

describe_request describing(std::optional<std::vector<std::string>> users) {
  describe_request r;
  r.users.reset();
  if (users) {
    r.users.emplace();
    for (const auto& u : *users) r.users->push_back({u, {}});
  }
  return r;
}

using alter_row = std::tuple<std::string, int16_t, std::optional<std::string>>;
std::vector<alter_row> rows(const alter_response& r) {
  std::vector<alter_row> out;
  for (const auto& x : r.results) out.emplace_back(x.user, x.error_code, x.error_message);
  std::sort(out.begin(), out.end());
  return out;
}

using describe_row = std::tuple<std::string, int16_t, std::optional<std::string>, std::vector<std::pair<int8_t, int32_t>>>;
// Only the users a test made (Kafka's and Highwater's other users differ).
std::vector<describe_row> rows(const describe_response& r, const std::string& prefix) {
  std::vector<describe_row> out;
  for (const auto& x : r.results) {
    if (!x.user.starts_with(prefix)) continue;
    std::vector<std::pair<int8_t, int32_t>> infos;
    for (const auto& c : x.credential_infos) infos.emplace_back(c.mechanism, c.iterations);
    std::sort(infos.begin(), infos.end());
    out.emplace_back(x.user, x.error_code, x.error_message, infos);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expect_same_alter(const exchange& e) {
  ASSERT_FALSE(e.of(side::kafka).closed || e.of(side::highwater).closed) << e.what;
  EXPECT_EQ(rows(e.as<alter_response>(side::highwater)), rows(e.as<alter_response>(side::kafka))) << e.what;
}

void expect_same_describe(const exchange& e, const std::string& prefix) {
  ASSERT_FALSE(e.of(side::kafka).closed || e.of(side::highwater).closed) << e.what;
  const auto k = e.as<describe_response>(side::kafka), h = e.as<describe_response>(side::highwater);
  EXPECT_EQ(h.error_code, k.error_code) << e.what;
  EXPECT_EQ(h.error_message, k.error_message) << e.what;
  EXPECT_EQ(rows(h, prefix), rows(k, prefix)) << e.what;
}

TEST_F(DifferentialTest, ScramCredentialsSetDescribedAndDeleted) {
  const std::string p = fresh_name("scram");
  const std::string alice = p + "-alice", bob = p + "-bob";
  alter_request set;
  set.upsertions = {upsert(alice, k_sha256, 8192)};
  expect_same(t().call("AlterUserScramCredentials one upsertion", 51, 0, set));
  set.upsertions = {upsert(alice, k_sha512, 4096), upsert(bob, k_sha512, 16384)};
  expect_same_alter(t().call("AlterUserScramCredentials two users", 51, 0, set));
  expect_same_describe(t().call("DescribeUserScramCredentials all (null)", 50, 0, describing(std::nullopt)), p);
  expect_same_describe(t().call("DescribeUserScramCredentials all (empty)", 50, 0, describing(std::vector<std::string>{})), p);
  expect_same(t().call("DescribeUserScramCredentials one", 50, 0, describing(std::vector<std::string>{bob})));
  expect_same_describe(t().call("DescribeUserScramCredentials unknown and twice", 50, 0,
                                describing(std::vector<std::string>{alice, p + "-nobody", bob, bob})),
                       p);
  alter_request gone;
  gone.deletions = {del(alice, k_sha512)};
  expect_same(t().call("AlterUserScramCredentials delete", 51, 0, gone));
  expect_same(t().call("AlterUserScramCredentials delete again", 51, 0, gone));
  expect_same_describe(
      t().call("DescribeUserScramCredentials after delete", 50, 0, describing(std::vector<std::string>{alice})), p);
}

TEST_F(DifferentialTest, ScramRefusals) {
  const std::string p = fresh_name("scram-no");
  alter_request r;
  r.upsertions = {upsert("", k_sha256, 4096),         upsert(p + "-mech0", 0, 4096),
                  upsert(p + "-mech3", 3, 4096),      upsert(p + "-few", k_sha256, 4095),
                  upsert(p + "-many", k_sha512, 16385), upsert(p + "-ok", k_sha256, 4096)};
  r.deletions = {del(p + "-missing", k_sha256), del(p + "-delmech", 9)};
  expect_same_alter(t().call("AlterUserScramCredentials refusals", 51, 0, r));
  alter_request twice;
  twice.deletions = {del(p + "-ok", k_sha256), del(p + "-dd", k_sha256), del(p + "-dd", k_sha512)};
  twice.upsertions = {upsert(p + "-ok", k_sha512, 4096), upsert(p + "-uu", k_sha256, 4096),
                      upsert(p + "-uu", k_sha512, 4096), upsert(p + "-uu", k_sha256, 8192)};
  expect_same_alter(t().call("AlterUserScramCredentials duplicates", 51, 0, twice));
  expect_same(t().call("AlterUserScramCredentials nothing", 51, 0, alter_request{}));
  expect_same_describe(
      t().call("DescribeUserScramCredentials after refusals", 50, 0, describing(std::vector<std::string>{p + "-ok", p + "-uu"})),
      p);
}

}  // namespace
}  // namespace hw::testing::differential
