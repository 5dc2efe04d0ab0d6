#include "cluster.h"

#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <algorithm>
#include <set>
#include <thread>

#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_quorum.h"
#include "protocol/messages/metadata.h"
#include "quiet_request.h"

namespace hw::chaos {

namespace {

namespace msg = protocol::msg;
using namespace std::chrono_literals;
using testing::wait_until;

constexpr uint16_t k_lab_client_port = 9092;
constexpr uint16_t k_lab_controller_port = 9093;

bool loopback_port_free(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return free;
}

std::string tail(const std::string& text, size_t lines) {
  size_t pos = text.size();
  for (size_t n = 0; n <= lines && pos > 0; ++n) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) return text;
  }
  return text.substr(pos + 1);
}

}  // namespace

chaos_cluster::chaos_cluster(bool networked) : paused_(k_nodes, false) {
  for (int i = 0; i < k_nodes; ++i) nodes_.push_back(std::make_unique<broker_process>());
  if (!networked) return;
  lab_ = std::make_unique<network_lab>(k_nodes);
  for (int i = 0; i < k_nodes; ++i) nodes_[i]->set_netns(lab_->netns(i), lab_->address(i));
}

chaos_cluster::~chaos_cluster() {
  // A stopped process cannot take SIGKILL's exit until it is resumed.
  for (int i = 0; i < k_nodes; ++i)
    if (paused_[i]) resume(i);
}

std::vector<std::string> chaos_cluster::args_of(int i) const {
  const std::string host = nodes_[i]->host();
  const std::string client_port = lab_ ? std::to_string(k_lab_client_port) : "0";
  std::vector<std::string> overrides{
      "node.id=" + std::to_string(i + 1),
      "listeners=PLAINTEXT://" + host + ":" + client_port + ",CONTROLLER://" + host + ":" +
          std::to_string(controller_ports_[i]),
      "controller.listener.names=CONTROLLER",
      "controller.quorum.voters=" + voters_,
      "min.insync.replicas=2",
      "replica.lag.time.max.ms=3000",
      "broker.session.timeout.ms=4000",
      "broker.heartbeat.interval.ms=500",
      // The group's first join answers at once rather than after 3 s.
      "group.initial.rebalance.delay.ms=0",
      // Fewer __consumer_offsets partitions than Kafka's 50: the group's
      // coordinator still moves with failures, at a fraction of the
      // replicas to recover under AddressSanitizer.
      "offsets.topic.num.partitions=6",
  };
  std::vector<std::string> args;
  for (auto& o : overrides) {
    args.push_back("--override");
    args.push_back(std::move(o));
  }
  return args;
}

bool chaos_cluster::start() {
  // Every node of a cluster needs the same id for its first start.
  setenv("CLUSTER_ID", "ChaosITclusterAAAAAAAA", 1);
  auto start_all = [&] {
    std::vector<std::thread> starting;
    std::vector<int> started(k_nodes, 0);
    for (int i = 0; i < k_nodes; ++i) starting.emplace_back([&, i] { started[i] = nodes_[i]->start(args_of(i), 60s); });
    for (auto& t : starting) t.join();
    return started[0] && started[1] && started[2];
  };
  if (lab_) {
    // Each node on its own host, on fixed ports of its own address.
    for (int i = 0; i < k_nodes; ++i) {
      controller_ports_.push_back(k_lab_controller_port);
      voters_ += (i ? "," : "") + std::to_string(i + 1) + "@" + lab_->address(i) + ":" +
                 std::to_string(k_lab_controller_port);
    }
    return start_all();
  }
  std::vector<broker_process*> all;
  for (auto& n : nodes_) all.push_back(n.get());
  auto chosen = testing::start_on_fresh_ports(k_nodes, [&](const std::vector<uint16_t>& ports) {
    controller_ports_ = ports;
    voters_.clear();
    for (int i = 0; i < k_nodes; ++i)
      voters_ += (i ? "," : "") + std::to_string(i + 1) + "@127.0.0.1:" + std::to_string(ports[i]);
    return testing::started_or_port_taken(start_all(), all);
  });
  return chosen.has_value();
}

endpoint chaos_cluster::at(int i) const {
  return endpoint(nodes_[i]->host(), lab_ ? k_lab_client_port : nodes_[i]->port());
}

std::string chaos_cluster::bootstrap() const {
  std::string out;
  for (int i = 0; i < k_nodes; ++i) out += (i ? "," : "") + at(i).str();
  return out;
}

void chaos_cluster::kill(int i) { nodes_[i]->stop(SIGKILL, 30s); }

bool chaos_cluster::start_node(int i) {
  if (running(i)) return true;
  // On 127.0.0.1 the node's controller port is fixed by the voters, and
  // another process can hold it for a moment (an outgoing connection's
  // ephemeral port): try again while that is why it failed.
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (nodes_[i]->start(args_of(i), 60s)) return true;
    if (!nodes_[i]->lost_port_race()) return false;
    wait_until([&] { return loopback_port_free(controller_ports_[i]); }, 5s);
  }
  return false;
}

bool chaos_cluster::start_nodes(const std::vector<int>& which) {
  std::vector<std::thread> starting;
  std::vector<int> started(which.size(), 0);
  for (size_t k = 0; k < which.size(); ++k) starting.emplace_back([&, k] { started[k] = start_node(which[k]); });
  for (auto& t : starting) t.join();
  return std::find(started.begin(), started.end(), 0) == started.end();
}

void chaos_cluster::pause(int i) {
  if (!running(i) || paused_[i]) return;
  ::kill(nodes_[i]->pid(), SIGSTOP);
  paused_[i] = true;
}

void chaos_cluster::resume(int i) {
  if (!paused_[i]) return;
  ::kill(nodes_[i]->pid(), SIGCONT);
  paused_[i] = false;
}

bool chaos_cluster::clean_stop(int i, std::chrono::milliseconds timeout) {
  if (!running(i)) return true;
  if (nodes_[i]->stop(SIGTERM, timeout)) return true;
  nodes_[i]->stop(SIGKILL, 30s);
  return false;
}

bool chaos_cluster::running(int i) { return nodes_[i]->running(); }

std::optional<int> chaos_cluster::exit_code(int i) {
  if (running(i)) return std::nullopt;
  return nodes_[i]->stop(0, 0ms);  // signal 0 sends nothing: this only reads the reaped status
}

void chaos_cluster::isolate(int i) { lab_->isolate(i); }
void chaos_cluster::cut(int a, int b) { lab_->cut(a, b); }
void chaos_cluster::heal_network() {
  if (lab_) lab_->heal_all();
}

bool chaos_cluster::restore_all() {
  heal_network();
  std::vector<int> down;
  for (int i = 0; i < k_nodes; ++i) {
    resume(i);
    if (!running(i)) down.push_back(i);
  }
  return start_nodes(down);
}

std::optional<int> chaos_cluster::active_controller() {
  std::optional<std::pair<int32_t, int32_t>> best;  // epoch, leader id
  for (int i = 0; i < k_nodes; ++i) {
    if (paused_[i] || !running(i)) continue;
    msg::describe_quorum_request req;
    auto& t = req.topics.emplace_back();
    t.topic_name = "__cluster_metadata";
    t.partitions.emplace_back();
    auto a = ask<msg::describe_quorum_response>(at(i), 55, 1, req);
    if (!a) continue;
    const auto& resp = a->body;
    if (resp.error_code != 0 || resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) continue;
    const auto& p = resp.topics[0].partitions[0];
    if (p.error_code != 0 || p.leader_id < 1 || p.leader_id > k_nodes) continue;
    if (!best || p.leader_epoch > best->first) best = std::make_pair(p.leader_epoch, p.leader_id);
  }
  if (!best) return std::nullopt;
  return best->second - 1;
}

std::optional<std::vector<partition_state>> chaos_cluster::partitions(int i, const std::string& topic) {
  msg::metadata_request req;
  req.topics.emplace();
  req.topics->emplace_back().name = topic;
  req.allow_auto_topic_creation = false;
  auto a = ask<msg::metadata_response>(at(i), 3, 12, req);
  if (!a || a->body.topics.size() != 1 || a->body.topics[0].error_code != 0) return std::nullopt;
  const auto& topic_data = a->body.topics[0];
  std::vector<partition_state> out(topic_data.partitions.size());
  for (const auto& p : topic_data.partitions) {
    if (p.partition_index < 0 || static_cast<size_t>(p.partition_index) >= out.size()) return std::nullopt;
    out[p.partition_index] = partition_state{p.leader_id, p.leader_epoch, p.isr_nodes};
  }
  return out;
}

bool chaos_cluster::whole(const std::string& topic, int count) {
  std::optional<std::vector<partition_state>> first;
  for (int i = 0; i < k_nodes; ++i) {
    auto parts = partitions(i, topic);
    if (!parts || static_cast<int>(parts->size()) != count) return false;
    for (int p = 0; p < count; ++p) {
      const auto& s = (*parts)[p];
      if (s.leader <= 0 || std::set<int32_t>(s.isr.begin(), s.isr.end()).size() != k_nodes) return false;
      if (first && ((*first)[p].leader != s.leader || (*first)[p].leader_epoch != s.leader_epoch)) return false;
    }
    if (!first) first = std::move(parts);
  }
  return true;
}

std::string chaos_cluster::create_topic(const std::string& topic, int partitions, int replication_factor,
                                        const std::vector<std::pair<std::string, std::string>>& configs) {
  msg::create_topics_request req;
  req.timeout_ms = 30000;
  auto& t = req.topics.emplace_back();
  t.name = topic;
  t.num_partitions = partitions;
  t.replication_factor = static_cast<int16_t>(replication_factor);
  for (const auto& [key, value] : configs) {
    auto& c = t.configs.emplace_back();
    c.name = key;
    c.value = value;
  }
  auto a = ask<msg::create_topics_response>(at(0), 19, 7, req, 30s);
  if (!a) return "no answer to CreateTopics";
  const auto& topics = a->body.topics;
  if (topics.size() != 1) return "CreateTopics answered " + std::to_string(topics.size()) + " topics";
  if (topics[0].error_code != 0)
    return "CreateTopics error " + std::to_string(topics[0].error_code) + ": " + topics[0].error_message.value_or("");
  return "";
}

std::string chaos_cluster::logs() const {
  std::string out;
  for (int i = 0; i < k_nodes; ++i) out += "---- node " + std::to_string(i + 1) + " ----\n" + nodes_[i]->log();
  return out;
}

std::string chaos_cluster::log_tails(size_t lines) const {
  std::string out;
  for (int i = 0; i < k_nodes; ++i)
    out += "---- node " + std::to_string(i + 1) + ", last " + std::to_string(lines) + " lines ----\n" +
           tail(nodes_[i]->log(), lines);
  return out;
}

std::string chaos_cluster::log_tail(int i, size_t lines) const { return tail(nodes_[i]->log(), lines); }

bool chaos_cluster::save_logs(const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  bool ok = !ec;
  for (int i = 0; i < k_nodes; ++i) {
    std::ofstream out(dir + "/node" + std::to_string(i + 1) + ".log", std::ios::trunc);
    out << nodes_[i]->log();
    ok = ok && out.good();
  }
  return ok;
}

}  // namespace hw::chaos
