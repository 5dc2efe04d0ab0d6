// streams_group_records: the `__consumer_offsets` records of streams groups
// (see streams_group_records.h).
#include "broker/group/streams/streams_group_records.h"

#include "broker/group/consumer/keyed_record.h"

namespace hw::broker::group::streams {

using consumer::decode_keyed;
using consumer::encode_keyed;

namespace {

template <class Record>
constexpr int16_t record_type_of = -1;
template <>
constexpr int16_t record_type_of<group_metadata_record> = 17;
template <>
constexpr int16_t record_type_of<member_metadata_record> = 19;
template <>
constexpr int16_t record_type_of<target_assignment_epoch_record> = 20;
template <>
constexpr int16_t record_type_of<target_assignment_member_record> = 21;
template <>
constexpr int16_t record_type_of<current_assignment_record> = 22;
template <>
constexpr int16_t record_type_of<topology_record> = 23;

template <class Record>
std::optional<streams_group_record> decode_as(byte_view key, std::optional<byte_view> value) {
  auto r = decode_keyed<Record>(key, value, record_type_of<Record>);
  if (!r) return std::nullopt;
  return std::move(*r);
}

using value_topic_info = msg::streams_group_topology_value::topic_info;

value_topic_info to_value(const topic_info& t) {
  value_topic_info out;
  out.name = t.name;
  out.partitions = t.partitions;
  out.replication_factor = t.replication_factor;
  for (const auto& [key, value] : t.configs) {
    auto& c = out.topic_configs.emplace_back();
    c.key = key;
    c.value = value;
  }
  return out;
}

}  // namespace

bool is_streams_group_record_type(int16_t record_type) { return record_type == 17 || (record_type >= 19 && record_type <= 23); }

coordinator_record encode_record(const streams_group_record& record) {
  return std::visit(
      [](const auto& r) { return encode_keyed(r, record_type_of<std::decay_t<decltype(r)>>); },
      record);
}

std::optional<streams_group_record> decode_streams_group_record(byte_view key, std::optional<byte_view> value) {
  protocol::reader peek(key);
  const int16_t type = peek.read_int16();
  if (!peek.ok()) return std::nullopt;
  switch (type) {
    case 17: return decode_as<group_metadata_record>(key, value);
    case 19: return decode_as<member_metadata_record>(key, value);
    case 20: return decode_as<target_assignment_epoch_record>(key, value);
    case 21: return decode_as<target_assignment_member_record>(key, value);
    case 22: return decode_as<current_assignment_record>(key, value);
    case 23: return decode_as<topology_record>(key, value);
    default: return std::nullopt;
  }
}

const std::string& group_of(const streams_group_record& record) {
  return std::visit([](const auto& r) -> const std::string& { return r.key.group_id; }, record);
}

topology topology_from(const msg::streams_group_topology_value& value) { return topology_from_message(value); }

msg::streams_group_topology_value to_value(const topology& t) {
  msg::streams_group_topology_value out;
  out.epoch = t.epoch;
  for (const auto& s : t.subtopologies) {
    auto& v = out.subtopologies.emplace_back();
    v.subtopology_id = s.id;
    v.source_topics = s.source_topics;
    v.source_topic_regex = s.source_topic_regex;
    for (const auto& c : s.state_changelog_topics) v.state_changelog_topics.push_back(to_value(c));
    v.repartition_sink_topics = s.repartition_sink_topics;
    for (const auto& r : s.repartition_source_topics) v.repartition_source_topics.push_back(to_value(r));
    for (const auto& g : s.copartition_groups) {
      auto& cg = v.copartition_groups.emplace_back();
      cg.source_topics = g.source_topics;
      cg.source_topic_regex = g.source_topic_regex;
      cg.repartition_source_topics = g.repartition_source_topics;
    }
  }
  return out;
}

}  // namespace hw::broker::group::streams
