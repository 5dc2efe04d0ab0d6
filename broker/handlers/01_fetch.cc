// Fetch (key 1), versions 4-18, for consumers: records below the high
// watermark (read_uncommitted) or the last stable offset (read_committed,
// with the aborted transactions of the range), waiting up to max_wait_ms
// for min_bytes.
//
// Kafka's rules (KafkaApis.handleFetchRequest, ReplicaManager.fetchMessages,
// Partition.fetchRecords): the partition must be led here
// (NOT_LEADER_OR_FOLLOWER) at the epoch the client knows (KIP-320:
// FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH); an offset outside [log
// start, log end] is OFFSET_OUT_OF_RANGE; response bytes are bounded by
// max_bytes and each partition's partition_max_bytes, except that the first
// partition with data returns at least one whole batch; when fewer than
// min_bytes are ready the fetch waits, woken by appends, until max_wait_ms.
// From v13 topics are named by id (UNKNOWN_TOPIC_ID).
//
// Sessions (KIP-227): this broker answers session id 0, which tells the
// client to send full requests; incremental sessions come with the
// fetch-session cache.

#include <algorithm>
#include <chrono>

#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/replica/replica_manager.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "protocol/messages/fetch.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::fetch_request;
using protocol::msg::fetch_response;

// Bounds a wait whatever the client asks.
constexpr int32_t max_fetch_wait_ms = 60'000;

struct partition_slot {
  size_t topic_index = 0;
  const fetch_request::fetch_partition* request = nullptr;
  std::shared_ptr<partition> hosted;  // null when an error is set
  error_code error = error_code::none;
  std::string topic_name;
};

class fetch_reader {
 public:
  fetch_reader(const fetch_request& request) : request_(request) {}

  // Reads every partition once, filling response; returns the bytes read.
  size_t read_all(std::vector<partition_slot>& slots, fetch_response& response) {
    buffers_.clear();
    buffers_.reserve(slots.size());
    size_t total = 0;
    int64_t remaining = std::max<int32_t>(request_.max_bytes, 0);
    bool first_with_data = true;
    for (size_t i = 0; i < slots.size(); ++i) {
      auto& slot = slots[i];
      auto& out = response.responses[slot.topic_index].partitions.emplace_back();
      out.partition_index = slot.request->partition;
      out.high_watermark = -1;
      out.last_stable_offset = -1;
      out.log_start_offset = -1;
      if (slot.error != error_code::none) {
        out.error_code = static_cast<int16_t>(slot.error);
        continue;
      }
      partition& p = *slot.hosted;
      if (auto e = p.check_leader_epoch(slot.request->current_leader_epoch, true); e != error_code::none) {
        out.error_code = static_cast<int16_t>(e);
        out.current_leader.leader_id = p.leader();
        out.current_leader.leader_epoch = p.leader_epoch();
        continue;
      }
      const storage::offset hw = p.high_watermark();
      const storage::offset lso = p.last_stable_offset();
      out.high_watermark = hw.value;
      out.last_stable_offset = lso.value;
      out.log_start_offset = p.log_start_offset().value;
      const bool committed = request_.isolation_level == 1;
      const storage::offset bound = committed ? lso : hw;
      const storage::offset fetch_offset(slot.request->fetch_offset);
      if (fetch_offset < p.log_start_offset() || fetch_offset > p.log_end_offset()) {
        out.error_code = static_cast<int16_t>(error_code::offset_out_of_range);
        continue;
      }
      out.records = protocol::records_view(protocol::bytes_view());
      if (fetch_offset >= bound || (remaining <= 0 && !first_with_data)) continue;
      const int32_t limit = static_cast<int32_t>(
          std::min<int64_t>(slot.request->partition_max_bytes, std::max<int64_t>(remaining, 0)));
      storage::log_read_result r;
      if (auto ec = p.log().log().read(fetch_offset, limit, bound, first_with_data, &r)) {
        out.error_code = static_cast<int16_t>(ec == storage::log_errc::offset_out_of_range ? error_code::offset_out_of_range
                                                                                   : error_code::kafka_storage_error);
        continue;
      }
      if (r.length == 0 || !r.log_file) continue;
      auto& buffer = buffers_.emplace_back(r.length);
      size_t got = 0;
      if (auto ec = r.log_file->read_at(r.position, buffer, &got); ec || got == 0) {
        out.error_code = static_cast<int16_t>(error_code::kafka_storage_error);
        continue;
      }
      buffer.resize(got);
      out.records = protocol::records_view(protocol::bytes_view(buffer.data(), buffer.size()));
      if (committed) {
        // Up to the bound rather than the end of what was read: a superset,
        // which the client filters by the batches it sees.
        std::vector<storage::aborted_txn> aborted;
        p.log().log().collect_aborted_transactions(fetch_offset, bound, &aborted);
        out.aborted_transactions.emplace();
        for (const auto& a : aborted)
          out.aborted_transactions->push_back({a.id.value, a.first_offset.value, {}});
      }
      total += got;
      remaining -= static_cast<int64_t>(got);
      first_with_data = false;
    }
    return total;
  }

 private:
  const fetch_request& request_;
  std::vector<std::vector<uint8_t>> buffers_;
};

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<fetch_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();

  fetch_response response;
  std::vector<partition_slot> slots;
  for (const auto& topic : request->topics) {
    auto& tr = response.responses.emplace_back();
    tr.topic = topic.topic;
    tr.topic_id = topic.topic_id;
    const controller::topic_image* t = ctx.api_version >= 13 ? image->topic(topic.topic_id) : image->topic(topic.topic);
    for (const auto& pr : topic.partitions) {
      partition_slot slot;
      slot.topic_index = response.responses.size() - 1;
      slot.request = &pr;
      if (!t) {
        slot.error = ctx.api_version >= 13 ? error_code::unknown_topic_id : error_code::unknown_topic_or_partition;
      } else if (!t->partitions.count(pr.partition)) {
        slot.error = error_code::unknown_topic_or_partition;
      } else {
        slot.topic_name = t->name;
        slot.hosted = s.replicas->get({t->name, pr.partition});
        if (!slot.hosted) slot.error = error_code::not_leader_or_follower;
      }
      slots.push_back(std::move(slot));
    }
  }

  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::clamp(request->max_wait_ms, 0, max_fetch_wait_ms));
  fetch_reader reader(*request);
  for (;;) {
    for (auto& tr : response.responses) tr.partitions.clear();
    // Register for wake-ups before reading, so an append between the read
    // and the wait is not missed.
    auto timer = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor, deadline);
    auto wake = std::make_shared<std::function<void()>>([weak = std::weak_ptr(timer)] {
      if (auto t = weak.lock()) t->cancel();
    });
    const bool may_wait = std::chrono::steady_clock::now() < deadline;
    if (may_wait)
      for (auto& slot : slots)
        if (slot.hosted) slot.hosted->add_waiter(wake);
    size_t bytes = reader.read_all(slots, response);
    bool any_error = std::any_of(response.responses.begin(), response.responses.end(), [](auto& tr) {
      return std::any_of(tr.partitions.begin(), tr.partitions.end(), [](auto& p) { return p.error_code != 0; });
    });
    if (!may_wait || any_error || static_cast<int64_t>(bytes) >= request->min_bytes || slots.empty()) break;
    boost::system::error_code ignored;  // cancelled by a wake-up, or the deadline passed
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler fetch_handler() { return {1, 4, 18, &handle}; }

}  // namespace hw::broker
