#pragma once
// The client quotas' measures as the metrics endpoint shows them, under
// Kafka's names (broker/metrics/README.md): per measure, the byte rate or
// request time (controller mutations: tokens left and mutation rate) and
// the average throttle time.

#include <cstdint>
#include <vector>

#include "broker/metrics/broker_metrics.h"
#include "broker/quota/client_quotas.h"

namespace hw::broker::quota {

std::vector<metrics::quota_gauge> quota_gauges(client_quotas& quotas, int64_t now_ms);

}  // namespace hw::broker::quota
