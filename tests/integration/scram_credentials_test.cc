// SCRAM credentials through the real binary: AlterUserScramCredentials
// sets and deletes them (through the controller, in the metadata log),
// DescribeUserScramCredentials lists them, and a restart keeps them, from a
// metadata snapshot (taken every few records here) and the log after it.

#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>

#include "broker_process.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/sasl/scram.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

namespace msg = protocol::msg;
using alter_request = msg::alter_user_scram_credentials_request;
using alter_response = msg::alter_user_scram_credentials_response;
using describe_response = msg::describe_user_scram_credentials_response;

alter_request::scram_credential_upsertion upsert(const std::string& user, protocol::scram_mechanism m,
                                                 int32_t iterations) {
  alter_request::scram_credential_upsertion u;
  u.name = user;
  u.mechanism = protocol::scram_mechanism_type(m);
  u.iterations = iterations;
  u.salt = protocol::scram::random_salt();
  u.salted_password = protocol::scram::salted_password(m, user + "-secret", u.salt, iterations);
  return u;
}

// "user code [mechanism:iterations ...]" per result.
std::vector<std::string> described(raw_client& c, std::optional<std::vector<std::string>> users) {
  msg::describe_user_scram_credentials_request req;
  req.users.reset();
  if (users) {
    req.users.emplace();
    for (const auto& u : *users) req.users->push_back({u, {}});
  }
  auto resp = c.call<describe_response>(50, 0, req);
  if (!resp) return {"no answer"};
  std::vector<std::string> out;
  for (const auto& r : resp->results) {
    std::string line = r.user + " " + std::to_string(r.error_code);
    for (const auto& info : r.credential_infos)
      line += " " + std::to_string(info.mechanism) + ":" + std::to_string(info.iterations);
    out.push_back(line);
  }
  return out;
}

bool has_snapshot(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
    if (e.path().extension() == ".checkpoint" && e.path().parent_path().filename() == "__cluster_metadata-0")
      return true;
  return false;
}

TEST(ScramCredentialsIT, SetDescribedKeptAcrossRestartAndDeleted) {
  broker_process broker;
  const std::vector<std::string> args = {"--override", "metadata.log.max.record.bytes.between.snapshots=200"};
  ASSERT_TRUE(broker.start(args)) << broker.log();
  {
    raw_client c(broker.port());
    alter_request set;
    set.upsertions = {upsert("alice", protocol::scram_mechanism::sha256, 8192),
                      upsert("bob", protocol::scram_mechanism::sha512, 4096)};
    auto resp = c.call<alter_response>(51, 0, set);
    ASSERT_TRUE(resp);
    ASSERT_EQ(resp->results.size(), 2u);
    for (const auto& r : resp->results) EXPECT_EQ(r.error_code, 0) << r.user << ": " << r.error_message.value_or("");
    set.upsertions = {upsert("alice", protocol::scram_mechanism::sha512, 10000)};
    ASSERT_TRUE(c.call<alter_response>(51, 0, set));
    // The answer came after this broker applied the records.
    EXPECT_EQ(described(c, std::nullopt), (std::vector<std::string>{"alice 0 1:8192 2:10000", "bob 0 2:4096"}));
    EXPECT_EQ(described(c, std::vector<std::string>{"carol"}), (std::vector<std::string>{"carol 91"}));
  }
  ASSERT_TRUE(wait_until([&] { return has_snapshot(broker.dir()); }, 20s)) << broker.log();
  ASSERT_EQ(broker.stop(SIGTERM), 0) << broker.log();
  ASSERT_TRUE(broker.start(args)) << broker.log();
  raw_client c(broker.port());
  EXPECT_EQ(described(c, std::nullopt), (std::vector<std::string>{"alice 0 1:8192 2:10000", "bob 0 2:4096"}));
  alter_request gone;
  gone.deletions = {{"alice", protocol::scram_mechanism_type(protocol::scram_mechanism::sha256), {}}};
  auto resp = c.call<alter_response>(51, 0, gone);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->results.size(), 1u);
  EXPECT_EQ(resp->results[0].error_code, 0);
  EXPECT_EQ(described(c, std::vector<std::string>{"alice"}), (std::vector<std::string>{"alice 0 2:10000"}));
  // Deleting it again: RESOURCE_NOT_FOUND, with Kafka's text.
  resp = c.call<alter_response>(51, 0, gone);
  ASSERT_TRUE(resp);
  ASSERT_EQ(resp->results.size(), 1u);
  EXPECT_EQ(resp->results[0].error_code, 91);
  EXPECT_EQ(resp->results[0].error_message, "Attempt to delete a user credential that does not exist");
}

}  // namespace
}  // namespace hw::testing
