#include "broker/network/kafka_client.h"

#include <algorithm>
#include <array>
#include <random>

#include <boost/asio/ssl.hpp>
#include <spdlog/spdlog.h>

#include "broker/network/frame_size.h"
#include "broker/security/sasl_client.h"
#include "broker/security/tls_context.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"

namespace hw::broker {
namespace {

class client_category_impl : public std::error_category {
 public:
  const char* name() const noexcept override { return "kafka_client"; }
  std::string message(int e) const override {
    switch (static_cast<client_errc>(e)) {
      case client_errc::connect_failed: return "cannot connect";
      case client_errc::timed_out: return "request timed out";
      case client_errc::disconnected: return "disconnected";
      case client_errc::bad_response: return "malformed response";
      case client_errc::closed: return "client closed";
      case client_errc::authentication_failed: return "authentication failed";
    }
    return "unknown kafka_client error";
  }
};

// Requests written with one gathering write at most.
constexpr size_t k_max_write_batch = 64;

}  // namespace

const std::error_category& client_category() {
  static const client_category_impl category;
  return category;
}

std::shared_ptr<kafka_client> kafka_client::create(asio::any_io_executor strand, kafka_client_options options) {
  return std::shared_ptr<kafka_client>(new kafka_client(std::move(strand), std::move(options)));
}

kafka_client::kafka_client(asio::any_io_executor strand, kafka_client_options options)
    : strand_(std::move(strand)),
      options_(std::move(options)),
      socket_(strand_),
      writer_wake_(strand_, asio::steady_timer::time_point::max()),
      connect_done_(strand_, asio::steady_timer::time_point::max()),
      reauthenticated_(strand_, asio::steady_timer::time_point::max()),
      drained_(strand_, asio::steady_timer::time_point::max()) {}

kafka_client::~kafka_client() = default;

void kafka_client::close() {
  if (state_ == state::closed) return;
  state_ = state::closed;
  ++generation_;
  error_code ignored;
  socket_.close(ignored);
  fail_all(make_error_code(client_errc::closed));
  writer_wake_.cancel();
  connect_done_.cancel();
}

void kafka_client::finish(const std::shared_ptr<pending>& p, std::error_code ec) {
  p->error = ec;
  p->done = true;
  p->wake.cancel();
}

void kafka_client::fail_all(std::error_code ec) {
  auto doomed = std::move(in_flight_);
  in_flight_.clear();
  outgoing_.clear();
  for (auto& [corr, p] : doomed) finish(p, ec);
  drained_.cancel();
}

void kafka_client::drop_connection(std::error_code ec) {
  if (state_ != state::connected) return;
  state_ = state::idle;
  ++generation_;
  error_code ignored;
  socket_.close(ignored);
  // As after a failed attempt, the next one waits the base backoff.
  backoff_ = options_.reconnect_backoff;
  next_attempt_ = std::chrono::steady_clock::now() + backoff_;
  fail_all(ec);
  writer_wake_.cancel();
}

asio::awaitable<std::error_code> kafka_client::ensure_connected() {
  auto self = shared_from_this();
  while (state_ == state::connecting) {
    error_code ignored;
    co_await connect_done_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  if (state_ == state::closed) co_return make_error_code(client_errc::closed);
  if (state_ == state::connected) co_return std::error_code{};
  if (std::chrono::steady_clock::now() < next_attempt_) co_return make_error_code(client_errc::connect_failed);

  state_ = state::connecting;
  const uint64_t attempt = ++generation_;
  error_code ec;
  tcp::resolver resolver(strand_);
  auto endpoints = co_await resolver.async_resolve(options_.host, std::to_string(options_.port),
                                                   asio::redirect_error(asio::use_awaitable, ec));
  if (!ec) {
    // The watchdog closes a socket still connecting when the timeout passes.
    asio::steady_timer watchdog(strand_, options_.connect_timeout);
    watchdog.async_wait([this, self, attempt](error_code e) {
      if (e || generation_ != attempt || state_ != state::connecting) return;
      error_code ignored;
      socket_.close(ignored);
    });
    co_await asio::async_connect(socket_, endpoints, asio::redirect_error(asio::use_awaitable, ec));
    tls_.reset();
    reauthenticate_at_.reset();
    if (!ec && options_.security.tls && state_ == state::connecting && generation_ == attempt) {
      std::string refused = co_await start_tls();
      if (!refused.empty()) {
        spdlog::warn("TLS handshake with {}:{} failed: {}", options_.host, options_.port, refused);
        ec = asio::error::connection_refused;
      }
    }
    if (!ec && options_.security.sasl && state_ == state::connecting && generation_ == attempt) {
      // The watchdog covers the exchange too: a peer that never answers it
      // fails the attempt like one that never accepts.
      std::string refused = co_await authenticate();
      if (!refused.empty()) {
        spdlog::warn("Authentication with {}:{} as {} ({}) failed: {}", options_.host, options_.port,
                     options_.security.sasl->username, options_.security.sasl->mechanism, refused);
        ec = asio::error::access_denied;
      }
    }
    watchdog.cancel();
  }
  if (state_ == state::closed) {
    // close() ran meanwhile and already failed everything.
    error_code ignored;
    socket_.close(ignored);
    co_return make_error_code(client_errc::closed);
  }
  if (ec || generation_ != attempt) {
    error_code ignored;
    socket_.close(ignored);
    state_ = state::idle;
    backoff_ = backoff_.count() == 0 ? options_.reconnect_backoff
                                      : std::min(backoff_ * 2, options_.reconnect_backoff_max);
    next_attempt_ = std::chrono::steady_clock::now() + backoff_;
    connect_done_.cancel();
    co_return make_error_code(ec == asio::error::access_denied ? client_errc::authentication_failed
                                                               : client_errc::connect_failed);
  }
  error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  state_ = state::connected;
  backoff_ = std::chrono::milliseconds(0);
  const uint64_t generation = ++generation_;
  asio::co_spawn(strand_, read_loop(generation), asio::detached);
  asio::co_spawn(strand_, write_loop(generation), asio::detached);
  connect_done_.cancel();
  co_return std::error_code{};
}

asio::awaitable<std::optional<client_response>> kafka_client::round_trip(int16_t api_key, int16_t api_version,
                                                                         const std::vector<uint8_t>& body) {
  protocol::msg::request_header header;
  header.request_api_key = api_key;
  header.request_api_version = api_version;
  header.correlation_id = next_correlation_++;
  header.client_id = options_.client_id;
  const int16_t header_version = protocol::request_header_version(api_key, api_version);
  std::vector<uint8_t> frame;
  protocol::writer w(frame);
  w.write_int32(static_cast<int32_t>(header.encoded_size(header_version) + body.size()));
  header.encode(w, header_version);
  w.write_raw(std::span<const uint8_t>(body));
  error_code ec;
  std::vector<asio::const_buffer> out_buffers{asio::buffer(frame)};
  co_await write_all(tls_, out_buffers, ec);
  std::array<uint8_t, 4> size_bytes{};
  if (!ec) co_await read_all(tls_, asio::buffer(size_bytes), ec);
  if (ec) co_return std::nullopt;
  const int32_t size = static_cast<int32_t>((uint32_t{size_bytes[0]} << 24) | (uint32_t{size_bytes[1]} << 16) |
                                            (uint32_t{size_bytes[2]} << 8) | uint32_t{size_bytes[3]});
  if (frame_size_error(size, options_.max_response_bytes) || size < 4) co_return std::nullopt;
  client_response out;
  out.frame = frame_bytes::uninitialized(static_cast<size_t>(size));
  co_await read_all(tls_, asio::buffer(out.frame.data.get(), out.frame.size), ec);
  if (ec) co_return std::nullopt;
  protocol::reader r(out.frame.bytes());
  protocol::msg::response_header response_header;
  response_header.decode(r, protocol::response_header_version(api_key, api_version));
  if (!r.ok() || response_header.correlation_id != header.correlation_id) co_return std::nullopt;
  out.body_offset = out.frame.size - r.remaining();
  co_return out;
}

asio::awaitable<std::string> kafka_client::start_tls() {
  tls_ = std::make_shared<tls_stream>(socket_, *options_.security.tls->context);
  SSL* ssl = tls_->native_handle();
  keep_tls_buffers(ssl);
  SSL_set_tlsext_host_name(ssl, options_.host.c_str());
  if (options_.security.tls->verify_host) {
    // As Java's https endpoint identification: an address is checked
    // against the certificate's IP names, a host name against its DNS names.
    error_code not_ip;
    asio::ip::make_address(options_.host, not_ip);
    if (!not_ip) X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), options_.host.c_str());
    else SSL_set1_host(ssl, options_.host.c_str());
  }
  error_code ec;
  co_await tls_->async_handshake(asio::ssl::stream_base::client, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    tls_.reset();
    co_return ec.message();
  }
  co_return std::string();
}

asio::awaitable<void> kafka_client::read_all(const std::shared_ptr<tls_stream>& tls, asio::mutable_buffer into,
                                             error_code& ec) {
  if (tls) {
    co_await asio::async_read(*tls, into, asio::redirect_error(asio::use_awaitable, ec));
  } else {
    co_await asio::async_read(socket_, into, asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> kafka_client::write_all(const std::shared_ptr<tls_stream>& tls,
                                              const std::vector<asio::const_buffer>& from, error_code& ec) {
  if (!tls) {
    co_await asio::async_write(socket_, from, asio::redirect_error(asio::use_awaitable, ec));
    co_return;
  }
  // Over TLS, the requests of a batch go out as one write: one record for
  // small ones rather than one per request.
  std::vector<uint8_t> gathered(asio::buffer_size(from));
  asio::buffer_copy(asio::buffer(gathered), from);
  co_await asio::async_write(*tls, asio::buffer(gathered), asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<std::string> kafka_client::authenticate(bool live) {
  constexpr int16_t handshake_version = 1, authenticate_version = 2;
  const sasl_login& login = *options_.security.sasl;
  auto ask = [this, live](int16_t key, int16_t version,
                          const std::vector<uint8_t>& body) -> asio::awaitable<std::optional<client_response>> {
    if (!live) co_return co_await round_trip(key, version, body);
    client_response answer;
    if (co_await exchange(key, version, body, options_.connect_timeout, &answer)) co_return std::nullopt;
    co_return answer;
  };
  protocol::msg::sasl_handshake_request hello;
  hello.mechanism = login.mechanism;
  std::vector<uint8_t> body;
  protocol::writer hw(body);
  hello.encode(hw, handshake_version);
  auto answer = co_await ask(17, handshake_version, body);
  if (!answer) co_return "no answer to SaslHandshake";
  protocol::msg::sasl_handshake_response handshake;
  protocol::reader hr(answer->body());
  handshake.decode(hr, handshake_version);
  if (!hr.ok()) co_return "a SaslHandshake answer that does not decode";
  if (handshake.error_code != 0) {
    std::string enabled;
    for (const auto& m : handshake.mechanisms) enabled += (enabled.empty() ? "" : ", ") + m;
    co_return "the listener does not enable " + login.mechanism + " (error " + std::to_string(handshake.error_code) +
        "; enabled: " + enabled + ")";
  }
  sasl_client_exchange exchange(login, options_.host);
  std::string refused;
  std::optional<std::vector<uint8_t>> token = exchange.first(&refused);
  if (!token) co_return refused;
  while (token) {
    protocol::msg::sasl_authenticate_request request;
    request.auth_bytes = std::move(*token);
    body.clear();
    protocol::writer aw(body);
    request.encode(aw, authenticate_version);
    answer = co_await ask(36, authenticate_version, body);
    if (!answer) co_return "no answer to SaslAuthenticate";
    protocol::msg::sasl_authenticate_response response;
    protocol::reader ar(answer->body());
    response.decode(ar, authenticate_version);
    if (!ar.ok()) co_return "a SaslAuthenticate answer that does not decode";
    if (response.error_code != 0) co_return response.error_message.value_or("error " + std::to_string(response.error_code));
    std::string error;
    token = exchange.next(response.auth_bytes, &error);
    if (!token && !exchange.done()) co_return error;
    if (!token && response.session_lifetime_ms > 0) {
      // Kafka's clients renew at 85% of the lifetime plus up to 10% more, so
      // that many connections do not all log in again at once.
      thread_local std::minstd_rand jitter{std::random_device{}()};
      const double share = 0.85 + 0.10 * std::uniform_real_distribution<double>(0.0, 1.0)(jitter);
      reauthenticate_at_ = std::chrono::steady_clock::now() +
                           std::chrono::milliseconds(static_cast<int64_t>(response.session_lifetime_ms * share));
    }
  }
  co_return std::string();
}

asio::awaitable<void> kafka_client::maybe_reauthenticate() {
  auto self = shared_from_this();
  while (reauthenticating_) {
    error_code ignored;
    co_await reauthenticated_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  if (state_ != state::connected || !reauthenticate_at_ || std::chrono::steady_clock::now() < *reauthenticate_at_)
    co_return;
  reauthenticating_ = true;
  reauthenticate_at_.reset();
  const uint64_t generation = generation_;
  // As Kafka's clients: only once nothing is in flight.
  while (!in_flight_.empty() && generation_ == generation) {
    drained_.expires_at(asio::steady_timer::time_point::max());
    error_code ignored;
    co_await drained_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  if (generation_ == generation && state_ == state::connected) {
    std::string refused = co_await authenticate(true);
    if (!refused.empty() && generation_ == generation) {
      spdlog::warn("Re-authentication with {}:{} as {} ({}) failed: {}", options_.host, options_.port,
                   options_.security.sasl->username, options_.security.sasl->mechanism, refused);
      drop_connection(make_error_code(client_errc::authentication_failed));
    }
  }
  reauthenticating_ = false;
  reauthenticated_.cancel();
}

asio::awaitable<std::error_code> kafka_client::send(int16_t api_key, int16_t api_version, std::vector<uint8_t> body,
                                                    std::chrono::milliseconds timeout, client_response* out) {
  auto self = shared_from_this();
  if (auto ec = co_await ensure_connected()) co_return ec;
  // Only where the peer limits the login's life; a refused renewal drops
  // the connection, so connect again then.
  if (reauthenticate_at_ || reauthenticating_) {
    co_await maybe_reauthenticate();
    if (auto ec = co_await ensure_connected()) co_return ec;
  }
  co_return co_await exchange(api_key, api_version, body, timeout, out);
}

asio::awaitable<std::error_code> kafka_client::exchange(int16_t api_key, int16_t api_version,
                                                        const std::vector<uint8_t>& body,
                                                        std::chrono::milliseconds timeout, client_response* out) {
  auto self = shared_from_this();
  const int32_t correlation = next_correlation_++;
  if (next_correlation_ < 0) next_correlation_ = 0;
  protocol::msg::request_header header;
  header.request_api_key = api_key;
  header.request_api_version = api_version;
  header.correlation_id = correlation;
  header.client_id = options_.client_id;
  const int16_t header_version = protocol::request_header_version(api_key, api_version);
  std::vector<uint8_t> frame;
  frame.reserve(4 + header.encoded_size(header_version) + body.size());
  protocol::writer w(frame);
  w.write_int32(static_cast<int32_t>(header.encoded_size(header_version) + body.size()));
  header.encode(w, header_version);
  w.write_raw(std::span<const uint8_t>(body));

  auto p = std::make_shared<pending>(strand_);
  p->api_key = api_key;
  p->api_version = api_version;
  p->wake.expires_after(timeout);
  in_flight_.emplace(correlation, p);
  outgoing_.push_back(std::move(frame));
  writer_wake_.cancel();

  error_code ignored;
  co_await p->wake.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  if (!p->done) {
    // Kafka's NetworkClient disconnects on a request timeout: whatever the
    // peer was doing with this connection is not to be trusted.
    in_flight_.erase(correlation);
    drop_connection(make_error_code(client_errc::disconnected));
    co_return make_error_code(client_errc::timed_out);
  }
  if (p->error) co_return p->error;
  *out = std::move(p->response);
  co_return std::error_code{};
}

asio::awaitable<void> kafka_client::write_loop(uint64_t generation) {
  auto self = shared_from_this();
  const std::shared_ptr<tls_stream> tls = tls_;
  std::vector<std::vector<uint8_t>> batch;
  std::vector<asio::const_buffer> buffers;
  while (generation_ == generation) {
    if (outgoing_.empty()) {
      writer_wake_.expires_at(asio::steady_timer::time_point::max());
      error_code ignored;
      co_await writer_wake_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      continue;
    }
    batch.clear();
    buffers.clear();
    while (!outgoing_.empty() && batch.size() < k_max_write_batch) {
      batch.push_back(std::move(outgoing_.front()));
      outgoing_.pop_front();
    }
    for (const auto& f : batch) buffers.emplace_back(asio::buffer(f));
    error_code ec;
    co_await write_all(tls, buffers, ec);
    if (ec) {
      if (generation_ == generation) drop_connection(make_error_code(client_errc::disconnected));
      co_return;
    }
  }
}

asio::awaitable<void> kafka_client::read_loop(uint64_t generation) {
  auto self = shared_from_this();
  const std::shared_ptr<tls_stream> tls = tls_;
  while (generation_ == generation) {
    std::array<uint8_t, 4> size_bytes{};
    error_code ec;
    co_await read_all(tls, asio::buffer(size_bytes), ec);
    if (generation_ != generation) co_return;
    if (ec) {
      drop_connection(make_error_code(client_errc::disconnected));
      co_return;
    }
    const int32_t size = static_cast<int32_t>((uint32_t{size_bytes[0]} << 24) | (uint32_t{size_bytes[1]} << 16) |
                                              (uint32_t{size_bytes[2]} << 8) | uint32_t{size_bytes[3]});
    if (frame_size_error(size, options_.max_response_bytes) || size < 4) {
      drop_connection(make_error_code(client_errc::bad_response));
      co_return;
    }
    frame_bytes frame = frame_bytes::uninitialized(static_cast<size_t>(size));
    co_await read_all(tls, asio::buffer(frame.data.get(), frame.size), ec);
    if (generation_ != generation) co_return;
    if (ec) {
      drop_connection(make_error_code(client_errc::disconnected));
      co_return;
    }
    protocol::reader r(frame.bytes());
    const int32_t correlation = r.read_int32();
    auto it = in_flight_.find(correlation);
    if (it == in_flight_.end()) {
      // An answer to nothing asked (or to a request that timed out, which
      // closed this connection already): the stream cannot be trusted.
      drop_connection(make_error_code(client_errc::bad_response));
      co_return;
    }
    auto p = it->second;
    in_flight_.erase(it);
    if (reauthenticating_ && in_flight_.empty()) drained_.cancel();
    protocol::reader header_reader(frame.bytes());
    protocol::msg::response_header header;
    header.decode(header_reader, protocol::response_header_version(p->api_key, p->api_version));
    if (!header_reader.ok()) {
      finish(p, make_error_code(client_errc::bad_response));
      drop_connection(make_error_code(client_errc::bad_response));
      co_return;
    }
    p->response.body_offset = frame.size - header_reader.remaining();
    p->response.frame = std::move(frame);
    finish(p, {});
  }
}

}  // namespace hw::broker
