#pragma once
// One client connection. Lifecycle: created by the server for an accepted
// socket, start() spawns its coroutines, and it lives (shared_ptr) until the
// last of them ends after the socket is closed.
//
// Runs entirely on its own strand: a reader coroutine reads frames (the size
// prefix is checked against socket.request.max.bytes before the frame is
// allocated) while fewer than max_inflight requests are read but not yet
// answered and the requests read but not yet handled hold fewer than
// max_read_ahead_bytes (so the bytes held stay below that bound plus one
// frame, and a frame bigger than the bound still gets through); one handler
// coroutine handles them one at a time, in the order they came, as Kafka
// handles a connection's requests (a client's pipelined Produce requests
// must reach each partition in the order they were sent); a writer
// coroutine writes the responses in request order, several at once with
// one gathering write; an idle watchdog closes the connection after
// connections.max.idle.ms without traffic.
//
// Authentication: on a SASL listener the connection holds its sasl_session
// until the exchange completes. Each request is first put to the session
// (only ApiVersions and the SASL requests pass before authentication; any
// other closes the connection, as Kafka's SaslServerAuthenticator does);
// after a v0 SaslHandshake the frames that follow are raw tokens, answered
// here without the dispatcher. Until authenticated, frames may be no bigger
// than sasl.server.max.receive.size. A failed exchange answers after
// connection.failed.authentication.delay.ms and closes. Once complete, the
// session's principal is the connection's. When the listener limits a
// login's life (connections.max.reauth.ms, KIP-368), a SaslHandshake after
// authentication starts a re-authentication through a fresh session (at
// most one a second, as Kafka), and any other request once the login has
// expired closes the connection unanswered.
//
// TLS: on SSL and SASL_SSL listeners the connection first runs the server
// side of the TLS handshake, then reads and writes through the TLS stream;
// a fetch's file ranges are read into memory to be encrypted (no sendfile).
// On SSL the principal is the client certificate's subject mapped by
// ssl.principal.mapping.rules (User:ANONYMOUS without a certificate).
//
// Quotas: a response that carries a client quota's throttle mutes the
// connection for that long (Kafka's KIP-219): the reader leaves further
// requests in the socket and the handler takes none of those already read.
//
// Closing: on EOF, on a request the dispatcher rejects, on an invalid size,
// or on server shutdown the reader stops, the responses of the requests
// already read are written, then the socket is closed. A socket error, the
// idle timeout or close_now() close at once.

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker/asio.h"
#include "broker/dispatcher.h"
#include "broker/network/frame_bytes.h"
#include "broker/listener/request_budget.h"
#include "broker/listener/response_queue.h"
#include "broker/security/principal.h"
#include "broker/security/sasl_listener.h"
#include "broker/security/tls_context.h"

namespace boost::asio::ssl {
template <typename Stream>
class stream;
}

namespace hw::broker {

namespace metrics {
class broker_metrics;
}

struct connection_options {
  int32_t max_frame_bytes = 100 * 1024 * 1024;  // socket.request.max.bytes
  size_t max_inflight = 64;                     // highwater.connection.max.inflight.requests
  // Requests are handled one at a time, so reading further ahead than the
  // next request or two only holds memory: with 64 pipelined 1 MB Produce
  // requests per connection the broker held tens of MiB of frames waiting
  // their turn. Past this many unhandled bytes the rest wait in the socket
  // (TCP pushes back on the client), as Kafka reads one request at a time.
  // No configuration key sets it (yet).
  size_t max_read_ahead_bytes = 1 << 20;
  int64_t idle_timeout_ms = 600'000;            // connections.max.idle.ms; < 0 disables
  size_t max_write_batch = 64;                  // responses per gathering write
  size_t max_write_batch_bytes = 1 << 20;
  // Connection counts and authentication outcomes (none in some tests).
  metrics::broker_metrics* metrics = nullptr;
};

class connection : public std::enable_shared_from_this<connection> {
 public:
  using strand_type = asio::strand<asio::io_context::executor_type>;
  using closed_callback = std::function<void(uint64_t id)>;

  // The listener a connection came in on.
  struct origin {
    std::string listener_name;
    security_protocol protocol = security_protocol::plaintext;
    // Set on SASL_PLAINTEXT and SASL_SSL listeners.
    std::shared_ptr<const sasl_listener> sasl;
    // Set on SSL and SASL_SSL listeners.
    std::shared_ptr<const tls_server_context> tls;
  };

  // socket must have been accepted onto strand.
  connection(strand_type strand, tcp::socket socket, uint64_t id, origin from, const connection_options& options,
             const dispatcher& dispatcher, request_budget& budget, closed_callback on_closed);

  ~connection();

  void start();
  // Both may be called from any thread.
  void shutdown_gracefully();  // stop reading, answer what was read, close
  void close_now();

  uint64_t id() const { return id_; }
  const std::string& name() const { return name_; }

 private:
  enum class read_status { frame, eof, invalid, error };

  asio::awaitable<void> read_loop();
  // The TLS handshake and, on SSL, the principal from the client's
  // certificate; false when the connection must close.
  asio::awaitable<bool> start_tls();
  asio::awaitable<size_t> read_some(asio::mutable_buffer into, error_code& ec);
  asio::awaitable<void> read_exactly(asio::mutable_buffer into, error_code& ec);
  asio::awaitable<error_code> write_tls(std::vector<asio::const_buffer>& buffers);
  asio::awaitable<read_status> read_frame(frame_bytes& frame);
  asio::awaitable<bool> fill_read_buffer();
  // Holds one unit of the broker-wide request budget until destroyed.
  class budget_slot {
   public:
    explicit budget_slot(request_budget* b = nullptr) : budget_(b) {}
    budget_slot(budget_slot&& o) noexcept : budget_(std::exchange(o.budget_, nullptr)) {}
    budget_slot& operator=(budget_slot&&) = delete;
    ~budget_slot() {
      if (budget_) budget_->release();
    }

   private:
    request_budget* budget_;
  };

  asio::awaitable<void> handle_request(frame_bytes frame, uint64_t seq, budget_slot slot);
  // Before authentication: a raw token's answer (after a v0 handshake), or
  // whether the session admits the request (else out says to close).
  dispatch_outcome raw_sasl_token(std::span<const uint8_t> token);
  bool admitted_before_authentication(std::span<const uint8_t> frame, dispatch_outcome& out);
  // After the request that ended the SASL exchange: the principal, or the
  // failure's delayed answer and close.
  asio::awaitable<void> finish_sasl_step(dispatch_outcome& out, uint64_t seq, bool& handled);
  // After authentication on a listener whose logins expire: whether this
  // request starts a re-authentication (sasl_ is then set), comes after the
  // login expired (the connection closes), or goes on as usual.
  enum class login_check { carry_on, reauthenticate, expired };
  login_check check_login(std::span<const uint8_t> frame);
  int32_t max_frame_bytes() const;
  void count_authentication(const std::string& mechanism, bool succeeded);
  // Handles the requests read, one at a time, in order.
  asio::awaitable<void> handler_loop();
  struct read_request {
    frame_bytes frame;
    uint64_t seq = 0;
    budget_slot slot;
  };
  asio::awaitable<void> write_loop();
  // Writes the frames in order: their bytes with gathering writes, their
  // file ranges with sendfile in between.
  asio::awaitable<error_code> write_frames(const std::vector<response_frame>& frames,
                                           std::vector<asio::const_buffer>& buffers);
  // Sends buffers and clears them; more: further bytes follow at once
  // (MSG_MORE).
  asio::awaitable<error_code> write_buffers(std::vector<asio::const_buffer>& buffers, bool more);
  asio::awaitable<error_code> send_file_range(const file_range& range);
  asio::awaitable<void> idle_watchdog();
  asio::awaitable<void> wait(asio::steady_timer& timer);
  // Waits out a quota's mute, if any (timer: the waiting coroutine's own).
  asio::awaitable<void> wait_unmuted(asio::steady_timer& timer);

  void stop_reading();
  void close_socket(const char* why);
  void touch() { last_activity_ = std::chrono::steady_clock::now(); }
  bool drained() const;

  strand_type strand_;
  tcp::socket socket_;
  const uint64_t id_;
  const std::string listener_name_;
  const security_protocol protocol_;
  // PLAINTEXT: User:ANONYMOUS; authentication will set it before the first
  // request it lets through.
  kafka_principal principal_;
  std::shared_ptr<const sasl_listener> sasl_listener_;
  std::unique_ptr<sasl_session> sasl_;  // until authenticated, and while re-authenticating
  std::string login_mechanism_;         // the SASL mechanism the connection logged in with
  std::optional<std::chrono::steady_clock::time_point> login_expiry_;  // connections.max.reauth.ms
  std::optional<std::chrono::steady_clock::time_point> last_reauthentication_;
  // A login whose principal could not be made (a Kerberos name no rule
  // maps): the next request closes the connection, as Kafka's does.
  std::optional<std::string> principal_error_;
  std::shared_ptr<const tls_server_context> tls_context_;
  std::unique_ptr<asio::ssl::stream<tcp::socket&>> tls_;  // after start_tls on TLS listeners
  std::vector<uint8_t> tls_staging_;  // small responses gathered into one TLS write
  std::string name_;         // Kafka-style "local-remote-id"
  std::string remote_;       // "host:port" of the client
  std::string remote_host_;  // the client's IP
  const connection_options options_;
  const dispatcher& dispatcher_;
  request_budget& budget_;
  closed_callback on_closed_;

  // State below is touched only on strand_.
  response_queue queue_;
  asio::steady_timer writer_wakeup_;
  asio::steady_timer reader_wakeup_;
  asio::steady_timer handler_wakeup_;
  std::deque<read_request> to_handle_;
  size_t unhandled_bytes_ = 0;  // frames read whose handling has not finished
  asio::steady_timer idle_timer_;
  // A client quota's throttle (KIP-219): until muted_until_ the connection
  // reads and handles nothing more; responses already due still go out.
  std::chrono::steady_clock::time_point muted_until_{};
  asio::steady_timer read_mute_timer_;
  asio::steady_timer handle_mute_timer_;
  asio::cancellation_signal read_cancel_;
  bool reading_ = true;  // false once the reader has stopped or must stop
  bool closed_ = false;
  std::chrono::steady_clock::time_point last_activity_;

  // Read buffer: frames up to its size are read with few system calls and
  // copied out; the rest of a bigger frame is read straight into it.
  static constexpr size_t kReadBufferBytes = 16 * 1024;
  std::array<uint8_t, kReadBufferBytes> rbuf_;
  size_t rbegin_ = 0, rend_ = 0;
};

}  // namespace hw::broker
