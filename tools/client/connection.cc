#include "tools/client/connection.h"

#include <netdb.h>
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
#include "protocol/wire/writer.h"

namespace hw::tools {
namespace {

constexpr uint32_t max_response_bytes = 256u << 20;

int millis_until(clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

// Connects without blocking past the deadline; -1 with errno-style reason.
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
  ::fcntl(fd, F_SETFL, flags);
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

std::unique_ptr<connection> connection::open(const host_port& to, clock::time_point deadline, std::string* error) {
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
  return std::unique_ptr<connection>(new connection(fd, to));
}

connection::~connection() {
  if (fd_ >= 0) ::close(fd_);
}

bool connection::write_all(const std::vector<uint8_t>& bytes, clock::time_point deadline, std::string* error) {
  size_t off = 0;
  while (off < bytes.size()) {
    pollfd p{fd_, POLLOUT, 0};
    int n = ::poll(&p, 1, millis_until(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {
      *error = "timed out sending to " + peer_.str();
      return false;
    }
    ssize_t sent = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (sent < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (sent <= 0) {
      *error = "connection to " + peer_.str() + " failed: " + std::strerror(errno);
      return false;
    }
    off += static_cast<size_t>(sent);
  }
  return true;
}

bool connection::read_exact(uint8_t* p, size_t n, clock::time_point deadline, std::string* error) {
  size_t off = 0;
  while (off < n) {
    pollfd pfd{fd_, POLLIN, 0};
    int r = ::poll(&pfd, 1, millis_until(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      *error = "timed out waiting for a response from " + peer_.str();
      return false;
    }
    ssize_t got = ::recv(fd_, p + off, n - off, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got == 0) {
      *error = "connection to " + peer_.str() + " closed by the broker";
      return false;
    }
    if (got < 0) {
      *error = "connection to " + peer_.str() + " failed: " + std::strerror(errno);
      return false;
    }
    off += static_cast<size_t>(got);
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
    ::close(fd_);
    fd_ = -1;
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
