#pragma once
// What the managers of one group shard share: the shard's mode (whether it
// may answer at all), its options, and its way out — answers to requests
// and appends of records, each append with the callback that runs when the
// driver acknowledges it. Owned by the group_shard; runs on its strand.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "broker/group/group_config.h"
#include "broker/group/shard_output.h"
#include "protocol/error_code.h"

namespace hw::broker::group {

// Kafka maps a failed append of coordinator records to these errors.
protocol::error_code append_error_to_response_error(protocol::error_code append_error);

enum class shard_mode { inactive, loading, active };

class shard_context {
 public:
  using append_callback = std::function<void(protocol::error_code, int64_t now_ms)>;

  explicit shard_context(group_config config) : config_(config) {}

  const group_config& config() const { return config_; }
  shard_mode mode() const { return mode_; }
  void set_mode(shard_mode mode) { mode_ = mode; }
  bool active() const { return mode_ == shard_mode::active; }
  // NOT_COORDINATOR while inactive, COORDINATOR_LOAD_IN_PROGRESS while
  // loading, none when active.
  protocol::error_code unavailable_error() const;

  void reply(request_token token, shard_response response);
  // Where parked requests are answered (classic_group completes them).
  std::vector<completion>& completions() { return output_.completions; }
  // With a producer id (>= 0), the records are its transactional batch.
  void append(std::vector<coordinator_record> records, append_callback done, int64_t producer_id = -1,
              int16_t producer_epoch = -1, std::optional<uint64_t> verification = std::nullopt);
  // How many appends were issued so far (tells whether a call appended).
  append_token appends_issued() const { return next_append_ - 1; }
  // Runs `answer` once every append issued so far is acknowledged (at
  // once when none is in flight): an OffsetFetch with require_stable.
  void after_appends(std::function<void()> answer);
  // `error` is the storage outcome of the append (none = committed).
  void on_append_done(append_token token, protocol::error_code error, int64_t now_ms);
  // Unload: every append in flight fails NOT_LEADER_OR_FOLLOWER and every
  // waiting answer goes now.
  void fail_in_flight();
  shard_output take_output();

 private:
  // A require_stable fetch waits for every append issued before it.
  struct waiting_answer {
    append_token after = 0;
    std::function<void()> answer;
  };

  group_config config_;
  shard_mode mode_ = shard_mode::inactive;
  shard_output output_;
  append_token next_append_ = 1;
  std::map<append_token, append_callback> in_flight_;
  std::vector<waiting_answer> waiting_;
};

}  // namespace hw::broker::group
