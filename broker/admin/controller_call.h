#pragma once
// Forwarding an admin request to the active controller and waiting until
// this broker has applied what it committed (Kafka's brokers forward these
// to the controller; clients expect to see the change in their next
// Metadata). Without a controller in this process the request is answered
// by the caller's fallback.

#include <chrono>
#include <functional>

#include "broker/asio.h"
#include "broker/metadata/controller_service.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"

namespace hw::broker {

// Op: controller_result<R>(quorum_controller&, int64_t now_ms); a plain
// lambda (see controller_service::submit on GCC 12 and co_await temporaries).
template <class R, class Op>
asio::awaitable<R> call_controller(const broker_services& services, Op op,
                                   std::chrono::milliseconds apply_timeout = std::chrono::seconds(30)) {
  bool ok = true;
  storage::offset end;
  R response = co_await services.controller->template submit<R>(
      [&](controller::quorum_controller& qc, int64_t now, storage::offset) { return op(qc, now); }, &ok, &end);
  if (ok) co_await services.metadata->wait_applied(end, apply_timeout);
  co_return response;
}

}  // namespace hw::broker
