// ListConfigResources (key 74), versions 0-1: the resources that configs
// can be described for. kafka-configs.sh --describe of a group asks it for
// GROUP resources, so that a group with configs but no members is found.
//
// Kafka's rules (KafkaApis.handleListConfigResources): v0 lists
// CLIENT_METRICS resources only; v1 lists the types asked for, all of them
// when none is: groups that have configs, CLIENT_METRICS resources (none:
// Highwater has no client metrics), this broker's id as BROKER_LOGGER, the
// registered brokers and every topic; any other type fails the whole
// request with UNSUPPORTED_VERSION.

#include <algorithm>

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"
#include "controller/metadata/image.h"
#include "protocol/error_code.h"
#include "protocol/messages/list_config_resources.h"

namespace hw::broker {
namespace {

using controller::config_resource_type;
using protocol::error_code;
using protocol::msg::list_config_resources_request;
using protocol::msg::list_config_resources_response;

constexpr config_resource_type listed_types[] = {config_resource_type::group, config_resource_type::client_metrics,
                                                 config_resource_type::broker_logger, config_resource_type::broker,
                                                 config_resource_type::topic};

void add(list_config_resources_response& r, config_resource_type type, std::string name) {
  auto& e = r.config_resources.emplace_back();
  e.resource_name = std::move(name);
  e.resource_type = static_cast<int8_t>(type);
}

void list_type(list_config_resources_response& r, config_resource_type type, const controller::metadata_image& image,
               int32_t node_id) {
  switch (type) {
    case config_resource_type::group:
    case config_resource_type::client_metrics:
      for (const auto& [resource, configs] : image.configs)
        if (resource.type == type && !configs.empty()) add(r, type, resource.name);
      break;
    case config_resource_type::broker_logger:
      add(r, type, std::to_string(node_id));
      break;
    case config_resource_type::broker:
      for (const auto& [id, _] : image.brokers) add(r, type, std::to_string(id.value));
      break;
    case config_resource_type::topic:
      for (const auto& [name, _] : image.topics_by_name) add(r, type, name);
      break;
    default:
      break;
  }
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<list_config_resources_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();
  list_config_resources_response response;
  if (auto refused = top_level_refusal<list_config_resources_response>(ctx, api_acl(74, "cluster")))
    co_return respond(ctx, *refused);  // DESCRIBE_CONFIGS
  std::vector<config_resource_type> types;
  if (ctx.api_version == 0) types = {config_resource_type::client_metrics};
  for (int8_t t : request->resource_types) {
    auto type = static_cast<config_resource_type>(t);
    if (std::find(std::begin(listed_types), std::end(listed_types), type) == std::end(listed_types)) {
      response.error_code = static_cast<int16_t>(error_code::unsupported_version);
      co_return respond(ctx, response);
    }
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
  }
  if (types.empty()) types.assign(std::begin(listed_types), std::end(listed_types));
  for (config_resource_type type : types) list_type(response, type, *image, s.node_id);
  co_return respond(ctx, response);
}

}  // namespace

api_handler list_config_resources_handler() { return {74, 0, 1, &handle}; }

}  // namespace hw::broker
