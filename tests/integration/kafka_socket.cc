#include "kafka_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "protocol/messages/api_registry.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/headers.h"
#include "protocol/wire/writer.h"

namespace hw::testing {

namespace {

int connect_to(const endpoint& to) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(to.port);
  if (::inet_pton(AF_INET, to.host.c_str(), &addr.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// OpenSSL's queued errors, oldest first ("...:tlsv13 alert certificate required").
std::string openssl_errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out;
}

}  // namespace

kafka_socket::kafka_socket(const endpoint& to) : fd_(connect_to(to)) {}

kafka_socket::kafka_socket(const endpoint& to, const tls_client& tls) : fd_(connect_to(to)) {
  if (fd_ < 0) {
    tls_error_ = "connect failed";
    return;
  }
  // OpenSSL writes with write(2): a broker that closes mid-handshake must
  // fail the write, not kill the test with SIGPIPE.
  static const bool sigpipe_ignored = (std::signal(SIGPIPE, SIG_IGN), true);
  (void)sigpipe_ignored;
  ERR_clear_error();
  ctx_ = SSL_CTX_new(TLS_client_method());
  bool ok = ctx_ != nullptr;
  if (ok && !tls.ca_file.empty()) {
    ok = SSL_CTX_load_verify_locations(ctx_, tls.ca_file.c_str(), nullptr) == 1;
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  }
  if (ok && !tls.chain_file.empty()) {
    // OpenSSL's default password callback reads the user data as the password.
    if (!tls.key_password.empty())
      SSL_CTX_set_default_passwd_cb_userdata(ctx_, const_cast<char*>(tls.key_password.c_str()));
    ok = SSL_CTX_use_certificate_chain_file(ctx_, tls.chain_file.c_str()) == 1 &&
         SSL_CTX_use_PrivateKey_file(ctx_, tls.key_file.c_str(), SSL_FILETYPE_PEM) == 1;
    SSL_CTX_set_default_passwd_cb_userdata(ctx_, nullptr);
  }
  if (ok) ssl_ = SSL_new(ctx_);
  ok = ok && ssl_ && SSL_set_fd(ssl_, fd_) == 1;
  if (ok && !tls.server_name.empty()) {
    SSL_set_tlsext_host_name(ssl_, tls.server_name.c_str());
    if (!tls.ca_file.empty()) ok = SSL_set1_host(ssl_, tls.server_name.c_str()) == 1;
  }
  // The handshake blocks; a server that never answers must not hang the test.
  timeval limit{10, 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  if (ok && SSL_connect(ssl_) == 1) return;
  tls_error_ = openssl_errors();
  if (ssl_ && SSL_get_verify_result(ssl_) != X509_V_OK)
    tls_error_ += std::string(tls_error_.empty() ? "" : "; ") +
                  X509_verify_cert_error_string(SSL_get_verify_result(ssl_));
  if (tls_error_.empty()) tls_error_ = "TLS handshake failed";
  close_fd();
}

kafka_socket::~kafka_socket() { close_fd(); }

void kafka_socket::close_fd() {
  if (ssl_) SSL_free(ssl_);
  if (ctx_) SSL_CTX_free(ctx_);
  ssl_ = nullptr;
  ctx_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool kafka_socket::send_raw(const std::vector<uint8_t>& bytes) {
  if (fd_ < 0) return false;
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ssl_ ? SSL_write(ssl_, bytes.data() + off, static_cast<int>(bytes.size() - off))
                     : ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && !ssl_ && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

bool kafka_socket::send_frame(const std::vector<uint8_t>& frame) { return send_raw(with_size(frame)); }

long kafka_socket::read_some(uint8_t* p, size_t n, std::chrono::steady_clock::time_point deadline) {
  if (fd_ < 0) return -1;
  for (;;) {
    // Bytes OpenSSL already decrypted are not on the socket any more.
    if (!ssl_ || SSL_pending(ssl_) == 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return -2;
      pollfd pfd{fd_, POLLIN, 0};
      int r = ::poll(&pfd, 1, static_cast<int>(left.count()));
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) return -2;
      if (r < 0) return -1;
    }
    if (!ssl_) {
      ssize_t got = ::recv(fd_, p, n, 0);
      if (got < 0 && errno == EINTR) continue;
      return got < 0 ? -1 : static_cast<long>(got);
    }
    ERR_clear_error();
    errno = 0;
    int got = SSL_read(ssl_, p, static_cast<int>(n));
    if (got > 0) return got;
    switch (SSL_get_error(ssl_, got)) {
      case SSL_ERROR_WANT_READ:
      case SSL_ERROR_WANT_WRITE:
        continue;  // a post-handshake message (a session ticket) and no data yet
      case SSL_ERROR_ZERO_RETURN:
        return 0;  // close_notify
      case SSL_ERROR_SYSCALL:
        if (errno == 0) return 0;  // EOF without close_notify
        return -1;
      default:
        tls_error_ = openssl_errors();  // an alert from the server
        return -1;
    }
  }
}

bool kafka_socket::read_exact(uint8_t* p, size_t n, std::chrono::steady_clock::time_point deadline) {
  size_t off = 0;
  while (off < n) {
    long got = read_some(p + off, n - off, deadline);
    if (got <= 0) return false;
    off += static_cast<size_t>(got);
  }
  return true;
}

std::optional<std::vector<uint8_t>> kafka_socket::read_frame(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  uint8_t size_bytes[4];
  if (!read_exact(size_bytes, 4, deadline)) return std::nullopt;
  uint32_t size = (uint32_t(size_bytes[0]) << 24) | (uint32_t(size_bytes[1]) << 16) | (uint32_t(size_bytes[2]) << 8) |
                  uint32_t(size_bytes[3]);
  if (size > (64u << 20)) return std::nullopt;
  std::vector<uint8_t> frame(size);
  if (!read_exact(frame.data(), size, deadline)) return std::nullopt;
  return frame;
}

bool kafka_socket::closed_by_peer(std::chrono::milliseconds timeout) {
  uint8_t b;
  long got = read_some(&b, 1, std::chrono::steady_clock::now() + timeout);
  if (got == 0) return true;                                                // EOF
  if (got == -1) return ssl_ || errno == ECONNRESET || errno == EPIPE;      // reset, or torn down by an alert
  return false;                                                             // unexpected data, or still open
}

std::optional<std::vector<uint8_t>> kafka_socket::read_until_closed(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<uint8_t> got;
  for (;;) {
    uint8_t buf[4096];
    long n = read_some(buf, sizeof buf, deadline);
    if (n == -2) return std::nullopt;
    if (n <= 0) return got;
    got.insert(got.end(), buf, buf + n);
  }
}

std::vector<uint8_t> request_frame(int16_t key, int16_t version, int32_t correlation_id,
                                   const std::vector<uint8_t>& body, const std::string& client_id) {
  protocol::msg::request_header h;
  h.request_api_key = key;
  h.request_api_version = version;
  h.correlation_id = correlation_id;
  h.client_id = client_id;
  std::vector<uint8_t> out;
  protocol::writer w(out);
  h.encode(w, protocol::request_header_version(key, version));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

std::vector<uint8_t> api_versions_frame(int16_t version, int32_t correlation_id) {
  protocol::msg::api_versions_request r;
  r.client_software_name = "highwater-it";
  r.client_software_version = "1.0";
  std::vector<uint8_t> body;
  protocol::writer w(body);
  if (version <= 4) r.encode(w, version);
  return request_frame(18, version, correlation_id, body);
}

std::vector<uint8_t> with_size(const std::vector<uint8_t>& frame) {
  std::vector<uint8_t> out;
  protocol::writer w(out);
  w.write_int32(static_cast<int32_t>(frame.size()));
  out.insert(out.end(), frame.begin(), frame.end());
  return out;
}

}  // namespace hw::testing
