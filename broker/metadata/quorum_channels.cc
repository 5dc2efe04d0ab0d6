// quorum_channels: the quorum's outbound requests, wire form in and out.
#include "broker/metadata/quorum_channels.h"

#include <algorithm>
#include <spdlog/spdlog.h>

#include "broker/metadata/stall_guard.h"
#include "controller/raft/raft_wire.h"

namespace hw::broker {

namespace raft = controller::raft;
namespace msg = protocol::msg;
using std::chrono::milliseconds;

quorum_channels::quorum_channels(asio::any_io_executor strand, quorum_channels_options options)
    : strand_(std::move(strand)), options_(std::move(options)) {}

std::shared_ptr<kafka_client> quorum_channels::client_for(int32_t node, bool forwarding) {
  auto& clients = forwarding ? forwarding_clients_ : clients_;
  if (auto it = clients.find(node); it != clients.end()) return it->second;
  std::vector<quorum_voter> known = voters_;
  if (auto it = learned_endpoints_.find(node); it != learned_endpoints_.end()) known.push_back(it->second);
  for (const auto& v : known) {
    if (v.id != node) continue;
    kafka_client_options o;
    o.host = v.host;
    o.port = v.port;
    o.client_id = (forwarding ? "controller-forwarder-" : "raft-client-") + std::to_string(options_.node_id);
    o.connect_timeout = milliseconds(options_.request_timeout_ms);
    o.security = options_.security;
    auto c = kafka_client::create(strand_, o);
    clients[node] = c;
    return c;
  }
  return nullptr;
}

void quorum_channels::set_voters(std::vector<quorum_voter> voters) {
  for (const auto& old : voters_) {
    const bool same = std::any_of(voters.begin(), voters.end(), [&](const quorum_voter& v) { return v == old; });
    if (same) continue;
    for (auto* clients : {&clients_, &forwarding_clients_}) {
      if (auto it = clients->find(old.id); it != clients->end()) {
        it->second->close();
        clients->erase(it);
      }
    }
  }
  voters_ = std::move(voters);
}

std::shared_ptr<kafka_client> quorum_channels::client_to(const std::string& host, uint16_t port) {
  kafka_client_options o;
  o.host = host;
  o.port = port;
  o.client_id = "raft-client-" + std::to_string(options_.node_id);
  o.connect_timeout = milliseconds(options_.request_timeout_ms);
  o.security = options_.security;
  return kafka_client::create(strand_, o);
}

void quorum_channels::close() {
  for (auto& [id, c] : clients_) c->close();
  for (auto& [id, c] : forwarding_clients_) c->close();
}

asio::awaitable<std::optional<raft::message>> quorum_channels::call(raft::node_id to, raft::message m) {
  std::optional<raft::message> answer;
  auto client = client_for(to.value);
  const milliseconds timeout(options_.request_timeout_ms);
  const std::string& cluster = options_.cluster_id;
  if (!client) {
    // Not a voter we know (an observer is answered, never asked).
  } else if (auto* v = std::get_if<raft::vote_request>(&m)) {
    auto wire = raft::to_wire(*v, cluster, to);
    auto out = co_await client->call<msg::vote_response>(52, raft::vote_version, wire, timeout);
    if (!out.error) {
      raft::vote_response r;
      raft::from_wire(out.response, v->correlation, &r);
      r.pre_vote = v->pre_vote;  // not on the wire: the answer is to what we asked
      answer = r;
    }
  } else if (auto* b = std::get_if<raft::begin_quorum_epoch_request>(&m)) {
    auto wire = raft::to_wire(*b, cluster, to);
    auto out =
        co_await client->call<msg::begin_quorum_epoch_response>(53, raft::begin_quorum_epoch_version, wire, timeout);
    if (!out.error) {
      raft::begin_quorum_epoch_response r;
      raft::from_wire(out.response, b->correlation, &r);
      answer = r;
    }
  } else if (auto* e = std::get_if<raft::end_quorum_epoch_request>(&m)) {
    auto wire = raft::to_wire(*e, cluster);
    auto out = co_await client->call<msg::end_quorum_epoch_response>(54, raft::end_quorum_epoch_version, wire, timeout);
    if (!out.error) {
      raft::end_quorum_epoch_response r;
      raft::from_wire(out.response, e->correlation, &r);
      answer = r;
    }
  } else if (auto* f = std::get_if<raft::fetch_request>(&m)) {
    answer = co_await fetch(client, to, *f);
  } else if (auto* s = std::get_if<raft::fetch_snapshot_request>(&m)) {
    auto wire = raft::to_wire(*s, cluster);
    auto out = co_await client->call<msg::fetch_snapshot_response>(59, raft::fetch_snapshot_version, wire, timeout);
    if (!out.error) {
      raft::fetch_snapshot_response r;
      raft::from_wire(out.response, s->correlation, &r);
      answer = std::move(r);
    }
  }
  co_return answer;
}

asio::awaitable<std::optional<raft::message>> quorum_channels::fetch(std::shared_ptr<kafka_client> client,
                                                                     raft::node_id to, raft::fetch_request f) {
  auto wire = raft::to_wire(f, options_.cluster_id);
  const milliseconds timeout(options_.request_timeout_ms + f.max_wait_ms);
  const int64_t sent_ms = stall_guard::steady_now_ms();
  auto out = co_await client->call<msg::fetch_response>(1, raft::fetch_version, wire, timeout);
  if (out.error) co_return std::nullopt;
  for (const auto& e : out.response.node_endpoints) {
    if (e.node_id < 0 || e.port <= 0 || e.port > 65535) continue;
    quorum_voter v;
    v.id = e.node_id;
    v.host = e.host;
    v.port = static_cast<uint16_t>(e.port);
    learned_endpoints_[e.node_id] = v;
  }
  raft::fetch_response r;
  std::string why;
  raft::from_wire(out.response, f.correlation, &r, &why);
  if (!why.empty()) {
    spdlog::warn("A metadata Fetch answer from node {} does not decode: {}", to.value, why);
  } else if (stall_guard_ && r.error == protocol::error_code::none) {
    stall_guard_->answered(sent_ms, r.high_watermark.value);
  }
  co_return raft::message(std::move(r));
}

}  // namespace hw::broker
