#include "broker/security/oauthbearer_server.h"

namespace hw::broker {

namespace oauth = protocol::oauthbearer;

sasl_step oauthbearer_server::evaluate(std::span<const uint8_t> response) {
  const std::string_view message(reinterpret_cast<const char*>(response.data()), response.size());
  if (message == oauth::client_error_ack && error_) {
    std::string told = *error_;
    return sasl_step::fail("token refused: " + error_reason_, told);
  }
  error_.reset();
  auto parsed = oauth::parse_client_first(message);
  if (auto* bad = std::get_if<oauth::message_error>(&parsed)) {
    if (bad->unanswered) return sasl_step::abort(bad->reason);
    return sasl_step::fail(bad->reason);
  }
  auto& first = std::get<oauth::client_first>(parsed);
  oauth::validation checked = validate_(first.token);
  if (auto* refused = std::get_if<oauth::token_failure>(&checked)) {
    if (refused->unanswered) return sasl_step::abort("token refused: " + refused->reason);
    error_ = oauth::error_challenge(refused->status(), refused->insufficient_scope);
    error_reason_ = refused->reason;
    return sasl_step::challenge(std::vector<uint8_t>(error_->begin(), error_->end()));
  }
  const auto& token = std::get<oauth::validated_token>(checked);
  if (!first.authorization_id.empty() && first.authorization_id != token.principal) {
    std::string told = "Authentication failed: Client requested an authorization id (" + first.authorization_id +
                       ") that is different from the token's principal name (" + token.principal + ")";
    return sasl_step::fail(told, told);
  }
  extensions_ = std::move(first.extensions);
  user_ = token.principal;
  expiry_ms_ = token.lifetime_ms;
  complete_ = true;
  return sasl_step::challenge({});
}

}  // namespace hw::broker
