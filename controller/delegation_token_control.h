#pragma once
// Delegation tokens (KIP-48) as Kafka's DelegationTokenControlManager
// keeps them: CreateDelegationToken, RenewDelegationToken and
// ExpireDelegationToken answered on the active controller and written as
// DelegationTokenRecord / RemoveDelegationTokenRecord, and the periodic
// sweep that removes expired tokens (delegation.token.expiry.check.interval.ms,
// at most 1000 a batch).
//
// A token's HMAC is HMAC-SHA512 of its id under delegation.token.secret.key
// (OpenSSL, protocol/sasl/scram.h); it is answered to the creator and found
// again by comparing, in constant time, with the HMAC of each token the
// image holds. The image never holds an HMAC or the secret.
//
// Refusals as Kafka's: no secret configured DELEGATION_TOKEN_AUTH_DISABLED;
// metadata.version below 3.6-IV2 UNSUPPORTED_VERSION; a renewer that is not
// a User INVALID_PRINCIPAL_TYPE; an HMAC of no token DELEGATION_TOKEN_NOT_FOUND;
// a token past its expiry or maximum DELEGATION_TOKEN_EXPIRED; a renewal or
// expiry by someone neither owner nor renewer DELEGATION_TOKEN_OWNER_MISMATCH.
// (The broker refuses token-authenticated and PLAINTEXT connections and
// checks CREATE_TOKENS for another owner before forwarding.)
//
// Owner: the controller strand, through quorum_controller. Holds the
// secret key: never logs it.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "controller/controller_result.h"
#include "controller/metadata/image.h"
#include "protocol/messages/create_delegation_token.h"
#include "protocol/messages/expire_delegation_token.h"
#include "protocol/messages/renew_delegation_token.h"

namespace hw::controller {

struct delegation_token_settings {
  std::optional<std::string> secret_key;  // delegation.token.secret.key; none: tokens disabled
  int64_t max_lifetime_ms = 7LL * 24 * 3600 * 1000;  // delegation.token.max.lifetime.ms
  int64_t expiry_time_ms = 24LL * 3600 * 1000;       // delegation.token.expiry.time.ms
};

// HMAC-SHA512 of the token id under the secret.
std::vector<uint8_t> delegation_token_hmac(const std::string& secret_key, const std::string& token_id);

class delegation_token_control {
 public:
  explicit delegation_token_control(delegation_token_settings settings) : settings_(std::move(settings)) {}

  bool enabled() const { return settings_.secret_key.has_value() && !settings_.secret_key->empty(); }

  // `requester`: the principal asking ("User:alice"), as the request
  // context (or the envelope) names it.
  controller_result<msg::create_delegation_token_response> create(const metadata_image& image,
                                                                  const msg::create_delegation_token_request& request,
                                                                  const std::string& requester_type,
                                                                  const std::string& requester_name,
                                                                  int64_t now_ms) const;
  controller_result<msg::renew_delegation_token_response> renew(const metadata_image& image,
                                                                const msg::renew_delegation_token_request& request,
                                                                const std::string& requester, int64_t now_ms) const;
  controller_result<msg::expire_delegation_token_response> expire(const metadata_image& image,
                                                                  const msg::expire_delegation_token_request& request,
                                                                  const std::string& requester, int64_t now_ms) const;
  // Removal records for the tokens past their expiry or maximum (at most
  // 1000; `more` says whether others remain).
  std::vector<metadata_record> sweep(const metadata_image& image, int64_t now_ms, bool* more = nullptr) const;

 private:
  const delegation_token* find(const metadata_image& image, const std::vector<uint8_t>& hmac) const;
  // The token a renewal or an expiry names, or why there is none to change
  // (tokens disabled, a metadata.version without them, no such token).
  std::variant<const delegation_token*, protocol::error_code> token_to_change(const metadata_image& image,
                                                                             const std::vector<uint8_t>& hmac) const;

  delegation_token_settings settings_;
};

}  // namespace hw::controller
