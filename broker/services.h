#pragma once
// Broker-wide, read-only state that handlers consult. Built by main before
// the listeners start and outliving every connection.

#include "broker/features.h"
#include "broker/handler_registry.h"

namespace hw::broker {

struct broker_services {
  const handler_registry* handlers = nullptr;
  finalized_features finalized;
};

}  // namespace hw::broker
