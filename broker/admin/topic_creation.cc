#include "broker/admin/topic_creation.h"

#include "broker/metadata/controller_call.h"
#include "broker/metadata/controller_service.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/quota/request_quotas.h"
#include "config/broker_config.h"

namespace hw::broker {

using protocol::msg::create_topics_request;
using protocol::msg::create_topics_response;

asio::awaitable<create_topics_response> create_topics(const broker_services& services, create_topics_request request,
                                                      int16_t version, std::chrono::milliseconds timeout,
                                                      bool may_forward, const request_context* client) {
  controller_call_result result;
  // The client's controller mutation quota, where this node's controller
  // creates them (a forwarded request meets it on the active controller).
  quota::mutation_quota mutations(client, 6);
  create_topics_response response = co_await call_active_controller<create_topics_response>(
      services, may_forward, 19, version, request,
      [&](controller::quorum_controller& qc, int64_t now, storage::offset) {
        return qc.create_topics(request, mutations.applier());
      },
      &result, timeout, client);
  response.throttle_time_ms = std::max(response.throttle_time_ms, mutations.finish());
  if (result.status == commit_status::failed) {
    for (auto& t : response.topics) {
      if (t.error_code != 0 && t.error_code != static_cast<int16_t>(protocol::error_code::not_controller)) continue;
      t.error_code = static_cast<int16_t>(protocol::error_code::request_timed_out);
      t.error_message = "The metadata log could not be written";
    }
    co_return response;
  }
  if (result.status == commit_status::committed && !result.remote && may_forward) {
    // A client of this node's own listeners is answered once this broker
    // knows the topics and hosts their partitions, so that its next
    // request finds them. A request another broker forwarded is answered
    // on commit, as Kafka's controller answers: that broker learns of the
    // topics from the metadata log, not from this one, and waiting here for
    // this node's logs (many file and directory syncs for a topic of many
    // partitions) would only delay the answer.
    quota::parked parked(client);
    co_await services.metadata->wait_applied(result.committed_end, timeout);
  }
  co_return response;
}

asio::awaitable<protocol::error_code> create_topic(const broker_services& services, std::string name,
                                                   int32_t partitions, int16_t replication_factor,
                                                   std::vector<std::pair<std::string, std::string>> configs,
                                                   const request_context* client) {
  create_topics_request request;
  create_topics_request::creatable_topic t;
  t.name = std::move(name);
  t.num_partitions = partitions;
  t.replication_factor = replication_factor;
  for (auto& [k, v] : configs) {
    create_topics_request::creatable_topic_config c;
    c.name = k;
    c.value = v;
    t.configs.push_back(std::move(c));
  }
  request.topics.push_back(std::move(t));
  request.timeout_ms = 30000;
  auto response =
      co_await create_topics(services, std::move(request), 7, std::chrono::milliseconds(30000), true, client);
  if (response.topics.empty()) co_return protocol::error_code::unknown_server_error;
  co_return static_cast<protocol::error_code>(response.topics.front().error_code);
}

}  // namespace hw::broker
