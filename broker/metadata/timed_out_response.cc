#include "broker/metadata/timed_out_response.h"

#include "broker/admin/acl_requests.h"
#include "broker/admin/client_quotas.h"
#include "broker/admin/scram_credentials.h"
#include "protocol/error_code.h"

namespace hw::broker {
namespace {

// AlterConfigs and IncrementalAlterConfigs: one answer per resource.
template <class Response, class Request>
Response config_resources_refused(const Request& request, protocol::error_code error,
                                  const std::optional<std::string>& message) {
  Response out;
  for (const auto& res : request.resources) {
    auto& r = out.responses.emplace_back();
    r.resource_type = res.resource_type;
    r.resource_name = res.resource_name;
    r.error_code = static_cast<int16_t>(error);
    r.error_message = message;
  }
  return out;
}

}  // namespace

msg::create_topics_response refused_response(const msg::create_topics_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  msg::create_topics_response out;
  for (const auto& t : request.topics) {
    auto& r = out.topics.emplace_back();
    r.name = t.name;
    r.error_code = static_cast<int16_t>(error);
    r.error_message = message;
  }
  return out;
}

msg::delete_topics_response refused_response(const msg::delete_topics_request& request, int16_t version, protocol::error_code error,
                             const std::optional<std::string>& message) {
  msg::delete_topics_response out;
  if (version >= 6) {
    for (const auto& t : request.topics) {
      auto& r = out.responses.emplace_back();
      r.name = t.name;
      r.topic_id = t.topic_id;
      r.error_code = static_cast<int16_t>(error);
    }
  } else {
    for (const auto& name : request.topic_names) {
      auto& r = out.responses.emplace_back();
      r.name = name;
      r.error_code = static_cast<int16_t>(error);
    }
  }
  return out;
}

msg::create_partitions_response refused_response(const msg::create_partitions_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  msg::create_partitions_response out;
  for (const auto& t : request.topics) {
    auto& r = out.results.emplace_back();
    r.name = t.name;
    r.error_code = static_cast<int16_t>(error);
  }
  return out;
}

msg::elect_leaders_response refused_response(const msg::elect_leaders_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  msg::elect_leaders_response out;
  out.error_code = static_cast<int16_t>(error);
  if (request.topic_partitions) {
    for (const auto& t : *request.topic_partitions) {
      auto& r = out.replica_election_results.emplace_back();
      r.topic = t.topic;
      for (int32_t p : t.partitions) {
        auto& pr = r.partition_result.emplace_back();
        pr.partition_id = p;
        pr.error_code = static_cast<int16_t>(error);
        pr.error_message = message;
      }
    }
  }
  return out;
}

msg::incremental_alter_configs_response refused_response(const msg::incremental_alter_configs_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  return config_resources_refused<msg::incremental_alter_configs_response>(request, error, message);
}

msg::alter_configs_response refused_response(const msg::alter_configs_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  return config_resources_refused<msg::alter_configs_response>(request, error, message);
}

msg::list_partition_reassignments_response refused_response(const msg::list_partition_reassignments_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  msg::list_partition_reassignments_response out;
  out.error_code = static_cast<int16_t>(error);
  out.error_message = message;
  if (request.topics) {
    for (const auto& t : *request.topics) {
      auto& r = out.topics.emplace_back();
      r.name = t.name;
      for (int32_t p : t.partition_indexes) r.partitions.emplace_back().partition_index = p;
    }
  }
  return out;
}

msg::alter_partition_reassignments_response refused_response(const msg::alter_partition_reassignments_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  msg::alter_partition_reassignments_response out;
  out.error_code = static_cast<int16_t>(error);
  out.error_message = message;
  for (const auto& t : request.topics) {
    auto& r = out.responses.emplace_back();
    r.name = t.name;
    for (const auto& p : t.partitions) {
      auto& pr = r.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      pr.error_code = static_cast<int16_t>(error);
      pr.error_message = message;
    }
  }
  return out;
}

msg::alter_user_scram_credentials_response refused_response(const msg::alter_user_scram_credentials_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  return alter_scram_credentials_refused(request, error, message);
}

msg::create_acls_response refused_response(const msg::create_acls_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  return create_acls_refused(request, error, message);
}

msg::delete_acls_response refused_response(const msg::delete_acls_request& request, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  return delete_acls_refused(request, error, message);
}

msg::alter_client_quotas_response refused_response(const msg::alter_client_quotas_request& request, int16_t,
                             protocol::error_code error, const std::optional<std::string>&) {
  return alter_client_quotas_refused(request, error);
}

msg::unregister_broker_response refused_response(const msg::unregister_broker_request&, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  msg::unregister_broker_response out;
  out.error_code = static_cast<int16_t>(error);
  out.error_message = message;
  return out;
}

msg::update_features_response refused_response(const msg::update_features_request&, int16_t, protocol::error_code error,
                             const std::optional<std::string>& message) {
  msg::update_features_response out;
  out.error_code = static_cast<int16_t>(error);
  out.error_message = message;
  return out;
}

}  // namespace hw::broker
