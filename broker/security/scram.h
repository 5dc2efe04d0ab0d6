#pragma once
// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) on OpenSSL 3: the
// primitives the exchange needs, the credential a password makes, and the
// escaping of user names in SCRAM messages. Pure: nothing here does I/O or
// keeps state; the only randomness is OpenSSL's RAND_bytes.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hw::broker {

enum class scram_mechanism { sha256, sha512 };

// "SCRAM-SHA-256", "SCRAM-SHA-512" (exact).
std::optional<scram_mechanism> parse_scram_mechanism(std::string_view name);
const std::string& scram_mechanism_name(scram_mechanism m);

// Kafka's bounds: a credential below the minimum is refused at login; an
// alter outside [min, max] is refused.
inline constexpr int32_t scram_min_iterations = 4096;
inline constexpr int32_t scram_max_iterations = 16384;

// What UserScramCredentialRecord holds for one user and mechanism: never
// the password.
struct scram_credential {
  std::vector<uint8_t> salt;
  std::vector<uint8_t> stored_key;
  std::vector<uint8_t> server_key;
  int32_t iterations = 0;
};

namespace scram {

using bytes = std::vector<uint8_t>;

// Hi(password, salt, i): PBKDF2 with the mechanism's HMAC, one hash long.
bytes salted_password(scram_mechanism m, std::string_view password, std::span<const uint8_t> salt,
                      int32_t iterations);
bytes hmac(scram_mechanism m, std::span<const uint8_t> key, std::string_view data);
bytes hash(scram_mechanism m, std::span<const uint8_t> data);
// A credential for `password` with a given salt (tests, format-time
// bootstrap with an explicit salt) or a fresh random one.
scram_credential make_credential(scram_mechanism m, std::string_view password, std::span<const uint8_t> salt,
                                 int32_t iterations);
scram_credential make_credential(scram_mechanism m, std::string_view password, int32_t iterations);

// Equal length and bytes, in time that depends on the length only.
bool equal_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b);

std::string base64(std::span<const uint8_t> data);
// Standard alphabet with padding, as SCRAM writes it; none when malformed.
std::optional<bytes> unbase64(std::string_view text);

// A nonce of printable characters without a comma, from RAND_bytes.
std::string random_nonce();
bytes random_salt();

// SCRAM's saslname: "=" and "," escaped as "=3D" and "=2C".
std::string escape_user(std::string_view user);
// Back; none when an "=" starts anything but "=2C" or "=3D".
std::optional<std::string> unescape_user(std::string_view sasl_name);

}  // namespace scram
}  // namespace hw::broker
