#include "broker/listener/connection.h"

#include <sys/sendfile.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <boost/asio/ssl.hpp>
#include <spdlog/spdlog.h>

#include "broker/metrics/broker_metrics.h"
#include "broker/network/frame_size.h"
#include "broker/response.h"
#include "broker/security/forwarded_identity.h"
#include "protocol/error_code.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/request_header_parse.h"

namespace hw::broker {
namespace {

using namespace std::chrono_literals;

// Where Kafka waits for SaslAuthenticate, a SaslHandshake or ApiVersions
// gets that request's error response with ILLEGAL_SASL_STATE, answered as
// a failed authentication (held for the delay, then the connection
// closes). Kafka answers any other request there with its API's error
// response too; Highwater closes unanswered (tests/differential/FINDINGS.md).
std::optional<response_frame> illegal_sasl_state_answer(std::span<const uint8_t> frame) {
  auto prefix = protocol::peek_request_prefix(frame);
  if (!prefix || (prefix->api_key != 17 && prefix->api_key != 18)) return std::nullopt;
  const int16_t key = prefix->api_key, version = prefix->api_version;
  auto parsed = protocol::parse_request_header(frame, protocol::request_header_version(key, version));
  if (!parsed.header) return std::nullopt;
  const auto code = static_cast<int16_t>(protocol::error_code::illegal_sasl_state);
  const int32_t corr = parsed.header->correlation_id;
  if (key == 17) {
    if (version < 0 || version > 1) return std::nullopt;
    protocol::msg::sasl_handshake_response r;
    r.error_code = code;
    return encode_response(corr, protocol::response_header_version(key, version), r, version);
  }
  if (version < 0 || version > 4) return std::nullopt;
  protocol::msg::api_versions_response r;
  r.error_code = code;
  return encode_response(corr, 0, r, version);
}

// A request frame's API key, when it is long enough to have one.
std::optional<int16_t> api_key_of(std::span<const uint8_t> frame) {
  if (frame.size() < 2) return std::nullopt;
  return static_cast<int16_t>((uint16_t(frame[0]) << 8) | frame[1]);
}

// The client's address as Java's InetAddress.getHostAddress writes it, the
// form Kafka's logs and ACL hosts use: dotted IPv4 (an IPv4-mapped IPv6
// address as its IPv4), IPv6 as eight groups of lower-case hex without
// leading zeros and without "::" compression ("0:0:0:0:0:0:0:1").
std::string host_text(const tcp::endpoint& ep) {
  auto addr = ep.address();
  if (addr.is_v4()) return addr.to_string();
  const auto v6 = addr.to_v6();
  if (v6.is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, v6).to_string();
  const auto bytes = v6.to_bytes();
  std::string out = *address_text(protocol::bytes_view(bytes.data(), bytes.size()));
  if (v6.scope_id()) out += "%" + std::to_string(v6.scope_id());
  return out;
}

std::string endpoint_text(const tcp::endpoint& ep) { return host_text(ep) + ":" + std::to_string(ep.port()); }

int32_t read_be32(const uint8_t* p) {
  return static_cast<int32_t>((uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]));
}

}  // namespace

connection::connection(strand_type strand, tcp::socket socket, uint64_t id, origin from,
                       const connection_options& options, const dispatcher& dispatcher, request_budget& budget,
                       closed_callback on_closed)
    : strand_(strand),
      socket_(std::move(socket)),
      id_(id),
      listener_name_(std::move(from.listener_name)),
      protocol_(from.protocol),
      sasl_listener_(std::move(from.sasl)),
      sasl_(sasl_listener_ ? sasl_listener_->new_session() : nullptr),
      tls_context_(std::move(from.tls)),
      options_(options),
      dispatcher_(dispatcher),
      budget_(budget),
      on_closed_(std::move(on_closed)),
      writer_wakeup_(strand),
      reader_wakeup_(strand),
      handler_wakeup_(strand),
      idle_timer_(strand),
      read_mute_timer_(strand),
      handle_mute_timer_(strand) {
  error_code ec;
  auto local = socket_.local_endpoint(ec);
  auto remote = socket_.remote_endpoint(ec);
  remote_ = endpoint_text(remote);
  remote_host_ = host_text(remote);
  name_ = endpoint_text(local) + "-" + remote_ + "-" + std::to_string(id_);
  touch();
}

connection::~connection() = default;

void connection::count_authentication(const std::string& mechanism, bool succeeded) {
  if (options_.metrics) options_.metrics->on_authentication(listener_name_, mechanism, succeeded);
}

void connection::start() {
  auto self = shared_from_this();
  if (options_.metrics)
    options_.metrics->on_connection(listener_name_, std::string(security_protocol_name(protocol_)), 1);
  if (protocol_ == security_protocol::plaintext) count_authentication("PLAINTEXT", true);
  auto report = [self](const char* what) {
    return [self, what](std::exception_ptr e) {
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        // Cancellation surfaces as an exception from the next wait; only
        // other failures are worth a line.
        if (!self->closed_) spdlog::error("Connection {}: {} failed: {}", self->name_, what, ex.what());
      }
      self->close_socket("coroutine failure");
    };
  };
  asio::co_spawn(strand_, read_loop(), asio::bind_cancellation_slot(read_cancel_.slot(), report("reader")));
  asio::co_spawn(strand_, handler_loop(), report("handler"));
  asio::co_spawn(strand_, write_loop(), report("writer"));
  if (options_.idle_timeout_ms >= 0) asio::co_spawn(strand_, idle_watchdog(), report("idle watchdog"));
}

void connection::shutdown_gracefully() {
  asio::dispatch(strand_, [self = shared_from_this()] { self->stop_reading(); });
}

void connection::close_now() {
  asio::dispatch(strand_, [self = shared_from_this()] { self->close_socket("closed by the server"); });
}

void connection::stop_reading() {
  assert(strand_.running_in_this_thread());
  if (!reading_) return;
  reading_ = false;
  read_cancel_.emit(asio::cancellation_type::terminal);
  read_mute_timer_.cancel();
  writer_wakeup_.cancel();  // the writer may now be able to finish
  handler_wakeup_.cancel();
}

bool connection::drained() const {
  return queue_.closed_and_drained() || (!reading_ && !queue_.close_requested() && queue_.pending() == 0);
}

void connection::close_socket(const char* why) {
  assert(strand_.running_in_this_thread());
  if (closed_) return;
  closed_ = true;
  reading_ = false;
  spdlog::debug("Closing connection {} ({})", name_, why);
  if (options_.metrics)
    options_.metrics->on_connection(listener_name_, std::string(security_protocol_name(protocol_)), -1);
  read_cancel_.emit(asio::cancellation_type::terminal);
  error_code ec;
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  writer_wakeup_.cancel();
  reader_wakeup_.cancel();
  handler_wakeup_.cancel();
  idle_timer_.cancel();
  read_mute_timer_.cancel();
  handle_mute_timer_.cancel();
  if (on_closed_) on_closed_(id_);
}

asio::awaitable<void> connection::wait_unmuted(asio::steady_timer& timer) {
  const bool reader = &timer == &read_mute_timer_;
  while (!closed_ && !(reader && !reading_) && std::chrono::steady_clock::now() < muted_until_) {
    timer.expires_at(muted_until_);
    error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> connection::wait(asio::steady_timer& timer) {
  error_code ec;
  if (timer.expiry() == asio::steady_timer::time_point::min() || timer.expiry() <= std::chrono::steady_clock::now())
    timer.expires_at(asio::steady_timer::time_point::max());
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<bool> connection::fill_read_buffer() {
  if (rbegin_ == rend_) {
    rbegin_ = rend_ = 0;
  } else if (rbegin_ > 0) {
    std::memmove(rbuf_.data(), rbuf_.data() + rbegin_, rend_ - rbegin_);
    rend_ -= rbegin_;
    rbegin_ = 0;
  }
  error_code ec;
  size_t n = co_await read_some(asio::buffer(rbuf_.data() + rend_, rbuf_.size() - rend_), ec);
  if (ec || n == 0) co_return false;
  rend_ += n;
  touch();
  co_return true;
}

asio::awaitable<connection::read_status> connection::read_frame(frame_bytes& frame) {
  while (rend_ - rbegin_ < 4) {
    bool had_partial = rend_ != rbegin_;
    if (!co_await fill_read_buffer()) co_return (had_partial || !reading_) ? read_status::error : read_status::eof;
  }
  const int32_t declared = read_be32(rbuf_.data() + rbegin_);
  if (auto why = frame_size_error(declared, max_frame_bytes())) {
    spdlog::warn("Unexpected error from /{} (channelId={}); closing connection: {}", remote_, name_, *why);
    co_return read_status::invalid;
  }
  rbegin_ += 4;
  const auto size = static_cast<size_t>(declared);
  // The only allocation for a request: exactly its size, after the check.
  frame = frame_bytes::uninitialized(size);
  size_t buffered = std::min(size, rend_ - rbegin_);
  std::memcpy(frame.data.get(), rbuf_.data() + rbegin_, buffered);
  rbegin_ += buffered;
  if (buffered < size) {
    error_code ec;
    co_await read_exactly(asio::buffer(frame.data.get() + buffered, size - buffered), ec);
    if (ec) co_return read_status::error;
    touch();
  }
  co_return read_status::frame;
}

asio::awaitable<bool> connection::start_tls() {
  tls_ = std::make_unique<asio::ssl::stream<tcp::socket&>>(socket_, *tls_context_->context);
  keep_tls_buffers(tls_->native_handle());
  error_code ec;
  co_await tls_->async_handshake(asio::ssl::stream_base::server, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    // A plaintext client on a TLS port, an untrusted or missing client
    // certificate, no common protocol or cipher: Kafka logs it the same way.
    if (!closed_) {
      const auto why = tls_client_verify_failure(tls_->native_handle());
      spdlog::info("Failed authentication with /{} (channelId={}) (SSL handshake failed: {}{})", remote_host_, name_,
                   ec.message(), why ? " (" + *why + ")" : std::string());
      count_authentication("SSL", false);
    }
    co_return false;
  }
  touch();
  if (protocol_ == security_protocol::ssl && tls_context_->wants_client_certificate) {
    if (auto subject = tls_peer_subject(tls_->native_handle())) {
      std::string error;
      auto name = tls_context_->mapping.map(*subject, &error);
      if (!name) {
        spdlog::info("Failed authentication with /{} (channelId={}) ({})", remote_host_, name_, error);
        count_authentication("SSL", false);
        co_return false;
      }
      principal_ = kafka_principal{"User", *name};
    }
  }
  if (protocol_ == security_protocol::ssl) count_authentication("SSL", true);
  co_return true;
}

asio::awaitable<size_t> connection::read_some(asio::mutable_buffer into, error_code& ec) {
  if (tls_) co_return co_await tls_->async_read_some(into, asio::redirect_error(asio::use_awaitable, ec));
  co_return co_await socket_.async_read_some(into, asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<void> connection::read_exactly(asio::mutable_buffer into, error_code& ec) {
  if (tls_) {
    co_await asio::async_read(*tls_, into, asio::redirect_error(asio::use_awaitable, ec));
  } else {
    co_await asio::async_read(socket_, into, asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> connection::read_loop() {
  auto self = shared_from_this();
  // Cancellation (stop_reading) shows up as error codes, not exceptions.
  co_await asio::this_coro::throw_if_cancelled(false);
  if (tls_context_ && !co_await start_tls()) {
    close_socket("TLS handshake failed");
    co_return;
  }
  while (reading_ && !closed_) {
    // Pause while this connection is at its bound of requests in flight, or
    // holds enough request bytes read ahead of the handler.
    while (reading_ && (queue_.pending() >= options_.max_inflight ||
                        unhandled_bytes_ >= options_.max_read_ahead_bytes))
      co_await wait(reader_wakeup_);
    if (!reading_) break;
    co_await wait_unmuted(read_mute_timer_);
    if (!reading_) break;

    frame_bytes frame;
    read_status status = co_await read_frame(frame);
    if (status != read_status::frame) {
      if (status == read_status::eof) spdlog::debug("Connection {} closed by the client", name_);
      if (status == read_status::error && reading_) {
        close_socket("read error");
        co_return;
      }
      break;
    }
    // And while the broker as a whole is at queued.max.requests: a release
    // on any strand posts a wake-up to this one.
    while (reading_ && !budget_.acquire_or_wait([self = shared_from_this()] {
      asio::post(self->strand_, [self] { self->reader_wakeup_.cancel(); });
    }))
      co_await wait(reader_wakeup_);
    if (!reading_) break;
    budget_slot slot(&budget_);
    uint64_t seq = queue_.reserve();
    unhandled_bytes_ += frame.size;
    to_handle_.push_back({std::move(frame), seq, std::move(slot)});
    handler_wakeup_.cancel();
  }
  stop_reading();
}

int32_t connection::max_frame_bytes() const {
  return sasl_ ? sasl_listener_->max_receive_size() : options_.max_frame_bytes;
}

dispatch_outcome connection::raw_sasl_token(std::span<const uint8_t> token) {
  dispatch_outcome out;
  sasl_session::authenticate_answer a = sasl_->authenticate(token);
  if (a.error != protocol::error_code::none) {
    // A v0 exchange has no error answer: the connection just closes.
    spdlog::info("Failed authentication with /{} (channelId={}) ({}; {})", remote_host_, name_, a.error_message,
                 a.log_reason);
    return out;
  }
  response_frame f;
  f.bytes.resize(4 + a.auth_bytes.size());
  const auto n = static_cast<uint32_t>(a.auth_bytes.size());
  f.bytes[0] = uint8_t(n >> 24), f.bytes[1] = uint8_t(n >> 16), f.bytes[2] = uint8_t(n >> 8), f.bytes[3] = uint8_t(n);
  std::copy(a.auth_bytes.begin(), a.auth_bytes.end(), f.bytes.begin() + 4);
  out.response = std::move(f);
  return out;
}

bool connection::admitted_before_authentication(std::span<const uint8_t> frame, dispatch_outcome& out) {
  const std::optional<int16_t> api_key = api_key_of(frame);
  if (!api_key) {
    out.close_reason = "A request too short for its header during SASL authentication";
    return false;
  }
  std::string why;
  const bool authenticating = sasl_->current() == sasl_session::state::authenticate;
  if (sasl_->admit(*api_key, &why)) return true;
  spdlog::info("Failed authentication with /{} (channelId={}) ({})", remote_host_, name_, why);
  if (authenticating) out.response = illegal_sasl_state_answer(frame);
  return false;
}

connection::login_check connection::check_login(std::span<const uint8_t> frame) {
  if (sasl_ || !login_expiry_) return login_check::carry_on;
  const auto now = std::chrono::steady_clock::now();
  constexpr int16_t sasl_handshake_key = 17;
  if (api_key_of(frame) == sasl_handshake_key && (!last_reauthentication_ || now - *last_reauthentication_ >= 1s)) {
    last_reauthentication_ = now;
    sasl_ = sasl_listener_->new_session();
    sasl_->reauthenticating(login_mechanism_, principal_);
    return login_check::reauthenticate;
  }
  return now > *login_expiry_ ? login_check::expired : login_check::carry_on;
}

asio::awaitable<void> connection::finish_sasl_step(dispatch_outcome& out, uint64_t seq, bool& handled) {
  const bool again = sasl_->is_reauthentication();
  auto count = [&](const std::string& mechanism, bool ok) {
    if (!again) count_authentication(mechanism, ok);
    else if (options_.metrics) options_.metrics->on_reauthentication(listener_name_, mechanism, ok);
  };
  if (sasl_->authenticated()) {
    count(sasl_->mechanism(), true);
    principal_ = sasl_->principal();
    principal_error_ = sasl_->principal_error();
    login_mechanism_ = sasl_->mechanism();
    login_expiry_.reset();
    if (sasl_->session_expires())
      login_expiry_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(sasl_->session_lifetime_ms());
    spdlog::debug("Connection {} {} as {} with {}", name_, again ? "re-authenticated" : "authenticated",
                  principal_.to_string(), sasl_->mechanism());
    sasl_.reset();
    co_return;
  }
  if (sasl_->current() != sasl_session::state::failed || out.closes()) co_return;
  count(sasl_->mechanism().empty() ? "SASL" : sasl_->mechanism(), false);
  // Kafka holds a failed authentication's answer, and the close, for
  // connection.failed.authentication.delay.ms, so a client that guesses
  // passwords cannot go fast. Nothing more is read meanwhile.
  stop_reading();
  asio::steady_timer delay(strand_, std::chrono::milliseconds(sasl_listener_->failed_authentication_delay_ms()));
  error_code ec;
  co_await delay.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  if (closed_) co_return;
  queue_.complete_then_close(seq, std::move(out.response));
  handled = true;
}

asio::awaitable<void> connection::handle_request(frame_bytes frame, uint64_t seq, budget_slot slot) {
  auto self = shared_from_this();
  const login_check login = check_login(frame.bytes());
  connection_info from{listener_name_, id_, name_, protocol_, remote_host_, &principal_, sasl_.get()};
  dispatch_outcome out;
  const bool authenticating = sasl_ != nullptr;
  const bool expired = login == login_check::expired;
  if (principal_error_ && !authenticating) {
    spdlog::info("Closing connection {} on listener {}: {}", name_, listener_name_, *principal_error_);
    close_socket("no principal");
  } else if (expired) {
    // Kafka closes such a connection without answering this request; the
    // client logs in again on a new one. Answers to the requests before it
    // (a fetch that waited past the expiry) are still written first, as
    // Kafka sends an answer before it reads the next request.
    spdlog::info("Closing connection {} on listener {}: its SASL login expired (connections.max.reauth.ms) and it "
                 "did not re-authenticate",
                 name_, listener_name_);
    if (options_.metrics) options_.metrics->on_expired_login_closed(listener_name_);
    out.close_reason = "login expired";
  } else if (authenticating && sasl_->raw_tokens()) {
    out = raw_sasl_token(frame.bytes());
  } else if (!authenticating || admitted_before_authentication(frame.bytes(), out)) {
    try {
      out = co_await dispatcher_.dispatch(frame.bytes(), from);
    } catch (const std::exception& e) {
      out.close_reason = std::string("Unexpected error: ") + e.what();
    }
  }
  bool handled = false;
  if (authenticating && !closed_) co_await finish_sasl_step(out, seq, handled);
  // Awaitables resume on their own executor, so this is the strand again.
  assert(strand_.running_in_this_thread());
  { budget_slot done = std::move(slot); }
  const size_t size = frame.size;
  frame = {};  // nothing refers to the request bytes once handled
  assert(unhandled_bytes_ >= size);
  unhandled_bytes_ -= size;
  if (closed_ || handled) {
    writer_wakeup_.cancel();
    co_return;
  }
  if (out.closes()) {
    if (!expired) spdlog::warn("Closing connection {} on listener {}: {}", name_, listener_name_, out.close_reason);
    queue_.complete_with_close(seq);
    stop_reading();
  } else {
    queue_.complete(seq, std::move(out.response));
    if (out.throttle_ms > 0)
      muted_until_ = std::max(muted_until_, std::chrono::steady_clock::now() + std::chrono::milliseconds(out.throttle_ms));
  }
  writer_wakeup_.cancel();
  reader_wakeup_.cancel();
}

asio::awaitable<void> connection::handler_loop() {
  auto self = shared_from_this();
  // After a request that closes the connection, the ones read behind it
  // are not handled (Kafka closes at once).
  while (!closed_ && !queue_.close_requested()) {
    if (to_handle_.empty()) {
      if (!reading_) break;  // nothing more will come
      co_await wait(handler_wakeup_);
      continue;
    }
    if (std::chrono::steady_clock::now() < muted_until_) {
      co_await wait_unmuted(handle_mute_timer_);
      continue;
    }
    read_request r = std::move(to_handle_.front());
    to_handle_.pop_front();
    co_await handle_request(std::move(r.frame), r.seq, std::move(r.slot));
  }
  // Requests read but never handled (the connection closed) give their
  // budget back as they go.
  for (const read_request& r : to_handle_) unhandled_bytes_ -= r.frame.size;
  to_handle_.clear();
}

asio::awaitable<void> connection::write_loop() {
  auto self = shared_from_this();
  // Writes are tried at once and wait for the socket only when it is full
  // (write_buffers, send_file_range); asio's own operations are unchanged.
  error_code nb;
  socket_.non_blocking(true, nb);
  if (nb) {
    close_socket("cannot make the socket non-blocking");
    co_return;
  }
  std::vector<response_frame> batch;
  std::vector<asio::const_buffer> buffers;
  while (!closed_) {
    if (!queue_.ready()) {
      if (drained()) break;
      co_await wait(writer_wakeup_);
      continue;
    }
    batch.clear();
    queue_.take_ready(batch, options_.max_write_batch, options_.max_write_batch_bytes);
    reader_wakeup_.cancel();  // in-flight space was freed
    error_code ec = co_await write_frames(batch, buffers);
    if (ec) {
      close_socket("write error");
      co_return;
    }
    touch();
  }
  close_socket(queue_.close_requested() ? "request rejected" : "drained");
}

asio::awaitable<void> connection::idle_watchdog() {
  auto self = shared_from_this();
  const auto idle = std::chrono::milliseconds(options_.idle_timeout_ms);
  while (!closed_) {
    idle_timer_.expires_at(last_activity_ + idle);
    error_code ec;
    co_await idle_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (closed_) break;
    if (std::chrono::steady_clock::now() < last_activity_ + idle) continue;
    if (queue_.pending() > 0) {
      touch();  // waiting on our own handlers is not the client being idle
      continue;
    }
    spdlog::debug("Connection {} idle for {} ms", name_, options_.idle_timeout_ms);
    close_socket("idle");
  }
}

asio::awaitable<error_code> connection::write_frames(const std::vector<response_frame>& frames,
                                                     std::vector<asio::const_buffer>& buffers) {
  buffers.clear();
  for (const response_frame& f : frames) {
    size_t from = 0;
    for (const file_range& r : f.file_ranges) {
      if (r.at > from) buffers.push_back(asio::buffer(f.bytes.data() + from, r.at - from));
      from = r.at;
      // What comes before a file range (a partition's header) is held by
      // the kernel for the range's bytes instead of leaving as a small
      // segment of its own.
      if (auto e = co_await write_buffers(buffers, true)) co_return e;
      if (auto e = co_await send_file_range(r)) co_return e;
    }
    if (from < f.bytes.size()) buffers.push_back(asio::buffer(f.bytes.data() + from, f.bytes.size() - from));
  }
  co_return co_await write_buffers(buffers, false);
}

asio::awaitable<error_code> connection::write_tls(std::vector<asio::const_buffer>& buffers) {
  error_code ec;
  // Pieces that fit one TLS record's worth go out as one write (one record,
  // one system call) rather than one record per piece.
  constexpr size_t gather_limit = 64 * 1024;
  const size_t total = asio::buffer_size(buffers);
  if (total <= gather_limit) {
    tls_staging_.resize(total);
    asio::buffer_copy(asio::buffer(tls_staging_), buffers);
    co_await asio::async_write(*tls_, asio::buffer(tls_staging_), asio::redirect_error(asio::use_awaitable, ec));
  } else {
    co_await asio::async_write(*tls_, buffers, asio::redirect_error(asio::use_awaitable, ec));
  }
  buffers.clear();
  co_return ec;
}

asio::awaitable<error_code> connection::write_buffers(std::vector<asio::const_buffer>& buffers, bool more) {
  error_code ec;
  if (buffers.empty()) co_return ec;
  if (tls_) co_return co_await write_tls(buffers);
  // The socket is non-blocking: what it takes now is sent here, without
  // a round through the event loop; only a remainder waits for it.
  size_t sent = socket_.send(buffers, more ? MSG_MORE : 0, ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) {
    ec = {};
    sent = 0;
  }
  if (!ec && sent < asio::buffer_size(buffers)) {
    std::vector<asio::const_buffer> rest;
    for (const asio::const_buffer& b : buffers) {
      if (sent >= b.size()) {
        sent -= b.size();
        continue;
      }
      rest.push_back(b + sent);
      sent = 0;
    }
    co_await asio::async_write(socket_, rest, asio::redirect_error(asio::use_awaitable, ec));
  }
  buffers.clear();
  co_return ec;
}

asio::awaitable<error_code> connection::send_file_range(const file_range& range) {
  error_code ec;
  const int fd = range.file->native_handle();
  if (fd < 0 || tls_) {
    // Through memory: over TLS the bytes must be encrypted here (this
    // kernel offers no TLS offload to sendfile into), and a test file
    // system has no descriptor. A chunk at a time, so a big range does not
    // hold its whole size.
    constexpr uint64_t chunk = 1 << 20;
    // Not zeroed: every byte is read from the file before it is sent.
    auto copy = std::make_unique_for_overwrite<uint8_t[]>(static_cast<size_t>(std::min(range.length, chunk)));
    for (uint64_t done = 0; done < range.length;) {
      const size_t n = static_cast<size_t>(std::min(range.length - done, chunk));
      size_t got = 0;
      std::span<uint8_t> into(copy.get(), n);
      if (auto e = range.file->read_at(range.position + done, into, &got); e || got != n)
        co_return asio::error::make_error_code(asio::error::eof);
      if (tls_) {
        co_await asio::async_write(*tls_, asio::buffer(copy.get(), n), asio::redirect_error(asio::use_awaitable, ec));
      } else {
        co_await asio::async_write(socket_, asio::buffer(copy.get(), n), asio::redirect_error(asio::use_awaitable, ec));
      }
      if (ec) co_return ec;
      done += n;
    }
    co_return ec;
  }
  off_t position = static_cast<off_t>(range.position);
  uint64_t left = range.length;
  while (left > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, 1u << 30));
    const ssize_t n = ::sendfile(socket_.native_handle(), fd, &position, chunk);
    if (n > 0) {
      left -= static_cast<uint64_t>(n);
      // A short count means the socket's buffer is full: wait for room
      // rather than call again only to be refused (a refused sendfile
      // still reads the file's pages into the kernel's pipe first). The
      // wait re-arms the descriptor, so room made meanwhile is not missed.
      if (left > 0 && static_cast<size_t>(n) < chunk) {
        co_await socket_.async_wait(tcp::socket::wait_write, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) co_return ec;
      }
      continue;
    }
    // The file ended before the range did (truncated underneath): the
    // frame cannot be completed, so the connection goes.
    if (n == 0) co_return asio::error::make_error_code(asio::error::eof);
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) co_return error_code(errno, boost::system::system_category());
    co_await socket_.async_wait(tcp::socket::wait_write, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return ec;
  }
  co_return ec;
}

}  // namespace hw::broker
