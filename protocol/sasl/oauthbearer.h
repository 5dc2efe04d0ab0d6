#pragma once
// SASL/OAUTHBEARER as Kafka speaks it (RFC 7628's framing, Kafka's
// OAuthBearerClientInitialResponse, OAuthBearerSaslServer's error
// challenge), and the unsecured JSON Web Tokens Kafka's default callback
// handlers make and accept (`alg: none`, for development). Pure: no I/O, no
// clock (callers pass the time), no state.
//
// Here, low in protocol/, because the broker (the server side, and its own
// logins towards other nodes) and the tools (client logins) both use it.
// Signed tokens (OIDC) are checked in jws.h.
//
// Tokens are secrets: nothing here logs, and no error text quotes a token.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hw::protocol::oauthbearer {

// The client's first (and only) message: `n,[a=<authzid>],^Aauth=Bearer
// <token>^A[<key>=<value>^A]*^A`.
struct client_first {
  std::string token;
  std::string authorization_id;  // as sent (no unescaping, as Kafka)
  std::map<std::string, std::string> extensions;
};

// Why a client-first message is refused. `unanswered` where Kafka's parser
// fails with something other than a SASL error (the connection is then
// closed without an answer).
struct message_error {
  std::string reason;  // Kafka's text (for the log; the client is told the generic failure)
  bool unanswered = false;
};

std::variant<client_first, message_error> parse_client_first(std::string_view message);

// What a client sends (Kafka's toBytes: extensions after the token).
std::string client_first_message(std::string_view token, std::string_view authorization_id = {},
                                 const std::map<std::string, std::string>& extensions = {});

// What a client sends after the server's error challenge to end the exchange.
inline constexpr std::string_view client_error_ack = "\x01";

// The server's error challenge: {"status":"<status>"[, "scope":"<scope>"]}.
std::string error_challenge(std::string_view status, const std::optional<std::string>& scope = std::nullopt);

// java.util.Base64's URL decoder (padding optional; any other character, or
// a last group of one character, refused); and the unpadded encoding.
std::optional<std::string> base64url_decode(std::string_view text);
std::string base64url_encode(std::string_view bytes);

// A JWT's header or claims as Kafka's unsecured JWS reads them (Jackson's
// tree, values converted as Kafka converts them: numbers stay numbers,
// arrays become lists of their elements' text, anything else its text).
struct json_value {
  enum class kind { text, number, list } type = kind::text;
  std::string text;
  double number = 0;
  bool integral = false;
  std::vector<std::string> list;
};
using json_object = std::map<std::string, json_value, std::less<>>;

// A JSON document's top-level members (none when it is not an object; a
// document followed by other text is read as Jackson reads it, up to its
// end); nullopt when it is not JSON.
std::optional<json_object> parse_json_object(std::string_view text);

// A token that passed validation.
struct validated_token {
  std::string principal;
  int64_t lifetime_ms = 0;               // the expiry, epoch milliseconds
  std::optional<int64_t> start_time_ms;  // iat, when present
  std::set<std::string> scope;
};

// A token refused: `insufficient_scope` carries the required scope as Kafka
// prints it ("[a, b]"), otherwise the status is invalid_token; `unanswered`
// where Kafka's handler throws (a header without "alg"). `reason` is for
// the log and never quotes the token.
struct token_failure {
  std::string reason;
  std::optional<std::string> insufficient_scope;
  bool unanswered = false;
  std::string status() const { return insufficient_scope ? "insufficient_scope" : "invalid_token"; }
};

using validation = std::variant<validated_token, token_failure>;

// The unsecured validator's JAAS options (unsecuredValidatorPrincipalClaimName,
// ...ScopeClaimName, ...RequiredScope, ...AllowableClockSkewMs).
struct unsecured_validator_options {
  std::string principal_claim = "sub";
  std::string scope_claim = "scope";
  std::vector<std::string> required_scope;
  int32_t allowable_clock_skew_ms = 0;
};
// The options from a JAAS entry's, or Kafka's message for a bad one.
std::variant<unsecured_validator_options, std::string> unsecured_validator_options_from(
    const std::map<std::string, std::string>& jaas_options);

validation validate_unsecured(std::string_view token, const unsecured_validator_options& options, int64_t now_ms);

// The unsecured token the broker logs in with on its own connections, from
// its JAAS options (unsecuredLoginStringClaim_<name>, ...NumberClaim_,
// ...ListClaim_, unsecuredLoginPrincipalClaimName, unsecuredLoginScopeClaimName,
// unsecuredLoginLifetimeSeconds, unsecuredLoginExtension_<name>), or Kafka's
// message for bad options.
struct login_token {
  std::string token;
  std::string principal;
  int64_t lifetime_ms = 0;  // expiry, epoch milliseconds
  std::map<std::string, std::string> extensions;
};
std::variant<login_token, std::string> make_unsecured_login_token(const std::map<std::string, std::string>& jaas_options,
                                                                  int64_t now_ms);

}  // namespace hw::protocol::oauthbearer
