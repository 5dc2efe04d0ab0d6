#pragma once
// Creating topics through the active controller, for CreateTopics and for
// the topics the broker creates itself (auto-creation on Metadata, the
// internal topics on FindCoordinator). Returns once the controller
// committed the records and this broker's metadata applied them (or the
// timeout passed), so the caller can answer with the new topic's metadata.

#include <chrono>
#include <string>
#include <vector>

#include "broker/asio.h"
#include "broker/request_context.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "protocol/messages/create_topics.h"

namespace hw::broker {

// Through the active controller (call_active_controller); may_forward is
// false for a request that came in on a controller listener. For a
// client's request (`client`), a forwarded one carries the client's
// principal in an envelope; the broker's own creations carry its own.
asio::awaitable<protocol::msg::create_topics_response> create_topics(const broker_services& services,
                                                                     protocol::msg::create_topics_request request,
                                                                     int16_t version,
                                                                     std::chrono::milliseconds timeout,
                                                                     bool may_forward = true,
                                                                     const request_context* client = nullptr);

// One topic with the broker's defaults (num.partitions or the given count,
// default.replication.factor or the given one) and configs.
asio::awaitable<protocol::error_code> create_topic(const broker_services& services, std::string name,
                                                   int32_t partitions, int16_t replication_factor,
                                                   std::vector<std::pair<std::string, std::string>> configs = {},
                                                   const request_context* client = nullptr);

}  // namespace hw::broker
