#pragma once
// Why a record batch (or a record inside it) was refused, precise enough for
// logs and tests; to_error_code() gives the Kafka error a response carries.

#include <cstdint>
#include <string_view>

#include "protocol/error_code.h"

namespace hw::protocol {

enum class batch_error : uint8_t {
  none = 0,
  truncated,                // fewer bytes than the header, or than batch_length says
  invalid_length,           // batch_length negative or below the v2 header size
  legacy_magic,             // magic 0 or 1: a pre-0.11 message set, recognised and refused
  unknown_magic,            // magic above 2 or negative
  crc_mismatch,             // CRC32C over attributes..end does not match
  unsupported_compression,  // codec id 5..7
  invalid_record_count,     // negative, or more records than the bytes can hold
  invalid_offset_delta,     // last_offset_delta or a record's offset delta out of order
  decompression_failed,     // the codec rejected the records payload
  records_too_large,        // decompressed records exceed the caller's bound
  invalid_record,           // a record's framing or fields are malformed
  record_count_mismatch,    // the records payload holds fewer or more records than declared
  invalid_control_record,   // a control record without a readable key, or a marker not alone
};

std::string_view batch_error_name(batch_error e);

// CORRUPT_MESSAGE for damaged framing and checksums, INVALID_RECORD for
// well-framed but malformed content and refused legacy formats,
// UNSUPPORTED_COMPRESSION_TYPE for unknown codecs.
error_code to_error_code(batch_error e);

}  // namespace hw::protocol
