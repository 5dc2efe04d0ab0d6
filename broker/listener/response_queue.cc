#include "broker/listener/response_queue.h"

#include <cassert>

namespace hw::broker {

uint64_t response_queue::reserve() {
  slots_.emplace_back();
  return base_ + slots_.size() - 1;
}

void response_queue::complete(uint64_t seq, std::optional<response_frame> response) {
  assert(seq >= base_ && seq < base_ + slots_.size() && "completing a slot that is not pending");
  slot& s = slots_[seq - base_];
  assert(!s.done && "slot completed twice");
  s.done = true;
  s.response = std::move(response);
  skip_empty();
}

void response_queue::complete_with_close(uint64_t seq) {
  if (!close_at_ || seq < *close_at_) close_at_ = seq;
  complete(seq, std::nullopt);
}

void response_queue::complete_then_close(uint64_t seq, std::optional<response_frame> response) {
  if (!close_at_ || seq + 1 < *close_at_) close_at_ = seq + 1;
  complete(seq, std::move(response));
}

void response_queue::skip_empty() {
  while (!slots_.empty() && slots_.front().done && !slots_.front().response &&
         !(close_at_ && base_ >= *close_at_)) {
    slots_.pop_front();
    ++base_;
  }
}

bool response_queue::ready() const {
  if (close_at_ && base_ >= *close_at_) return false;
  return !slots_.empty() && slots_.front().done && slots_.front().response.has_value();
}

size_t response_queue::take_ready(std::vector<response_frame>& out, size_t max_count, size_t max_bytes) {
  size_t moved = 0, bytes = 0;
  while (moved < max_count && bytes < max_bytes && ready()) {
    bytes += slots_.front().response->wire_size();
    out.push_back(std::move(*slots_.front().response));
    slots_.pop_front();
    ++base_;
    ++moved;
    skip_empty();
  }
  return moved;
}

}  // namespace hw::broker
