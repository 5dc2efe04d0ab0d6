// ApiVersions (key 18), versions 0-4: the APIs and versions this broker
// serves (from the handler list), and its feature flags from v3 on.
//
// Kafka's rules (KafkaApis.handleApiVersionsRequest, ApiVersionsRequest,
// ApiVersionsResponse): from v3 the client's software name and version must
// match [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?, else INVALID_REQUEST with
// no API list; before v4, supported features whose minimum is 0 are left out
// (older clients cannot read them, KAFKA-17492); finalized features report
// min level = max level = the level, and level-0 features are left out.
// The finalized levels are the metadata log's (FeatureLevelRecords), with
// the offset of the broker's metadata image as their epoch: a Java 4.x
// client reads transaction.version there to choose transactions v2.

#include <string_view>

#include "broker/handlers/handlers.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "protocol/messages/api_versions.h"

namespace hw::broker {
namespace {

using protocol::msg::api_versions_request;
using protocol::msg::api_versions_response;

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?
bool valid_software_token(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (char c : s)
    if (!is_alnum(c) && c != '-' && c != '.') return false;
  return true;
}

api_versions_response full_response(const broker_services& services, std::string_view listener, int16_t version) {
  api_versions_response r;
  for (const advertised_api& a : services.handlers_for(listener).advertised())
    r.api_keys.push_back({a.api_key, a.min_version, a.max_version, {}});
  for (const supported_feature& f : supported_features()) {
    if (version < 4 && f.min_version == 0) continue;
    r.supported_features.push_back({std::string(f.name), f.min_version, f.max_version, {}});
  }
  std::optional<finalized_features> from_log;
  if (services.metadata)
    if (auto image = services.metadata->image()) from_log = finalized_features_of(*image);
  const finalized_features& finalized = from_log ? *from_log : services.finalized;
  r.finalized_features_epoch = finalized.epoch;
  for (const finalized_feature& f : finalized.features) {
    if (f.level == 0) continue;
    r.finalized_features.push_back({f.name, f.level, f.level, {}});
  }
  // kraft.version is the raft log's, not a FeatureLevelRecord (shown when
  // not 0, as Kafka's metadata cache adds it).
  if (services.raft && from_log)
    if (int16_t kraft = services.raft->kraft_version_now(); kraft > 0)
      r.finalized_features.push_back({"kraft.version", kraft, kraft, {}});
  return r;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<api_versions_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);

  api_versions_response response;
  if (ctx.api_version >= 3 && !(valid_software_token(request->client_software_name) &&
                                valid_software_token(request->client_software_version))) {
    response.error_code = static_cast<int16_t>(protocol::error_code::invalid_request);
  } else {
    response = full_response(*ctx.services, ctx.listener_name, ctx.api_version);
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler api_versions_handler() { return {18, 0, 4, &handle}; }

}  // namespace hw::broker
