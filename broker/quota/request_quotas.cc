#include "broker/quota/request_quotas.h"

#include <algorithm>
#include <cmath>

#include "broker/services.h"
#include "protocol/messages/api_registry.h"
#include "protocol/request_header_parse.h"

namespace hw::broker::quota {

namespace {

client_quota_manager* manager(const request_context& ctx, kind k) {
  if (!ctx.services || !ctx.services->quotas) return nullptr;
  client_quota_manager& m = ctx.services->quotas->of(k);
  return m.enabled() ? &m : nullptr;
}

std::optional<size_t> throttle_offset(int16_t api_key, int16_t version, int16_t header_version) {
  const protocol::api_info* api = protocol::find_api(api_key);
  if (!api || api->throttle_first_version < 0 || version < api->throttle_first_version) return std::nullopt;
  return 4 + protocol::response_header_size(header_version);
}

// Kafka's pair of quotas on one request: the larger throttle wins, and is
// counted in its own manager's throttle time.
int32_t larger_throttle(request_context& ctx, client_quota_manager* bandwidth, int32_t bandwidth_ms,
                        int32_t request_ms) {
  ctx.request_quota_recorded = true;
  const int32_t throttle = std::max(bandwidth_ms, request_ms);
  if (throttle > 0) {
    client_quota_manager* counted = bandwidth_ms > request_ms ? bandwidth : manager(ctx, kind::request);
    if (counted) counted->record_throttle(ctx.principal->name(), ctx.client_id.value_or(""), throttle, now_ms());
  }
  ctx.throttle_ms = std::max(ctx.throttle_ms, throttle);
  return throttle;
}

}  // namespace

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool request_time_exempt(const request_context& ctx) {
  switch (ctx.api_key) {
    // Kafka's cluster actions (ApiKeys' clusterAction), SASL, and the
    // metadata quorum's snapshot fetches.
    case 4: case 5: case 6: case 7: case 17: case 27: case 36: case 52: case 53: case 54: case 55: case 56:
    case 57: case 58: case 59: case 62: case 63: case 67:
      return true;
    case 1:
      // A replica's fetch, and the quorum's fetches of the metadata log
      // on a controller listener.
      return ctx.from_follower || (ctx.services && ctx.services->is_controller_listener(ctx.listener_name));
    default:
      return false;
  }
}

int32_t record_request_time(const request_context& ctx) {
  client_quota_manager* m = manager(ctx, kind::request);
  if (!m || request_time_exempt(ctx)) return 0;
  const int64_t handled_ns =
      std::max<int64_t>(0, (std::chrono::steady_clock::now() - ctx.started).count() - ctx.parked_ns);
  // Kafka's request-time unit: percent of one thread over a second.
  const double percent = static_cast<double>(handled_ns) * 100.0 / 1e9;
  return m->record(ctx.principal->name(), ctx.client_id.value_or(""), percent, now_ms());
}

std::optional<int32_t> response_throttle(const response_frame& frame, int16_t api_key, int16_t version,
                                         int16_t header_version) {
  auto at = throttle_offset(api_key, version, header_version);
  if (!at || frame.bytes.size() < *at + 4) return std::nullopt;
  const uint8_t* p = frame.bytes.data() + *at;
  return static_cast<int32_t>(uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]));
}

void set_response_throttle(response_frame& frame, int16_t api_key, int16_t version, int16_t header_version,
                           int32_t throttle_ms) {
  auto at = throttle_offset(api_key, version, header_version);
  if (!at || frame.bytes.size() < *at + 4) return;
  uint8_t* p = frame.bytes.data() + *at;
  const auto v = static_cast<uint32_t>(throttle_ms);
  p[0] = uint8_t(v >> 24), p[1] = uint8_t(v >> 16), p[2] = uint8_t(v >> 8), p[3] = uint8_t(v);
}

void finish_request(request_context& ctx, std::optional<response_frame>& response) {
  // Without request-time or controller mutation quotas no response carries
  // a throttle this step would add or honour: every request goes straight on.
  if (!manager(ctx, kind::request) && !manager(ctx, kind::controller_mutation)) return;
  int32_t request_throttle = 0;
  if (!ctx.request_quota_recorded) request_throttle = record_request_time(ctx);
  int32_t answered = 0;
  if (response) {
    const auto in_response =
        response_throttle(*response, ctx.api_key, ctx.api_version, ctx.response_header_version);
    if (in_response) {
      answered = std::max(*in_response, 0);
      if (request_throttle > answered) {
        set_response_throttle(*response, ctx.api_key, ctx.api_version, ctx.response_header_version,
                              request_throttle);
        answered = request_throttle;
      }
    }
  }
  const int32_t mute = std::max({ctx.throttle_ms, request_throttle, answered});
  // The handler counted its own throttle; this one is the request time's
  // (or the controller's, for a forwarded request, which Kafka counts so).
  if (mute > ctx.throttle_ms) {
    if (client_quota_manager* m = manager(ctx, kind::request))
      m->record_throttle(ctx.principal->name(), ctx.client_id.value_or(""), mute, now_ms());
  }
  ctx.throttle_ms = mute;
}

int32_t produce_throttle(request_context& ctx, bool acks_zero) {
  client_quota_manager* bytes = manager(ctx, kind::produce);
  const int32_t bandwidth =
      bytes ? bytes->record(ctx.principal->name(), ctx.client_id.value_or(""),
                            static_cast<double>(ctx.request_bytes), now_ms())
            : 0;
  // acks=0 is exempt from the request-time quota (no answer to carry it).
  const int32_t request = acks_zero ? 0 : record_request_time(ctx);
  return larger_throttle(ctx, bytes, bandwidth, request);
}

int32_t fetch_throttle(request_context& ctx, const std::function<size_t()>& response_bytes) {
  client_quota_manager* bytes = manager(ctx, kind::fetch);
  if (!bytes && !manager(ctx, kind::request)) return 0;
  const int32_t request = record_request_time(ctx);
  if (!bytes) return larger_throttle(ctx, nullptr, 0, request);
  const int64_t now = now_ms();
  const std::string_view user = ctx.principal->name();
  const std::string_view client = ctx.client_id.value_or("");
  const auto size = static_cast<double>(response_bytes());
  const int32_t bandwidth = bytes->record(user, client, size, now);
  if (std::max(bandwidth, request) > 0) bytes->unrecord(user, client, size, now);
  return larger_throttle(ctx, bytes, bandwidth, request);
}

int32_t fetch_max_bytes(const request_context& ctx, int32_t max_bytes) {
  client_quota_manager* bytes = manager(ctx, kind::fetch);
  if (!bytes) return max_bytes;
  const auto window = bytes->max_value_in_window(ctx.principal->name(), ctx.client_id.value_or(""));
  if (!window) return max_bytes;
  return static_cast<int32_t>(std::clamp<double>(std::floor(*window), 0, max_bytes));
}

mutation_quota::mutation_quota(const request_context* client, int16_t strict_since) {
  client_ = client;
  if (!client) return;
  client_quota_manager* m = manager(*client, kind::controller_mutation);
  if (!m) return;
  state_ = std::make_shared<state>();
  state_->manager = m;
  state_->user = client->principal->name();
  state_->client_id = client->client_id.value_or("");
  state_->strict = client->api_version >= strict_since;
}

controller::partition_change_quota mutation_quota::applier() {
  if (!state_) return {};
  return [s = state_](int32_t partitions) {
    const int64_t now = now_ms();
    auto outcome = s->manager->record_mutation(s->user, s->client_id, partitions, s->strict, now);
    if (outcome.throttle_ms > 0) {
      s->last_throttle_ms = outcome.throttle_ms;
      s->last_at_ms = now;
    }
    return !outcome.refused;
  };
}

int32_t mutation_quota::finish() {
  if (!state_ || state_->last_throttle_ms == 0) return 0;
  const int64_t now = now_ms();
  const auto throttle =
      static_cast<int32_t>(std::max<int64_t>(0, state_->last_throttle_ms - (now - state_->last_at_ms)));
  if (throttle > client_->throttle_ms) {
    state_->manager->record_throttle(state_->user, state_->client_id, throttle, now);
    client_->throttle_ms = throttle;
  }
  return throttle;
}

}  // namespace hw::broker::quota
