#pragma once
// The network front door: one acceptor per listener, one connection per
// accepted socket. start() binds synchronously so that start-up errors are
// reported before the broker claims to be up; accept loops then run on the
// server's strand, which also owns the set of live connections.
//
// Deferred listeners (the client listeners of a broker, as Kafka's
// BrokerServer enables request processing only once the broker has caught
// up and been unfenced) are bound by start() too, so their ports are
// reserved and connecting clients wait in the listen backlog, but accept
// only from start_deferred(): a client is never answered NOT_COORDINATOR
// or an empty metadata view by a broker that is still starting.
//
// Shutdown: stop accepting, ask every connection to finish the requests it
// has read and close, and after the grace period close whatever is left.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "broker/asio.h"
#include "broker/bound_listener.h"
#include "broker/dispatcher.h"
#include "broker/listener/connection.h"
#include "broker/listener/request_budget.h"
#include "config/listeners.h"

namespace hw::broker {

namespace quota {
class connection_rate_quotas;
}

struct server_options {
  std::vector<config::listener_endpoint> listeners;
  connection_options connection;
  int32_t max_connections = INT32_MAX;       // max.connections
  int32_t listen_backlog = 50;               // socket.listen.backlog.size
  int32_t send_buffer_bytes = -1;            // socket.send.buffer.bytes; -1 = OS default
  int32_t receive_buffer_bytes = -1;         // socket.receive.buffer.bytes
  int32_t queued_max_requests = 500;         // queued.max.requests
  // Listener names whose accept loops wait for start_deferred().
  std::vector<std::string> deferred_listeners;
  // What each SASL_PLAINTEXT and SASL_SSL listener offers, by listener name.
  std::map<std::string, std::shared_ptr<const sasl_listener>> sasl_listeners;
  // The TLS context of each SSL and SASL_SSL listener, by listener name.
  std::map<std::string, std::shared_ptr<const tls_server_context>> tls_listeners;
  // connection_creation_rate per client IP (null: none); a connection over
  // its IP's rate is held unserved for the throttle, then closed.
  quota::connection_rate_quotas* connection_rates = nullptr;
};

class server {
 public:
  server(asio::io_context& io, server_options options, const dispatcher& dispatcher);
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  // Binds every listener and starts accepting on those not deferred. On
  // failure nothing is left listening and the message names the listener.
  std::optional<std::string> start();
  // Starts accepting on the deferred listeners; returns once they accept
  // (so "Listening on" is logged before the broker says it started). From
  // any thread but the server strand.
  void start_deferred();
  const std::vector<bound_listener>& bound() const { return bound_; }
  // New TLS contexts for these listeners (a reloaded key or trust store):
  // connections accepted from now on use them, open ones keep theirs. Any
  // thread.
  void update_tls(std::map<std::string, std::shared_ptr<const tls_server_context>> contexts);

  // Graceful stop, run on the server strand; on_done is called (on that
  // strand) once every connection is closed. May be called from any thread.
  void shutdown(std::chrono::milliseconds grace, std::function<void()> on_done);

 private:
  struct listener_state {
    bound_listener info;
    tcp::acceptor acceptor;
    bool deferred = false;  // accepting only from start_deferred()
    std::shared_ptr<const sasl_listener> sasl;
    std::shared_ptr<const tls_server_context> tls;
  };

  asio::awaitable<void> accept_loop(listener_state& l);
  asio::awaitable<void> drain(std::chrono::milliseconds grace);
  void on_connection_closed(uint64_t id);
  void configure_socket(tcp::socket& s) const;
  // Whether the client's IP is over its connection_creation_rate; the
  // socket is then held and closed later.
  bool throttled_by_ip_rate(tcp::socket& socket);

  asio::io_context& io_;
  server_options options_;
  const dispatcher& dispatcher_;
  request_budget budget_;
  asio::strand<asio::io_context::executor_type> strand_;

  // Owned by strand_.
  std::vector<std::unique_ptr<listener_state>> listeners_;
  std::vector<bound_listener> bound_;
  std::unordered_map<uint64_t, std::shared_ptr<connection>> connections_;
  uint64_t next_connection_id_ = 0;
  bool stopping_ = false;
  asio::steady_timer connections_changed_;
};

}  // namespace hw::broker
