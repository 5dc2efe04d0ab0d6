#include "broker/topics.h"

#include <charconv>

#include "config/broker_config.h"

namespace hw::broker {

bool is_internal_topic(std::string_view name) {
  return name == consumer_offsets_topic || name == transaction_state_topic;
}

std::optional<std::string> validate_topic_name(std::string_view name) {
  constexpr size_t max_name_length = 249;
  if (name.empty()) return "Topic name is illegal, it can't be empty";
  if (name == "." || name == "..") return "Topic name cannot be \".\" or \"..\"";
  if (name.size() > max_name_length)
    return "Topic name is illegal, it can't be longer than " + std::to_string(max_name_length) +
           " characters, topic name: " + std::string(name);
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok)
      return "Topic name \"" + std::string(name) +
             "\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'";
  }
  return std::nullopt;
}

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
  l.min_insync_replicas = parse_number<int32_t>(topic_override(image, topic, "min.insync.replicas"))
                              .value_or(config.min_insync_replicas);
  l.timestamp_before_max_ms = parse_number<int64_t>(topic_override(image, topic, "message.timestamp.before.max.ms"))
                                  .value_or(config.get_int("log.message.timestamp.before.max.ms"));
  l.timestamp_after_max_ms = parse_number<int64_t>(topic_override(image, topic, "message.timestamp.after.max.ms"))
                                 .value_or(config.get_int("log.message.timestamp.after.max.ms"));
  auto type = topic_override(image, topic, "message.timestamp.type");
  l.log_append_time = (type ? *type : config.get_string("log.message.timestamp.type")) == "LogAppendTime";
  return l;
}

}  // namespace hw::broker
