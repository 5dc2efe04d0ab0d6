#pragma once
// The connections of hw_loadgen's commands that speak the protocol
// themselves (fetch, scram): TLS as the -X settings ask for it, a
// blocking connection that sends one request at a time and reads whole
// answers with the protocol library's codecs, and the SASL/PLAIN login of
// fetch's connections.

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <type_traits>

#include "bench/e2e/loadgen.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::loadgen {


// TLS as the -X settings ask for it (security.protocol SSL or SASL_SSL,
// ssl.ca.location, ssl.endpoint.identification.algorithm): one client
// context shared by every connection (OpenSSL allows SSL_new from several
// threads); none for PLAINTEXT and SASL_PLAINTEXT.
struct tls_settings {
  std::shared_ptr<SSL_CTX> context;
  bool verify_host = true;

  static tls_settings from_client_settings() {
    tls_settings t;
    const std::string protocol = upper(client_setting("security.protocol", "plaintext"));
    if (protocol != "SSL" && protocol != "SASL_SSL") return t;
    t.context.reset(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
    if (!t.context) throw std::runtime_error("SSL_CTX_new failed");
    const std::string ca = client_setting("ssl.ca.location");
    if (ca.empty()) throw std::runtime_error("security.protocol " + protocol + " wants -X ssl.ca.location=FILE");
    if (SSL_CTX_load_verify_locations(t.context.get(), ca.c_str(), nullptr) != 1)
      throw std::runtime_error("cannot load the CA certificates of " + ca);
    SSL_CTX_set_verify(t.context.get(), SSL_VERIFY_PEER, nullptr);
    // Every connection a full handshake: what a new client costs the broker.
    SSL_CTX_set_session_cache_mode(t.context.get(), SSL_SESS_CACHE_OFF);
    t.verify_host = client_setting("ssl.endpoint.identification.algorithm", "https") == "https";
    return t;
  }
};

// A blocking connection to one listener that sends requests one at a time
// and reads whole answers (the protocol library's codecs, no librdkafka),
// over TLS when `tls` has a context.
class wire_connection {
 public:
  wire_connection(const std::string& host_port, const tls_settings& tls, const char* client_id)
      : client_id_(client_id) {
    const auto colon = host_port.rfind(':');
    const std::string host = host_port.substr(0, colon);
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(host.c_str(), host_port.substr(colon + 1).c_str(), &hints, &found) != 0)
      throw std::runtime_error("cannot resolve " + host_port);
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    const bool ok = fd_ >= 0 && connect(fd_, found->ai_addr, found->ai_addrlen) == 0;
    const int error = errno;
    freeaddrinfo(found);
    if (!ok) {
      release();
      throw std::runtime_error("cannot connect to " + host_port + ": " + std::strerror(error));
    }
    const int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    try {
      if (tls.context) start_tls(host, tls);
    } catch (...) {
      release();  // no destructor for a constructor that throws
      throw;
    }
  }
  ~wire_connection() {
    // close_notify, as a client closing cleanly sends (not after a TLS error: OpenSSL forbids it)
    if (ssl_ && !tls_broken_) SSL_shutdown(ssl_);
    release();
  }
  wire_connection(const wire_connection&) = delete;
  wire_connection& operator=(const wire_connection&) = delete;

  // Sends the request and returns the answer's frame (after its size); the
  // frame is this connection's buffer, valid until the next call.
  template <typename Request>
  std::vector<uint8_t>& call(const Request& request, int16_t version) {
    const int16_t api_key = Request::schema.api_key;
    out_.assign(4, 0);
    hw::protocol::writer w(out_);
    hw::protocol::msg::request_header h;
    h.request_api_key = api_key;
    h.request_api_version = version;
    h.correlation_id = ++correlation_id_;
    h.client_id = client_id_;
    h.encode(w, hw::protocol::request_header_version(api_key, version));
    request.encode(w, version);
    const uint32_t size = htonl(static_cast<uint32_t>(out_.size() - 4));
    std::memcpy(out_.data(), &size, 4);
    send_all(out_.data(), out_.size());
    uint32_t answer_size = 0;
    read_all(reinterpret_cast<uint8_t*>(&answer_size), 4);
    in_.resize(ntohl(answer_size));
    read_all(in_.data(), in_.size());
    return in_;
  }

  // call() and the answer decoded, its header checked.
  template <typename Response, typename Request>
  Response round_trip(const Request& request, int16_t version) {
    hw::protocol::reader r(call(request, version));
    hw::protocol::msg::response_header h;
    h.decode(r, hw::protocol::response_header_version(Request::schema.api_key, version));
    Response answer;
    answer.decode(r, version);
    if (!r.ok() || h.correlation_id != correlation_id_)
      throw std::runtime_error(std::string("an answer to ") + Request::schema.name + " that does not decode");
    return answer;
  }

 private:
  void release() {
    if (ssl_) SSL_free(ssl_);
    ssl_ = nullptr;
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

  [[noreturn]] void tls_failed(const std::string& what) {
    tls_broken_ = true;
    char reason[256] = "";
    ERR_error_string_n(ERR_get_error(), reason, sizeof reason);
    ERR_clear_error();
    throw std::runtime_error(what + ": " + reason);
  }

  void start_tls(const std::string& host, const tls_settings& tls) {
    ssl_ = SSL_new(tls.context.get());
    if (!ssl_ || SSL_set_fd(ssl_, fd_) != 1) tls_failed("cannot start TLS");
    unsigned char address[16];
    const bool is_ip = inet_pton(AF_INET, host.c_str(), address) == 1;
    if (!is_ip) SSL_set_tlsext_host_name(ssl_, host.c_str());
    if (tls.verify_host) {
      X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
      if (is_ip)
        X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
      else
        X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
    }
    if (SSL_connect(ssl_) != 1) tls_failed("TLS handshake with " + host);
  }

  void send_all(const uint8_t* p, size_t n) {
    while (n > 0) {
      size_t k = 0;
      if (ssl_) {
        if (SSL_write_ex(ssl_, p, n, &k) != 1) tls_failed("TLS write failed");
      } else {
        const ssize_t sent = ::send(fd_, p, n, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) throw std::runtime_error("send failed");
        k = static_cast<size_t>(sent);
      }
      p += k;
      n -= k;
    }
  }
  void read_all(uint8_t* p, size_t n) {
    while (n > 0) {
      size_t k = 0;
      if (ssl_) {
        if (SSL_read_ex(ssl_, p, n, &k) != 1) tls_failed("connection closed by the broker (TLS)");
      } else {
        const ssize_t got = ::recv(fd_, p, n, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) throw std::runtime_error("connection closed by the broker");
        k = static_cast<size_t>(got);
      }
      p += k;
      n -= k;
    }
  }
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  bool tls_broken_ = false;
  const char* client_id_;
  int32_t correlation_id_ = 0;
  std::vector<uint8_t> out_;
  std::vector<uint8_t> in_;
};

// SASL/PLAIN as the -X settings ask for it (security.protocol SASL_PLAINTEXT
// or SASL_SSL, sasl.mechanism PLAIN, sasl.username, sasl.password): the
// login a connection makes before its first request, as librdkafka's
// does (SaslHandshake v1, one SaslAuthenticate v2 with the PLAIN token).
// None for PLAINTEXT and SSL. Read-only once made.
struct plain_login {
  std::string user;
  std::string password;

  static plain_login from_client_settings() {
    plain_login l;
    const std::string protocol = upper(client_setting("security.protocol", "plaintext"));
    if (protocol != "SASL_PLAINTEXT" && protocol != "SASL_SSL") return l;
    if (upper(client_setting("sasl.mechanism", "GSSAPI")) != "PLAIN")
      throw std::runtime_error("security.protocol " + protocol + " wants -X sasl.mechanism=PLAIN here");
    l.user = client_setting("sasl.username");
    l.password = client_setting("sasl.password");
    if (l.user.empty()) throw std::runtime_error("sasl.mechanism PLAIN wants -X sasl.username and sasl.password");
    return l;
  }

  // Logs the connection in; throws what the broker answered (never the password).
  void run(wire_connection& c) const {
    if (user.empty()) return;
    namespace msg = hw::protocol::msg;
    msg::sasl_handshake_request handshake;
    handshake.mechanism = "PLAIN";
    if (const auto a = c.round_trip<msg::sasl_handshake_response>(handshake, 1); a.error_code != 0)
      throw std::runtime_error("SaslHandshake error " + std::to_string(a.error_code));
    msg::sasl_authenticate_request request;
    const std::string token = std::string(1, '\0') + user + std::string(1, '\0') + password;
    request.auth_bytes.assign(token.begin(), token.end());
    if (const auto a = c.round_trip<msg::sasl_authenticate_response>(request, 2); a.error_code != 0)
      throw std::runtime_error("SaslAuthenticate error " + std::to_string(a.error_code) + ": " +
                               a.error_message.value_or(""));
  }
};

}  // namespace hw::loadgen
