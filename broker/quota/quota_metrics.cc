#include "broker/quota/quota_metrics.h"

namespace hw::broker::quota {

std::vector<metrics::quota_gauge> quota_gauges(client_quotas& quotas, int64_t now_ms) {
  std::vector<metrics::quota_gauge> out;
  for (kind k : {kind::produce, kind::fetch, kind::request, kind::controller_mutation}) {
    const std::string group(metric_group(k));
    const char* value_name = k == kind::request               ? "request-time"
                             : k == kind::controller_mutation ? "tokens"
                                                              : "byte-rate";
    for (const auto& m : quotas.of(k).metrics(now_ms)) {
      out.push_back({group, value_name, m.tags.user, m.tags.client_id, m.value});
      if (k == kind::controller_mutation)
        out.push_back({group, "mutation-rate", m.tags.user, m.tags.client_id, m.mutation_rate});
      out.push_back({group, "throttle-time", m.tags.user, m.tags.client_id, m.throttle_time});
    }
  }
  return out;
}

}  // namespace hw::broker::quota
