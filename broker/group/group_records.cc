#include "broker/group/group_records.h"

#include <algorithm>
#include <cstring>

#include "protocol/wire/version_prefixed.h"

namespace hw::broker::group {

namespace msg = protocol::msg;

namespace {

constexpr int16_t offset_key_version = 1;
constexpr int16_t group_key_version = 2;
constexpr int16_t offset_value_version = 4;
constexpr int16_t offset_value_version_with_expiry = 1;
constexpr int16_t group_value_version = 3;
constexpr uint32_t topic_id_tag = 0;

std::vector<uint8_t> offset_key(std::string_view group, std::string_view topic, int32_t partition) {
  msg::offset_commit_key key;
  key.group = std::string(group);
  key.topic = std::string(topic);
  key.partition = partition;
  return protocol::encode_version_prefixed(key, offset_key_version);
}

std::vector<uint8_t> group_key(std::string_view group) {
  msg::group_metadata_key key;
  key.group = std::string(group);
  return protocol::encode_version_prefixed(key, group_key_version);
}

std::optional<committed_offset> decode_offset_value(byte_view bytes) {
  auto value = protocol::decode_version_prefixed<msg::offset_commit_value>(bytes, 0, 4);
  if (!value) return std::nullopt;
  committed_offset out;
  out.offset = value->offset;
  out.leader_epoch = value->leader_epoch;
  out.metadata = std::move(value->metadata);
  out.commit_timestamp_ms = value->commit_timestamp;
  if (value->expire_timestamp != -1) out.expire_timestamp_ms = value->expire_timestamp;
  for (const auto& field : value->unknown_tagged_fields) {
    if (field.tag == topic_id_tag && field.data.size() == 16) {
      std::memcpy(out.topic_id.bytes.data(), field.data.data(), 16);
    }
  }
  return out;
}

}  // namespace

coordinator_record offset_commit_record(std::string_view group, std::string_view topic,
                                        int32_t partition, const committed_offset& value) {
  msg::offset_commit_value v;
  v.offset = value.offset;
  v.leader_epoch = value.leader_epoch;
  v.metadata = value.metadata;
  v.commit_timestamp = value.commit_timestamp_ms;
  v.expire_timestamp = value.expire_timestamp_ms.value_or(-1);
  int16_t version = value.expire_timestamp_ms ? offset_value_version_with_expiry : offset_value_version;
  if (version >= 4 && !value.topic_id.is_zero()) {
    v.unknown_tagged_fields.push_back(
        {topic_id_tag, std::vector<uint8_t>(value.topic_id.bytes.begin(), value.topic_id.bytes.end())});
  }
  return {offset_key(group, topic, partition), protocol::encode_version_prefixed(v, version)};
}

coordinator_record offset_tombstone_record(std::string_view group, std::string_view topic,
                                           int32_t partition) {
  return {offset_key(group, topic, partition), std::nullopt};
}

coordinator_record group_metadata_record(std::string_view group,
                                         const msg::group_metadata_value& value) {
  return {group_key(group), protocol::encode_version_prefixed(value, group_value_version)};
}

coordinator_record group_tombstone_record(std::string_view group) {
  return {group_key(group), std::nullopt};
}

std::optional<decoded_record> decode_record(byte_view key, std::optional<byte_view> value) {
  protocol::reader peek(key);
  int16_t key_version = peek.read_int16();
  if (!peek.ok() || key_version < 0) return std::nullopt;
  if (key_version <= 1) {
    auto k = protocol::decode_version_prefixed<msg::offset_commit_key>(key, 0, 1);
    if (!k) return std::nullopt;
    offset_record out{std::move(k->group), std::move(k->topic), k->partition, std::nullopt};
    if (value) {
      out.value = decode_offset_value(*value);
      if (!out.value) return std::nullopt;
    }
    return out;
  }
  if (key_version == 2) {
    auto k = protocol::decode_version_prefixed<msg::group_metadata_key>(key, 2, 2);
    if (!k) return std::nullopt;
    group_record out{std::move(k->group), std::nullopt};
    if (value) {
      out.value = protocol::decode_version_prefixed<msg::group_metadata_value>(*value, 0, 4);
      if (!out.value) return std::nullopt;
    }
    return out;
  }
  if (consumer::is_consumer_group_record_type(key_version)) {
    auto c = consumer::decode_consumer_group_record(key, value);
    if (!c) return std::nullopt;
    return std::move(*c);
  }
  if (streams::is_streams_group_record_type(key_version)) {
    auto c = streams::decode_streams_group_record(key, value);
    if (!c) return std::nullopt;
    return std::move(*c);
  }
  return other_record{key_version};
}

}  // namespace hw::broker::group
