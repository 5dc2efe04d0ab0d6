#include "broker/group/shard_context.h"

#include <cassert>
#include <utility>

#include "broker/coordinator_log/append_errors.h"

namespace hw::broker::group {

using protocol::error_code;

error_code append_error_to_response_error(error_code append_error) {
  return coordinator_error_of_append(append_error);
}

error_code shard_context::unavailable_error() const {
  switch (mode_) {
    case shard_mode::inactive: return error_code::not_coordinator;
    case shard_mode::loading: return error_code::coordinator_load_in_progress;
    case shard_mode::active: return error_code::none;
  }
  return error_code::not_coordinator;
}

void shard_context::reply(request_token token, shard_response response) {
  output_.completions.push_back({token, std::move(response)});
}

void shard_context::append(std::vector<coordinator_record> records, append_callback done, int64_t producer_id,
                           int16_t producer_epoch, std::optional<uint64_t> verification) {
  assert(!records.empty());
  append_token token = next_append_++;
  output_.appends.push_back({token, std::move(records), producer_id, producer_epoch, verification});
  in_flight_.emplace(token, std::move(done));
}

void shard_context::after_appends(std::function<void()> answer) {
  if (in_flight_.empty()) return answer();
  waiting_.push_back({appends_issued(), std::move(answer)});
}

void shard_context::on_append_done(append_token token, error_code error, int64_t now_ms) {
  auto it = in_flight_.find(token);
  if (it == in_flight_.end()) return;  // dropped by unload
  append_callback done = std::move(it->second);
  in_flight_.erase(it);
  done(error, now_ms);
  auto ready = [&](const waiting_answer& w) { return in_flight_.empty() || in_flight_.begin()->first > w.after; };
  std::vector<waiting_answer> still_waiting;
  std::vector<waiting_answer> go;
  for (auto& w : waiting_) (ready(w) ? go : still_waiting).push_back(std::move(w));
  waiting_ = std::move(still_waiting);
  for (auto& w : go) w.answer();
}

void shard_context::fail_in_flight() {
  auto in_flight = std::move(in_flight_);
  in_flight_.clear();
  for (auto& [token, done] : in_flight) done(error_code::not_leader_or_follower, 0);
  auto waiting = std::move(waiting_);
  waiting_.clear();
  for (auto& w : waiting) w.answer();
}

shard_output shard_context::take_output() {
  shard_output out;
  std::swap(out, output_);
  return out;
}

}  // namespace hw::broker::group
