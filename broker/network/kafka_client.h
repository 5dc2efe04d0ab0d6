#pragma once
// An outbound connection to one other node, in the Kafka protocol: what a
// controller voter uses to reach its peers, a broker to reach the active
// controller, and (later) a follower to fetch from its leader.
//
// Requests go out in call order, several in flight; responses are matched
// by correlation id, so the peer may answer in any order. The client
// connects on the first call and again on a later call after a failure,
// waiting out reconnect.backoff.ms doubling up to reconnect.backoff.max.ms
// between failed attempts (Kafka's NetworkClient). A request not answered
// within its timeout fails with timed_out and, as in Kafka, the connection
// is closed, failing the other requests in flight with disconnected.
//
// Ownership and threads: owned by one component and used on that
// component's strand only: the executor it is built with must be that
// strand, and call() is awaited there. close() before destruction; the
// client's coroutines hold it alive (shared_ptr) until they end.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "broker/asio.h"
#include "broker/network/frame_bytes.h"
#include "broker/security/client_security.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace boost::asio::ssl {
template <typename Stream>
class stream;
}

namespace hw::broker {

enum class client_errc {
  connect_failed = 1,  // resolving or connecting failed (or is backing off)
  timed_out,           // no answer within the request timeout
  disconnected,        // the connection went away with the request in flight
  bad_response,        // a frame that does not decode as the response
  closed,              // close() was called
  authentication_failed,  // the peer's SASL listener refused this broker's login
};
const std::error_category& client_category();
inline std::error_code make_error_code(client_errc e) { return {static_cast<int>(e), client_category()}; }

struct kafka_client_options {
  std::string host;
  uint16_t port = 0;
  std::string client_id;
  std::chrono::milliseconds connect_timeout{10'000};  // socket.connection.setup.timeout.ms
  std::chrono::milliseconds reconnect_backoff{50};    // reconnect.backoff.ms
  std::chrono::milliseconds reconnect_backoff_max{1'000};  // reconnect.backoff.max.ms
  int32_t max_response_bytes = 100 * 1024 * 1024;
  // On a TLS listener (security.tls) each new connection first runs the
  // client side of the TLS handshake (the peer's certificate checked
  // against the trust store and, with endpoint identification, its host
  // name); a failed handshake is a failed connect. On a SASL listener
  // (security.sasl) it then authenticates (SaslHandshake v1, then
  // SaslAuthenticate rounds) before any request goes out; a refusal fails
  // the attempt as authentication_failed and backs off as a failed connect.
  // When the peer limits the login's life (SaslAuthenticate's
  // session_lifetime_ms, KIP-368), the client logs in again on the same
  // connection at 85-95% of it, as Kafka's clients do: later requests wait
  // while the ones in flight are answered and the exchange runs.
  client_security security;
};

// A response frame kept whole: decoded messages may point into it. The
// caller owns it alone, and may reuse its bytes (a replica fetcher appends
// the fetched batches from it without a copy).
struct client_response {
  frame_bytes frame;
  size_t body_offset = 0;  // after the response header
  std::span<const uint8_t> body() const { return frame.bytes().subspan(body_offset); }
};

template <class Response>
struct client_outcome {
  std::error_code error;
  Response response{};
  frame_bytes frame;  // keeps views in response valid; the caller's alone
};

class kafka_client : public std::enable_shared_from_this<kafka_client> {
 public:
  static std::shared_ptr<kafka_client> create(asio::any_io_executor strand, kafka_client_options options);
  ~kafka_client();
  kafka_client(const kafka_client&) = delete;
  kafka_client& operator=(const kafka_client&) = delete;

  // Sends one request (body already encoded at api_version) and waits for
  // its response or an error.
  asio::awaitable<std::error_code> send(int16_t api_key, int16_t api_version, std::vector<uint8_t> body,
                                        std::chrono::milliseconds timeout, client_response* out);

  template <class Response, class Request>
  asio::awaitable<client_outcome<Response>> call(int16_t api_key, int16_t api_version, const Request& request,
                                                 std::chrono::milliseconds timeout) {
    std::vector<uint8_t> body;
    protocol::writer w(body);
    request.encode(w, api_version);
    client_outcome<Response> out;
    client_response raw;
    out.error = co_await send(api_key, api_version, std::move(body), timeout, &raw);
    if (out.error) co_return out;
    protocol::reader r(raw.body());
    out.response.decode(r, api_version);
    if (!r.ok() || r.remaining() != 0) {
      out.error = make_error_code(client_errc::bad_response);
      co_return out;
    }
    out.frame = std::move(raw.frame);
    co_return out;
  }

  bool connected() const { return state_ == state::connected; }
  const kafka_client_options& options() const { return options_; }
  // Fails every request in flight with `closed` and closes the socket; later
  // calls fail at once.
  void close();

 private:
  enum class state { idle, connecting, connected, closed };
  struct pending {
    int16_t api_key = 0;
    int16_t api_version = 0;
    std::error_code error;
    client_response response;
    bool done = false;
    asio::steady_timer wake;
    explicit pending(asio::any_io_executor ex) : wake(ex, asio::steady_timer::time_point::max()) {}
  };

  kafka_client(asio::any_io_executor strand, kafka_client_options options);
  asio::awaitable<std::error_code> ensure_connected();
  // The SASL exchange on a new connection; empty when it succeeded, else
  // why not (never a secret).
  // live: a re-authentication, through the running loops.
  asio::awaitable<std::string> authenticate(bool live = false);
  // Logs in again when the login is due to expire; requests wait meanwhile.
  asio::awaitable<void> maybe_reauthenticate();
  // Queues one framed request on the running connection and waits for its
  // answer or an error.
  asio::awaitable<std::error_code> exchange(int16_t api_key, int16_t api_version, const std::vector<uint8_t>& body,
                                            std::chrono::milliseconds timeout, client_response* out);
  // The TLS handshake on a new connection; empty when it succeeded.
  asio::awaitable<std::string> start_tls();
  // Reads and writes through TLS when the connection has it. A loop keeps
  // the stream it started with, so a reconnect cannot free it underneath.
  using tls_stream = asio::ssl::stream<tcp::socket&>;
  asio::awaitable<void> read_all(const std::shared_ptr<tls_stream>& tls, asio::mutable_buffer into, error_code& ec);
  asio::awaitable<void> write_all(const std::shared_ptr<tls_stream>& tls, const std::vector<asio::const_buffer>& from,
                                  error_code& ec);
  // One request and its answer on a connection whose loops are not running
  // yet: the answer's body, or none when the socket failed.
  asio::awaitable<std::optional<client_response>> round_trip(int16_t api_key, int16_t api_version,
                                                             const std::vector<uint8_t>& body);
  asio::awaitable<void> read_loop(uint64_t generation);
  asio::awaitable<void> write_loop(uint64_t generation);
  void fail_all(std::error_code ec);
  void drop_connection(std::error_code ec);
  void finish(const std::shared_ptr<pending>& p, std::error_code ec);

  asio::any_io_executor strand_;
  kafka_client_options options_;
  tcp::socket socket_;
  std::shared_ptr<tls_stream> tls_;  // this connection's, when TLS
  state state_ = state::idle;
  // Bumped at each new connection: loops of an old one stop.
  uint64_t generation_ = 0;
  int32_t next_correlation_ = 0;
  std::map<int32_t, std::shared_ptr<pending>> in_flight_;
  std::deque<std::vector<uint8_t>> outgoing_;
  asio::steady_timer writer_wake_;
  // Callers waiting for a connection attempt made by another call.
  asio::steady_timer connect_done_;
  std::chrono::steady_clock::time_point next_attempt_{};
  // When this connection's login is to be renewed (the peer's
  // connections.max.reauth.ms), and whether that is under way.
  std::optional<std::chrono::steady_clock::time_point> reauthenticate_at_;
  bool reauthenticating_ = false;
  asio::steady_timer reauthenticated_;  // woken when a re-authentication ends
  asio::steady_timer drained_;          // woken when the last request in flight is answered
  std::chrono::milliseconds backoff_{0};
};

}  // namespace hw::broker

template <>
struct std::is_error_code_enum<hw::broker::client_errc> : std::true_type {};
