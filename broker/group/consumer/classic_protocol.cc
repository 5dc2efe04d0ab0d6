// classic_protocol: the consumer protocol embedded in classic requests
// (see classic_protocol.h).
#include "broker/group/consumer/classic_protocol.h"

#include <algorithm>

#include "protocol/messages/consumer_protocol.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace hw::broker::group::consumer {

namespace msg = protocol::msg;

namespace {

constexpr int16_t highest_subscription_version = 3;
constexpr int16_t highest_assignment_version = 3;

}  // namespace

std::optional<classic_subscription> decode_subscription(std::span<const uint8_t> metadata) {
  protocol::reader r(metadata);
  const int16_t version = r.read_int16();
  if (!r.ok() || version < 0) return std::nullopt;
  msg::consumer_protocol_subscription sub;
  sub.decode(r, std::min(version, highest_subscription_version));
  if (!r.ok()) return std::nullopt;
  classic_subscription out;
  out.version = version;
  out.topics = std::move(sub.topics);
  for (const auto& tp : sub.owned_partitions) out.owned[tp.topic].insert(tp.partitions.begin(), tp.partitions.end());
  out.rack_id = std::move(sub.rack_id);
  return out;
}

std::optional<classic_assignment> decode_assignment(std::span<const uint8_t> assignment) {
  protocol::reader r(assignment);
  const int16_t version = r.read_int16();
  if (!r.ok() || version < 0) return std::nullopt;
  msg::consumer_protocol_assignment a;
  a.decode(r, std::min(version, highest_assignment_version));
  if (!r.ok()) return std::nullopt;
  classic_assignment out;
  for (const auto& tp : a.assigned_partitions)
    out.partitions[tp.topic].insert(tp.partitions.begin(), tp.partitions.end());
  out.has_user_data = a.user_data && !a.user_data->empty();
  return out;
}

std::vector<uint8_t> encode_assignment(const topic_partitions& partitions, const topic_image_view& topics,
                                       int16_t version) {
  const int16_t v = std::clamp<int16_t>(version, 0, highest_assignment_version);
  msg::consumer_protocol_assignment a;
  for (const auto& [id, set] : partitions) {
    auto name = topics.topic_name(id);
    if (!name) continue;
    auto& tp = a.assigned_partitions.emplace_back();
    tp.topic = *name;
    tp.partitions = {set.begin(), set.end()};
  }
  a.user_data.reset();
  std::vector<uint8_t> out;
  protocol::writer w(out);
  w.write_int16(v);
  a.encode(w, v);
  return out;
}

topic_partitions by_topic_id(const std::map<std::string, std::set<int32_t>>& partitions,
                             const topic_image_view& topics) {
  topic_partitions out;
  for (const auto& [name, set] : partitions) {
    if (auto id = topics.topic_id(name)) out[*id].insert(set.begin(), set.end());
  }
  return out;
}

}  // namespace hw::broker::group::consumer
