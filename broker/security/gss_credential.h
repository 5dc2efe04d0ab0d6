#pragma once
// What GSSAPI (Kerberos) logins share, on MIT Kerberos' GSS-API: a
// principal's credentials taken from a keytab, the broker's own for the
// listener's acceptor or for its connections to other nodes, and the
// security-layer messages of RFC 4752 (after the GSS context is set up the
// server offers its layers and the client picks one: one octet of layer
// bits, three of maximum message size, then the client's authorization id).
//
// Credentials name their keytab through MIT's credential store
// (gss_acquire_cred_from), never through KRB5_KTNAME or another process-wide
// setting, so listeners with different keytabs live side by side; an
// initiator's tickets go to a memory cache of its own. A credential is
// acquired once and then shared by connections on any strand (MIT locks
// a credential while a context uses it).
//
// Nothing here logs or returns a key or a ticket: errors are GSS-API's
// status texts.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "broker/security/jaas.h"

namespace hw::broker {

class gss_credential {
 public:
  enum class usage { accept, initiate };
  ~gss_credential();
  gss_credential(const gss_credential&) = delete;
  gss_credential& operator=(const gss_credential&) = delete;

  // The credentials of `principal` (a full Kerberos name, "kafka/host@REALM")
  // from `keytab`: to accept logins for it, or to log in as it. An error says
  // what is wrong with the keytab (missing, unreadable, no key for the
  // principal) in GSS-API's words, naming the file.
  static std::variant<std::shared_ptr<const gss_credential>, std::string> from_keytab(const std::string& principal,
                                                                                      const std::string& keytab,
                                                                                      usage use);

  // The gss_cred_id_t (opaque here so that this header needs no GSS-API's).
  void* handle() const { return handle_; }
  const std::string& principal() const { return principal_; }
  const std::string& keytab() const { return keytab_; }

 private:
  gss_credential() = default;
  void* handle_ = nullptr;
  std::string principal_;
  std::string keytab_;
  std::string ccache_;
};

// What a Krb5LoginModule JAAS entry (com.sun.security.auth.module) names for
// GSSAPI: the keytab and the principal (useKeyTab=true, keyTab, principal;
// storeKey too on a listener), and the serviceName option if any.
struct krb5_login_options {
  std::string keytab;
  std::string principal;
  std::optional<std::string> service_name;
};
// From the entries Kafka loads for GSSAPI; an error says what is missing.
std::variant<krb5_login_options, std::string> krb5_login_from_jaas(const std::vector<jaas_entry>& entries);

// The Kerberos service name as Kafka's login finds it: the JAAS serviceName
// option, else sasl.kerberos.service.name; Kafka's message when they differ
// or neither is set.
std::variant<std::string, std::string> kerberos_service_name(const krb5_login_options& jaas,
                                                             const std::optional<std::string>& configured);

// The default realm of the Kerberos configuration (KRB5_CONFIG, else
// /etc/krb5.conf), or none when it names none.
std::optional<std::string> kerberos_default_realm();

// A GSS-API status as text: "<major text>: <minor text>".
std::string gss_status_text(uint32_t major, uint32_t minor);

namespace sasl_gssapi {

// Security-layer bits (RFC 4752 section 3.3).
constexpr uint8_t no_security_layer = 0x01;
constexpr uint8_t integrity_layer = 0x02;
constexpr uint8_t confidentiality_layer = 0x04;
// What the server offers as its largest message: Java's GSSAPI mechanism's
// default receive buffer.
constexpr uint32_t server_max_message = 65536;

struct layer_message {
  uint8_t layers = 0;
  uint32_t max_message = 0;
  std::string authorization_id;  // client's reply only
};

// The four octets (and the authorization id) before wrapping.
std::vector<uint8_t> encode_layers(const layer_message& m);
// The unwrapped message, or none when it is shorter than four octets.
std::optional<layer_message> decode_layers(std::span<const uint8_t> bytes);

}  // namespace sasl_gssapi

}  // namespace hw::broker
