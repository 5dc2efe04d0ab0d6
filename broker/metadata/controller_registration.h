#pragma once
// This controller's registration (Kafka's ControllerRegistrationManager):
// once the committed metadata's metadata.version has controller
// registrations (3.7-IV0 and later) and holds none of this process's
// incarnation, a ControllerRegistration to the active controller (in
// process when that is this node) with the controller listeners' endpoints
// and the supported feature ranges, retried with Kafka's backoff (100 ms
// doubling to 2 minutes) until the registration is in the log. The active
// controller checks feature updates against these registrations
// (controller/feature_control.h) and refuses one while a voter has not
// registered. The same endpoints go to the raft driver, which keeps this
// voter's entry of a dynamic quorum's voter set up to date with them.
//
// Ownership and threads: owned by the node; its loop runs on the raft
// driver's strand, where the committed image lives.

#include <atomic>
#include <cstdint>
#include <vector>

#include "broker/asio.h"
#include "broker/bound_listener.h"
#include "broker/services.h"
#include "protocol/messages/controller_registration.h"
#include "protocol/wire/uuid.h"

namespace hw::broker {

class controller_registration {
 public:
  controller_registration(const broker_services& services, const std::vector<bound_listener>& bound);

  void start();
  asio::awaitable<void> stop();

 private:
  asio::awaitable<void> loop();
  bool registered() const;

  const broker_services& services_;
  protocol::msg::controller_registration_request request_;
  asio::steady_timer timer_;
  std::atomic<bool> stopping_{false};
  bool done_ = false;
};

}  // namespace hw::broker
