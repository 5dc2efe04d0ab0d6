#include "broker/fetch/fetch_session.h"

#include <cassert>
#include <limits>

namespace hw::broker::fetch {

int32_t next_epoch(int32_t epoch) {
  if (epoch < 0) return final_epoch;
  if (epoch == std::numeric_limits<int32_t>::max()) return 1;
  return epoch + 1;
}

partition_identity partition_identity::of(const partition_key& k) {
  if (k.uses_id()) return {k.topic_id, {}, k.partition};
  return {k.topic_id, k.topic, k.partition};
}

fetch_session::fetch_session(int32_t id, bool privileged, bool uses_topic_ids, int64_t creation_ms, int32_t epoch)
    : id_(id),
      privileged_(privileged),
      uses_topic_ids_(uses_topic_ids),
      creation_ms_(creation_ms),
      last_used_ms_(creation_ms),
      epoch_(epoch) {}

void fetch_session::update(const std::vector<partition_request>& fetch, const std::vector<partition_key>& forgotten) {
  for (const partition_request& r : fetch) {
    auto id = partition_identity::of(r.key);
    if (auto it = index_.find(id); it != index_.end()) {
      cached& c = *it->second;
      // The key stays: a name resolved earlier is kept.
      c.request.fetch_offset = r.fetch_offset;
      c.request.log_start_offset = r.log_start_offset;
      c.request.max_bytes = r.max_bytes;
      c.request.current_leader_epoch = r.current_leader_epoch;
      c.request.last_fetched_epoch = r.last_fetched_epoch;
    } else {
      // Never told anything yet: -1 makes the first response carry it.
      order_.push_back(cached{r});
      index_.emplace(std::move(id), std::prev(order_.end()));
    }
  }
  for (const partition_key& k : forgotten) {
    if (auto it = index_.find(partition_identity::of(k)); it != index_.end()) {
      order_.erase(it->second);
      index_.erase(it);
    }
  }
}

void fetch_session::add(const partition_request& request, const partition_result& result) {
  auto id = partition_identity::of(request.key);
  if (auto it = index_.find(id); it != index_.end()) {
    *it->second = cached{request, result.high_watermark, result.log_start_offset};
    return;
  }
  order_.push_back(cached{request, result.high_watermark, result.log_start_offset});
  index_.emplace(std::move(id), std::prev(order_.end()));
}

bool fetch_session::must_respond(const partition_result& result) {
  auto it = index_.find(partition_identity::of(result.key));
  assert(it != index_.end() && "response partition is not in the fetch session");
  cached& c = *it->second;
  bool respond = result.records_bytes > 0 || result.preferred_read_replica || result.diverging_epoch;
  if (c.high_watermark != result.high_watermark) {
    respond = true;
    c.high_watermark = result.high_watermark;
  }
  if (c.local_log_start_offset != result.log_start_offset) {
    respond = true;
    c.local_log_start_offset = result.log_start_offset;
  }
  if (result.error != protocol::error_code::none) {
    // Forget the high watermark so that the partition is sent again once
    // the error is gone.
    c.high_watermark = storage::offset(-1);
    respond = true;
  }
  if (respond && result.records_bytes > 0) order_.splice(order_.end(), order_, it->second);
  return respond;
}

}  // namespace hw::broker::fetch
