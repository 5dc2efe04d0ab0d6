#include "controller/scram_control.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include "protocol/sasl/scram.h"

namespace hw::controller {

namespace {

using result = msg::alter_user_scram_credentials_response;
using deletion = msg::alter_user_scram_credentials_request::scram_credential_deletion;
using upsertion = msg::alter_user_scram_credentials_request::scram_credential_upsertion;

const std::string twice = "A user credential cannot be altered twice in the same request";

api_error check_name_and_mechanism(const std::string& name, int8_t mechanism) {
  if (name.empty()) return {error_code::unacceptable_credential, "Username must not be empty"};
  if (!protocol::scram_mechanism_from_type(mechanism))
    return {error_code::unsupported_sasl_mechanism, "Unknown SCRAM mechanism"};
  return {};
}

api_error check_deletion(const metadata_image& image, const deletion& d) {
  if (auto e = check_name_and_mechanism(d.name, d.mechanism); !e.ok()) return e;
  if (!image.scram_credential(*protocol::scram_mechanism_from_type(d.mechanism), d.name))
    return {error_code::resource_not_found, "Attempt to delete a user credential that does not exist"};
  return {};
}

api_error check_upsertion(const upsertion& u) {
  if (auto e = check_name_and_mechanism(u.name, u.mechanism); !e.ok()) return e;
  // Both mechanisms' minimum is 4096 (Kafka's ScramMechanism.minIterations).
  if (u.iterations < protocol::scram_min_iterations) return {error_code::unacceptable_credential, "Too few iterations"};
  if (u.iterations > scram_control::max_iterations) return {error_code::unacceptable_credential, "Too many iterations"};
  return {};
}

// The users a request changes, each at most once, and those it refuses.
struct sorted_changes {
  std::map<std::string, const deletion*> deletions;
  std::map<std::string, const upsertion*> upsertions;
  std::map<std::string, api_error> refused;

  // A user seen again: refused as a duplicate, whatever it was before.
  bool seen_again(const std::string& name) {
    if (deletions.erase(name) + upsertions.erase(name) == 0) return false;
    refused[name] = {error_code::duplicate_resource, twice};
    return true;
  }
};

void add_result(result& out, const std::string& user, const api_error& error) {
  auto& r = out.results.emplace_back();
  r.user = user;
  r.error_code = static_cast<int16_t>(error.code);
  // null on success, as Kafka sets it (the field's default is "").
  r.error_message = error.ok() ? std::nullopt : std::optional<std::string>(error.message);
}

}  // namespace

controller_result<result> scram_control::alter_credentials(const metadata_image& image,
                                                           const msg::alter_user_scram_credentials_request& request) {
  const bool supported = image.version().scram_supported();
  const api_error too_old{error_code::unsupported_version, "The current metadata.version does not support SCRAM"};
  sorted_changes changes;
  // A refused user stays refused: later mentions of it add nothing.
  for (const auto& d : request.deletions) {
    if (changes.refused.count(d.name) || changes.seen_again(d.name)) continue;
    api_error e = supported ? check_deletion(image, d) : too_old;
    if (e.ok()) changes.deletions[d.name] = &d;
    else changes.refused[d.name] = e;
  }
  for (const auto& u : request.upsertions) {
    if (changes.refused.count(u.name) || changes.seen_again(u.name)) continue;
    api_error e = supported ? check_upsertion(u) : too_old;
    if (e.ok()) changes.upsertions[u.name] = &u;
    else changes.refused[u.name] = e;
  }

  controller_result<result> out;
  for (const auto& [name, d] : changes.deletions) {
    msg::remove_user_scram_credential_record r;
    r.name = name;
    r.mechanism = d->mechanism;
    out.records.push_back(std::move(r));
    add_result(out.response, name, {});
  }
  for (const auto& [name, u] : changes.upsertions) {
    const auto mechanism = *protocol::scram_mechanism_from_type(u->mechanism);
    const protocol::scram_credential c =
        protocol::scram::credential_from_salted(mechanism, u->salted_password, u->salt, u->iterations);
    msg::user_scram_credential_record r;
    r.name = name;
    r.mechanism = u->mechanism;
    r.salt = c.salt;
    r.stored_key = c.stored_key;
    r.server_key = c.server_key;
    r.iterations = c.iterations;
    out.records.push_back(std::move(r));
    add_result(out.response, name, {});
  }
  for (const auto& [name, e] : changes.refused) add_result(out.response, name, e);
  return out;
}

}  // namespace hw::controller
