#include "kafka_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "protocol/messages/api_registry.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/headers.h"
#include "protocol/wire/writer.h"

namespace hw::testing {

kafka_socket::kafka_socket(const endpoint& to) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(to.port);
  if (::inet_pton(AF_INET, to.host.c_str(), &addr.sin_addr) != 1 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

kafka_socket::~kafka_socket() {
  if (fd_ >= 0) ::close(fd_);
}

bool kafka_socket::send_raw(const std::vector<uint8_t>& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

bool kafka_socket::send_frame(const std::vector<uint8_t>& frame) { return send_raw(with_size(frame)); }

bool kafka_socket::read_exact(uint8_t* p, size_t n, std::chrono::steady_clock::time_point deadline) {
  size_t off = 0;
  while (off < n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{fd_, POLLIN, 0};
    int r = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    ssize_t got = ::recv(fd_, p + off, n - off, 0);
    if (got < 0 && errno == EINTR) continue;
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
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{fd_, POLLIN, 0};
    int r = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return false;
    uint8_t b;
    ssize_t got = ::recv(fd_, &b, 1, 0);
    if (got == 0) return true;                                       // EOF
    if (got < 0) return errno == ECONNRESET || errno == EPIPE;       // reset
    return false;                                                    // unexpected data
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
