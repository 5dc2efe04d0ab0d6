#pragma once
// TLS for SSL and SASL_SSL listeners and for the broker's own connections to
// them, on OpenSSL 3 through boost::asio::ssl: a context made from a
// listener's resolved ssl.* keys as Kafka reads them (DefaultSslEngineFactory):
//   - key store: PKCS12 file (ssl.keystore.location + ssl.keystore.password),
//     PEM file (key and chain; the key may be encrypted with ssl.key.password)
//     or inline PEM (ssl.keystore.certificate.chain + ssl.keystore.key); a
//     store typed JKS (Kafka's default type) is read when it is in fact
//     PKCS12, as Java does, and a real JKS store is refused with how to
//     convert it;
//   - trust store: PKCS12 or PEM file, or inline PEM certificates;
//   - ssl.enabled.protocols (the range of TLS versions), ssl.cipher.suites
//     (standard names), ssl.client.auth (none, requested, required).
// Errors name the listener, the file and the key, never a password or key.
//
// The client certificate's subject (RFC 2253, as Java's X500Principal
// names it) goes through ssl.principal.mapping.rules to the principal.
//
// Owner/thread: a context is built at start-up (or at a reload) and then
// shared, immutable, by the connections made with it.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "broker/security/principal_mapping.h"
#include "config/listener_security.h"

namespace boost::asio::ssl {
class context;
}
struct ssl_st;

namespace hw::broker {

struct tls_server_context {
  std::shared_ptr<boost::asio::ssl::context> context;
  principal_mapping mapping;
  bool wants_client_certificate = false;  // ssl.client.auth requested or required
};

// The server side of one SSL or SASL_SSL listener, or why it cannot be made.
std::variant<std::shared_ptr<const tls_server_context>, std::string> make_tls_server_context(
    const config::listener_security& keys);

// A server context for each SSL and SASL_SSL listener of the
// configuration, by listener name; or the first error.
std::variant<std::map<std::string, std::shared_ptr<const tls_server_context>>, std::string> make_tls_listeners(
    const config::broker_config& c);

// The client side towards a listener with these keys (the broker's own
// connections): its trust store, its key store when it has one (mutual
// TLS), and whether the peer's host name is checked.
struct tls_client_context {
  std::shared_ptr<boost::asio::ssl::context> context;
  bool verify_host = true;  // ssl.endpoint.identification.algorithm=https
};
std::variant<std::shared_ptr<const tls_client_context>, std::string> make_tls_client_context(
    const config::listener_security& keys);

// The client side this broker uses towards `listener` (a listener name of
// the cluster, with its protocol from listener.security.protocol.map and
// its listener-prefixed ssl.* keys): none when it is not an SSL or SASL_SSL
// listener.
std::variant<std::shared_ptr<const tls_client_context>, std::string> own_tls_context(const config::broker_config& c,
                                                                                    const std::string& listener);

// Keeps a connection's TLS record buffers between reads and writes instead
// of freeing them whenever they empty (asio's streams ask OpenSSL for the
// freeing): a busy connection would otherwise pay an allocation and a free
// per record; an idle one holds about 34 KiB more.
void keep_tls_buffers(ssl_st* ssl);

// The subject of the peer's certificate (RFC 2253, as Java's
// X500Principal.getName() writes it), none when it sent none.
std::optional<std::string> tls_peer_subject(ssl_st* ssl);

// Kafka's check of a listener's new key store against the one it serves
// (SslFactory's): the certificate's subject must stay the same unless
// allow_dn_changes, and it must keep every subject alternative name unless
// allow_san_changes. The refusal in Kafka's words, or none.
std::optional<std::string> tls_keystore_change_refusal(const tls_server_context& serving,
                                                       const tls_server_context& next, bool allow_dn_changes,
                                                       bool allow_san_changes);

// Why the client's certificate failed verification on this connection
// ("certificate has expired"), for the log; none if it did not fail.
std::optional<std::string> tls_client_verify_failure(ssl_st* ssl);

}  // namespace hw::broker
