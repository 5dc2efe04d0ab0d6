#include "protocol/records/control_record.h"

#include "protocol/records/big_endian.h"

namespace hw::protocol {

std::optional<control_record_key> parse_control_key(const record_view& record) {
  if (!record.key || record.key->size() < control_key_bytes) return std::nullopt;
  control_record_key key;
  key.version = load_big_endian<int16_t>(record.key->data());
  key.type = load_big_endian<int16_t>(record.key->data() + 2);
  if (key.version < 0) return std::nullopt;
  return key;
}

std::optional<end_txn_marker> parse_end_txn_marker(const record_view& record) {
  std::optional<control_record_key> key = parse_control_key(record);
  if (!key) return std::nullopt;
  auto type = static_cast<control_record_type>(key->type);
  if (type != control_record_type::abort && type != control_record_type::commit) return std::nullopt;
  if (!record.value || record.value->size() < end_txn_marker_value_bytes) return std::nullopt;
  if (load_big_endian<int16_t>(record.value->data()) < 0) return std::nullopt;
  return end_txn_marker{type, load_big_endian<int32_t>(record.value->data() + 2)};
}

std::array<uint8_t, control_key_bytes> encode_control_key(control_record_type type) {
  std::array<uint8_t, control_key_bytes> out{};
  store_big_endian<int16_t>(out.data(), 0);
  store_big_endian<int16_t>(out.data() + 2, static_cast<int16_t>(type));
  return out;
}

std::array<uint8_t, end_txn_marker_value_bytes> encode_end_txn_marker_value(int32_t coordinator_epoch) {
  std::array<uint8_t, end_txn_marker_value_bytes> out{};
  store_big_endian<int16_t>(out.data(), 0);
  store_big_endian<int32_t>(out.data() + 2, coordinator_epoch);
  return out;
}

}  // namespace hw::protocol
