#pragma once
// Client quotas on the request path (broker/quota/README.md): what a
// handler or the dispatcher does with one request's quotas, after Kafka's
// KafkaApis and RequestHandlerHelper.
//
// Runs on the request's connection strand; the quota managers it calls
// are thread-safe.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "broker/quota/client_quotas.h"
#include "broker/request_context.h"
#include "broker/response.h"
#include "controller/controller_result.h"

namespace hw::broker::quota {

// The broker's clock for quotas (steady, in ms).
int64_t now_ms();

// Whether Kafka never throttles this API by request time: the brokers' and
// controllers' own APIs (cluster actions), SASL, a replica's Fetch and the
// metadata quorum's fetches.
bool request_time_exempt(const request_context& ctx);

// The request-time quota (request_percentage): records the time the
// request was handled (since ctx.started, less what it spent parked) and
// answers its throttle (0 without a quota, or when exempt).
int32_t record_request_time(const request_context& ctx);

// The dispatcher's part once a handler answered: records the request time
// (unless the handler did), writes a request-time throttle into the
// response's ThrottleTimeMs (the larger of it and what the handler put
// there), and sets ctx.throttle_ms to the time the connection stays muted:
// the largest of the handler's, the request time's and the response's own
// ThrottleTimeMs (a forwarded request's answer carries the controller's).
void finish_request(request_context& ctx, std::optional<response_frame>& response);

// Produce (Kafka's handleProduceRequest): the request's bytes against
// producer_byte_rate and, unless acks=0, its time against
// request_percentage; answers the larger throttle, which is also the
// connection's.
int32_t produce_throttle(request_context& ctx, bool acks_zero);
// A consumer's Fetch: the response's bytes against consumer_byte_rate and
// the request's time; when either throttles, the bytes are taken back (the
// answer will hold no data). Answers the larger throttle. response_bytes is
// asked only when a byte rate quota exists.
int32_t fetch_throttle(request_context& ctx, const std::function<size_t()>& response_bytes);
// The bytes a consumer's fetch may read: max_bytes, at most what its quota
// allows over one measured span (Kafka's getMaxValueInQuotaWindow).
int32_t fetch_max_bytes(const request_context& ctx, int32_t max_bytes);

// The ThrottleTimeMs at the start of a response body (APIs whose response
// begins with it: api_info::throttle_first_version), nullopt if none.
std::optional<int32_t> response_throttle(const response_frame& frame, int16_t api_key, int16_t version,
                                         int16_t header_version);
void set_response_throttle(response_frame& frame, int16_t api_key, int16_t version, int16_t header_version,
                           int32_t throttle_ms);

// Marks the time a handler spends parked (a wait for data, acks, the
// controller or a rebalance) so the request-time quota leaves it out.
class parked {
 public:
  explicit parked(const request_context* ctx) : ctx_(ctx), since_(std::chrono::steady_clock::now()) {}
  ~parked() {
    if (ctx_) ctx_->parked_ns += (std::chrono::steady_clock::now() - since_).count();
  }
  parked(const parked&) = delete;
  parked& operator=(const parked&) = delete;

 private:
  const request_context* ctx_;
  std::chrono::steady_clock::time_point since_;
};

// One request's controller mutation quota (Kafka's ControllerMutationQuota):
// strict from CreateTopics v6, CreatePartitions v3 and DeleteTopics v5
// (a topic over the quota is refused with THROTTLING_QUOTA_EXCEEDED),
// permissive before (taken, and the response throttled).
class mutation_quota {
 public:
  // client: the request (null: the broker's own, never limited);
  // strict_since: the first strict version of its API.
  mutation_quota(const request_context* client, int16_t strict_since);
  // What the controller asks per topic; empty without a quota.
  controller::partition_change_quota applier();
  // The throttle to answer: the last one given less the time since; a
  // throttle is counted as the client's (its throttle time, the
  // connection's mute).
  int32_t finish();

 private:
  const request_context* client_ = nullptr;
  struct state {
    client_quota_manager* manager = nullptr;
    std::string user;
    std::string client_id;
    bool strict = false;
    int32_t last_throttle_ms = 0;
    int64_t last_at_ms = 0;
  };
  std::shared_ptr<state> state_;
};

}  // namespace hw::broker::quota
