#include "broker/group/consumer/consumer_group_records.h"

#include "protocol/wire/version_prefixed.h"

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

constexpr int16_t value_version = 0;

template <class Record>
std::optional<consumer_group_record> decode_as(byte_view key, std::optional<byte_view> value) {
  constexpr int16_t type = record_type_of<Record>;
  Record out;
  auto k = protocol::decode_version_prefixed<decltype(out.key)>(key, type, type);
  if (!k) return std::nullopt;
  out.key = std::move(*k);
  if (value) {
    out.value = protocol::decode_version_prefixed<typename decltype(out.value)::value_type>(*value, value_version,
                                                                                            value_version);
    if (!out.value) return std::nullopt;
  }
  return out;
}

}  // namespace

bool is_consumer_group_record_type(int16_t record_type) {
  return (record_type >= 3 && record_type <= 8) || record_type == 16;
}

coordinator_record encode_record(const consumer_group_record& record) {
  return std::visit(
      [](const auto& r) {
        using Record = std::decay_t<decltype(r)>;
        coordinator_record out;
        out.key = protocol::encode_version_prefixed(r.key, record_type_of<Record>);
        if (r.value) out.value = protocol::encode_version_prefixed(*r.value, value_version);
        return out;
      },
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
