// kafka-configs.sh and SCRAM credentials (KIP-554): alterUserScramCredentials
// and describeUserScramCredentials as Kafka's admin client makes them for
// ConfigCommand. The password is salted here (the client's PBKDF2) and only
// the salt and salted password travel; neither is ever printed.

#include <set>

#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "tools/commands/configs.h"

namespace hw::tools::configs {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_not_controller = 41;
constexpr int16_t k_resource_not_found = 91;
constexpr int16_t k_unacceptable_credential = 93;

failure scram_timeout(const std::string& call) {
  return execution("org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: " +
                   call);
}

// What Java's getSimpleName gives for the exception an error code raises.
std::string simple_name(int16_t code) {
  std::string full = java_exception_class(code);
  return full.substr(full.rfind('.') + 1);
}

}  // namespace

std::optional<failure> config_admin::alter_scram(const std::string& user,
                                                 const std::vector<protocol::scram_mechanism>& deletions,
                                                 const std::vector<scram_upsert>& upsertions) {
  // The admin client's own check, before anything is sent.
  for (const auto& u : upsertions)
    if (u.password.empty())
      return execution(java_exception_class(k_unacceptable_credential) + ": Password must not be empty");
  std::optional<failure> unconnected;
  if (!client("alterUserScramCredentials", &unconnected)) return unconnected;
  msg::alter_user_scram_credentials_request req;
  for (auto m : deletions) req.deletions.push_back({user, protocol::scram_mechanism_type(m), {}});
  for (const auto& u : upsertions) {
    auto& x = req.upsertions.emplace_back();
    x.name = user;
    x.mechanism = protocol::scram_mechanism_type(u.mechanism);
    x.iterations = u.iterations;
    x.salt = protocol::scram::random_salt();
    x.salted_password = protocol::scram::salted_password(u.mechanism, u.password, x.salt, u.iterations);
  }
  msg::alter_user_scram_credentials_response resp;
  for (;;) {
    std::string error;
    if (admin_->call(any_or_controller(), req, &resp, &error)) {
      bool not_controller = false;
      for (const auto& r : resp.results) not_controller |= r.error_code == k_not_controller;
      if (!not_controller) break;
    } else if (admin_client::unsupported(error)) {
      return execution("org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support "
                       "ALTER_USER_SCRAM_CREDENTIALS");
    }
    if (!admin_->back_off()) return scram_timeout("alterUserScramCredentials");
  }
  for (const auto& r : resp.results)
    if (r.user == user && r.error_code != 0) return execution(kafka_exception(r.error_code, r.error_message));
  for (const auto& r : resp.results)
    if (r.user == user) return std::nullopt;
  return execution("org.apache.kafka.common.errors.UnknownServerException: The broker response did not contain a "
                   "result for user " + user);
}

std::optional<failure> config_admin::describe_scram(const std::vector<std::string>& users,
                                                    std::vector<std::string>* lines) {
  std::optional<failure> unconnected;
  if (!client("describeUserScramCredentials", &unconnected)) return unconnected;
  msg::describe_user_scram_credentials_request req;
  req.users.emplace();
  for (const auto& u : users) req.users->push_back({u, {}});
  msg::describe_user_scram_credentials_response resp;
  std::string error;
  while (!admin_->call(admin_client::any_node, req, &resp, &error)) {
    if (admin_client::unsupported(error))
      return execution("org.apache.kafka.common.errors.UnsupportedVersionException: The node does not support "
                       "DESCRIBE_USER_SCRAM_CREDENTIALS");
    if (!admin_->back_off()) return scram_timeout("describeUserScramCredentials");
  }
  if (resp.error_code != 0) return execution(kafka_exception(resp.error_code, resp.error_message));
  lines->clear();
  for (const auto& r : resp.results) {
    if (r.error_code == k_resource_not_found) continue;  // asked for, but has none: not listed
    if (r.error_code != 0) {
      lines->push_back("Error retrieving SCRAM credential configs for user-principal '" + r.user +
                       "': " + simple_name(r.error_code) + ": " + error_message(r.error_code, r.error_message));
      continue;
    }
    std::string text;
    for (const auto& info : r.credential_infos) {
      if (!text.empty()) text += ", ";
      auto m = protocol::scram_mechanism_from_type(info.mechanism);
      text += (m ? protocol::scram_mechanism_name(*m) : std::string("UNKNOWN")) +
              "=iterations=" + std::to_string(info.iterations);
    }
    lines->push_back("SCRAM credential configs for user-principal '" + r.user + "' are " + text);
  }
  return std::nullopt;
}

}  // namespace hw::tools::configs
