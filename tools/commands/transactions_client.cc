// The admin calls of kafka-transactions.sh as Kafka's admin client makes
// them: each its own client with its own default.api.timeout.ms deadline,
// the node each request goes to found as Kafka's lookup strategies find it
// (every broker from Metadata, a coordinator from FindCoordinator, a
// partition's leader from Metadata), the errors Kafka retries retried and
// the others failed with the messages of Kafka's admin handlers.

#include <charconv>
#include <chrono>
#include <set>

#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_transactions.h"
#include "tools/client/connection.h"
#include "tools/commands/transactions.h"

namespace hw::tools::txn {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_load_in_progress = 14;
constexpr int16_t k_coordinator_not_available = 15;
constexpr int16_t k_not_coordinator = 16;
constexpr int16_t k_cluster_authorization_failed = 31;
constexpr int16_t k_concurrent_transactions = 51;
constexpr int16_t k_transactional_id_authorization_failed = 53;
constexpr int16_t k_transactional_id_not_found = 105;

int64_t property_ms(const property_list& props, const std::string& key, int64_t fallback) {
  for (auto it = props.rbegin(); it != props.rend(); ++it) {
    if (it->first != key) continue;
    int64_t v = 0;
    if (std::from_chars(it->second.data(), it->second.data() + it->second.size(), v).ec == std::errc{}) return v;
  }
  return fallback;
}

bool has_property(const property_list& props, const std::string& key) {
  for (const auto& p : props)
    if (p.first == key) return true;
  return false;
}

}  // namespace

call_error node_assignment_timeout(const std::string& call) {
  return {"Timed out waiting for a node assignment. Call: " + call, -1};
}

call_error attempts_timeout(const std::string& call, const admin_client& admin, int tries) {
  const int64_t deadline =
      now_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(admin.deadline() - clock::now()).count();
  const int64_t now = std::max(now_ms(), deadline);
  return {"Call(callName=" + call + ", deadlineMs=" + std::to_string(deadline) + ", tries=" + std::to_string(tries) +
              ", nextAllowedTryMs=" + std::to_string(now + 1000) + ") timed out at " + std::to_string(now) + " after " +
              std::to_string(tries) + " attempt(s)",
          -1};
}

bool check_admin_config(const std::string& bootstrap, const property_list& props, std::string* error) {
  std::vector<host_port> addresses;
  std::string why;
  if (!parse_host_ports(bootstrap, &addresses, &why)) {
    *error = "Exception in thread \"main\" org.apache.kafka.common.KafkaException: Failed to create new "
             "KafkaAdminClient\nCaused by: org.apache.kafka.common.config.ConfigException: " + why;
    return false;
  }
  if (has_property(props, "default.api.timeout.ms") &&
      property_ms(props, "default.api.timeout.ms", 60000) < property_ms(props, "request.timeout.ms", 30000)) {
    *error = "Exception in thread \"main\" org.apache.kafka.common.KafkaException: Failed to create new "
             "KafkaAdminClient\nCaused by: org.apache.kafka.common.config.ConfigException: The specified value of "
             "default.api.timeout.ms must be no smaller than the value of request.timeout.ms.";
    return false;
  }
  return true;
}

txn_client::txn_client(std::string bootstrap, property_list props)
    : bootstrap_(std::move(bootstrap)),
      props_(std::move(props)),
      request_timeout_ms_(static_cast<int32_t>(property_ms(props_, "request.timeout.ms", 30000))) {}

std::unique_ptr<admin_client> txn_client::start(const std::string& call, call_error* error) const {
  // Kafka's takes request.timeout.ms when default.api.timeout.ms is lower
  // only by default.
  property_list settings = props_;
  const int64_t timeout = std::max<int64_t>(property_ms(props_, "default.api.timeout.ms", 60000), request_timeout_ms_);
  settings.emplace_back("default.api.timeout.ms", std::to_string(timeout));
  std::string why;
  auto admin = connect_admin(bootstrap_, false, settings, &why);
  if (!admin && connection::authentication_failure(why)) {
    // The tool prints the exception's message, without its class.
    *error = call_error{why.substr(why.find(": ") + 2), -1};
  } else if (!admin) {
    *error = why.starts_with("Timed out waiting for a node assignment") ? node_assignment_timeout(call)
                                                                         : call_error{why, -1};
  }
  return admin;
}

bool txn_client::find_coordinator(admin_client& admin, const std::string& id, const std::string& call, int32_t* node,
                                  call_error* error) const {
  msg::find_coordinator_request req;
  req.key = id;
  req.key_type = 1;
  req.coordinator_keys = {id};
  do {
    msg::find_coordinator_response resp;
    std::string why;
    int16_t version = 0;
    if (!admin.call(admin_client::any_node, req, &resp, &why, &version)) continue;
    if (version >= 4 && !resp.coordinators.empty()) {
      resp.error_code = resp.coordinators.front().error_code;
      resp.node_id = resp.coordinators.front().node_id;
    }
    const int16_t code = resp.error_code;
    if (code == 0) {
      *node = resp.node_id;
      return true;
    }
    if (code == k_coordinator_not_available || code == k_load_in_progress) continue;
    if (code == k_transactional_id_authorization_failed) {
      *error = {"FindCoordinator request for transactionalId `CoordinatorKey(idValue='" + id +
                    "', type=TRANSACTION)` failed due to authorization failure",
                code};
    } else {
      *error = {"FindCoordinator request for key `CoordinatorKey(idValue='" + id +
                    "', type=TRANSACTION)` failed due to an unexpected error",
                code};
    }
    return false;
  } while (admin.back_off());
  *error = node_assignment_timeout(call + "(api=FIND_COORDINATOR)");
  return false;
}

bool txn_client::list_transactions(const list_filters& filters,
                                   std::map<int32_t, std::vector<transaction_listing>>* out, call_error* error) {
  auto admin = start("listTransactions(api=METADATA)", error);
  if (!admin) return false;
  msg::list_transactions_request req;
  req.producer_id_filters = filters.producer_ids;
  req.duration_filter = filters.duration_ms.value_or(-1);
  if (filters.transactional_id_pattern && !filters.transactional_id_pattern->empty())
    req.transactional_id_pattern = filters.transactional_id_pattern;
  std::set<int32_t> pending;
  for (const auto& n : admin->nodes()) pending.insert(n.id);
  while (!pending.empty()) {
    for (auto it = pending.begin(); it != pending.end();) {
      const int32_t broker = *it;
      msg::list_transactions_response resp;
      std::string why;
      if (!admin->call(broker, req, &resp, &why) || resp.error_code == k_load_in_progress) {
        ++it;
        continue;
      }
      const std::string sent = "ListTransactions request sent to broker " + std::to_string(broker);
      if (resp.error_code == k_coordinator_not_available) {
        *error = {sent + " failed because the coordinator is shutting down", resp.error_code};
        return false;
      }
      if (resp.error_code != 0) {
        *error = {sent + " failed with an unexpected exception", resp.error_code};
        return false;
      }
      auto& listings = (*out)[broker];
      for (const auto& t : resp.transaction_states)
        listings.push_back({t.transactional_id, t.producer_id, state_name(t.transaction_state)});
      it = pending.erase(it);
    }
    if (!pending.empty() && !admin->back_off()) {
      *error = node_assignment_timeout("listTransactions(api=LIST_TRANSACTIONS)");
      return false;
    }
  }
  return true;
}

bool txn_client::describe_transaction(const std::string& id, transaction_description* out, call_error* error) {
  auto admin = start("describeTransactions(api=FIND_COORDINATOR)", error);
  if (!admin) return false;
  const std::string request = "DescribeTransactions request for transactionalId `" + id + "`";
  int32_t coordinator = -1;
  do {
    if (coordinator < 0 && !find_coordinator(*admin, id, "describeTransactions", &coordinator, error))
      return false;
    msg::describe_transactions_request req;
    req.transactional_ids = {id};
    msg::describe_transactions_response resp;
    std::string why;
    if (!admin->call(coordinator, req, &resp, &why)) continue;
    for (const auto& s : resp.transaction_states) {
      if (s.transactional_id != id) continue;
      switch (s.error_code) {
        case 0:
          *out = {coordinator, state_name(s.transaction_state), s.producer_id, s.producer_epoch,
                  s.transaction_timeout_ms, std::nullopt, {}};
          if (s.transaction_start_time_ms >= 0) out->start_time_ms = s.transaction_start_time_ms;
          for (const auto& t : s.topics)
            for (int32_t p : t.partitions) out->partitions.push_back({t.topic, p});
          return true;
        case k_transactional_id_authorization_failed:
          *error = {request + " failed due to authorization failure", s.error_code};
          return false;
        case k_transactional_id_not_found:
          *error = {request + " failed because the ID could not be found", s.error_code};
          return false;
        case k_load_in_progress:
          break;
        case k_not_coordinator:
        case k_coordinator_not_available:
          coordinator = -1;
          break;
        default:
          *error = {request + " failed due to unexpected error", s.error_code};
          return false;
      }
    }
  } while (admin->back_off());
  *error = node_assignment_timeout(coordinator < 0 ? "describeTransactions(api=FIND_COORDINATOR)"
                                                   : "describeTransactions(api=DESCRIBE_TRANSACTIONS)");
  return false;
}

bool txn_client::fence_producer(const std::string& id, call_error* error) {
  auto admin = start("fenceProducer(api=FIND_COORDINATOR)", error);
  if (!admin) return false;
  const std::string request = "InitProducerId request for transactionalId `" + id + "`";
  msg::init_producer_id_request req;
  req.transactional_id = id;
  req.transaction_timeout_ms = request_timeout_ms_;
  int32_t coordinator = -1;
  do {
    if (coordinator < 0 && !find_coordinator(*admin, id, "fenceProducer", &coordinator, error)) return false;
    msg::init_producer_id_response resp;
    std::string why;
    if (!admin->call(coordinator, req, &resp, &why)) continue;
    switch (resp.error_code) {
      case 0:
        return true;
      case k_cluster_authorization_failed:
        *error = {request + " failed due to cluster authorization failure", resp.error_code};
        return false;
      case k_transactional_id_authorization_failed:
        *error = {request + " failed due to transactional ID authorization failure", resp.error_code};
        return false;
      case k_load_in_progress:
      case k_concurrent_transactions:
        break;
      case k_not_coordinator:
      case k_coordinator_not_available:
        coordinator = -1;
        break;
      default:
        *error = {request + " failed due to unexpected error", resp.error_code};
        return false;
    }
  } while (admin->back_off());
  *error = node_assignment_timeout(coordinator < 0 ? "fenceProducer(api=FIND_COORDINATOR)"
                                                   : "fenceProducer(api=INIT_PRODUCER_ID)");
  return false;
}

}  // namespace hw::tools::txn
