// sasl_session: one connection's SASL exchange.
#include "broker/security/sasl_session.h"

#include <algorithm>

#include "broker/wall_clock.h"

namespace hw::broker {

namespace {
constexpr int16_t api_versions_key = 18;
constexpr int16_t sasl_handshake_key = 17;
constexpr int16_t sasl_authenticate_key = 36;
}  // namespace

sasl_session::sasl_session(std::vector<std::string> enabled_mechanisms, server_factory make_server,
                           std::map<std::string, int64_t> max_reauth_ms)
    : enabled_(std::move(enabled_mechanisms)),
      make_server_(std::move(make_server)),
      max_reauth_ms_(std::move(max_reauth_ms)) {}

void sasl_session::reauthenticating(const std::string& mechanism, const kafka_principal& principal) {
  previous_ = previous_login{mechanism, principal};
  // The client knows the versions already: a handshake comes first.
  state_ = state::handshake;
}

bool sasl_session::admit(int16_t api_key, std::string* why) {
  switch (state_) {
    case state::complete: return true;
    case state::handshake_or_versions:
      if (api_key == api_versions_key) {
        state_ = state::handshake;
        return true;
      }
      if (api_key == sasl_handshake_key) return true;
      break;
    case state::handshake:
      if (api_key == sasl_handshake_key) return true;
      break;
    case state::authenticate:
      if (api_key == sasl_authenticate_key && handshake_version_ >= 1) return true;
      break;
    case state::failed: break;
  }
  *why = "Unexpected Kafka request of type " + std::to_string(api_key) + " during SASL " +
         (state_ == state::authenticate ? "authentication" : "handshake");
  state_ = state::failed;
  return false;
}

sasl_session::handshake_answer sasl_session::handshake(const std::string& mechanism, int16_t version) {
  handshake_answer a;
  a.mechanisms = enabled_;
  if (std::find(enabled_.begin(), enabled_.end(), mechanism) == enabled_.end()) {
    a.error = protocol::error_code::unsupported_sasl_mechanism;
    state_ = state::failed;
    return a;
  }
  server_ = make_server_(mechanism);
  if (!server_) {
    a.error = protocol::error_code::unsupported_sasl_mechanism;
    state_ = state::failed;
    return a;
  }
  mechanism_ = mechanism;
  handshake_version_ = version;
  state_ = state::authenticate;
  // Kafka answers the handshake and fails the exchange's first token.
  bad_mechanism_ = previous_ && previous_->mechanism != mechanism;
  return a;
}

sasl_session::authenticate_answer sasl_session::authenticate(std::span<const uint8_t> auth_bytes) {
  authenticate_answer a;
  if (state_ != state::authenticate || !server_) {
    a.error = protocol::error_code::illegal_sasl_state;
    a.error_message = "Unexpected SaslAuthenticate request outside a SASL exchange";
    a.log_reason = a.error_message;
    state_ = state::failed;
    return a;
  }
  auto fail = [&](std::string told, std::string why, bool unanswered) {
    a.error = protocol::error_code::sasl_authentication_failed;
    a.error_message = std::move(told);
    a.log_reason = std::move(why);
    a.close_unanswered = unanswered;
    server_.reset();
    state_ = state::failed;
    return a;
  };
  if (bad_mechanism_) {
    std::string told = "SASL mechanism '" + mechanism_ + "' requested by client is not supported for "
                       "re-authentication of mechanism '" + previous_->mechanism + "'";
    return fail(told, told, true);
  }
  sasl_step step = server_->evaluate(auth_bytes);
  if (step.failed)
    return fail(step.client_message ? *step.client_message : sasl_generic_failure(mechanism_, is_reauthentication()),
                std::move(step.reason), step.close_unanswered);
  a.auth_bytes = std::move(step.token);
  if (server_->complete()) {
    if (auto error = server_->principal_error()) {
      // Kafka fails to build the principal: at once when re-authenticating
      // (the connection closes), else at the connection's next request.
      if (previous_) return fail(*error, *error, true);
      principal_error_ = std::move(error);
    }
    kafka_principal who{"User", server_->user()};
    who.set_token_authenticated(server_->token_authenticated());
    const std::optional<int64_t> credential_expiry = server_->credential_expiry_ms();
    if (previous_ && !(who == previous_->principal)) {
      std::string told = "Cannot change principals during re-authentication from " + previous_->principal.type() +
                         "." + previous_->principal.name() + ": " + who.type() + "." + who.name();
      return fail(told, told, false);
    }
    principal_ = std::move(who);
    server_.reset();
    state_ = state::complete;
    // The login lasts connections.max.reauth.ms, and never past the
    // credential's own expiry (Kafka's SaslServerAuthenticator).
    auto limit = max_reauth_ms_.find(mechanism_);
    if (credential_expiry || limit != max_reauth_ms_.end()) {
      expires_ = true;
      const int64_t now_ms = wall_clock_ms();
      int64_t ms = credential_expiry ? *credential_expiry - now_ms : limit->second;
      if (credential_expiry && limit != max_reauth_ms_.end()) ms = std::min(ms, limit->second);
      lifetime_ms_ = std::max<int64_t>(ms, 0);
    }
  }
  return a;
}

}  // namespace hw::broker
