#include "broker/topics.h"

#include <charconv>

#include "config/broker_config.h"

namespace hw::broker {

std::optional<std::string> topic_override(const controller::metadata_image& image, std::string_view topic,
                                          std::string_view key) {
  return image.config(controller::config_resource_type::topic, topic, key);
}

namespace {

template <typename T>
std::optional<T> parse_number(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  T value{};
  auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), value);
  if (ec != std::errc() || end != s->data() + s->size()) return std::nullopt;
  return value;
}

}  // namespace

produce_limits produce_limits_for(const controller::metadata_image& image, std::string_view topic,
                                  const config::broker_config& config) {
  produce_limits l;
  l.max_message_bytes =
      parse_number<int32_t>(topic_override(image, topic, "max.message.bytes")).value_or(config.message_max_bytes);
  l.timestamp_before_max_ms = parse_number<int64_t>(topic_override(image, topic, "message.timestamp.before.max.ms"))
                                  .value_or(config.get_int("log.message.timestamp.before.max.ms"));
  l.timestamp_after_max_ms = parse_number<int64_t>(topic_override(image, topic, "message.timestamp.after.max.ms"))
                                 .value_or(config.get_int("log.message.timestamp.after.max.ms"));
  auto type = topic_override(image, topic, "message.timestamp.type");
  l.log_append_time = (type ? *type : config.get_string("log.message.timestamp.type")) == "LogAppendTime";
  return l;
}

}  // namespace hw::broker
