#pragma once
// Reaching the active controller with a request: in process when this
// node's controller is the active one, else over the network to the quorum
// leader's controller listener (the raft driver knows who leads), as
// Kafka's brokers forward admin requests and send their registrations and
// heartbeats. A request that came in on a controller listener is never
// forwarded: a controller that is not active answers NOT_CONTROLLER and the
// client asks another. A forwarded admin request no controller answers in
// time gets REQUEST_TIMED_OUT per resource (timed_out_response.h).

#include <chrono>
#include <concepts>
#include <cstdint>
#include <vector>

#include "broker/metadata/timed_out_response.h"
#include "broker/asio.h"
#include "broker/metadata/controller_not_active.h"
#include "broker/metadata/controller_service.h"
#include "broker/metadata/envelope.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/metadata/raft_driver.h"
#include "broker/quota/request_quotas.h"
#include "broker/services.h"
#include "config/broker_config.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::broker {

inline constexpr int16_t k_envelope_api_key = 58;

struct controller_call_result {
  commit_status status = commit_status::not_controller;
  bool remote = false;  // answered by another node's controller
  // In process only: where the committed records end.
  storage::offset committed_end{-1};
};

// The answer to a forwarded request no active controller answered in time:
// Kafka's timeout answer for the admin requests, NOT_CONTROLLER for the
// rest (their senders retry on it).
template <class R, class Req>
R unanswered(const Req& request, int16_t version) {
  if constexpr (requires {
                  { timed_out_response(request, version) } -> std::same_as<R>;
                }) {
    return timed_out_response(request, version);
  } else {
    R r{};
    mark_not_controller(r);
    return r;
  }
}

// Op: controller_result<R>(quorum_controller&, int64_t now_ms, storage::offset next_offset); a plain lambda
// (see controller_service::submit on GCC 12 and co_await temporaries).
//
// With `client` (a client's admin request), a forwarded request travels in
// an EnvelopeRequest carrying the client's principal and address
// (envelope.h), so the controller authorizes the client; an envelope the
// controller refuses is UNKNOWN_SERVER_ERROR to the client, as Kafka's
// ForwardingManager answers it.
template <class R, class Req, class Op>
asio::awaitable<R> call_active_controller(const broker_services& services, bool may_forward, int16_t api_key,
                                          int16_t version, const Req& request, Op op,
                                          controller_call_result* result = nullptr,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(30),
                                          const request_context* client = nullptr) {
  // The client's request waits here, not handled: its request time leaves it out.
  quota::parked parked(client);
  controller_call_result outcome;
  R response{};
  if (services.controller) {
    response = co_await services.controller->template submit<R>(op, &outcome.status, &outcome.committed_end);
  }
  if (outcome.status == commit_status::not_controller && may_forward && services.raft) {
    constexpr bool can_refuse = requires {
      { refused_response(request, version, protocol::error_code::none, std::nullopt) } -> std::same_as<R>;
    };
    const bool enveloped = can_refuse && client != nullptr && can_envelope(*client);
    std::vector<uint8_t> body;
    protocol::writer w(body);
    request.encode(w, version);
    if (enveloped) body = envelope_request_body(*client, api_key, version, body);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    asio::steady_timer pause(co_await asio::this_coro::executor);
    for (;;) {
      client_response raw;
      std::vector<uint8_t> attempt = body;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      auto ec = co_await services.raft->call_leader(enveloped ? k_envelope_api_key : api_key, enveloped ? 0 : version,
                                                    std::move(attempt), left, &raw);
      if (!ec) {
        std::vector<uint8_t> opened;
        protocol::bytes_view payload = raw.body();
        if (enveloped) {
          unwrapped_response inner = unwrap_envelope_response(raw.body(), api_key, version);
          if (inner.error != protocol::error_code::none) {
            if constexpr (can_refuse)
              response = refused_response(request, version, protocol::error_code::unknown_server_error, std::nullopt);
            outcome.status = commit_status::committed;
            outcome.remote = true;
            break;
          }
          opened = std::move(inner.body);
          payload = protocol::bytes_view(opened.data(), opened.size());
        }
        R decoded;
        protocol::reader r(payload);
        decoded.decode(r, version);
        if (r.ok()) {
          response = std::move(decoded);
          outcome.status = commit_status::committed;
          outcome.remote = true;
          break;
        }
      }
      // No leader known yet, or it went away: ask again shortly.
      if (std::chrono::steady_clock::now() + std::chrono::milliseconds(100) >= deadline) break;
      pause.expires_after(std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::use_awaitable);
    }
    if (!outcome.remote) response = unanswered<R>(request, version);
  } else if (!services.controller) {
    mark_not_controller(response);
  }
  if (result) *result = outcome;
  co_return response;
}

// An admin request from a handler: forwarded unless it came in on a
// controller listener; answered once this broker has applied what it
// committed in process (clients expect to see the change in their next
// Metadata).
// A forwarded request waits for a controller's answer up to the broker's
// request.timeout.ms, as Kafka's forwarding does.
template <class R, class Req, class Op>
asio::awaitable<R> call_controller(const request_context& ctx, const Req& request, Op op,
                                   std::chrono::milliseconds apply_timeout = std::chrono::seconds(30)) {
  const broker_services& services = *ctx.services;
  controller_call_result result;
  const auto forward_timeout = services.config ? std::chrono::milliseconds(services.config->get_int("request.timeout.ms"))
                                               : std::chrono::milliseconds(std::chrono::seconds(30));
  R response = co_await call_active_controller<R>(
      services, !services.is_controller_listener(ctx.listener_name), ctx.api_key, ctx.api_version, request,
      [&](controller::quorum_controller& qc, int64_t now, storage::offset) { return op(qc, now); }, &result,
      forward_timeout, &ctx);
  if (result.status == commit_status::committed && !result.remote && services.metadata) {
    quota::parked parked(&ctx);
    co_await services.metadata->wait_applied(result.committed_end, apply_timeout);
  }
  co_return response;
}

}  // namespace hw::broker
