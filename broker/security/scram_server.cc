// scram_server: one SCRAM exchange, server side.
#include "broker/security/scram_server.h"

#include <charconv>
#include <vector>

namespace hw::broker {

namespace {

// Splits "k=v,k=v" into its attributes, in order. Standard attributes have
// one-letter keys; extensions have alphabetic names (RFC 5802 section 7).
struct attribute {
  std::string_view key;
  std::string_view value;
};

std::optional<std::vector<attribute>> attributes(std::string_view s) {
  std::vector<attribute> out;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    std::string_view part = s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t eq = part.find('=');
    if (eq == 0 || eq == std::string_view::npos) return std::nullopt;
    std::string_view key = part.substr(0, eq);
    for (char c : key) {
      if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return std::nullopt;
    }
    out.push_back({key, part.substr(eq + 1)});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// An extension asks for delegation-token credentials (Kafka reads the
// value as Java's Boolean.parseBoolean does).
bool asks_for_token(const attribute& a) {
  if (a.key != "tokenauth" || a.value.size() != 4) return false;
  std::string v(a.value);
  for (char& c : v) c = static_cast<char>(c | 0x20);
  return v == "true";
}

// Printable ASCII without a comma (RFC 5802's "printable"), as a nonce is.
bool printable(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  }
  return true;
}

std::string_view text(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

std::vector<uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

}  // namespace

scram_server::scram_server(scram_mechanism mechanism, credential_lookup credentials, nonce_source nonce,
                           token_lookup tokens)
    : mechanism_(mechanism),
      credentials_(std::move(credentials)),
      make_nonce_(std::move(nonce)),
      tokens_(std::move(tokens)) {}

sasl_step scram_server::fail(std::string why, std::optional<std::string> told) {
  state_ = state::failed;
  credential_ = {};
  return sasl_step::fail(std::move(why), std::move(told));
}

sasl_step scram_server::evaluate(std::span<const uint8_t> response) {
  switch (state_) {
    case state::client_first: return on_client_first(text(response));
    case state::client_final: return on_client_final(text(response));
    case state::complete:
    case state::failed: break;
  }
  return fail("a SCRAM message after the exchange ended");
}

sasl_step scram_server::on_client_first(std::string_view message) {
  // gs2-header: "n," then an optional "a=<authzid>", then ",".
  if (message.substr(0, 2) != "n,") return fail("the client-first message does not start with the gs2 header \"n,\"");
  size_t header_end = message.find(',', 2);
  if (header_end == std::string_view::npos) return fail("the client-first message has no gs2 header end");
  std::string_view authzid_part = message.substr(2, header_end - 2);
  std::optional<std::string> authzid;
  if (!authzid_part.empty()) {
    if (authzid_part.substr(0, 2) != "a=") return fail("the gs2 header's authorization id is malformed");
    authzid = scram::unescape_user(authzid_part.substr(2));
    if (!authzid || authzid->empty()) return fail("the gs2 header's authorization id is malformed");
  }
  gs2_header_ = std::string(message.substr(0, header_end + 1));
  client_first_bare_ = std::string(message.substr(header_end + 1));
  auto attrs = attributes(client_first_bare_);
  if (!attrs) return fail("the client-first message is malformed");
  size_t i = 0;
  if (i < attrs->size() && (*attrs)[i].key == "m") ++i;  // reserved-mext: ignored, as Kafka ignores it
  if (i + 2 > attrs->size() || (*attrs)[i].key != "n" || (*attrs)[i + 1].key != "r")
    return fail("the client-first message lacks n= and r=");
  std::optional<std::string> user = scram::unescape_user((*attrs)[i].value);
  if (!user || user->empty()) return fail("the client-first message's user name is malformed");
  std::string_view client_nonce = (*attrs)[i + 1].value;
  if (!printable(client_nonce)) return fail("the client nonce is not printable");
  bool token = false;
  for (size_t e = i + 2; e < attrs->size(); ++e) {
    // Other extensions are ignored, as Kafka ignores them.
    if ((*attrs)[e].value.empty()) return fail("the client-first message has an empty extension");
    if ((*attrs)[e].key == "tokenauth") token = asks_for_token((*attrs)[e]);
  }
  std::optional<scram_credential> credential;
  std::string principal = *user;
  if (token) {
    // The user name is a token id; the login is its owner's.
    std::optional<token_login> login = tokens_ ? tokens_(*user) : std::nullopt;
    if (!login) return fail("Token Authentication failed: Invalid tokenId : " + *user);
    credential = std::move(login->credential);
    principal = std::move(login->owner);
    token_expiry_ms_ = login->expiry_ms;
  } else {
    credential = credentials_(*user);
  }
  if (!credential) return fail("no " + scram_mechanism_name(mechanism_) + " credential for user " + *user);
  if (authzid && *authzid != *user)
    return fail("authorization id " + *authzid + " is not user " + *user,
                "Authentication failed: Client requested an authorization id that is different from username");
  if (credential->iterations < scram_min_iterations)
    return fail("user " + *user + "'s credential has " + std::to_string(credential->iterations) +
                " iterations, fewer than the minimum " + std::to_string(scram_min_iterations));
  user_ = std::move(principal);
  token_ = token;
  credential_ = std::move(*credential);
  nonce_ = std::string(client_nonce) + make_nonce_();
  server_first_ = "r=" + nonce_ + ",s=" + scram::base64(credential_.salt) + ",i=" +
                  std::to_string(credential_.iterations);
  state_ = state::client_final;
  return sasl_step::challenge(bytes_of(server_first_));
}

sasl_step scram_server::on_client_final(std::string_view message) {
  size_t proof_at = message.rfind(",p=");
  if (proof_at == std::string_view::npos) return fail("the client-final message has no proof");
  std::string_view without_proof = message.substr(0, proof_at);
  std::optional<scram::bytes> proof = scram::unbase64(message.substr(proof_at + 3));
  auto attrs = attributes(without_proof);
  if (!proof || !attrs || attrs->size() < 2 || (*attrs)[0].key != "c" || (*attrs)[1].key != "r")
    return fail("the client-final message is malformed");
  std::optional<scram::bytes> binding = scram::unbase64((*attrs)[0].value);
  if (!binding || std::string_view(reinterpret_cast<const char*>(binding->data()), binding->size()) != gs2_header_)
    return fail("the client-final message's channel binding is not its gs2 header");
  // Kafka checks only that the nonce ends with the server-first one:
  // librdkafka (2.0 at least) puts its own nonce in front of it again.
  if (!(*attrs)[1].value.ends_with(nonce_)) return fail("invalid client nonce in the final client message");
  const std::string auth_message = client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  const scram::bytes client_signature = scram::hmac(mechanism_, credential_.stored_key, auth_message);
  // Kafka's proof check throws on a proof of the wrong length, which is
  // not an authentication failure: its connection closes unanswered.
  if (proof->size() != client_signature.size()) return sasl_step::abort("the client proof has the wrong length");
  scram::bytes client_key(client_signature.size());
  for (size_t i = 0; i < client_key.size(); ++i) client_key[i] = (*proof)[i] ^ client_signature[i];
  if (!scram::equal_constant_time(scram::hash(mechanism_, client_key), credential_.stored_key))
    return fail("invalid client credentials");
  const scram::bytes server_signature = scram::hmac(mechanism_, credential_.server_key, auth_message);
  credential_ = {};
  state_ = state::complete;
  return sasl_step::challenge(bytes_of("v=" + scram::base64(server_signature)));
}

}  // namespace hw::broker
