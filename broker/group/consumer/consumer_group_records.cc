#include "broker/group/consumer/consumer_group_records.h"

#include "broker/group/consumer/keyed_record.h"

namespace hw::broker::group::consumer {

namespace {

// The record type each record's key carries where its version stands.
template <class Record>
constexpr int16_t record_type_of = -1;
template <>
constexpr int16_t record_type_of<group_epoch_record> = 3;
template <>
constexpr int16_t record_type_of<partition_metadata_record> = 4;
template <>
constexpr int16_t record_type_of<member_metadata_record> = 5;
template <>
constexpr int16_t record_type_of<target_assignment_epoch_record> = 6;
template <>
constexpr int16_t record_type_of<target_assignment_member_record> = 7;
template <>
constexpr int16_t record_type_of<current_assignment_record> = 8;
template <>
constexpr int16_t record_type_of<regular_expression_record> = 16;

template <class Record>
std::optional<consumer_group_record> decode_as(byte_view key, std::optional<byte_view> value) {
  auto r = decode_keyed<Record>(key, value, record_type_of<Record>);
  if (!r) return std::nullopt;
  return std::move(*r);
}

}  // namespace

bool is_consumer_group_record_type(int16_t record_type) {
  return (record_type >= 3 && record_type <= 8) || record_type == 16;
}

coordinator_record encode_record(const consumer_group_record& record) {
  return std::visit(
      [](const auto& r) { return encode_keyed(r, record_type_of<std::decay_t<decltype(r)>>); },
      record);
}

std::optional<consumer_group_record> decode_consumer_group_record(byte_view key, std::optional<byte_view> value) {
  protocol::reader peek(key);
  const int16_t type = peek.read_int16();
  if (!peek.ok()) return std::nullopt;
  switch (type) {
    case 3: return decode_as<group_epoch_record>(key, value);
    case 4: return decode_as<partition_metadata_record>(key, value);
    case 5: return decode_as<member_metadata_record>(key, value);
    case 6: return decode_as<target_assignment_epoch_record>(key, value);
    case 7: return decode_as<target_assignment_member_record>(key, value);
    case 8: return decode_as<current_assignment_record>(key, value);
    case 16: return decode_as<regular_expression_record>(key, value);
    default: return std::nullopt;
  }
}

const std::string& group_of(const consumer_group_record& record) {
  return std::visit([](const auto& r) -> const std::string& { return r.key.group_id; }, record);
}

}  // namespace hw::broker::group::consumer
