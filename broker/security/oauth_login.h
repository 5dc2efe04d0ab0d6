#pragma once
// The broker's own OAUTHBEARER tokens from an identity provider, as Kafka's
// OAuthBearerLoginCallbackHandler gets them with the client credentials
// grant: a POST to sasl.oauthbearer.token.endpoint.url with HTTP Basic
// client id and secret (sasl.oauthbearer.client.credentials.client.id /
// .secret, else the JAAS clientId / clientSecret), grant_type and scope in
// the form; the answer's access_token (else id_token), which must be a
// JWT with an expiry and a subject. The first token is fetched at start-up
// (a failure stops the start, as Kafka's login does); the next at 80-85% of
// the token's lifetime, retried with sasl.login.retry.backoff.ms doubling
// up to .max.ms, the current token kept meanwhile. A refusal (HTTP 4xx) is
// not retried until the next refresh.
//
// Owner/thread: the fetches run on a thread of its own; token() from any
// strand. Holds the client secret and tokens: never logs them.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "broker/security/sasl_login.h"
#include "config/listener_security.h"

namespace hw::broker {

inline constexpr std::string_view k_oauth_login_handler =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";

// A started source of tokens for the broker's connections to `listener`,
// or why none can be had.
std::variant<std::shared_ptr<const oauth_token_source>, std::string> start_oauth_token_source(
    const std::string& listener, const config::listener_security::oauth_keys& keys,
    const std::map<std::string, std::string>& jaas_options);

}  // namespace hw::broker
