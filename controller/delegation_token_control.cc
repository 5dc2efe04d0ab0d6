#include "controller/delegation_token_control.h"

#include <openssl/rand.h>

#include <algorithm>
#include <limits>

#include "controller/metadata/image_records.h"
#include "protocol/sasl/scram.h"

namespace hw::controller {
namespace {

constexpr size_t k_max_removals = 1000;

int64_t sum(int64_t now, int64_t duration) {
  return now > std::numeric_limits<int64_t>::max() - duration ? std::numeric_limits<int64_t>::max() : now + duration;
}

struct openssl_random {
  uint8_t operator()() const {
    uint8_t b = 0;
    RAND_bytes(&b, 1);
    return b;
  }
};

bool owner_or_renewer(const delegation_token& t, const std::string& principal) {
  return t.owner == principal || std::find(t.renewers.begin(), t.renewers.end(), principal) != t.renewers.end();
}

}  // namespace

std::vector<uint8_t> delegation_token_hmac(const std::string& secret_key, const std::string& token_id) {
  const auto key = std::span(reinterpret_cast<const uint8_t*>(secret_key.data()), secret_key.size());
  return protocol::scram::hmac(protocol::scram_mechanism::sha512, key, token_id);
}

const delegation_token* delegation_token_control::find(const metadata_image& image,
                                                       const std::vector<uint8_t>& hmac) const {
  const delegation_token* found = nullptr;
  for (const auto& [id, token] : image.delegation_tokens)
    if (protocol::scram::equal_constant_time(delegation_token_hmac(*settings_.secret_key, id), hmac)) found = &token;
  return found;
}

std::variant<const delegation_token*, error_code> delegation_token_control::token_to_change(
    const metadata_image& image, const std::vector<uint8_t>& hmac) const {
  if (!enabled()) return error_code::delegation_token_auth_disabled;
  if (!image.version().delegation_token_supported()) return error_code::unsupported_version;
  const delegation_token* token = find(image, hmac);
  if (!token) return error_code::delegation_token_not_found;
  return token;
}

controller_result<msg::create_delegation_token_response> delegation_token_control::create(
    const metadata_image& image, const msg::create_delegation_token_request& request,
    const std::string& requester_type, const std::string& requester_name, int64_t now) const {
  controller_result<msg::create_delegation_token_response> out;
  auto& r = out.response;
  std::string owner_type = requester_type, owner_name = requester_name;
  if (request.owner_principal_name && !request.owner_principal_name->empty()) {
    owner_type = request.owner_principal_type.value_or("");
    owner_name = *request.owner_principal_name;
  }
  r.principal_type = owner_type;
  r.principal_name = owner_name;
  r.token_requester_principal_type = requester_type;
  r.token_requester_principal_name = requester_name;
  auto refuse = [&](error_code code) {
    r.error_code = static_cast<int16_t>(code);
    return out;
  };
  if (!enabled()) return refuse(error_code::delegation_token_auth_disabled);
  if (!image.version().delegation_token_supported()) return refuse(error_code::unsupported_version);
  int64_t max_life = settings_.max_lifetime_ms;
  if (request.max_lifetime_ms > 0) max_life = std::min(max_life, request.max_lifetime_ms);
  const int64_t max_ts = sum(now, max_life);
  const int64_t expiry_ts = std::min(max_ts, sum(now, settings_.expiry_time_ms));
  delegation_token token;
  openssl_random rng;
  token.token_id = protocol::uuid::random(rng).to_string();
  for (const auto& renewer : request.renewers) {
    if (renewer.principal_type != "User") return refuse(error_code::invalid_principal_type);
    token.renewers.push_back(renewer.principal_type + ":" + renewer.principal_name);
  }
  token.owner = owner_type + ":" + owner_name;
  token.requester = requester_type + ":" + requester_name;
  token.issue_ms = now;
  token.max_ms = max_ts;
  token.expiry_ms = expiry_ts;
  r.error_code = 0;
  r.issue_timestamp_ms = now;
  r.expiry_timestamp_ms = expiry_ts;
  r.max_timestamp_ms = max_ts;
  r.token_id = token.token_id;
  r.hmac = delegation_token_hmac(*settings_.secret_key, token.token_id);
  out.records.emplace_back(delegation_token_record_of(token, token.expiry_ms));
  return out;
}

controller_result<msg::renew_delegation_token_response> delegation_token_control::renew(
    const metadata_image& image, const msg::renew_delegation_token_request& request, const std::string& requester,
    int64_t now) const {
  controller_result<msg::renew_delegation_token_response> out;
  auto refuse = [&](error_code code) {
    out.response.error_code = static_cast<int16_t>(code);
    return out;
  };
  auto found = token_to_change(image, request.hmac);
  if (auto* code = std::get_if<error_code>(&found)) return refuse(*code);
  const delegation_token* token = std::get<const delegation_token*>(found);
  if (token->max_ms < now || token->expiry_ms < now) return refuse(error_code::delegation_token_expired);
  if (!owner_or_renewer(*token, requester)) return refuse(error_code::delegation_token_owner_mismatch);
  int64_t renew_life = settings_.expiry_time_ms;
  if (request.renew_period_ms > 0) renew_life = std::min(renew_life, request.renew_period_ms);
  const int64_t expiry = std::min(token->max_ms, now + renew_life);
  out.response.error_code = 0;
  out.response.expiry_timestamp_ms = expiry;
  out.records.emplace_back(delegation_token_record_of(*token, expiry));
  return out;
}

controller_result<msg::expire_delegation_token_response> delegation_token_control::expire(
    const metadata_image& image, const msg::expire_delegation_token_request& request, const std::string& requester,
    int64_t now) const {
  controller_result<msg::expire_delegation_token_response> out;
  auto refuse = [&](error_code code) {
    out.response.error_code = static_cast<int16_t>(code);
    return out;
  };
  auto found = token_to_change(image, request.hmac);
  if (auto* code = std::get_if<error_code>(&found)) return refuse(*code);
  const delegation_token* token = std::get<const delegation_token*>(found);
  if (!owner_or_renewer(*token, requester)) return refuse(error_code::delegation_token_owner_mismatch);
  if (request.expiry_time_period_ms < 0) {  // at once
    out.response.error_code = 0;
    out.response.expiry_timestamp_ms = now;
    msg::remove_delegation_token_record record;
    record.token_id = token->token_id;
    out.records.emplace_back(std::move(record));
    return out;
  }
  if (token->max_ms < now || token->expiry_ms < now) return refuse(error_code::delegation_token_expired);
  const int64_t expiry = std::min(token->max_ms, sum(now, request.expiry_time_period_ms));
  out.response.error_code = 0;
  out.response.expiry_timestamp_ms = expiry;
  out.records.emplace_back(delegation_token_record_of(*token, expiry));
  return out;
}

std::vector<metadata_record> delegation_token_control::sweep(const metadata_image& image, int64_t now,
                                                             bool* more) const {
  std::vector<metadata_record> out;
  if (more) *more = false;
  for (const auto& [id, token] : image.delegation_tokens) {
    if (token.max_ms >= now && token.expiry_ms >= now) continue;
    if (out.size() >= k_max_removals) {
      if (more) *more = true;
      break;
    }
    msg::remove_delegation_token_record record;
    record.token_id = id;
    out.emplace_back(std::move(record));
  }
  return out;
}

}  // namespace hw::controller
