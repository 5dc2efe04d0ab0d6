// DescribeUserScramCredentials from an image's credentials, and the answer
// to an AlterUserScramCredentials no controller took, with Kafka's codes
// and texts.
#include <gtest/gtest.h>

#include "broker/admin/scram_credentials.h"

namespace hw::broker {
namespace {

namespace msg = protocol::msg;
using protocol::error_code;
using protocol::scram_mechanism;

protocol::scram_credential_table table() {
  protocol::scram_credential_table t;
  t[scram_mechanism::sha256]["alice"] = {{1}, {2}, {3}, 8192};
  t[scram_mechanism::sha512]["alice"] = {{1}, {2}, {3}, 4096};
  t[scram_mechanism::sha512]["bob"] = {{1}, {2}, {3}, 10000};
  return t;
}

msg::describe_user_scram_credentials_request asking(std::optional<std::vector<std::string>> names) {
  msg::describe_user_scram_credentials_request r;
  if (names) {
    r.users.emplace();
    for (auto& n : *names) r.users->push_back({n, {}});
  } else {
    r.users = std::nullopt;
  }
  return r;
}

// "user code message mechanism:iterations ..." per result.
std::vector<std::string> lines(const msg::describe_user_scram_credentials_response& r) {
  std::vector<std::string> out;
  for (const auto& x : r.results) {
    std::string line = x.user + " " + std::to_string(x.error_code) + " " + x.error_message.value_or("null");
    for (const auto& c : x.credential_infos)
      line += " " + std::to_string(c.mechanism) + ":" + std::to_string(c.iterations);
    out.push_back(line);
  }
  return out;
}

TEST(scram_describe, no_names_or_none_at_all_lists_every_user) {
  const std::vector<std::string> all{"alice 0  1:8192 2:4096", "bob 0  2:10000"};
  EXPECT_EQ(lines(describe_scram_credentials(table(), asking(std::nullopt))), all);
  EXPECT_EQ(lines(describe_scram_credentials(table(), asking(std::vector<std::string>{}))), all);
  EXPECT_TRUE(describe_scram_credentials({}, asking(std::nullopt)).results.empty());
}

TEST(scram_describe, named_users_unknown_ones_and_duplicates) {
  auto r = describe_scram_credentials(table(), asking(std::vector<std::string>{"bob", "carol", "alice", "bob", "bob"}));
  EXPECT_EQ(lines(r), (std::vector<std::string>{
                          "alice 0  1:8192 2:4096",
                          "bob 92 Cannot describe SCRAM credentials for the same user twice in a single request: bob",
                          "carol 91 Attempt to describe a user credential that does not exist: carol"}));
  EXPECT_EQ(r.error_code, 0);
}

TEST(scram_describe, an_alter_no_controller_took_answers_each_user_once_by_name) {
  msg::alter_user_scram_credentials_request r;
  r.deletions.push_back({"zed", 1, {}});
  r.upsertions.push_back({"amy", 1, 4096, {1}, {2}, {}});
  r.upsertions.push_back({"zed", 2, 4096, {1}, {2}, {}});
  auto out = alter_scram_credentials_refused(r, error_code::request_timed_out);
  ASSERT_EQ(out.results.size(), 2u);
  EXPECT_EQ(out.results[0].user, "amy");
  EXPECT_EQ(out.results[1].user, "zed");
  for (const auto& x : out.results) {
    EXPECT_EQ(x.error_code, static_cast<int16_t>(error_code::request_timed_out));
    EXPECT_EQ(x.error_message, std::nullopt);
  }
}

}  // namespace
}  // namespace hw::broker
