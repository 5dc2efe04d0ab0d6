#pragma once
// What every control manager answers with: the records that carry out a
// request (not yet applied anywhere) and the response, and an error as
// Kafka's ApiError carries it.

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

// A whole request refused with one top-level error code and no records.
template <typename R>
controller_result<R> failed(error_code code) {
  controller_result<R> out;
  out.response.error_code = static_cast<int16_t>(code);
  return out;
}

}  // namespace hw::controller
