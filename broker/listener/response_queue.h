#pragma once
// Keeps a connection's responses in request order while the requests are
// handled concurrently. Each request read takes the next sequence number; a
// handler completes its slot in any order; the writer takes the completed
// prefix. A slot may complete with no response (acks=0): it is skipped. A
// slot may complete with "close": responses of earlier requests are still
// written, nothing from that request on is.
//
// Plain data structure, owned by one connection and used only on its strand.

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <vector>

#include "broker/response.h"

namespace hw::broker {

class response_queue {
 public:
  // Slot for the next request read.
  uint64_t reserve();
  // A handler's result for slot seq.
  void complete(uint64_t seq, std::optional<response_frame> response);
  // Request seq ends the connection: earlier responses are still written.
  void complete_with_close(uint64_t seq);
  // Request seq's response is the connection's last: it is written, then
  // the connection closes (a failed authentication's answer).
  void complete_then_close(uint64_t seq, std::optional<response_frame> response);

  // Moves the responses that can be written now, in order, into out: at most
  // max_count of them, and stopping after the one that reaches max_bytes.
  // Returns how many were moved.
  size_t take_ready(std::vector<response_frame>& out, size_t max_count, size_t max_bytes);

  // Reserved slots not yet taken (bounded by the connection's in-flight limit).
  size_t pending() const { return slots_.size(); }
  // Whether take_ready would move something.
  bool ready() const;
  // A close was requested and every response before it has been taken.
  bool closed_and_drained() const { return close_at_ && base_ >= *close_at_; }
  bool close_requested() const { return close_at_.has_value(); }

 private:
  struct slot {
    bool done = false;
    std::optional<response_frame> response;
  };
  // Drops completed slots without a response at the head.
  void skip_empty();

  std::deque<slot> slots_;
  uint64_t base_ = 0;  // sequence number of slots_.front()
  std::optional<uint64_t> close_at_;
};

}  // namespace hw::broker
