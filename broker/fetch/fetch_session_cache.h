#pragma once
// The broker's incremental fetch sessions (KIP-227) and the decision, per
// Fetch request, of which partitions to read and which to answer.
//
// A Fetch request is handled in two steps:
//   ctx = cache.new_context(request, topic_name_of, now_ms);
//   ... read ctx.partitions (or answer ctx.error) ...
//   plan = cache.update_and_generate_response(ctx, results, now_ms);
// and the response carries plan.error, plan.session_id and the results at
// plan.include, in that order.
//
// Pure: no I/O, the clock and the session id source are injected. Not
// thread-safe: the owner (the fetch handler's shared state) serialises every
// call, including the use of a context's session, with one lock or strand.
// Bounded by max.incremental.fetch.session.cache.slots; eviction follows
// Kafka (min.incremental.fetch.session.eviction.ms, followers privileged,
// bigger sessions preferred). Kafka splits the slots over 8 shards picked
// round-robin; this cache is one shard with all the slots.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "broker/fetch/fetch_session.h"

namespace hw::broker::fetch {

// The request-level fields that matter to sessions.
struct fetch_request_view {
  int16_t version = 0;  // v13+ names topics by id; below v7 there are no sessions
  int32_t session_id = invalid_session_id;
  int32_t session_epoch = final_epoch;  // what a pre-v7 request means
  bool from_follower = false;           // replica fetches get privileged sessions
  std::vector<partition_request> partitions;
  std::vector<partition_key> forgotten;  // forgotten_topics_data, v7+
};

struct fetch_context {
  enum class kind : int8_t {
    session_error,  // answer `error`, no partitions, session id 0
    sessionless,    // answer every partition, session id 0
    full,           // answer every partition, and try to open a session
    incremental,    // answer the partitions that changed in `session`
  };
  kind what = kind::sessionless;
  protocol::error_code error = protocol::error_code::none;
  // The partitions to read, in order (for an incremental request, every
  // partition of the session, with its cached request parameters).
  std::vector<partition_request> partitions;
  bool uses_topic_ids = false;
  bool from_follower = false;
  std::shared_ptr<fetch_session> session;  // incremental only
  int32_t expected_epoch = 0;              // the session's epoch after this request
};

struct fetch_response_plan {
  protocol::error_code error = protocol::error_code::none;
  int32_t session_id = invalid_session_id;
  std::vector<size_t> include;  // indices into the results, in response order
};

class fetch_session_cache {
 public:
  struct options {
    int32_t max_sessions = 1000;          // max.incremental.fetch.session.cache.slots
    int64_t eviction_ms = 120'000;        // min.incremental.fetch.session.eviction.ms
  };
  // random: any uniformly distributed 32-bit numbers (seeded in tests);
  // session ids are drawn from them.
  fetch_session_cache(options opts, std::function<uint32_t()> random);

  using topic_name_lookup = std::function<std::optional<std::string>(const protocol::uuid&)>;
  fetch_context new_context(const fetch_request_view& request, const topic_name_lookup& topic_name_of, int64_t now_ms);
  fetch_response_plan update_and_generate_response(const fetch_context& ctx, std::span<const partition_result> results,
                                                   int64_t now_ms);
  // The answer when the request is throttled: no partitions, and no new session.
  fetch_response_plan throttled_response(const fetch_context& ctx) const;

  size_t size() const { return sessions_.size(); }
  size_t total_partitions() const { return total_partitions_; }
  std::shared_ptr<const fetch_session> find(int32_t session_id) const;

 private:
  // Orders sessions for eviction: unprivileged before privileged, smaller
  // before bigger, then by id (a new session's key has id 0).
  using evictable_key = std::tuple<bool, size_t, int32_t>;
  using last_used_key = std::tuple<int64_t, int32_t>;

  int32_t maybe_create(int64_t now_ms, bool privileged, size_t size, bool uses_topic_ids,
                       const std::function<void(fetch_session&)>& fill);
  bool try_evict(bool privileged, const evictable_key& key, int64_t now_ms);
  void remove(int32_t session_id);
  void touch(fetch_session& s, int64_t now_ms);
  int32_t new_session_id();

  options opts_;
  std::function<uint32_t()> random_;
  std::map<int32_t, std::shared_ptr<fetch_session>> sessions_;
  std::set<last_used_key> last_used_;
  std::set<evictable_key> evictable_by_all_;
  std::set<evictable_key> evictable_by_privileged_;
  size_t total_partitions_ = 0;
};

}  // namespace hw::broker::fetch
