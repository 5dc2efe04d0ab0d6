#include "broker/admin/scram_credentials.h"

#include <map>
#include <set>
#include <string>

namespace hw::broker {

namespace msg = protocol::msg;
using protocol::error_code;

msg::describe_user_scram_credentials_response describe_scram_credentials(
    const protocol::scram_credential_table& credentials, const msg::describe_user_scram_credentials_request& request) {
  // Each user once, and whether it was asked for more than once.
  std::map<std::string, bool> users;
  if (!request.users || request.users->empty()) {
    for (const auto& [mechanism, by_user] : credentials)
      for (const auto& [user, c] : by_user) users.emplace(user, false);
  } else {
    for (const auto& u : *request.users) {
      auto [it, fresh] = users.emplace(u.name, false);
      if (!fresh) it->second = true;
    }
  }
  msg::describe_user_scram_credentials_response out;
  for (const auto& [user, twice] : users) {
    auto& r = out.results.emplace_back();
    r.user = user;
    if (twice) {
      r.error_code = static_cast<int16_t>(error_code::duplicate_resource);
      r.error_message = "Cannot describe SCRAM credentials for the same user twice in a single request: " + user;
      continue;
    }
    for (const auto& [mechanism, by_user] : credentials) {
      auto it = by_user.find(user);
      if (it == by_user.end()) continue;
      auto& info = r.credential_infos.emplace_back();
      info.mechanism = protocol::scram_mechanism_type(mechanism);
      info.iterations = it->second.iterations;
    }
    if (r.credential_infos.empty()) {
      r.error_code = static_cast<int16_t>(error_code::resource_not_found);
      r.error_message = "Attempt to describe a user credential that does not exist: " + user;
    }
  }
  return out;
}

msg::alter_user_scram_credentials_response alter_scram_credentials_refused(
    const msg::alter_user_scram_credentials_request& request, error_code code,
    const std::optional<std::string>& message) {
  std::set<std::string> users;
  for (const auto& d : request.deletions) users.insert(d.name);
  for (const auto& u : request.upsertions) users.insert(u.name);
  msg::alter_user_scram_credentials_response out;
  for (const auto& user : users) {
    auto& r = out.results.emplace_back();
    r.user = user;
    r.error_code = static_cast<int16_t>(code);
    r.error_message = message;
  }
  return out;
}

}  // namespace hw::broker
