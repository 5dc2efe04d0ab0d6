#pragma once
// A Kafka client's SASL login on a kafka_socket that is already connected
// (over TLS for SASL_SSL): SaslHandshake v1 naming the mechanism, then
// SaslAuthenticate rounds: PLAIN's one token, or SCRAM-SHA-256/512's
// client-first and client-final (protocol::scram_client), the server's
// final message checked, so that a broker that does not know the password
// cannot pass for one that does. The socket is then authenticated and
// takes any request.

#include <chrono>
#include <string>

#include "kafka_socket.h"

namespace hw::testing {

struct sasl_credentials {
  std::string mechanism;  // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
  std::string user;
  std::string password;
  // SCRAM with a delegation token: user = token id, password = its HMAC in base64.
  bool token = false;
};

struct sasl_login_result {
  bool authenticated = false;
  // The broker answered and said no (an error code in its answer), or its
  // answer failed the exchange (a SCRAM server-final that does not verify).
  // Not refused and not authenticated: the connection failed or no answer
  // came within the timeout.
  bool refused = false;
  std::string error;  // why not, with the broker's message when it sent one
  explicit operator bool() const { return authenticated; }
};

// Each answer is awaited up to `timeout`. Nothing secret is put in error.
sasl_login_result sasl_login(kafka_socket& socket, const sasl_credentials& who,
                             std::chrono::milliseconds timeout = 10s);

}  // namespace hw::testing
