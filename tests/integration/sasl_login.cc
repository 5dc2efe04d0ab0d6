#include "sasl_login.h"

#include <optional>
#include <string_view>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/sasl/scram_client.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"
#include "request_exchange.h"

namespace hw::testing {

namespace {

namespace msg = protocol::msg;

constexpr int16_t k_handshake_key = 17;
constexpr int16_t k_handshake_version = 1;  // v0 would make the tokens raw frames
constexpr int16_t k_authenticate_key = 36;
constexpr int16_t k_authenticate_version = 2;

std::string named(int16_t code) {
  return std::string(protocol::error_name(static_cast<protocol::error_code>(code))) + " (" + std::to_string(code) + ")";
}

sasl_login_result refused(std::string why) { return {false, true, std::move(why)}; }
sasl_login_result unanswered(const kafka_socket& socket, const std::string& what) {
  std::string why = "no answer to " + what;
  if (!socket.tls_error().empty()) why += ": " + socket.tls_error();
  return {false, false, why};
}

}  // namespace

sasl_login_result sasl_login(kafka_socket& socket, const sasl_credentials& who, std::chrono::milliseconds timeout) {
  int32_t correlation_id = 0;
  msg::sasl_handshake_request hello;
  hello.mechanism = who.mechanism;
  auto handshake = exchange<msg::sasl_handshake_response>(socket, k_handshake_key, k_handshake_version,
                                                          ++correlation_id, hello, timeout, "sasl-login");
  if (!handshake) return unanswered(socket, "SaslHandshake");
  if (handshake->error_code != 0) {
    std::string offered;
    for (const auto& m : handshake->mechanisms) offered += (offered.empty() ? "" : ",") + m;
    return refused("SaslHandshake for " + who.mechanism + ": " + named(handshake->error_code) +
                   ", the listener offers [" + offered + "]");
  }

  std::optional<protocol::scram_client> scram;
  if (auto m = protocol::parse_scram_mechanism(who.mechanism)) {
    scram.emplace(*m, who.user, who.password);
    scram->set_token_auth(who.token);
  }
  else if (who.mechanism != "PLAIN") return refused("no client for the mechanism " + who.mechanism);
  std::string token = scram ? scram->client_first() : protocol::plain_client_token(who.user, who.password);
  // PLAIN takes one round; SCRAM two: its server-first, then its server-final.
  for (int round = 1;; ++round) {
    msg::sasl_authenticate_request req;
    req.auth_bytes.assign(token.begin(), token.end());
    auto answer = exchange<msg::sasl_authenticate_response>(socket, k_authenticate_key, k_authenticate_version,
                                                            ++correlation_id, req, timeout, "sasl-login");
    if (!answer) return unanswered(socket, "SaslAuthenticate (round " + std::to_string(round) + ")");
    if (answer->error_code != 0)
      return refused("SaslAuthenticate as " + who.user + " with " + who.mechanism + ": " + named(answer->error_code) +
                     ": " + answer->error_message.value_or(""));
    if (!scram) return {true, false, ""};
    const std::string_view server(reinterpret_cast<const char*>(answer->auth_bytes.data()), answer->auth_bytes.size());
    std::string why;
    if (round == 1) {
      auto final_message = scram->client_final(server, &why);
      if (!final_message) return refused(who.mechanism + " server-first refused: " + why);
      token = std::move(*final_message);
      continue;
    }
    if (!scram->verify_server_final(server, &why)) return refused(who.mechanism + " server-final refused: " + why);
    return {true, false, ""};
  }
}

}  // namespace hw::testing
