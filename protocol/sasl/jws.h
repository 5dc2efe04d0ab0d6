#pragma once
// Signed JSON Web Tokens as Kafka's broker validator checks them (OIDC,
// KIP-768: Kafka's BrokerJwtValidator over jose4j): a JSON Web Key Set
// (RSA and EC keys), the signature verified with OpenSSL's EVP (RS256/384/512,
// PS256/384/512, ES256/384/512; `none` refused), then the claims: exp and
// iat required, nbf honoured, the clock skew, the expected audience and
// issuer, the subject and scope claims Kafka reads. Pure: the caller
// passes the keys and the time.
//
// No hand-written cryptography: key construction and verification are
// OpenSSL's; only the JWS encodings (base64url, JSON, r||s to DER) are
// done here.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/sasl/oauthbearer.h"

namespace hw::protocol::jws {

// One verification key of a key set. `key` is an OpenSSL EVP_PKEY.
struct key {
  std::string kid;
  std::string kty;  // RSA or EC
  std::string alg;  // as the set says, or empty
  std::string use;  // as the set says, or empty
  std::string crv;  // EC: P-256, P-384, P-521
  std::shared_ptr<void> pkey;
};
using key_set = std::vector<key>;

// A JWKS document's usable keys (keys of other types, or that cannot be
// built, are left out, as a key set reader skips what it cannot use);
// an error when the document is not a key set.
std::variant<key_set, std::string> parse_key_set(std::string_view json);

struct validator_options {
  std::vector<std::string> expected_audience;  // none: a token with an aud claim is refused
  std::optional<std::string> expected_issuer;
  std::string sub_claim = "sub";
  std::string scope_claim = "scope";
  int32_t clock_skew_seconds = 30;
};

// The outcome: a validated token, or a failure (always invalid_token to
// the client). `unknown_kid` is set when no key of the set matched a kid
// the token names: the caller may refresh its keys sooner.
struct outcome {
  oauthbearer::validation result;
  std::optional<std::string> unknown_kid;
};

outcome validate(std::string_view token, const key_set& keys, const validator_options& options, int64_t now_ms);

}  // namespace hw::protocol::jws
