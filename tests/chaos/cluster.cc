#include "cluster.h"

#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <algorithm>
#include <set>
#include <stdexcept>
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
constexpr uint16_t k_lab_internal_port = 9094;  // sasl_ssl: the inter-broker listener
// Every node of a cluster needs the same id for its first start (and its format).
constexpr const char* k_cluster_id = "ChaosITclusterAAAAAAAA";

// The sasl_ssl mode's secrets: the key and trust stores', then one user
// per kind of connection.
constexpr const char* k_store_password = "chaos-store-secret";
constexpr const char* k_broker_user = "broker";  // INTERNAL, SCRAM-SHA-512
constexpr const char* k_broker_password = "chaos-broker-secret";
constexpr const char* k_controller_user = "controller";  // CONTROLLER, PLAIN
constexpr const char* k_controller_password = "chaos-controller-secret";
constexpr const char* k_workload_user = "workload";  // CLIENT, SCRAM-SHA-512: the librdkafka clients
constexpr const char* k_workload_password = "chaos-workload-secret";
constexpr const char* k_harness_user = "harness";  // CLIENT, SCRAM-SHA-256: the harness's own requests
constexpr const char* k_harness_password = "chaos-harness-secret";

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

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

std::optional<security> parse_security(std::string_view name) {
  if (name == "plaintext") return security::plaintext;
  if (name == "sasl_ssl") return security::sasl_ssl;
  return std::nullopt;
}

const char* to_string(security mode) { return mode == security::plaintext ? "plaintext" : "sasl_ssl"; }

chaos_cluster::chaos_cluster(bool networked, security mode)
    : mode_(mode), formatted_(k_nodes, 0), paused_(k_nodes, false) {
  for (int i = 0; i < k_nodes; ++i) nodes_.push_back(std::make_unique<broker_process>());
  if (networked) {
    lab_ = std::make_unique<network_lab>(k_nodes);
    for (int i = 0; i < k_nodes; ++i) nodes_[i]->set_netns(lab_->netns(i), lab_->address(i));
  }
  if (mode_ == security::plaintext) return;
  // One certificate per address the nodes listen on (make-certs.sh adds
  // localhost and 127.0.0.1 to each): every node checks the address it
  // dialled against the certificate it is shown, as the harness and the
  // clients do.
  std::set<std::string> hosts;
  for (const auto& n : nodes_) hosts.insert(n->host());
  std::string list;
  for (const auto& h : hosts) list += (list.empty() ? "" : ",") + h;
  certs_ = std::make_unique<testing::test_certificates>(k_store_password, list, "");
  if (!certs_->ok()) throw std::runtime_error("scripts/make-certs.sh failed for the hosts " + list);
}

chaos_cluster::~chaos_cluster() {
  // A stopped process cannot take SIGKILL's exit until it is resumed.
  for (int i = 0; i < k_nodes; ++i)
    if (paused_[i]) resume(i);
}

std::vector<std::string> chaos_cluster::args_of(int i) const {
  const std::string host = nodes_[i]->host();
  const std::string client_port = lab_ ? std::to_string(k_lab_client_port) : "0";
  const std::string controller = "CONTROLLER://" + host + ":" + std::to_string(controller_ports_[i]);
  std::vector<std::string> overrides{
      "node.id=" + std::to_string(i + 1),
      mode_ == security::plaintext
          ? "listeners=PLAINTEXT://" + host + ":" + client_port + "," + controller
          : "listeners=CLIENT://" + host + ":" + client_port + ",INTERNAL://" + host + ":" +
                (lab_ ? std::to_string(k_lab_internal_port) : "0") + "," + controller,
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
  if (mode_ == security::sasl_ssl) {
    const std::string certs = certs_->path();
    const std::string scram_server = "org.apache.kafka.common.security.scram.ScramLoginModule required";
    overrides.insert(
        overrides.end(),
        {"listener.security.protocol.map=CLIENT:SASL_SSL,INTERNAL:SASL_SSL,CONTROLLER:SASL_SSL",
         "inter.broker.listener.name=INTERNAL",
         "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512",
         "sasl.mechanism.controller.protocol=PLAIN",
         // Its own certificate; the trust store checks the other nodes' on
         // its own connections (endpoint identification is Kafka's default).
         "ssl.keystore.type=PKCS12",
         "ssl.keystore.location=" + certs + "/" + host + ".keystore.p12",
         std::string("ssl.keystore.password=") + k_store_password,
         "ssl.truststore.type=PKCS12",
         "ssl.truststore.location=" + certs + "/truststore.p12",
         std::string("ssl.truststore.password=") + k_store_password,
         "listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512",
         "listener.name.client.scram-sha-256.sasl.jaas.config=" + scram_server + ";",
         "listener.name.client.scram-sha-512.sasl.jaas.config=" + scram_server + ";",
         // The username and password are the node's own login to the others.
         "listener.name.internal.sasl.enabled.mechanisms=SCRAM-SHA-512",
         "listener.name.internal.scram-sha-512.sasl.jaas.config=" + scram_server + " username=" +
             quoted(k_broker_user) + " password=" + quoted(k_broker_password) + ";",
         "listener.name.controller.sasl.enabled.mechanisms=PLAIN",
         "listener.name.controller.plain.sasl.jaas.config="
         "org.apache.kafka.common.security.plain.PlainLoginModule required username=" +
             quoted(k_controller_user) + " password=" + quoted(k_controller_password) + " user_" + k_controller_user +
             "=" + quoted(k_controller_password) + ";"});
  }
  // The nodes' own logins (INTERNAL, CONTROLLER) last HW_CHAOS_REAUTH_MS
  // (default 10000; 0: for ever), so their connections re-authenticate
  // (KIP-368) under the faults; CLIENT's do not expire (librdkafka 2.0 and
  // the harness's sockets do not re-authenticate).
  if (mode_ == security::sasl_ssl) {
    const char* set = getenv("HW_CHAOS_REAUTH_MS");
    const std::string reauth = set && *set ? set : "10000";
    if (reauth != "0") {
      overrides.push_back("listener.name.internal.connections.max.reauth.ms=" + reauth);
      overrides.push_back("listener.name.controller.connections.max.reauth.ms=" + reauth);
    }
  }
  std::vector<std::string> args;
  for (auto& o : overrides) {
    args.push_back("--override");
    args.push_back(std::move(o));
  }
  return args;
}

bool chaos_cluster::format(int i) {
  // kafka-storage.sh format as an operator runs it before the first start:
  // the SCRAM users are in the bootstrap metadata, so the nodes' own
  // SCRAM logins work from their first connection.
  const std::string dir = nodes_[i]->dir();
  const std::string config = dir + "/format.properties", out = dir + "/format.out";
  std::ofstream(config) << "process.roles=broker,controller\nnode.id=" << i + 1
                        << "\ncontroller.quorum.voters=" << voters_
                        << "\ncontroller.listener.names=CONTROLLER\nlog.dirs=" << dir << "/data\n";
  const std::string cmd = std::string("'") + HW_TOOLS_BINARY + "' kafka-storage.sh format -c '" + config + "' -t " +
                          k_cluster_id + " --add-scram 'SCRAM-SHA-512=[name=" + k_broker_user +
                          ",password=" + k_broker_password + "]' --add-scram 'SCRAM-SHA-512=[name=" +
                          k_workload_user + ",password=" + k_workload_password +
                          "]' --add-scram 'SCRAM-SHA-256=[name=" + k_harness_user + ",password=" +
                          k_harness_password + "]' >'" + out + "' 2>&1";
  const int status = std::system(cmd.c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  std::ifstream in(out);
  std::cout << "chaos: formatting n" << i + 1 << "'s storage failed: "
            << std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()) << std::flush;
  return false;
}

bool chaos_cluster::launch(int i) {
  if (mode_ == security::sasl_ssl && !formatted_[i]) {
    if (!format(i)) return false;
    formatted_[i] = 1;
  }
  return nodes_[i]->start(args_of(i), 60s);
}

bool chaos_cluster::start() {
  setenv("CLUSTER_ID", k_cluster_id, 1);
  auto start_all = [&] {
    std::vector<std::thread> starting;
    std::vector<int> started(k_nodes, 0);
    for (int i = 0; i < k_nodes; ++i) starting.emplace_back([&, i] { started[i] = launch(i); });
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
  return endpoint(nodes_[i]->host(), lab_ ? k_lab_client_port : nodes_[i]->port(client_listener()));
}

route chaos_cluster::reach(int i) const {
  route r{at(i), std::nullopt, std::nullopt, nullptr};
  if (mode_ == security::plaintext) return r;
  r.tls = testing::tls_client{certs_->path() + "/ca.crt", "", "", "", nodes_[i]->host()};
  r.login = testing::sasl_credentials{"SCRAM-SHA-256", k_harness_user, k_harness_password};
  r.refused = &refused_;
  return r;
}

std::map<std::string, std::string> chaos_cluster::client_settings() const {
  if (mode_ == security::plaintext) return {};
  // librdkafka checks the broker's certificate against the address it
  // dialled (ssl.endpoint.identification.algorithm=https by default).
  return {{"security.protocol", "SASL_SSL"},
          {"ssl.ca.location", certs_->path() + "/ca.crt"},
          {"sasl.mechanism", "SCRAM-SHA-512"},
          {"sasl.username", k_workload_user},
          {"sasl.password", k_workload_password}};
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
    if (launch(i)) return true;
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

std::vector<std::string> chaos_cluster::plaintext_answered() {
  std::vector<std::string> out;
  for (int i = 0; i < k_nodes; ++i) {
    for (const auto& [listener, port] : nodes_[i]->ports()) {
      testing::kafka_socket plain(endpoint(nodes_[i]->host(), port));
      if (!plain.connected() || !plain.send_frame(testing::api_versions_frame(3, 1))) continue;
      if (plain.read_frame(3s)) out.push_back("n" + std::to_string(i + 1) + " " + listener);
    }
  }
  return out;
}

std::map<std::string, int64_t> chaos_cluster::own_connections_refused() const {
  std::map<std::string, int64_t> out;
  for (int i = 0; i < k_nodes; ++i) {
    std::istringstream log(nodes_[i]->log());
    for (std::string line; std::getline(log, line);) {
      auto at = line.find("Authentication with ");
      // kafka_client's words when the other node did not answer the exchange.
      if (at != std::string::npos && line.find(": no answer to ", at) != std::string::npos) continue;
      if (at == std::string::npos) {
        at = line.find("TLS handshake with ");
        if (at == std::string::npos || line.find("certificate verify failed", at) == std::string::npos) continue;
      }
      ++out["n" + std::to_string(i + 1) + ": " + line.substr(at)];
    }
  }
  return out;
}

std::optional<int> chaos_cluster::active_controller() {
  std::optional<std::pair<int32_t, int32_t>> best;  // epoch, leader id
  for (int i = 0; i < k_nodes; ++i) {
    if (paused_[i] || !running(i)) continue;
    msg::describe_quorum_request req;
    auto& t = req.topics.emplace_back();
    t.topic_name = "__cluster_metadata";
    t.partitions.emplace_back();
    auto a = ask<msg::describe_quorum_response>(reach(i), 55, 1, req);
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
  auto a = ask<msg::metadata_response>(reach(i), 3, 12, req);
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
  auto a = ask<msg::create_topics_response>(reach(0), 19, 7, req, 30s);
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
