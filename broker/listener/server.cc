#include "broker/listener/server.h"

#include <algorithm>
#include <cassert>
#include <csignal>
#include <future>

#include <spdlog/spdlog.h>

#include "broker/quota/client_quotas.h"
#include "broker/quota/request_quotas.h"

namespace hw::broker {
namespace {

using namespace std::chrono_literals;

// Kafka binds a listener's host as Java resolves it, preferring IPv4; an
// empty host is every interface (dual-stack where IPv6 exists).
std::optional<tcp::endpoint> resolve(asio::io_context& io, const std::string& host, uint16_t port, std::string& error) {
  if (host.empty()) return tcp::endpoint(asio::ip::address_v6::any(), port);
  error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (!ec) return tcp::endpoint(addr, port);
  tcp::resolver resolver(io);
  auto results = resolver.resolve(host, std::to_string(port), tcp::resolver::passive, ec);
  if (ec || results.empty()) {
    error = "cannot resolve host " + host + (ec ? ": " + ec.message() : "");
    return std::nullopt;
  }
  for (const auto& r : results)
    if (r.endpoint().address().is_v4()) return r.endpoint();
  return results.begin()->endpoint();
}

}  // namespace

server::server(asio::io_context& io, server_options options, const dispatcher& dispatcher)
    : io_(io),
      options_(std::move(options)),
      dispatcher_(dispatcher),
      budget_(options_.queued_max_requests),
      strand_(asio::make_strand(io)),
      connections_changed_(strand_) {}

server::~server() = default;

std::optional<std::string> server::start() {
  // sendfile has no MSG_NOSIGNAL: a client that closes while its fetch
  // response is being sent must be an EPIPE for that connection, not a
  // SIGPIPE that kills the process.
  std::signal(SIGPIPE, SIG_IGN);
  for (const config::listener_endpoint& ep : options_.listeners) {
    std::shared_ptr<const sasl_listener> sasl;
    std::shared_ptr<const tls_server_context> tls;
    if (ep.security_protocol == "SSL" || ep.security_protocol == "SASL_SSL") {
      auto it = options_.tls_listeners.find(ep.name);
      if (it == options_.tls_listeners.end() || !it->second) {
        listeners_.clear();
        return "Listener " + ep.to_string() + " has no TLS configuration";
      }
      tls = it->second;
    }
    if (ep.security_protocol == "SASL_PLAINTEXT" || ep.security_protocol == "SASL_SSL") {
      auto it = options_.sasl_listeners.find(ep.name);
      if (it == options_.sasl_listeners.end() || !it->second) {
        listeners_.clear();
        return "Listener " + ep.to_string() + " has no SASL configuration";
      }
      sasl = it->second;
    }
    std::string error;
    auto endpoint = resolve(io_, ep.host, ep.port, error);
    if (!endpoint) {
      listeners_.clear();
      return "Listener " + ep.to_string() + ": " + error;
    }
    auto l = std::make_unique<listener_state>(
        listener_state{{ep.name, *parse_security_protocol(ep.security_protocol), ep.host, ep.port},
                       tcp::acceptor(strand_), false, std::move(sasl), std::move(tls)});
    error_code ec;
    auto try_bind = [&](const tcp::endpoint& at) {
      ec = {};
      l->acceptor = tcp::acceptor(strand_);
      l->acceptor.open(at.protocol(), ec);
      if (!ec && at.address().is_v6()) l->acceptor.set_option(asio::ip::v6_only(false), ec);
      if (!ec) l->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
      if (!ec) l->acceptor.bind(at, ec);
      if (!ec) l->acceptor.listen(options_.listen_backlog, ec);
    };
    try_bind(*endpoint);
    if (ec && ep.host.empty()) try_bind(tcp::endpoint(asio::ip::address_v4::any(), ep.port));  // no IPv6
    if (ec) {
      listeners_.clear();
      return "Listener " + ep.to_string() + ": cannot bind to " + (ep.host.empty() ? "*" : ep.host) + ":" +
             std::to_string(ep.port) + ": " + ec.message();
    }
    l->info.port = l->acceptor.local_endpoint().port();
    listeners_.push_back(std::move(l));
  }
  for (auto& l : listeners_) {
    bound_.push_back(l->info);
    l->deferred = std::find(options_.deferred_listeners.begin(), options_.deferred_listeners.end(), l->info.name) !=
                  options_.deferred_listeners.end();
    if (l->deferred) {
      spdlog::info("Bound {}; accepting once the broker is ready", l->info.to_string());
      continue;
    }
    spdlog::info("Listening on {}", l->info.to_string());
    asio::co_spawn(strand_, accept_loop(*l), asio::detached);
  }
  return std::nullopt;
}

void server::start_deferred() {
  assert(!strand_.running_in_this_thread());
  std::promise<void> done;
  asio::post(strand_, [this, &done] {
    for (auto& l : listeners_) {
      if (!l->deferred || stopping_) continue;
      l->deferred = false;
      spdlog::info("Listening on {}", l->info.to_string());
      asio::co_spawn(strand_, accept_loop(*l), asio::detached);
    }
    done.set_value();
  });
  done.get_future().wait();
}

void server::update_tls(std::map<std::string, std::shared_ptr<const tls_server_context>> contexts) {
  asio::post(strand_, [this, contexts = std::move(contexts)] {
    for (auto& l : listeners_) {
      auto it = contexts.find(l->info.name);
      if (it != contexts.end() && it->second && l->tls) l->tls = it->second;
    }
  });
}

void server::configure_socket(tcp::socket& s) const {
  error_code ec;
  s.set_option(tcp::no_delay(true), ec);
  s.set_option(asio::socket_base::keep_alive(true), ec);
  if (options_.send_buffer_bytes >= 0) s.set_option(asio::socket_base::send_buffer_size(options_.send_buffer_bytes), ec);
  if (options_.receive_buffer_bytes >= 0)
    s.set_option(asio::socket_base::receive_buffer_size(options_.receive_buffer_bytes), ec);
}

asio::awaitable<void> server::accept_loop(listener_state& l) {
  asio::steady_timer backoff(strand_);
  while (!stopping_) {
    auto conn_strand = asio::make_strand(io_);
    error_code ec;
    tcp::socket socket = co_await l.acceptor.async_accept(conn_strand, asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_) break;
    if (ec) {
      if (ec == asio::error::operation_aborted) break;
      // Out of file descriptors and the like: log, wait a little, go on.
      spdlog::warn("Error accepting a connection on {}: {}", l.info.to_string(), ec.message());
      backoff.expires_after(100ms);
      co_await backoff.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    if (connections_.size() >= static_cast<size_t>(options_.max_connections)) {
      spdlog::info("Refusing a connection on {}: max.connections ({}) reached", l.info.to_string(),
                   options_.max_connections);
      socket.close(ec);
      continue;
    }
    if (throttled_by_ip_rate(socket)) continue;
    configure_socket(socket);
    uint64_t id = next_connection_id_++;
    auto conn = std::make_shared<connection>(conn_strand, std::move(socket), id,
                                             connection::origin{l.info.name, l.info.protocol, l.sasl, l.tls},
                                             options_.connection,
                                             dispatcher_, budget_, [this](uint64_t closed) {
                                               asio::post(strand_, [this, closed] { on_connection_closed(closed); });
                                             });
    connections_.emplace(id, conn);
    spdlog::debug("Accepted connection {} on {}", conn->name(), l.info.to_string());
    conn->start();
  }
}

bool server::throttled_by_ip_rate(tcp::socket& socket) {
  if (!options_.connection_rates || !options_.connection_rates->enabled()) return false;
  error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  if (ec) return false;
  const int32_t throttle = options_.connection_rates->on_connection(quota::ip_text(remote.address()), quota::now_ms());
  if (throttle <= 0) return false;
  // Kafka holds such a connection, unread, for the throttle and then
  // closes it, so a client that reconnects in a loop is slowed down.
  spdlog::debug("Delaying the close of a connection from {} for {} ms: connection_creation_rate exceeded",
                remote.address().to_string(), throttle);
  auto held = std::make_shared<tcp::socket>(std::move(socket));
  auto timer = std::make_shared<asio::steady_timer>(held->get_executor(), std::chrono::milliseconds(throttle));
  timer->async_wait([held, timer](const error_code&) {
    error_code ignored;
    held->close(ignored);
  });
  return true;
}

void server::on_connection_closed(uint64_t id) {
  connections_.erase(id);
  connections_changed_.cancel();
}

void server::shutdown(std::chrono::milliseconds grace, std::function<void()> on_done) {
  // Spawned on strand_ so that every step below is serialised with the
  // accept loops and with on_connection_closed.
  asio::co_spawn(strand_, drain(grace), [on_done = std::move(on_done)](std::exception_ptr e) {
    if (e) spdlog::error("Error during shutdown");
    on_done();
  });
}

asio::awaitable<void> server::drain(std::chrono::milliseconds grace) {
  assert(strand_.running_in_this_thread());
  stopping_ = true;
  for (auto& l : listeners_) {
    error_code ec;
    l->acceptor.close(ec);
  }
  spdlog::info("Stopped accepting connections; closing {} connection(s)", connections_.size());
  for (auto& [id, conn] : connections_) conn->shutdown_gracefully();

  auto deadline = std::chrono::steady_clock::now() + grace;
  bool forced = false;
  while (!connections_.empty()) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      if (forced) break;  // the sockets are closed; only their coroutines are left
      spdlog::warn("{} connection(s) still busy after {} ms; closing them", connections_.size(), grace.count());
      for (auto& [id, conn] : connections_) conn->close_now();
      forced = true;
      deadline = now + 1s;
    }
    connections_changed_.expires_at(deadline);
    error_code ec;
    co_await connections_changed_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace hw::broker
