#pragma once
// The client side of a SASL exchange for the broker's own connections
// (replica fetchers, transaction markers, the controller channel, the raft
// traffic between controllers) when the listener they reach is
// SASL_PLAINTEXT or SASL_SSL: the mechanism's tokens in order, PLAIN's one
// message, SCRAM's client-first and client-final and the check of the
// server's final message, OAUTHBEARER's token, GSSAPI's rounds
// (gssapi_client.h). The connection sends each token in a
// SaslAuthenticate request (after a SaslHandshake naming the mechanism) and
// feeds the answers back.
//
// Also what a broker authenticates as: the `username`/`password` of the
// login module Kafka loads for that listener and mechanism (the listener's
// JAAS value, or the JAAS file's section), as Kafka's inter-broker and
// controller channels do; for GSSAPI that module's keytab and principal,
// and the service name from its serviceName option or
// sasl.kerberos.service.name.
//
// Owner/thread: one connection attempt, on its strand. Holds the password.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "broker/security/sasl_login.h"
#include "broker/security/scram_client.h"
#include "config/broker_config.h"

namespace hw::broker {

class gssapi_client;

class sasl_client_exchange {
 public:
  // host: the peer's host name, as the broker reaches it (GSSAPI's service
  // principal is <service>/<host>).
  explicit sasl_client_exchange(const sasl_login& login, const std::string& host = {});
  ~sasl_client_exchange();

  // The first token; none when it cannot be made (*error says why: a
  // GSSAPI login the KDC refuses).
  std::optional<std::vector<uint8_t>> first(std::string* error);
  // The server's answer to the last token: the next token, or none when the
  // exchange is complete (done() true) or failed (*error says why; never a
  // secret).
  std::optional<std::vector<uint8_t>> next(std::span<const uint8_t> server_token, std::string* error);
  bool done() const { return done_; }

 private:
  sasl_login login_;
  std::optional<scram_client> scram_;
  std::unique_ptr<gssapi_client> gssapi_;
  int round_ = 0;
  bool done_ = false;
};

// What this broker logs in with on connections to `listener` (a listener
// name of the cluster, this node's own or not, with its protocol from
// listener.security.protocol.map) using the mechanism the key
// `mechanism_key` names (sasl.mechanism.inter.broker.protocol or
// sasl.mechanism.controller.protocol): none when the listener is not a SASL
// one, else the login or the error that keeps the broker from starting.
std::variant<std::shared_ptr<const sasl_login>, std::string> own_sasl_login(const config::broker_config& c,
                                                                           const std::string& listener,
                                                                           const std::string& mechanism_key);

}  // namespace hw::broker
