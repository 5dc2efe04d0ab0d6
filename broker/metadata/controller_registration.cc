#include "broker/metadata/controller_registration.h"

#include <algorithm>
#include <random>
#include <tuple>

#include <spdlog/spdlog.h>

#include "broker/features.h"
#include "broker/metadata/controller_call.h"
#include "config/broker_config.h"

namespace hw::broker {
namespace {

using namespace std::chrono_literals;

bool is_controller_listener(const config::broker_config& c, const std::string& name) {
  return std::find(c.controller_listener_names.begin(), c.controller_listener_names.end(), name) !=
         c.controller_listener_names.end();
}

// Kafka's effective advertised controller listeners: advertised.listeners'
// controller entries, else the controller listeners themselves; a port of 0
// is the port bound, an empty or wildcard host the bound one or localhost.
std::vector<protocol::msg::controller_registration_request::listener> controller_endpoints(
    const config::broker_config& c, const std::vector<bound_listener>& bound) {
  std::vector<protocol::msg::controller_registration_request::listener> out;
  auto add = [&](const config::listener_endpoint& ep) {
    protocol::msg::controller_registration_request::listener l;
    l.name = ep.name;
    std::tie(l.host, l.port) = announced_endpoint(ep.name, ep.host, ep.port, bound);
    l.security_protocol =
        static_cast<int16_t>(parse_security_protocol(ep.security_protocol).value_or(security_protocol::plaintext));
    out.push_back(std::move(l));
  };
  for (const auto& ep : c.advertised_listeners)
    if (is_controller_listener(c, ep.name)) add(ep);
  for (const auto& ep : c.listeners)
    if (is_controller_listener(c, ep.name) &&
        std::none_of(out.begin(), out.end(), [&](const auto& l) { return l.name == ep.name; }))
      add(ep);
  return out;
}

}  // namespace

controller_registration::controller_registration(const broker_services& services,
                                                 const std::vector<bound_listener>& bound)
    : services_(services), timer_(services.raft->strand()) {
  std::random_device device;
  std::mt19937_64 rng((static_cast<uint64_t>(device()) << 32) ^ device());
  const config::broker_config& c = *services.config;
  request_.controller_id = c.node_id;
  request_.incarnation_id = protocol::uuid::random(rng);
  request_.zk_migration_ready = false;
  request_.listeners = controller_endpoints(c, bound);
  for (const auto& f : supported_features())
    request_.features.push_back({std::string(f.name), f.min_version, f.max_version, {}});
  // The same endpoints are this voter's in a dynamic quorum's voter set.
  std::vector<controller::raft::voter_endpoint> own;
  for (const auto& l : request_.listeners) own.push_back({l.name, l.host, l.port});
  services.raft->set_local_endpoints(std::move(own));
}

void controller_registration::start() { asio::co_spawn(services_.raft->strand(), loop(), asio::detached); }

asio::awaitable<void> controller_registration::stop() {
  stopping_ = true;
  co_await asio::post(services_.raft->strand(), asio::use_awaitable);
  timer_.cancel();
}

// On the driver's strand.
bool controller_registration::registered() const {
  const auto& image = services_.raft->committed_image();
  if (!image) return false;
  auto it = image->controllers.find(controller::node_id(request_.controller_id));
  return it != image->controllers.end() && it->second.incarnation_id == request_.incarnation_id;
}

asio::awaitable<void> controller_registration::loop() {
  int failures = 0;
  bool logged_waiting = false;
  while (!stopping_ && !done_) {
    std::chrono::milliseconds wait = 500ms;
    const auto& image = services_.raft->committed_image();
    const bool versioned = image && image->feature_level(controller::metadata_version::feature_name).has_value();
    if (registered()) {
      spdlog::info("Controller {} is registered (incarnation {})", request_.controller_id,
                   request_.incarnation_id.to_string());
      done_ = true;
      break;
    }
    if (!versioned || !image->version().controller_registration_supported()) {
      if (versioned && !logged_waiting) {
        spdlog::info("Controller registration waits for metadata.version 3.7-IV0 (now {})", image->version().name());
        logged_waiting = true;
      }
    } else {
      const auto& req = request_;
      auto response = co_await call_active_controller<protocol::msg::controller_registration_response>(
          services_, true, 70, 0, req, [&req](controller::quorum_controller& qc, int64_t, storage::offset) {
            return qc.register_controller(req);
          });
      if (response.error_code == static_cast<int16_t>(protocol::error_code::not_controller)) {
        // No active controller yet (an election, or its first records):
        // asked again shortly, as Kafka's channel waits for one.
        wait = 200ms;
      } else if (response.error_code != 0) {
        // Kafka's ExponentialBackoff(100 ms, x2, 2 min).
        wait = std::chrono::milliseconds(std::min<int64_t>(120'000, int64_t{100} << std::min(failures, 11)));
        ++failures;
        spdlog::debug("Controller registration failed ({}); retrying in {} ms",
                      protocol::error_name(static_cast<protocol::error_code>(response.error_code)), wait.count());
      } else {
        failures = 0;
        wait = 100ms;  // then look for it in the committed metadata
      }
    }
    timer_.expires_after(wait);
    boost::system::error_code ec;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace hw::broker
