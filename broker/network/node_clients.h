#pragma once
// One kafka_client per peer broker, for an owner that talks to other
// brokers from its own strand (the transaction marker sender, the
// transaction verifier). A client is reused while the broker's endpoint
// stays the same and replaced when it moves.
//
// Ownership and threads: a member of its owner; every call on the owner's
// strand, which the clients run on too.

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "broker/asio.h"
#include "broker/network/kafka_client.h"

namespace hw::broker {

class node_clients {
 public:
  // security: how connections to the peers' inter-broker listener are protected.
  node_clients(asio::any_io_executor strand, std::string client_id, client_security security = {})
      : strand_(std::move(strand)), client_id_(std::move(client_id)), security_(std::move(security)) {}

  std::shared_ptr<kafka_client> get(int32_t node, const std::string& host, uint16_t port) {
    auto it = clients_.find(node);
    if (it != clients_.end() && it->second->options().host == host && it->second->options().port == port)
      return it->second;
    if (it != clients_.end()) it->second->close();
    kafka_client_options o;
    o.host = host;
    o.port = port;
    o.client_id = client_id_;
    o.security = security_;
    auto c = kafka_client::create(strand_, o);
    clients_[node] = c;
    return c;
  }

  // Fails the calls in flight and forgets every client.
  void close_all() {
    for (auto& [node, c] : clients_) c->close();
    clients_.clear();
  }

 private:
  asio::any_io_executor strand_;
  std::string client_id_;
  client_security security_;
  std::map<int32_t, std::shared_ptr<kafka_client>> clients_;
};

}  // namespace hw::broker
