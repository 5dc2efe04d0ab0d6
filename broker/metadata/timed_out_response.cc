#include "broker/metadata/timed_out_response.h"

#include "broker/admin/acl_requests.h"
#include "broker/admin/scram_credentials.h"
#include "protocol/error_code.h"

namespace hw::broker {
namespace {

constexpr int16_t k_timed_out = static_cast<int16_t>(protocol::error_code::request_timed_out);

// AlterConfigs and IncrementalAlterConfigs: one answer per resource.
template <class Response, class Request>
Response config_resources_timed_out(const Request& request) {
  Response out;
  for (const auto& res : request.resources) {
    auto& r = out.responses.emplace_back();
    r.resource_type = res.resource_type;
    r.resource_name = res.resource_name;
    r.error_code = k_timed_out;
    r.error_message = std::nullopt;
  }
  return out;
}

}  // namespace

msg::create_topics_response timed_out_response(const msg::create_topics_request& request, int16_t) {
  msg::create_topics_response out;
  for (const auto& t : request.topics) {
    auto& r = out.topics.emplace_back();
    r.name = t.name;
    r.error_code = k_timed_out;
    r.error_message = std::nullopt;
  }
  return out;
}

msg::delete_topics_response timed_out_response(const msg::delete_topics_request& request, int16_t version) {
  msg::delete_topics_response out;
  if (version >= 6) {
    for (const auto& t : request.topics) {
      auto& r = out.responses.emplace_back();
      r.name = t.name;
      r.topic_id = t.topic_id;
      r.error_code = k_timed_out;
    }
  } else {
    for (const auto& name : request.topic_names) {
      auto& r = out.responses.emplace_back();
      r.name = name;
      r.error_code = k_timed_out;
    }
  }
  return out;
}

msg::create_partitions_response timed_out_response(const msg::create_partitions_request& request, int16_t) {
  msg::create_partitions_response out;
  for (const auto& t : request.topics) {
    auto& r = out.results.emplace_back();
    r.name = t.name;
    r.error_code = k_timed_out;
  }
  return out;
}

msg::elect_leaders_response timed_out_response(const msg::elect_leaders_request& request, int16_t) {
  msg::elect_leaders_response out;
  out.error_code = k_timed_out;
  if (request.topic_partitions) {
    for (const auto& t : *request.topic_partitions) {
      auto& r = out.replica_election_results.emplace_back();
      r.topic = t.topic;
      for (int32_t p : t.partitions) {
        auto& pr = r.partition_result.emplace_back();
        pr.partition_id = p;
        pr.error_code = k_timed_out;
        pr.error_message = std::nullopt;
      }
    }
  }
  return out;
}

msg::incremental_alter_configs_response timed_out_response(const msg::incremental_alter_configs_request& request,
                                                           int16_t) {
  return config_resources_timed_out<msg::incremental_alter_configs_response>(request);
}

msg::alter_configs_response timed_out_response(const msg::alter_configs_request& request, int16_t) {
  return config_resources_timed_out<msg::alter_configs_response>(request);
}

msg::list_partition_reassignments_response timed_out_response(
    const msg::list_partition_reassignments_request& request, int16_t) {
  msg::list_partition_reassignments_response out;
  out.error_code = k_timed_out;
  out.error_message = std::nullopt;
  if (request.topics) {
    for (const auto& t : *request.topics) {
      auto& r = out.topics.emplace_back();
      r.name = t.name;
      for (int32_t p : t.partition_indexes) r.partitions.emplace_back().partition_index = p;
    }
  }
  return out;
}

msg::alter_partition_reassignments_response timed_out_response(
    const msg::alter_partition_reassignments_request& request, int16_t) {
  msg::alter_partition_reassignments_response out;
  out.error_code = k_timed_out;
  out.error_message = std::nullopt;
  for (const auto& t : request.topics) {
    auto& r = out.responses.emplace_back();
    r.name = t.name;
    for (const auto& p : t.partitions) {
      auto& pr = r.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      pr.error_code = k_timed_out;
      pr.error_message = std::nullopt;
    }
  }
  return out;
}

msg::alter_user_scram_credentials_response timed_out_response(const msg::alter_user_scram_credentials_request& request,
                                                              int16_t) {
  return alter_scram_credentials_refused(request, protocol::error_code::request_timed_out);
}

msg::create_acls_response timed_out_response(const msg::create_acls_request& request, int16_t) {
  return create_acls_refused(request, protocol::error_code::request_timed_out);
}

msg::delete_acls_response timed_out_response(const msg::delete_acls_request& request, int16_t) {
  return delete_acls_refused(request, protocol::error_code::request_timed_out);
}

}  // namespace hw::broker
