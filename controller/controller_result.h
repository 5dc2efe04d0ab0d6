#pragma once
// What every control manager answers with: the records that carry out a
// request (not yet applied anywhere) and the response, and an error as
// Kafka's ApiError carries it.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "controller/metadata/records.h"
#include "protocol/error_code.h"

namespace hw::controller {

using protocol::error_code;

template <class R>
struct controller_result {
  std::vector<metadata_record> records;
  R response;
};

// Code and message (empty message = the code's default text, as the
// caller's response writer fills it).
struct api_error {
  error_code code = error_code::none;
  std::string message;
  bool ok() const { return code == error_code::none; }
};

// The controller mutation quota of the client asking (Kafka's
// ControllerRequestContext.applyPartitionChangeQuota): asked with a topic's
// partition count just before its creation, deletion or growth is
// written; false refuses that topic (THROTTLING_QUOTA_EXCEEDED). Empty:
// no quota.
using partition_change_quota = std::function<bool(int32_t partitions)>;

// A topic refused by its client's controller mutation quota. Kafka answers
// it without a message (its ApiError drops a message that is only the
// code's own text): the empty message is written as null.
inline api_error throttled_by_quota() { return {error_code::throttling_quota_exceeded, {}}; }

// A whole request refused with one top-level error code and no records.
template <typename R>
controller_result<R> failed(error_code code) {
  controller_result<R> out;
  out.response.error_code = static_cast<int16_t>(code);
  return out;
}

}  // namespace hw::controller
