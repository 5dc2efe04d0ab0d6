#pragma once
// One incremental fetch session (KIP-227): the partitions a client fetches,
// with the request parameters it last sent for each and the high watermark
// and log start offset it was last told, so that an incremental request need
// only name what changed and an incremental response need only carry what
// changed. Owned by fetch_session_cache (shared with the fetch_context of a
// request in flight); not thread-safe: whoever owns the cache serialises
// every access to it and to its sessions.

#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/wire/uuid.h"
#include "storage/types.h"

namespace hw::broker::fetch {

// Kafka's FetchMetadata constants.
inline constexpr int32_t invalid_session_id = 0;
inline constexpr int32_t initial_epoch = 0;  // a full request that opens a session
inline constexpr int32_t final_epoch = -1;   // a full request that wants no session
// The epoch after `epoch`: final stays final, and the epoch wraps to 1.
int32_t next_epoch(int32_t epoch);

// A partition as a request names it: by topic id (Fetch v13+, the name then
// resolved from metadata and possibly unknown) or by name (ids zero).
struct partition_key {
  protocol::uuid topic_id;
  std::string topic;  // empty when unknown
  int32_t partition = 0;
  bool uses_id() const { return !topic_id.is_zero(); }
};

// The identity Kafka gives a partition: (topic id, partition) when ids are in
// use, else (name, partition).
struct partition_identity {
  protocol::uuid topic_id;
  std::string topic;  // empty when the id is used
  int32_t partition = 0;
  static partition_identity of(const partition_key& k);
  auto operator<=>(const partition_identity&) const = default;
};

// One partition of a Fetch request.
struct partition_request {
  partition_key key;
  storage::offset fetch_offset{0};
  storage::offset log_start_offset{-1};  // the follower's; -1 from consumers
  int32_t max_bytes = 0;
  std::optional<storage::leader_epoch> current_leader_epoch;
  std::optional<storage::leader_epoch> last_fetched_epoch;
};

// What the broker found for one partition, as far as the session cares.
struct partition_result {
  partition_key key;
  protocol::error_code error = protocol::error_code::none;
  storage::offset high_watermark{-1};
  storage::offset log_start_offset{-1};
  int64_t records_bytes = 0;
  bool diverging_epoch = false;         // a DivergingEpoch is set
  bool preferred_read_replica = false;  // a preferred read replica was computed
};

class fetch_session {
 public:
  fetch_session(int32_t id, bool privileged, bool uses_topic_ids, int64_t creation_ms, int32_t epoch);

  int32_t id() const { return id_; }
  bool privileged() const { return privileged_; }
  bool uses_topic_ids() const { return uses_topic_ids_; }
  int64_t creation_ms() const { return creation_ms_; }
  int64_t last_used_ms() const { return last_used_ms_; }
  int32_t epoch() const { return epoch_; }
  size_t size() const { return order_.size(); }
  bool empty() const { return order_.empty(); }

  // Adds new partitions at the end and refreshes the request parameters of
  // known ones, then removes the forgotten ones (a partition both fetched and
  // forgotten ends up removed, as in Kafka).
  void update(const std::vector<partition_request>& fetch, const std::vector<partition_key>& forgotten);
  // Adds one partition with what the full response told the client (again:
  // replaces it).
  void add(const partition_request& request, const partition_result& result);
  // The cached partitions in session order, as requests; names of topics
  // unknown so far are looked up with `topic_name_of`.
  template <typename NameOf>
  std::vector<partition_request> requests(NameOf&& topic_name_of);
  // Whether an incremental response must carry this partition (new records,
  // a changed high watermark or log start offset, an error, a diverging epoch
  // or a preferred read replica); when so, the cached state is brought up to
  // date, and a partition that returned records moves to the end of the
  // session so the others get their turn at the response size limit.
  bool must_respond(const partition_result& result);

 private:
  friend class fetch_session_cache;
  struct cached {
    partition_request request;
    storage::offset high_watermark{-1};
    storage::offset local_log_start_offset{-1};
  };
  using order_list = std::list<cached>;

  int32_t id_;
  bool privileged_;
  bool uses_topic_ids_;
  int64_t creation_ms_;
  int64_t last_used_ms_;
  int32_t epoch_;
  size_t cached_size_ = 0;  // the size the cache last accounted for
  order_list order_;
  std::map<partition_identity, order_list::iterator> index_;
};

template <typename NameOf>
std::vector<partition_request> fetch_session::requests(NameOf&& topic_name_of) {
  std::vector<partition_request> out;
  out.reserve(order_.size());
  for (cached& c : order_) {
    if (uses_topic_ids_ && c.request.key.topic.empty()) {
      std::optional<std::string> name = topic_name_of(c.request.key.topic_id);
      if (name) c.request.key.topic = std::move(*name);
    }
    out.push_back(c.request);
  }
  return out;
}

}  // namespace hw::broker::fetch
