// The admin side of kafka-leader-election.sh: Kafka's tool creates an admin
// client with default.api.timeout.ms 30 s (unless the command config sets
// it) and calls electLeaders, which sends one ElectLeaders request to the
// node Metadata names as the controller. What can go wrong ends the way
// Kafka's tool ends: "Timeout waiting for election results" when nothing
// answered in time, "Not authorized to perform leader election", or the
// request's own error, or a refused login's, wrapped twice (RuntimeException,
// ExecutionException).

#include <netdb.h>

#include <algorithm>

#include "protocol/messages/elect_leaders.h"
#include "tools/client/connection.h"
#include "tools/commands/get_offsets.h"
#include "tools/commands/leader_election.h"

namespace hw::tools::election {
namespace {

using protocol::msg::elect_leaders_request;
using protocol::msg::elect_leaders_response;

const char* const k_command_failed = "org.apache.kafka.tools.AdminCommandFailedException";
const char* const k_kafka_exception = "org.apache.kafka.common.KafkaException";
const char* const k_config_exception = "org.apache.kafka.common.config.ConfigException";
constexpr int16_t k_request_timed_out = 7;
constexpr int16_t k_cluster_authorization_failed = 31;

call_outcome timed_out() {
  call_outcome out;
  out.stdout_line = "Timeout waiting for election results";
  out.error = {k_command_failed, out.stdout_line};
  return out;
}

// The request failed as a whole: KafkaFuture.get's ExecutionException.
call_outcome request_failed(int16_t code) {
  if (code == k_request_timed_out) return timed_out();  // a TimeoutException
  call_outcome out;
  if (code == k_cluster_authorization_failed) {
    out.stdout_line = "Not authorized to perform leader election";
    out.error = {k_command_failed, out.stdout_line};
    return out;
  }
  out.error = {"java.lang.RuntimeException",
               "java.util.concurrent.ExecutionException: " + exception_text(code, std::nullopt)};
  return out;
}

bool resolvable(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  ::freeaddrinfo(found);
  return true;
}

elect_leaders_request request_for(int8_t election_type, const std::optional<std::vector<topic_partition>>& partitions) {
  elect_leaders_request req;
  req.election_type = election_type;
  if (!partitions) {
    req.topic_partitions.reset();  // null: every partition
    return req;
  }
  req.topic_partitions.emplace();
  for (auto& [topic, ids] : request_topics(*partitions)) {
    elect_leaders_request::topic_partitions_data t;
    t.topic = topic;
    t.partitions = ids;
    req.topic_partitions->push_back(std::move(t));
  }
  return req;
}

// Where Kafka's admin client sends it: the controller Metadata names (in
// KRaft a broker, which forwards it).
int32_t controller_node(const admin_client& admin) {
  for (const auto& n : admin.nodes())
    if (n.id == admin.controller_id()) return n.id;
  return admin_client::any_node;
}

int32_t remaining_ms(const admin_client& admin) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(admin.deadline() - clock::now()).count();
  return static_cast<int32_t>(std::clamp<int64_t>(left, 0, INT32_MAX));
}

// An int setting of the admin config as AdminClientConfig reads it (an INT,
// at least 0); false with the ConfigException it throws.
bool int_setting(const std::vector<std::pair<std::string, std::string>>& config, const std::string& key,
                 int32_t* value, failure* error) {
  // Properties: the last line for a key wins.
  auto last = std::find_if(config.rbegin(), config.rend(), [&](const auto& kv) { return kv.first == key; });
  if (last != config.rend()) {
    const std::string& v = last->second;
    if (!get_offsets::java_parse_int(get_offsets::java_trim(v), value)) {
      *error = {k_config_exception, "Invalid value " + v + " for configuration " + key + ": Not a number of type INT"};
      return false;
    }
    if (*value < 0) {
      *error = {k_config_exception, "Invalid value " + v + " for configuration " + key + ": Value must be at least 0"};
      return false;
    }
  }
  return true;
}

// The settings the tool adds (default.api.timeout.ms 30 s, request.timeout.ms
// half of it, where the file has none), checked as KafkaAdminClient checks
// them; false with the exception Admin.create throws.
bool admin_settings(std::vector<std::pair<std::string, std::string>>* config, failure* error) {
  int32_t api_timeout = 30000, request_timeout = 15000;
  if (!int_setting(*config, "default.api.timeout.ms", &api_timeout, error) ||
      !int_setting(*config, "request.timeout.ms", &request_timeout, error))
    return false;
  if (api_timeout < request_timeout) {
    // "The specified value of default.api.timeout.ms must be no smaller than
    // the value of request.timeout.ms.", inside KafkaAdminClient's creation.
    *error = {k_kafka_exception, "Failed to create new KafkaAdminClient"};
    return false;
  }
  std::erase_if(*config, [](const auto& kv) { return kv.first == "default.api.timeout.ms"; });
  config->emplace_back("default.api.timeout.ms", std::to_string(api_timeout));
  return true;
}

}  // namespace

bool bootstrap_usable(const std::string& servers) {
  std::vector<host_port> addresses;
  std::string ignored;
  if (!parse_host_ports(servers, &addresses, &ignored)) return false;
  return std::any_of(addresses.begin(), addresses.end(), [](const host_port& a) { return resolvable(a.host); });
}

call_outcome elect_leaders(const std::string& bootstrap,
                           const std::vector<std::pair<std::string, std::string>>& config, int8_t election_type,
                           const std::optional<std::vector<topic_partition>>& partitions) {
  call_outcome out;
  auto settings = config;
  if (!admin_settings(&settings, &out.error)) return out;
  if (!bootstrap_usable(bootstrap)) {
    out.error = {k_kafka_exception, "Failed to create new KafkaAdminClient"};
    return out;
  }
  std::string why;
  auto admin = connect_admin(bootstrap, false, settings, &why);
  if (!admin && connection::authentication_failure(why)) {
    // Kafka's admin client fails electLeaders with the login's error.
    out.error = {"java.lang.RuntimeException", "java.util.concurrent.ExecutionException: " + why};
    return out;
  }
  if (!admin) {
    if (why.find("not supported by the native tools") == std::string::npos) return timed_out();
    out.error = {"", why};
    return out;
  }
  elect_leaders_request req = request_for(election_type, partitions);
  elect_leaders_response resp;
  for (;;) {
    req.timeout_ms = remaining_ms(*admin);
    if (admin->call(controller_node(*admin), req, &resp, &why)) break;
    if (admin_client::unsupported(why)) {
      out.error = {"java.lang.RuntimeException", "java.util.concurrent.ExecutionException: "
                                                 "org.apache.kafka.common.errors.UnsupportedVersionException: " + why};
      return out;
    }
    if (!admin->back_off()) return timed_out();
  }
  if (resp.error_code != 0) return request_failed(resp.error_code);
  out.ok = true;
  for (const auto& topic : resp.replica_election_results)
    for (const auto& p : topic.partition_result)
      out.results.push_back({{topic.topic, p.partition_id}, p.error_code, p.error_message});
  return out;
}

}  // namespace hw::tools::election
