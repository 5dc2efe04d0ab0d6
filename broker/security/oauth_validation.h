#pragma once
// How a listener's OAUTHBEARER checks tokens, as Kafka's server callback
// handlers do:
//   - none configured (Kafka's default, OAuthBearerUnsecuredValidatorCallbackHandler):
//     unsecured tokens (`alg: none`) with the JAAS entry's unsecuredValidator*
//     options, for development;
//   - org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler:
//     signed tokens (protocol/sasl/jws.h) against the keys of
//     sasl.oauthbearer.jwks.endpoint.url, with the expected audience and
//     issuer, the sub and scope claim names and the clock skew.
// The keys come from a `file:` URL (read again when the file changes) or an
// http(s):// JWKS endpoint, fetched at start-up (a failure stops the
// start, as in Kafka), again every sasl.oauthbearer.jwks.endpoint.refresh.ms
// with Kafka's retry backoff, and at once (at most once a minute per key id)
// when a token names a key id the set does not have. A failed fetch keeps
// the last good keys and says so in the log. The URL or file must be
// named, exactly as written, in -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls
// in KAFKA_OPTS (a file: URL too), as Kafka 4.3 requires.
//
// Owner/thread: built at start-up; validation runs on any connection's
// strand (the key set is an immutable snapshot behind an atomic pointer);
// an endpoint's fetches run on a thread of their own.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/security/jaas.h"
#include "config/listener_security.h"
#include "protocol/sasl/oauthbearer.h"

namespace boost::asio::ssl {
class context;
}

namespace hw::broker {

inline constexpr std::string_view k_oauth_validator_handler =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
inline constexpr std::string_view k_oauth_unsecured_validator_handler =
    "org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler";

using oauth_validator = std::function<protocol::oauthbearer::validation(std::string_view token)>;

// Whether `value` is one of the comma-separated entries of an allow list
// (KAFKA_OPTS' org.apache.kafka.sasl.oauthbearer.allowed.urls), as Kafka
// compares them: trimmed, exact.
bool oauth_url_allowed(const std::optional<std::string>& allow_list, const std::string& value);

// The TLS context for an identity provider's https endpoint: the trust
// store the login module's options name (ssl.truststore.location,
// .password, .type, .certificates), else the JVM trust store KAFKA_OPTS
// names, else the system's trusted certificates.
std::variant<std::shared_ptr<boost::asio::ssl::context>, std::string> oauth_endpoint_tls(
    const std::map<std::string, std::string>& jaas_options, const config::listener_security::oauth_keys& keys);

// The validator of a listener's OAUTHBEARER, or why it cannot be made
// (Kafka's message where Kafka has one; the listener named).
std::variant<oauth_validator, std::string> make_oauth_validator(const config::listener_security& keys,
                                                                const std::vector<jaas_entry>& jaas);

}  // namespace hw::broker
