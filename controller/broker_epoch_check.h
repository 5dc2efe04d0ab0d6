#pragma once
// The check every broker-sent request starts with (heartbeats, AlterPartition,
// AllocateProducerIds): the sender is the incarnation the image has
// registered, with Kafka's STALE_BROKER_EPOCH messages.

#include <cstdint>
#include <string>

#include "controller/controller_result.h"
#include "controller/metadata/image.h"

namespace hw::controller {

inline api_error check_broker_epoch(const metadata_image& image, node_id broker, broker_epoch epoch) {
  const broker_registration* b = image.broker(broker);
  if (!b) {
    return {error_code::stale_broker_epoch,
            "No broker registration found for broker id " + std::to_string(broker.value)};
  }
  if (b->epoch != epoch) {
    return {error_code::stale_broker_epoch, "Expected broker epoch " + std::to_string(b->epoch.value) +
                                                ", but got broker epoch " + std::to_string(epoch.value)};
  }
  return {};
}

}  // namespace hw::controller
