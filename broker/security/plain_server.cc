// plain_server: one PLAIN exchange, server side.
#include "broker/security/plain_server.h"

#include <string_view>
#include <vector>

#include "broker/security/scram.h"

namespace hw::broker {

sasl_step plain_server::evaluate(std::span<const uint8_t> response) {
  if (used_) return sasl_step::fail("a PLAIN message after the exchange ended");
  used_ = true;
  const std::string_view message(reinterpret_cast<const char*>(response.data()), response.size());
  // Kafka splits at up to three NULs and wants exactly three parts.
  std::vector<std::string_view> tokens;
  size_t start = 0;
  for (int i = 0; i < 4; ++i) {
    size_t nul = message.find('\0', start);
    if (nul == std::string_view::npos) {
      tokens.push_back(message.substr(start));
      break;
    }
    tokens.push_back(message.substr(start, nul - start));
    start = nul + 1;
  }
  if (tokens.size() != 3) {
    std::string told = "Invalid SASL/PLAIN response: expected 3 tokens, got " + std::to_string(tokens.size());
    return sasl_step::fail(told, told);
  }
  const std::string_view authzid = tokens[0];
  const std::string user(tokens[1]);
  const std::string_view password = tokens[2];
  if (user.empty())
    return sasl_step::fail("PLAIN without a user name", "Authentication failed: username not specified");
  if (password.empty())
    return sasl_step::fail("PLAIN without a password for user " + user, "Authentication failed: password not specified");
  const std::optional<std::string> expected = passwords_(user);
  const std::span<const uint8_t> given(reinterpret_cast<const uint8_t*>(password.data()), password.size());
  if (!expected ||
      !scram::equal_constant_time(given, {reinterpret_cast<const uint8_t*>(expected->data()), expected->size()}))
    return sasl_step::fail(expected ? "wrong password for user " + user : "unknown user " + user,
                           "Authentication failed: Invalid username or password");
  if (!authzid.empty() && authzid != user)
    return sasl_step::fail("authorization id " + std::string(authzid) + " is not user " + user,
                           "Authentication failed: Client requested an authorization id that is different from username");
  user_ = user;
  complete_ = true;
  return sasl_step::challenge({});
}

}  // namespace hw::broker
