#include "twin.h"

#include <unistd.h>

#include <atomic>

#include "broker_process.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "protocol/records/record_batch_builder.h"
#include "twin_environment.h"

namespace hw::testing::differential {

namespace msg = protocol::msg;

uint16_t broker_port(side s) { return brokers_environment::instance().port(s); }
uint16_t listener_port(side s, const std::string& listener) {
  return brokers_environment::instance().port(s, listener);
}
std::string certificates_dir() { return brokers_environment::instance().certificates_dir(); }
oauth_listeners oauth_listeners_mode() { return brokers_environment::instance().oauth(); }
std::string oauth_keys_dir() { return brokers_environment::instance().oauth_keys_dir(); }
const std::string& start_error() { return brokers_environment::instance().error(); }
std::string highwater_log() { return brokers_environment::instance().highwater_log(); }
bool highwater_alive() { return brokers_environment::instance().highwater_alive(); }

const allowlist& common_allowlist() {
  using R = allowed::rule;
  static const allowlist k_common = {
      {"*throttle_time_ms", R::any_value, "quota throttling is the broker's own (both are 0 when idle)"},
      {"cluster_id", R::any_value, "each cluster formats its storage with a random id"},
      {"*port", R::any_value, "each broker listens on its own port"},
      {"*topic_id", R::any_value, "topic ids are random per cluster"},
      {"*error_message", R::same_nullness,
       "Kafka's error texts are not part of the protocol and change between releases; "
       "only whether a message is present is compared"},
  };
  return k_common;
}

const allowlist& member_allow() {
  using R = allowed::rule;
  static const allowlist k = {
      {"*member_id", R::same_emptiness, "member ids are generated (client id + random UUID) by each broker"},
      {"leader", R::same_emptiness, "JoinGroup: the leader is a generated member id"},
  };
  return k;
}

bool expect_same(const exchange& e, const allowlist& extra) {
  const std::string title = e.what + " (api " + std::to_string(e.key) + " v" + std::to_string(e.version) + ")";
  const answer& k = e.of(side::kafka);
  const answer& h = e.of(side::highwater);
  if (k.closed || h.closed) {
    if (k.closed && h.closed) return true;  // both closed the connection: the same behaviour
    ADD_FAILURE() << title << ": only " << (k.closed ? "Kafka" : "Highwater") << " gave no answer ("
                  << (k.closed ? k.error : h.error) << ")\n--- the other answered ---\n"
                  << render(k.closed ? h.lines : k.lines);
    return false;
  }
  // A test's own entries first: the first pattern that matches decides.
  allowlist allow = extra;
  allow.insert(allow.end(), common_allowlist().begin(), common_allowlist().end());
  auto diffs = compare(k.lines, h.lines, allow);
  if (diffs.empty()) return true;
  ADD_FAILURE() << title << ": " << diffs.size() << " field(s) differ\n"
                << render(diffs) << "--- kafka ---\n" << render(k.lines) << "--- highwater ---\n" << render(h.lines);
  return false;
}

twin::twin() {
  for (side s : k_sides) sockets_[static_cast<int>(s)] = std::make_unique<kafka_socket>(broker_port(s));
}

twin::twin(const std::string& listener, const std::string& user, const std::string& password)
    : twin(listener, {sasl_credentials{"PLAIN", user, password}, sasl_credentials{"PLAIN", user, password}}) {}

twin::twin(const std::string& listener, const std::array<sasl_credentials, 2>& who) {
  for (side s : k_sides) {
    auto socket = std::make_unique<kafka_socket>(listener_port(s, listener));
    if (socket->connected()) {
      auto login = sasl_login(*socket, who[static_cast<int>(s)]);
      EXPECT_TRUE(login) << side_name(s) << ": " << login.error;
      if (!login) socket = std::make_unique<kafka_socket>(uint16_t{0});
    }
    sockets_[static_cast<int>(s)] = std::move(socket);
  }
}

answer twin::send(side s, int16_t key, int16_t version, const std::vector<uint8_t>& body,
                  std::chrono::milliseconds timeout) {
  answer a;
  const int32_t corr = ++correlation_id_;
  kafka_socket& sock = socket(s);
  if (!sock.send_frame(request_frame(key, version, corr, body, client_id_))) {
    a.closed = true;
    a.error = "send failed";
    return a;
  }
  auto frame = sock.read_frame(timeout);
  if (!frame) {
    a.closed = true;
    a.error = "no answer (connection closed or timed out)";
    return a;
  }
  a.frame = std::make_shared<const std::vector<uint8_t>>(std::move(*frame));
  protocol::reader r(*a.frame);
  msg::response_header h;
  h.decode(r, protocol::response_header_version(key, version));
  if (!r.ok() || h.correlation_id != corr) {
    a.error = "bad response header";
    a.lines = {{"header", protocol::testing::show_bytes(*a.frame)}};
    return a;
  }
  a.body = protocol::bytes_view(*a.frame).subspan(a.frame->size() - r.remaining());
  if (!protocol::testing::dump_response(key, version, a.body, a.lines, &a.error))
    a.lines = {{"body", protocol::testing::show_bytes(a.body)}};
  return a;
}

exchange twin::call_raw(const std::string& what, int16_t key, int16_t version, const std::vector<uint8_t>& body,
                        std::chrono::milliseconds timeout) {
  exchange e;
  e.key = key;
  e.version = version;
  e.what = what;
  for (side s : k_sides) e.answers[static_cast<int>(s)] = send(s, key, version, body, timeout);
  return e;
}

std::string fresh_name(const std::string& stem) {
  static std::atomic<int> counter{0};
  return "diff-" + stem + "-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
}

namespace {

// Both brokers have a leader for every partition and serve ListOffsets on
// it: Kafka propagates a new topic to its metadata cache asynchronously.
bool topic_ready(twin& t, side s, const std::string& name, int32_t partitions) {
  msg::metadata_request md;
  msg::metadata_request::metadata_request_topic mt;
  mt.name = name;
  md.topics->push_back(mt);
  md.allow_auto_topic_creation = false;
  std::vector<uint8_t> body;
  protocol::writer w(body);
  md.encode(w, 12);
  auto a = t.send(s, 3, 12, body);
  if (!a.error.empty()) return false;
  auto resp = a.as<msg::metadata_response>(12);
  if (resp.topics.size() != 1 || resp.topics[0].error_code != 0 ||
      resp.topics[0].partitions.size() != static_cast<size_t>(partitions))
    return false;
  msg::list_offsets_request lo;
  lo.replica_id = -1;
  msg::list_offsets_request::list_offsets_topic lt;
  lt.name = name;
  for (const auto& p : resp.topics[0].partitions) {
    if (p.leader_id < 0) return false;
    msg::list_offsets_request::list_offsets_partition lp;
    lp.partition_index = p.partition_index;
    lp.timestamp = -1;
    lt.partitions.push_back(lp);
  }
  lo.topics.push_back(lt);
  body.clear();
  protocol::writer w2(body);
  lo.encode(w2, 7);
  auto b = t.send(s, 2, 7, body);
  if (!b.error.empty()) return false;
  for (const auto& tr : b.as<msg::list_offsets_response>(7).topics)
    for (const auto& p : tr.partitions)
      if (p.error_code != 0) return false;
  return true;
}

}  // namespace

std::array<protocol::uuid, 2> create_topic(twin& t, const std::string& name, int32_t partitions,
                                           const std::vector<std::pair<std::string, std::string>>& configs) {
  msg::create_topics_request req;
  req.timeout_ms = 30000;
  msg::create_topics_request::creatable_topic ct;
  ct.name = name;
  ct.num_partitions = partitions;
  ct.replication_factor = 1;
  for (const auto& [k, v] : configs) {
    msg::create_topics_request::creatable_topic_config c;
    c.name = k;
    c.value = v;
    ct.configs.push_back(c);
  }
  req.topics.push_back(ct);
  auto e = t.call("create " + name, 19, 7, req);
  std::array<protocol::uuid, 2> ids{};
  for (side s : k_sides) {
    const answer& a = e.of(s);
    if (!a.error.empty()) {
      ADD_FAILURE() << side_name(s) << ": create " << name << ": " << a.error;
      continue;
    }
    auto resp = a.as<msg::create_topics_response>(7);
    if (resp.topics.size() != 1 || resp.topics[0].error_code != 0) {
      ADD_FAILURE() << side_name(s) << " refused to create " << name << ":\n" << render(a.lines);
      continue;
    }
    ids[static_cast<int>(s)] = resp.topics[0].topic_id;
    EXPECT_TRUE(wait_until([&] { return topic_ready(t, s, name, partitions); }, 30s))
        << side_name(s) << ": " << name << " has no leader in time";
  }
  return ids;
}

void produce(twin& t, const std::string& topic, const std::vector<uint8_t>& batch, int32_t partition) {
  msg::produce_request req;
  req.transactional_id.reset();
  req.acks = -1;
  req.timeout_ms = 10000;
  msg::produce_request::topic_produce_data td;
  td.name = topic;
  msg::produce_request::partition_produce_data pd;
  pd.index = partition;
  pd.records = protocol::records_view(protocol::bytes_view(batch));
  td.partition_data.push_back(pd);
  req.topic_data.push_back(td);
  auto e = t.call("produce to " + topic, 0, 9, req);
  for (side s : k_sides) {
    const answer& a = e.of(s);
    ASSERT_TRUE(a.error.empty()) << side_name(s) << ": produce to " << topic << ": " << a.error;
    auto resp = a.as<msg::produce_response>(9);
    ASSERT_EQ(resp.responses.size(), 1u);
    ASSERT_EQ(resp.responses[0].partition_responses.size(), 1u);
    EXPECT_EQ(resp.responses[0].partition_responses[0].error_code, 0)
        << side_name(s) << ": produce to " << topic << ":\n" << render(a.lines);
  }
}

namespace {

bool coordinator_found(twin& t, side s, const std::string& group) {
  msg::find_coordinator_request req;
  req.key = group;
  std::vector<uint8_t> body;
  protocol::writer w(body);
  req.encode(w, 3);
  auto a = t.send(s, 10, 3, body);
  return a.error.empty() && a.as<msg::find_coordinator_response>(3).error_code == 0;
}

// Kafka names the coordinator before it has loaded the offsets partition:
// until then group requests get COORDINATOR_LOAD_IN_PROGRESS or
// NOT_COORDINATOR. DescribeGroups asks without creating the group.
bool coordinator_loaded(twin& t, side s, const std::string& group) {
  msg::describe_groups_request req;
  req.groups = {group};
  std::vector<uint8_t> body;
  protocol::writer w(body);
  req.encode(w, 5);
  auto a = t.send(s, 15, 5, body);
  if (!a.error.empty()) return false;
  auto resp = a.as<msg::describe_groups_response>(5);
  return resp.groups.size() == 1 && resp.groups[0].error_code == 0;
}

}  // namespace

void wait_for_coordinator(twin& t, const std::string& group) {
  for (side s : k_sides)
    EXPECT_TRUE(wait_until([&] { return coordinator_found(t, s, group) && coordinator_loaded(t, s, group); }, 60s))
        << side_name(s) << ": no loaded coordinator for " << group;
}

std::vector<uint8_t> batch_of(const std::string& tag, int count, bool keyed, int64_t first_timestamp) {
  protocol::record_batch_builder b(protocol::record_batch_options{});
  for (int i = 0; i < count; ++i) {
    std::string v = tag + "-" + std::to_string(i);
    std::string k = "k" + std::to_string(i);
    std::optional<protocol::bytes_view> key;
    if (keyed) key = protocol::bytes_view(reinterpret_cast<const uint8_t*>(k.data()), k.size());
    b.append(first_timestamp + i, key, protocol::bytes_view(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
  }
  return b.finish();
}

}  // namespace hw::testing::differential
