#include "tools/client/connection.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>

#include "protocol/messages/api_registry.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/sasl/scram_client.h"
#include "protocol/wire/writer.h"

namespace hw::tools {
namespace {

constexpr uint32_t max_response_bytes = 256u << 20;

int millis_until(clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

// Waits until fd is readable (or writable) or the deadline passes; false
// on the deadline.
bool wait_for(int fd, bool write, clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, static_cast<short>(write ? POLLOUT : POLLIN), 0};
    int n = ::poll(&p, 1, millis_until(deadline));
    if (n < 0 && errno == EINTR) continue;
    return n > 0;
  }
}

constexpr const char* ssl_failed = "org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed";
constexpr const char* ssl_post_handshake_failed =
    "org.apache.kafka.common.errors.SslAuthenticationException: Failed to process post-handshake messages";

// Connects without blocking past the deadline (the socket stays
// non-blocking: every read and write waits with poll); -1 with errno-style
// reason.
int connect_before(const addrinfo* ai, clock::time_point deadline, std::string* reason) {
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd < 0) {
    *reason = std::strerror(errno);
    return -1;
  }
  int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    int n;
    do n = ::poll(&p, 1, millis_until(deadline));
    while (n < 0 && errno == EINTR);
    if (n == 0) {
      *reason = "timed out";
      ::close(fd);
      return -1;
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    rc = err == 0 ? 0 : -1;
    errno = err;
  }
  if (rc != 0) {
    *reason = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

bool parse_host_ports(const std::string& list, std::vector<host_port>* out, std::string* error) {
  out->clear();
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string entry = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? list.size() + 1 : comma + 1;
    while (!entry.empty() && entry.front() == ' ') entry.erase(entry.begin());
    while (!entry.empty() && entry.back() == ' ') entry.pop_back();
    if (entry.empty()) continue;
    size_t colon = entry.rfind(':');
    int port = 0;
    if (colon == std::string::npos || colon == 0 ||
        std::from_chars(entry.data() + colon + 1, entry.data() + entry.size(), port).ec != std::errc{} || port <= 0 ||
        port > 65535) {
      *error = "Invalid url in bootstrap.servers: " + entry;
      return false;
    }
    std::string host = entry.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    out->push_back({host, static_cast<uint16_t>(port)});
  }
  if (out->empty()) {
    *error = "No resolvable bootstrap urls given in bootstrap.servers";
    return false;
  }
  return true;
}

std::unique_ptr<connection> connection::open(const host_port& to, clock::time_point deadline, std::string* error,
                                             const connection_security* security) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string port = std::to_string(to.port);
  if (int rc = ::getaddrinfo(to.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    *error = "cannot resolve " + to.host + ": " + ::gai_strerror(rc);
    return nullptr;
  }
  std::string reason = "no address";
  int fd = -1;
  for (addrinfo* ai = found; ai && fd < 0; ai = ai->ai_next) fd = connect_before(ai, deadline, &reason);
  ::freeaddrinfo(found);
  if (fd < 0) {
    *error = "cannot connect to " + to.str() + ": " + reason;
    return nullptr;
  }
  std::unique_ptr<connection> c(new connection(fd, to));
  if (!security) return c;
  if (security->tls && !c->start_tls(*security, deadline, error)) return nullptr;
  if (!security->sasl_mechanism.empty() && !c->authenticate(*security, deadline, error)) return nullptr;
  return c;
}

connection::~connection() { close_now(); }

void connection::close_now() {
  if (ssl_) SSL_free(ssl_);
  ssl_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool connection::start_tls(const connection_security& s, clock::time_point deadline, std::string* error) {
  ssl_ = SSL_new(s.tls.get());
  if (!ssl_ || SSL_set_fd(ssl_, fd_) != 1) {
    *error = "cannot start TLS to " + peer_.str() + ": " + std::to_string(ERR_get_error());
    ERR_clear_error();
    return false;
  }
  unsigned char ip[16];
  const bool is_ip = ::inet_pton(AF_INET, peer_.host.c_str(), ip) == 1 || ::inet_pton(AF_INET6, peer_.host.c_str(), ip) == 1;
  // Java sends the host name (never an address) as SNI, and with endpoint
  // identification checks it, or the address, against the certificate's
  // subject alternative names.
  if (!is_ip) SSL_set_tlsext_host_name(ssl_, peer_.host.c_str());
  if (s.verify_host) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    if (is_ip) {
      X509_VERIFY_PARAM_set1_ip_asc(param, peer_.host.c_str());
    } else {
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      X509_VERIFY_PARAM_set1_host(param, peer_.host.c_str(), 0);
    }
  }
  for (;;) {
    int rc = SSL_connect(ssl_);
    if (rc == 1) break;
    int e = SSL_get_error(ssl_, rc);
    if ((e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) && wait_for(fd_, e == SSL_ERROR_WANT_WRITE, deadline))
      continue;
    ERR_clear_error();
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      *error = "timed out in the TLS handshake with " + peer_.str();
    } else {
      *error = ssl_failed;
    }
    close_now();
    return false;
  }
  return true;
}

bool connection::authenticate(const connection_security& s, clock::time_point deadline, std::string* error) {
  // ApiVersions first, as Kafka's SaslClientAuthenticator does, then the
  // handshake naming the mechanism.
  if (!handshake(deadline, error)) return false;
  auto hv = version_for(protocol::msg::sasl_handshake_request::schema.api_key, 1, 1);
  auto av = version_for(protocol::msg::sasl_authenticate_request::schema.api_key, 0, 2);
  if (!hv || !av) {
    *error = "org.apache.kafka.common.errors.IllegalSaslStateException: " + peer_.str() +
             " does not offer SaslHandshake v1 and SaslAuthenticate";
    return false;
  }
  {
    protocol::msg::sasl_handshake_request req;
    req.mechanism = s.sasl_mechanism;
    std::vector<uint8_t> body, resp_bytes;
    protocol::writer w(body);
    req.encode(w, *hv);
    if (!call(req.schema.api_key, *hv, body, &resp_bytes, deadline, error)) return false;
    protocol::reader r(resp_bytes);
    protocol::msg::sasl_handshake_response resp;
    resp.decode(r, *hv);
    if (!r.ok()) {
      *error = "malformed SaslHandshake response from " + peer_.str();
      return false;
    }
    if (resp.error_code == 33) {  // UNSUPPORTED_SASL_MECHANISM
      std::string enabled;
      for (const auto& m : resp.mechanisms) enabled += (enabled.empty() ? "" : ", ") + m;
      *error = "org.apache.kafka.common.errors.UnsupportedSaslMechanismException: Client SASL mechanism '" +
               s.sasl_mechanism + "' not enabled in the server, enabled mechanisms are [" + enabled + "]";
      return false;
    }
    if (resp.error_code != 0) {
      *error = "org.apache.kafka.common.errors.IllegalSaslStateException: Unexpected handshake request with client "
               "mechanism " + s.sasl_mechanism + ", enabled mechanisms are []";
      return false;
    }
  }
  std::optional<protocol::scram_client> scram;
  if (auto m = protocol::parse_scram_mechanism(s.sasl_mechanism)) {
    scram.emplace(*m, s.username, s.password);
    scram->set_token_auth(s.token_auth);
  }
  std::string token = scram ? scram->client_first() : protocol::plain_client_token(s.username, s.password);
  for (int round = 1;; ++round) {
    protocol::msg::sasl_authenticate_request req;
    req.auth_bytes.assign(token.begin(), token.end());
    token.assign(token.size(), '\0');
    std::vector<uint8_t> body, resp_bytes;
    protocol::writer w(body);
    req.encode(w, *av);
    std::fill(req.auth_bytes.begin(), req.auth_bytes.end(), 0);
    const bool sent = call(req.schema.api_key, *av, body, &resp_bytes, deadline, error);
    std::fill(body.begin(), body.end(), 0);
    if (!sent) return false;
    protocol::reader r(resp_bytes);
    protocol::msg::sasl_authenticate_response resp;
    resp.decode(r, *av);
    if (!r.ok()) {
      *error = "malformed SaslAuthenticate response from " + peer_.str();
      return false;
    }
    if (resp.error_code != 0) {
      // The broker's message, as Kafka's client raises it (never a secret).
      *error = "org.apache.kafka.common.errors." +
               std::string(resp.error_code == 58 ? "SaslAuthenticationException" : "IllegalSaslStateException") + ": " +
               resp.error_message.value_or(resp.error_code == 58 ? "Authentication failed" : "Illegal SASL state");
      close_now();
      return false;
    }
    const std::string_view answer(reinterpret_cast<const char*>(resp.auth_bytes.data()), resp.auth_bytes.size());
    if (!scram) return true;  // PLAIN: one round
    std::string why;
    if (round == 1) {
      auto final_message = scram->client_final(answer, &why);
      if (final_message) {
        token = std::move(*final_message);
        continue;
      }
    } else if (scram->verify_server_final(answer, &why)) {
      return true;
    }
    *error = "org.apache.kafka.common.errors.SaslAuthenticationException: SCRAM exchange with " + peer_.str() +
             " failed: " + why;
    close_now();
    return false;
  }
}

bool connection::write_all(const std::vector<uint8_t>& bytes, clock::time_point deadline, std::string* error) {
  size_t off = 0;
  while (off < bytes.size()) {
    bool want_write = true;
    if (ssl_) {
      size_t sent = 0;
      int rc = SSL_write_ex(ssl_, bytes.data() + off, bytes.size() - off, &sent);
      if (rc == 1) {
        off += sent;
        continue;
      }
      int e = SSL_get_error(ssl_, rc);
      ERR_clear_error();
      if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
        *error = e == SSL_ERROR_SSL ? std::string(ssl_failed) : "connection to " + peer_.str() + " failed";
        return false;
      }
      want_write = e == SSL_ERROR_WANT_WRITE;
    } else {
      ssize_t sent = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (sent > 0) {
        off += static_cast<size_t>(sent);
        continue;
      }
      if (sent < 0 && errno != EINTR && errno != EAGAIN) {
        *error = "connection to " + peer_.str() + " failed: " + std::strerror(errno);
        return false;
      }
    }
    if (!wait_for(fd_, want_write, deadline)) {
      *error = "timed out sending to " + peer_.str();
      return false;
    }
  }
  return true;
}

bool connection::read_exact(uint8_t* p, size_t n, clock::time_point deadline, std::string* error) {
  size_t off = 0;
  while (off < n) {
    bool want_write = false;
    if (ssl_) {
      size_t got = 0;
      int rc = SSL_read_ex(ssl_, p + off, n - off, &got);
      if (rc == 1) {
        off += got;
        continue;
      }
      int e = SSL_get_error(ssl_, rc);
      ERR_clear_error();
      if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0)) {
        *error = "connection to " + peer_.str() + " closed by the broker";
        return false;
      }
      if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
        // With TLS 1.3 the server's refusal of a client certificate comes
        // after the client's side of the handshake, as an alert read here:
        // Java's words for it.
        *error = e == SSL_ERROR_SSL ? std::string(ssl_post_handshake_failed)
                                    : "connection to " + peer_.str() + " failed";
        return false;
      }
      want_write = e == SSL_ERROR_WANT_WRITE;
    } else {
      ssize_t got = ::recv(fd_, p + off, n - off, 0);
      if (got > 0) {
        off += static_cast<size_t>(got);
        continue;
      }
      if (got == 0) {
        *error = "connection to " + peer_.str() + " closed by the broker";
        return false;
      }
      if (errno != EINTR && errno != EAGAIN) {
        *error = "connection to " + peer_.str() + " failed: " + std::strerror(errno);
        return false;
      }
    }
    if (!wait_for(fd_, want_write, deadline)) {
      *error = "timed out waiting for a response from " + peer_.str();
      return false;
    }
  }
  return true;
}

bool connection::call(int16_t api_key, int16_t api_version, const std::vector<uint8_t>& body,
                      std::vector<uint8_t>* response, clock::time_point deadline, std::string* error) {
  if (fd_ < 0) {
    *error = "connection to " + peer_.str() + " is closed";
    return false;
  }
  protocol::msg::request_header h;
  h.request_api_key = api_key;
  h.request_api_version = api_version;
  h.correlation_id = next_correlation_id_++;
  h.client_id = "highwater-tools";
  std::vector<uint8_t> frame;
  protocol::writer w(frame);
  w.write_int32(0);  // size, patched below
  h.encode(w, protocol::request_header_version(api_key, api_version));
  frame.insert(frame.end(), body.begin(), body.end());
  uint32_t size = static_cast<uint32_t>(frame.size() - 4);
  for (int i = 0; i < 4; ++i) frame[static_cast<size_t>(i)] = static_cast<uint8_t>(size >> (24 - 8 * i));

  auto fail = [&] {
    close_now();
    return false;
  };
  if (!write_all(frame, deadline, error)) return fail();
  uint8_t size_bytes[4];
  if (!read_exact(size_bytes, 4, deadline, error)) return fail();
  uint32_t rsize = (uint32_t(size_bytes[0]) << 24) | (uint32_t(size_bytes[1]) << 16) |
                   (uint32_t(size_bytes[2]) << 8) | uint32_t(size_bytes[3]);
  if (rsize > max_response_bytes) {
    *error = "response of " + std::to_string(rsize) + " bytes from " + peer_.str() + " is too large";
    return fail();
  }
  std::vector<uint8_t> whole(rsize);
  if (!read_exact(whole.data(), rsize, deadline, error)) return fail();
  protocol::reader r(whole);
  protocol::msg::response_header rh;
  rh.decode(r, protocol::response_header_version(api_key, api_version));
  if (!r.ok() || rh.correlation_id != h.correlation_id) {
    *error = "malformed response header from " + peer_.str();
    return fail();
  }
  response->assign(whole.begin() + static_cast<std::ptrdiff_t>(r.position()), whole.end());
  return true;
}

bool connection::handshake(clock::time_point deadline, std::string* error) {
  if (!versions_.empty()) return true;
  protocol::msg::api_versions_request req;
  req.client_software_name = "highwater-tools";
  req.client_software_version = "1.0";
  // v3 first (flexible); a broker that does not know it answers in v0 with
  // UNSUPPORTED_VERSION and its range, as KIP-511 specifies.
  for (int16_t version : {int16_t(3), int16_t(0)}) {
    std::vector<uint8_t> body;
    protocol::writer w(body);
    req.encode(w, version);
    std::vector<uint8_t> resp_bytes;
    if (!call(18, version, body, &resp_bytes, deadline, error)) return false;
    protocol::reader r(resp_bytes);
    protocol::msg::api_versions_response resp;
    // An UNSUPPORTED_VERSION answer is always encoded as v0.
    resp.decode(r, version);
    if (!r.ok()) {
      protocol::reader r0(resp_bytes);
      resp = {};
      resp.decode(r0, 0);
      if (!r0.ok()) {
        *error = "malformed ApiVersions response from " + peer_.str();
        return false;
      }
    }
    if (resp.error_code == 35 && version != 0) continue;
    if (resp.error_code != 0) {
      *error = "ApiVersions failed at " + peer_.str() + " with error code " + std::to_string(resp.error_code);
      return false;
    }
    for (const auto& k : resp.api_keys) {
      if (k.api_key < 0 || k.api_key > 10000) continue;
      if (versions_.size() <= static_cast<size_t>(k.api_key)) versions_.resize(static_cast<size_t>(k.api_key) + 1, {-1, -1});
      versions_[static_cast<size_t>(k.api_key)] = {k.min_version, k.max_version};
    }
    return true;
  }
  *error = "ApiVersions failed at " + peer_.str();
  return false;
}

std::optional<int16_t> connection::version_for(int16_t api_key, int16_t client_min, int16_t client_max) const {
  if (api_key < 0 || static_cast<size_t>(api_key) >= versions_.size()) return std::nullopt;
  auto [lo, hi] = versions_[static_cast<size_t>(api_key)];
  if (lo < 0) return std::nullopt;
  int16_t v = std::min(hi, client_max);
  if (v < std::max(lo, client_min)) return std::nullopt;
  return v;
}

}  // namespace hw::tools
