#include "tools/client/admin_client.h"

#include <thread>

#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/metadata.h"

namespace hw::tools {

admin_client::admin_client(settings s) : settings_(std::move(s)), deadline_(clock::now() + settings_.timeout) {}

std::unique_ptr<admin_client> admin_client::connect(const settings& s, std::string* error) {
  std::unique_ptr<admin_client> client(new admin_client(s));
  std::string last = "no bootstrap address";
  // Kafka's client keeps trying the bootstrap list until the operation's
  // deadline: a cluster still starting is not an error yet.
  while (clock::now() < client->deadline_) {
    for (const auto& address : s.bootstrap) {
      auto c = connection::open(address, std::min(client->deadline_, clock::now() + std::chrono::seconds(10)), &last,
                                s.security.get());
      if (!c && connection::authentication_failure(last)) {
        // Kafka's client gives up at once on a failed authentication.
        *error = last;
        return nullptr;
      }
      if (!c || !c->handshake(client->deadline_, &last)) {
        if (connection::authentication_failure(last)) {
          *error = last;
          return nullptr;
        }
        continue;
      }
      if (!client->read_nodes(*c, &last)) continue;
      client->bootstrap_ = std::move(c);
      client->bootstrap_address_ = address;
      return client;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // Kafka backs off 50 ms rising to 1 s
  }
  *error = "Timed out waiting for a node assignment (" + last + ")";
  return nullptr;
}

bool admin_client::read_nodes(connection& c, std::string* error) {
  std::vector<uint8_t> body;
  protocol::writer w(body);
  if (settings_.bootstrap_controllers) {
    auto v = c.version_for(protocol::msg::describe_cluster_request::schema.api_key, 1, 1);
    if (!v) {
      *error = c.peer().str() + " does not answer DescribeCluster for controllers";
      return false;
    }
    protocol::msg::describe_cluster_request req;
    req.endpoint_type = 2;
    req.encode(w, *v);
    std::vector<uint8_t> resp_bytes;
    if (!c.call(req.schema.api_key, *v, body, &resp_bytes, deadline_, error)) return false;
    protocol::reader r(resp_bytes);
    protocol::msg::describe_cluster_response resp;
    resp.decode(r, *v);
    if (!r.ok() || resp.error_code != 0) {
      *error = "DescribeCluster failed at " + c.peer().str() +
               (resp.error_message ? ": " + *resp.error_message : std::string());
      return false;
    }
    nodes_.clear();
    for (const auto& b : resp.brokers)
      nodes_.push_back({b.broker_id, {b.host, static_cast<uint16_t>(b.port)}, b.rack});
    controller_id_ = resp.controller_id;
    cluster_id_ = resp.cluster_id;
    return true;
  }
  auto v = c.version_for(protocol::msg::metadata_request::schema.api_key, 1, 12);
  if (!v) {
    *error = c.peer().str() + " does not answer Metadata";
    return false;
  }
  protocol::msg::metadata_request req;
  req.topics.emplace();  // no topics: only the brokers
  req.allow_auto_topic_creation = false;
  req.encode(w, *v);
  std::vector<uint8_t> resp_bytes;
  if (!c.call(req.schema.api_key, *v, body, &resp_bytes, deadline_, error)) return false;
  protocol::reader r(resp_bytes);
  protocol::msg::metadata_response resp;
  resp.decode(r, *v);
  if (!r.ok()) {
    *error = "malformed Metadata response from " + c.peer().str();
    return false;
  }
  nodes_.clear();
  for (const auto& b : resp.brokers) nodes_.push_back({b.node_id, {b.host, static_cast<uint16_t>(b.port)}, b.rack});
  controller_id_ = resp.controller_id;
  cluster_id_ = resp.cluster_id;
  return true;
}

bool admin_client::back_off() {
  constexpr auto backoff = std::chrono::milliseconds(100);
  if (clock::now() + backoff >= deadline_) return false;
  std::this_thread::sleep_for(backoff);
  std::string ignored;  // a failed refresh shows in the next attempt's error
  refresh(&ignored);
  return true;
}

bool admin_client::refresh(std::string* error) {
  connection* c = connection_to(any_node, error);
  return c && read_nodes(*c, error);
}

connection* admin_client::connection_to(int32_t node, std::string* error) {
  if (node == any_node) {
    if (!bootstrap_) {
      auto c = connection::open(bootstrap_address_, deadline_, error, settings_.security.get());
      if (!c || !c->handshake(deadline_, error)) return nullptr;
      bootstrap_ = std::move(c);
    }
    return bootstrap_.get();
  }
  auto it = by_node_.find(node);
  if (it != by_node_.end()) return it->second.get();
  for (const auto& n : nodes_) {
    if (n.id != node) continue;
    auto c = connection::open(n.address, deadline_, error, settings_.security.get());
    if (!c || !c->handshake(deadline_, error)) return nullptr;
    return by_node_.emplace(node, std::move(c)).first->second.get();
  }
  *error = "node " + std::to_string(node) + " is not in the cluster's metadata";
  return nullptr;
}

bool admin_client::send(int32_t node, int16_t key, const char* name, int16_t min_version, int16_t max_version,
                        const std::function<void(protocol::writer&, int16_t)>& encode,
                        std::vector<uint8_t>* response, int16_t* version, std::string* error) {
  connection* c = connection_to(node, error);
  if (!c) return false;
  auto v = c->version_for(key, min_version, max_version);
  if (!v) {
    *error = std::string(unsupported_prefix) + name;
    return false;
  }
  std::vector<uint8_t> body;
  protocol::writer w(body);
  encode(w, *v);
  if (!c->call(key, *v, body, response, deadline_, error)) {
    if (node == any_node) bootstrap_.reset();
    else by_node_.erase(node);
    return false;
  }
  *version = *v;
  return true;
}

}  // namespace hw::tools
