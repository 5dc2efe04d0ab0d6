// scram_client: one SCRAM exchange, client side.
#include "protocol/sasl/scram_client.h"

#include <charconv>

namespace hw::protocol {

scram_client::scram_client(scram_mechanism mechanism, std::string user, std::string password, std::string nonce)
    : mechanism_(mechanism), user_(std::move(user)), password_(std::move(password)), nonce_(std::move(nonce)) {}

std::string scram_client::client_first() {
  client_first_bare_ = "n=" + scram::escape_user(user_) + ",r=" + nonce_ + (token_auth_ ? ",tokenauth=true" : "");
  return "n,," + client_first_bare_;
}

std::optional<std::string> scram_client::client_final(std::string_view server_first, std::string* error) {
  // "r=<nonce>,s=<salt>,i=<iterations>[,extensions]"
  std::string_view nonce, salt_text, iterations_text;
  size_t start = 0;
  int field = 0;
  for (;;) {
    size_t comma = server_first.find(',', start);
    std::string_view part = server_first.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (field == 0 && part.substr(0, 2) == "m=") {
      // reserved-mext: a server that demands an extension we do not know.
      *error = "the server-first message demands a mandatory extension";
      return std::nullopt;
    }
    if (field == 0 && part.substr(0, 2) == "r=") nonce = part.substr(2);
    if (field == 1 && part.substr(0, 2) == "s=") salt_text = part.substr(2);
    if (field == 2 && part.substr(0, 2) == "i=") iterations_text = part.substr(2);
    ++field;
    if (comma == std::string_view::npos || field == 3) break;
    start = comma + 1;
  }
  std::optional<scram::bytes> salt = scram::unbase64(salt_text);
  int32_t iterations = 0;
  auto [end, ec] = std::from_chars(iterations_text.data(), iterations_text.data() + iterations_text.size(), iterations);
  if (nonce.empty() || !salt || salt->empty() || ec != std::errc() || end != iterations_text.data() + iterations_text.size()) {
    *error = "the server-first message is malformed";
    return std::nullopt;
  }
  if (nonce.size() <= nonce_.size() || nonce.substr(0, nonce_.size()) != nonce_) {
    *error = "the server nonce does not extend the client nonce";
    return std::nullopt;
  }
  if (iterations < scram_min_iterations) {
    *error = "the server asks for " + std::to_string(iterations) + " iterations, fewer than the minimum " +
             std::to_string(scram_min_iterations);
    return std::nullopt;
  }
  const std::string without_proof = "c=biws,r=" + std::string(nonce);
  const std::string auth_message = client_first_bare_ + "," + std::string(server_first) + "," + without_proof;
  const scram::bytes salted = scram::salted_password(mechanism_, password_, *salt, iterations);
  const scram::bytes client_key = scram::hmac(mechanism_, salted, "Client Key");
  const scram::bytes stored_key = scram::hash(mechanism_, client_key);
  const scram::bytes client_signature = scram::hmac(mechanism_, stored_key, auth_message);
  scram::bytes proof(client_key.size());
  for (size_t i = 0; i < proof.size(); ++i) proof[i] = client_key[i] ^ client_signature[i];
  expected_server_signature_ = scram::hmac(mechanism_, scram::hmac(mechanism_, salted, "Server Key"), auth_message);
  password_.assign(password_.size(), '\0');
  password_.clear();
  return without_proof + ",p=" + scram::base64(proof);
}

bool scram_client::verify_server_final(std::string_view server_final, std::string* error) {
  if (server_final.substr(0, 2) == "e=") {
    *error = "the server refused: " + std::string(server_final.substr(2));
    return false;
  }
  std::string_view signature_text = server_final.substr(0, server_final.find(','));
  std::optional<scram::bytes> signature =
      signature_text.substr(0, 2) == "v=" ? scram::unbase64(signature_text.substr(2)) : std::nullopt;
  if (!signature || expected_server_signature_.empty() ||
      !scram::equal_constant_time(*signature, expected_server_signature_)) {
    *error = "the server signature does not verify";
    return false;
  }
  return true;
}

std::string plain_client_token(std::string_view user, std::string_view password) {
  std::string token;
  token += '\0';
  token += user;
  token += '\0';
  token += password;
  return token;
}

}  // namespace hw::protocol
