#pragma once
// KIP-951, shared by Produce (v10+) and Fetch (v16+): an answer that tells
// a client this broker does not lead a partition (NOT_LEADER_OR_FOLLOWER,
// or FENCED_LEADER_EPOCH for a fetch) names the current leader and epoch,
// and carries that leader's endpoint on the request's listener, so the
// client goes there without a metadata refresh (Kafka's KafkaApis does the
// same from its metadata cache).

#include <cstdint>
#include <set>
#include <string_view>
#include <vector>

#include "controller/metadata/image.h"

namespace hw::broker {

// The endpoints, on `listener`, of the brokers in `leaders` that are
// registered and listen there; Endpoint is a response's NodeEndpoint.
template <typename Endpoint>
std::vector<Endpoint> leader_endpoints(const controller::metadata_image& image, std::string_view listener,
                                       const std::set<int32_t>& leaders) {
  std::vector<Endpoint> out;
  for (int32_t id : leaders) {
    const controller::broker_registration* b = image.broker(controller::node_id(id));
    const controller::broker_endpoint* e = b ? b->endpoint(listener) : nullptr;
    if (!e) continue;
    Endpoint ep;
    ep.node_id = id;
    ep.host = e->host;
    ep.port = e->port;
    ep.rack = b->rack;
    out.push_back(std::move(ep));
  }
  return out;
}

}  // namespace hw::broker
