#include "protocol/records/batch_error.h"

namespace hw::protocol {

std::string_view batch_error_name(batch_error e) {
  switch (e) {
    case batch_error::none: return "none";
    case batch_error::truncated: return "truncated";
    case batch_error::invalid_length: return "invalid_length";
    case batch_error::legacy_magic: return "legacy_magic";
    case batch_error::unknown_magic: return "unknown_magic";
    case batch_error::crc_mismatch: return "crc_mismatch";
    case batch_error::unsupported_compression: return "unsupported_compression";
    case batch_error::invalid_record_count: return "invalid_record_count";
    case batch_error::invalid_offset_delta: return "invalid_offset_delta";
    case batch_error::decompression_failed: return "decompression_failed";
    case batch_error::records_too_large: return "records_too_large";
    case batch_error::invalid_record: return "invalid_record";
    case batch_error::record_count_mismatch: return "record_count_mismatch";
    case batch_error::invalid_control_record: return "invalid_control_record";
  }
  return "unknown";
}

error_code to_error_code(batch_error e) {
  switch (e) {
    case batch_error::none: return error_code::none;
    case batch_error::truncated:
    case batch_error::invalid_length:
    case batch_error::unknown_magic:
    case batch_error::crc_mismatch:
    case batch_error::decompression_failed:
      return error_code::corrupt_message;
    case batch_error::unsupported_compression: return error_code::unsupported_compression_type;
    // Kafka refuses magic < 2 in Produce v3+ with INVALID_RECORD.
    case batch_error::legacy_magic:
    case batch_error::invalid_record_count:
    case batch_error::invalid_offset_delta:
    case batch_error::invalid_record:
    case batch_error::record_count_mismatch:
    case batch_error::invalid_control_record:
      return error_code::invalid_record;
    case batch_error::records_too_large: return error_code::message_too_large;
  }
  return error_code::unknown_server_error;
}

}  // namespace hw::protocol
