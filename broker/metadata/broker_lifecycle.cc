#include "broker/metadata/broker_lifecycle.h"

#include <random>
#include <tuple>

#include <spdlog/spdlog.h>

#include "broker/features.h"
#include "broker/metadata/controller_call.h"
#include "broker/metadata/controller_service.h"
#include "broker/metadata/metadata_publisher.h"
#include "config/broker_config.h"

namespace hw::broker {
namespace {

using namespace std::chrono_literals;

int16_t security_protocol_id(std::string_view name) {
  if (name == "PLAINTEXT") return 0;
  if (name == "SSL") return 1;
  if (name == "SASL_PLAINTEXT") return 2;
  if (name == "SASL_SSL") return 3;
  return 0;
}

// The endpoints clients are told: advertised.listeners, with a port of 0
// replaced by the port actually bound for that listener and an empty host
// by the bound host (or localhost when bound to every interface).
std::vector<protocol::msg::broker_registration_request::listener> advertised(const config::broker_config& c,
                                                                            const std::vector<bound_listener>& bound) {
  std::vector<protocol::msg::broker_registration_request::listener> out;
  for (const auto& ep : c.advertised_listeners) {
    if (std::find(c.controller_listener_names.begin(), c.controller_listener_names.end(), ep.name) !=
        c.controller_listener_names.end())
      continue;
    protocol::msg::broker_registration_request::listener l;
    l.name = ep.name;
    std::tie(l.host, l.port) = announced_endpoint(ep.name, ep.host, ep.port, bound);
    l.security_protocol = security_protocol_id(ep.security_protocol);
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

broker_lifecycle::broker_lifecycle(asio::any_io_executor executor, const broker_services& services,
                                   std::vector<bound_listener> bound, std::optional<int64_t> previous_broker_epoch,
                                   std::vector<protocol::uuid> log_dirs,
                                   std::function<std::vector<protocol::uuid>()> offline_dirs)
    : strand_(asio::make_strand(executor)),
      services_(services),
      bound_(std::move(bound)),
      previous_broker_epoch_(previous_broker_epoch),
      log_dirs_(std::move(log_dirs)),
      offline_dirs_(std::move(offline_dirs)),
      timer_(strand_) {
  std::random_device device;
  std::mt19937_64 rng((static_cast<uint64_t>(device()) << 32) ^ device());
  incarnation_id_ = protocol::uuid::random(rng);
}

asio::awaitable<std::optional<std::string>> broker_lifecycle::start() {
  const auto& c = *services_.config;
  protocol::msg::broker_registration_request request;
  request.broker_id = c.node_id;
  request.cluster_id = services_.cluster_id;
  request.incarnation_id = incarnation_id_;
  request.listeners = advertised(c, bound_);
  for (const auto& f : supported_features()) request.features.push_back({std::string(f.name), f.min_version, f.max_version, {}});
  request.rack.reset();  // null unless broker.rack is set, as Kafka registers it
  if (auto rack = c.values.find("broker.rack"); rack != c.values.end() && !c.is_null("broker.rack"))
    request.rack = c.get_string("broker.rack");
  request.previous_broker_epoch = previous_broker_epoch_.value_or(-1);
  request.log_dirs = log_dirs_;

  // A previous incarnation that stopped without a controlled shutdown
  // holds the id until its session expires (broker.session.timeout.ms);
  // Kafka's brokers retry until then, and so does this one.
  const auto session = std::chrono::milliseconds(c.get_int("broker.session.timeout.ms"));
  const auto registration_deadline = std::chrono::steady_clock::now() + session + 30s;
  protocol::msg::broker_registration_response response;
  for (bool logged = false;;) {
    response = co_await call_active_controller<protocol::msg::broker_registration_response>(
        services_, true, 62, 4, request, [&](controller::quorum_controller& qc, int64_t now, storage::offset next) {
          return qc.register_broker(request, next.value, now);
        });
    const auto error = static_cast<protocol::error_code>(response.error_code);
    if (error == protocol::error_code::none) break;
    const bool retriable = error == protocol::error_code::duplicate_broker_registration ||
                           error == protocol::error_code::not_controller;
    if (!retriable || std::chrono::steady_clock::now() > registration_deadline)
      co_return "Broker registration failed: " + std::string(protocol::error_name(error));
    if (!logged && error == protocol::error_code::duplicate_broker_registration) {
      spdlog::info("Broker {} is still registered by a previous run; retrying until its session expires ({} ms)",
                   c.node_id, session.count());
      logged = true;
    }
    timer_.expires_after(500ms);
    co_await timer_.async_wait(asio::use_awaitable);
  }
  broker_epoch_.store(response.broker_epoch, std::memory_order_release);
  spdlog::info("Registered broker {} with broker epoch {}", c.node_id, response.broker_epoch);

  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!co_await heartbeat()) {
    if (std::chrono::steady_clock::now() > deadline)
      co_return std::string("The broker was not unfenced within 60 seconds of registering");
    timer_.expires_after(50ms);
    co_await timer_.async_wait(asio::use_awaitable);
  }
  spdlog::info("Broker {} is unfenced and serving", c.node_id);
  asio::co_spawn(strand_, heartbeat_loop(), asio::detached);
  co_return std::nullopt;
}

asio::awaitable<bool> broker_lifecycle::heartbeat(bool want_shut_down, bool* should_shut_down) {
  protocol::msg::broker_heartbeat_request request;
  request.broker_id = services_.config->node_id;
  request.broker_epoch = broker_epoch();
  request.current_metadata_offset = services_.metadata->applied_offset();
  request.want_fence = false;
  request.want_shut_down = want_shut_down;
  if (offline_dirs_) request.offline_log_dirs = offline_dirs_();
  controller_call_result result;
  auto response = co_await call_active_controller<protocol::msg::broker_heartbeat_response>(
      services_, true, 63, 2, request,
      [&](controller::quorum_controller& qc, int64_t now, storage::offset next) {
        return qc.broker_heartbeat(request, next.value, now);
      },
      &result, 5s);
  if (response.error_code != 0) {
    spdlog::warn("Broker heartbeat failed: {}",
                 protocol::error_name(static_cast<protocol::error_code>(response.error_code)));
    co_return false;
  }
  // Whatever the heartbeat changed (unfencing) is applied before serving.
  if (!result.remote) {
    co_await services_.metadata->wait_applied(result.committed_end, 10s);
  } else if (!response.is_fenced) {
    // Another node's controller unfenced this broker: wait until the
    // publisher has applied this broker's registration as unfenced.
    const auto until = std::chrono::steady_clock::now() + 10s;
    asio::steady_timer pause(co_await asio::this_coro::executor);
    for (;;) {
      // The image is held while its registration is read: the publisher
      // may replace (and free) the current one at any time.
      const auto image = services_.metadata->image();
      const auto* self = image->broker(storage::node_id(services_.config->node_id));
      if ((self && !self->fenced) || std::chrono::steady_clock::now() > until) break;
      pause.expires_after(20ms);
      co_await pause.async_wait(asio::use_awaitable);
    }
  }
  if (should_shut_down) *should_shut_down = response.should_shut_down;
  co_return !response.is_fenced;
}

asio::awaitable<void> broker_lifecycle::heartbeat_loop() {
  const auto interval = std::chrono::milliseconds(services_.config->get_int("broker.heartbeat.interval.ms"));
  looping_ = true;
  while (!stopping_.load(std::memory_order_acquire)) {
    if (!urgent_.exchange(false, std::memory_order_acq_rel)) {
      timer_.expires_after(interval);
      error_code ec;
      co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      urgent_.store(false, std::memory_order_release);
    }
    if (stopping_.load(std::memory_order_acquire)) break;
    co_await heartbeat();
  }
}

void broker_lifecycle::dir_failed() {
  urgent_.store(true, std::memory_order_release);
  // Before the loop runs, start() waits on the timer: it is left alone,
  // and the loop's first heartbeat goes at once.
  asio::post(strand_, [this] {
    if (looping_) timer_.cancel();
  });
}

asio::awaitable<void> broker_lifecycle::stop() {
  stopping_.store(true, std::memory_order_release);
  co_await asio::co_spawn(strand_, [this]() -> asio::awaitable<void> {
    timer_.cancel();
    co_return;
  }, asio::use_awaitable);
  if (broker_epoch() < 0) co_return;
  // Controlled shutdown: leaderships move away (or the partitions wait for
  // this broker, alone in their ISR), and the broker is fenced, so that the
  // next start registers at once.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  asio::steady_timer pause(co_await asio::this_coro::executor);
  for (;;) {
    bool done = false;
    co_await heartbeat(true, &done);
    if (done) {
      spdlog::info("Controlled shutdown of broker {} complete", services_.config->node_id);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      spdlog::warn("Controlled shutdown of broker {} did not complete; stopping anyway", services_.config->node_id);
      break;
    }
    pause.expires_after(50ms);
    co_await pause.async_wait(asio::use_awaitable);
  }
}

}  // namespace hw::broker
