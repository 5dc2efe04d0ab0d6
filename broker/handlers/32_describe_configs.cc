// DescribeConfigs (key 32), versions 1-4: TOPIC, BROKER, BROKER_LOGGER and
// GROUP resources; the entries themselves (values, sources, synonyms, types,
// documentation) come from config/topic_configs_describe.h and
// config/group_configs_describe.h.
//
// Kafka's rules (ConfigHelper.describeConfigs): an invalid topic name is
// INVALID_TOPIC_EXCEPTION with its message; a topic not in the metadata is
// UNKNOWN_TOPIC_OR_PARTITION without one; BROKER "" describes the
// cluster-wide dynamic defaults, this broker's id every broker key, any
// other name INVALID_REQUEST; BROKER_LOGGER needs this broker's id; GROUP
// needs a non-empty group id, which need not name an existing group; a null
// or empty key list means every key. Each resource fails on its own.

#include <spdlog/spdlog.h>

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "config/group_configs_describe.h"
#include "config/topic_configs_describe.h"
#include "controller/metadata/config_resolver.h"
#include "protocol/error_code.h"
#include "protocol/messages/describe_configs.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::describe_configs_request;
using protocol::msg::describe_configs_response;
using result = describe_configs_response::describe_configs_result;

// ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG: not a source config/ describes.
constexpr int8_t dynamic_broker_logger_source = 6;

void fail(result& r, error_code e, std::string message) {
  r.error_code = static_cast<int16_t>(e);
  r.error_message = std::move(message);
}

void add_entries(result& r, std::vector<config::described_config> configs) {
  for (auto& c : configs) {
    describe_configs_response::describe_configs_resource_result e;
    e.name = std::move(c.name);
    e.value = std::move(c.value);
    e.read_only = c.read_only;
    e.config_source = static_cast<int8_t>(c.source);
    e.is_sensitive = c.is_sensitive;
    for (auto& s : c.synonyms) {
      describe_configs_response::describe_configs_synonym syn;
      syn.name = std::move(s.name);
      syn.value = std::move(s.value);
      syn.source = static_cast<int8_t>(s.source);
      e.synonyms.push_back(std::move(syn));
    }
    e.config_type = static_cast<int8_t>(c.type);
    e.documentation = std::move(c.documentation);
    r.configs.push_back(std::move(e));
  }
}

bool is_this_broker(std::string_view name, int32_t node_id) { return name == std::to_string(node_id); }

// Highwater has one logger; it answers as Kafka's root logger with its level.
void describe_loggers(result& r, const describe_configs_request::describe_configs_resource& res) {
  const auto& keys = res.configuration_keys;
  if (keys && !keys->empty() && std::find(keys->begin(), keys->end(), "root") == keys->end()) return;
  describe_configs_response::describe_configs_resource_result e;
  e.name = "root";
  auto level = spdlog::level::to_string_view(spdlog::get_level());
  std::string text(level.data(), level.size());
  for (auto& ch : text) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (text == "WARNING") text = "WARN";
  if (text == "CRITICAL") text = "FATAL";
  e.value = text;
  e.config_source = dynamic_broker_logger_source;
  r.configs.push_back(std::move(e));
}

result describe(const broker_services& s, const controller::metadata_image& image,
                const describe_configs_request::describe_configs_resource& res, const config::describe_options& base) {
  result r;
  r.resource_type = res.resource_type;
  r.resource_name = res.resource_name;
  config::describe_options options = base;
  if (res.configuration_keys) options.keys = *res.configuration_keys;
  using controller::config_resource_type;
  switch (static_cast<config_resource_type>(res.resource_type)) {
    case config_resource_type::topic: {
      if (auto invalid = invalid_topic_name(res.resource_name)) {
        fail(r, error_code::invalid_topic_exception, *invalid);
      } else if (!image.topic(res.resource_name)) {
        r.error_code = static_cast<int16_t>(error_code::unknown_topic_or_partition);
      } else {
        add_entries(r, config::describe_topic_configs(
                           controller::resource_configs(image, config_resource_type::topic, res.resource_name),
                           controller::broker_layers(*s.config, image, s.node_id), options));
      }
      break;
    }
    case config_resource_type::broker: {
      auto d = config::describe_broker_configs(res.resource_name, controller::broker_layers(*s.config, image, s.node_id), options);
      if (d.invalid_request) fail(r, error_code::invalid_request, *d.invalid_request);
      else add_entries(r, std::move(d.configs));
      break;
    }
    case config_resource_type::broker_logger:
      if (res.resource_name.empty()) fail(r, error_code::invalid_request, "Broker id must not be empty");
      else if (!is_this_broker(res.resource_name, s.node_id))
        fail(r, error_code::invalid_request, "Unexpected broker id, expected " + std::to_string(s.node_id) +
                                                 " but received " + res.resource_name);
      else describe_loggers(r, res);
      break;
    case config_resource_type::group:
      // A group need not exist: one without configs shows the defaults.
      if (res.resource_name.empty()) fail(r, error_code::invalid_request, "Group name must not be empty");
      else add_entries(r, config::describe_group_configs(
                              controller::resource_configs(image, config_resource_type::group, res.resource_name),
                              controller::broker_layers(*s.config, image, s.node_id), options));
      break;
    default:
      fail(r, error_code::invalid_request, "Unsupported resource type: " + std::to_string(res.resource_type));
  }
  return r;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_configs_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();
  config::describe_options options;
  options.include_synonyms = request->include_synonyms;
  options.include_documentation = request->include_documentation;
  describe_configs_response response;
  // Resources the principal may not describe are answered after the
  // others, with the refusal and its message.
  std::vector<result> refused;
  for (const auto& res : request->resources) {
    if (const error_code e = config_resource_refusal(ctx, res.resource_type, res.resource_name);
        e != error_code::none) {
      auto& r = refused.emplace_back();
      r.resource_type = res.resource_type;
      r.resource_name = res.resource_name;
      fail(r, e, std::string(authorization_error_message(e)));
      continue;
    }
    response.results.push_back(describe(s, *image, res, options));
  }
  for (auto& r : refused) response.results.push_back(std::move(r));
  co_return respond(ctx, response);
}

}  // namespace

api_handler describe_configs_handler() { return {32, 1, 4, &handle}; }

}  // namespace hw::broker
