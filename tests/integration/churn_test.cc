// Deletions racing the requests that use what is deleted: topics,
// partitions and groups go while producers write to them, consumers
// long-poll them and group members heartbeat in them. The broker must
// answer every request with Kafka's error and stay up; the test command
// runs this under AddressSanitizer (scripts/test.sh), which turns a use of
// freed memory into a failed test at once.
//
// HW_CHURN_SECONDS lengthens the loop (default 12 s).

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "kafka_socket.h"
#include "protocol/error_code.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/sync_group.h"
#include "raw_requests.h"
#include "rdkafka_support.h"

namespace hw::testing {
namespace {

using protocol::error_code;
constexpr int16_t code(error_code e) { return static_cast<int16_t>(e); }

// A Fetch of partition 0 from `offset`, waiting up to max_wait_ms for a byte,
// as a frame to send without waiting for its answer.
std::vector<uint8_t> long_poll_fetch(const std::string& topic, int64_t offset, int32_t max_wait_ms,
                                     int32_t correlation_id) {
  std::vector<uint8_t> body;
  protocol::writer w(body);
  fetch_request_of(topic, 0, offset, -1, max_wait_ms).encode(w, k_fetch_version);
  return request_frame(1, k_fetch_version, correlation_id, body);
}

std::optional<msg::fetch_response> decode_fetch(const std::vector<uint8_t>& frame) {
  protocol::reader r(frame);
  msg::response_header h;
  h.decode(r, protocol::response_header_version(1, k_fetch_version));
  msg::fetch_response resp;
  resp.decode(r, k_fetch_version);
  if (!r.ok()) return std::nullopt;
  return resp;
}

int16_t delete_topic(raw_client& c, const std::string& topic) {
  msg::delete_topics_request req;
  req.timeout_ms = 30000;
  req.topic_names = {topic};
  auto resp = c.call<msg::delete_topics_response>(20, 5, req);
  return resp && resp->responses.size() == 1 ? resp->responses[0].error_code : int16_t{-1};
}

bool topic_gone(raw_client& c, const std::string& topic) {
  auto md = c.metadata(std::vector<std::string>{topic});
  return md && md->topics.size() == 1 && md->topics[0].error_code == code(error_code::unknown_topic_or_partition);
}

class ChurnIT : public ::testing::Test {
 protected:
  broker_process broker;
  void start() {
    ASSERT_TRUE(broker.start({"--override", "auto.create.topics.enable=false", "--override",
                              "offsets.topic.num.partitions=4", "--override", "group.initial.rebalance.delay.ms=0"}))
        << broker.log();
  }
};

// The parked Fetch held the partition, whose log the deletion freed: the
// wake-up read freed memory (SIGSEGV in log_start_offset).
TEST_F(ChurnIT, AFetchWaitingAcrossATopicDeletionIsAnsweredAndTheBrokerLives) {
  start();
  raw_client admin(broker.port());
  for (int round = 0; round < 3; ++round) {
    const std::string topic = "parked-" + std::to_string(round);
    ASSERT_EQ(admin.create_topic(topic, 1)->topics[0].error_code, 0);
    ASSERT_EQ(admin.produce(topic, 0, simple_batch(2, 10))->error_code, 0);
    kafka_socket consumer(broker.port());
    ASSERT_TRUE(consumer.send_frame(long_poll_fetch(topic, 2, 4000, 7)));
    // The fetch is parked at the log end; now the topic goes.
    ASSERT_EQ(delete_topic(admin, topic), 0);
    ASSERT_TRUE(wait_until([&] { return topic_gone(admin, topic); }, 20s));
    auto frame = consumer.read_frame(10s);
    ASSERT_TRUE(frame) << "no answer to the parked fetch; broker running: " << broker.running() << "\n"
                       << broker.log();
    auto resp = decode_fetch(*frame);
    ASSERT_TRUE(resp);
    ASSERT_EQ(resp->responses.size(), 1u);
    ASSERT_EQ(resp->responses[0].partitions.size(), 1u);
    const auto& p = resp->responses[0].partitions[0];
    EXPECT_EQ(p.error_code, code(error_code::unknown_topic_or_partition));
    EXPECT_FALSE(p.records.null) << "an errored partition carries empty records, as Kafka's";
    EXPECT_EQ(p.records.size, 0u);
    ASSERT_TRUE(broker.running()) << broker.log();
  }
  // A produce to the deleted topic is refused, and the broker still serves.
  auto gone = admin.produce("parked-0", 0, simple_batch(1, 10));
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->error_code, code(error_code::unknown_topic_or_partition));
  EXPECT_EQ(admin.create_topic("after", 1)->topics[0].error_code, 0);
  EXPECT_EQ(broker.stop(SIGTERM), 0) << broker.log();
}

// A producer, group members that fetch, and raw long polls, while
// topics are created, grown, deleted and their groups deleted, for a
// bounded time.
TEST_F(ChurnIT, DeletionsRacingProducersConsumersAndGroupsLoseNoBroker) {
  start();
  const char* env = std::getenv("HW_CHURN_SECONDS");
  const auto run_for = std::chrono::seconds(env ? std::atoi(env) : 12);
  const uint16_t port = broker.port();
  std::atomic<bool> stop{false};
  std::atomic<int> generation{0};
  auto topic_of = [](int g) { return "churn-" + std::to_string(g); };

  // Producer: writes to the current topic whatever state it is in.
  std::thread producer([&] {
    char err[512];
    rdk::rd_handle h;
    h.rk = rd_kafka_new(RD_KAFKA_PRODUCER,
                        rdk::rd_conf(port, {{"linger.ms", "2"}, {"message.timeout.ms", "3000"},
                                            {"topic.metadata.refresh.interval.ms", "500"}}),
                        err, sizeof err);
    ASSERT_NE(h.rk, nullptr) << err;
    while (!stop) {
      const std::string topic = topic_of(generation.load());
      const std::string value = "v";
      rd_kafka_producev(h.rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      rd_kafka_poll(h.rk, 5);
    }
    rd_kafka_purge(h.rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  });
  // A group member of the current generation's group: joins (the second
  // JoinGroup with the id MEMBER_ID_REQUIRED gave), syncs, heartbeats and
  // fetches until the generation moves, then leaves. Raw requests, so that
  // every answer is checked (librdkafka 2.0.2's consumer can hang in
  // rd_kafka_destroy with a Metadata request in flight).
  std::thread grouped([&] {
    raw_client c(port);
    while (!stop) {
      const int g = generation.load();
      const std::string group = "churn-group-" + std::to_string(g);
      // As a client does: find the coordinator first (which creates
      // __consumer_offsets on first use).
      ASSERT_TRUE(wait_until(
          [&] {
            msg::find_coordinator_request find;
            find.key = group;
            auto found = c.call<msg::find_coordinator_response>(10, 3, find);
            return found && found->error_code == 0;
          },
          20s));
      msg::join_group_request join;
      join.group_id = group;
      join.session_timeout_ms = 6000;
      join.rebalance_timeout_ms = 6000;
      join.protocol_type = "consumer";
      join.protocols.push_back({"range", {}, {}});
      auto first = c.call<msg::join_group_response>(11, 7, join);
      ASSERT_TRUE(first);
      if (first->error_code != code(error_code::member_id_required)) continue;
      join.member_id = first->member_id;
      auto joined = c.call<msg::join_group_response>(11, 7, join);
      ASSERT_TRUE(joined);
      if (joined->error_code == 0) {
        msg::sync_group_request sync;
        sync.group_id = group;
        sync.generation_id = joined->generation_id;
        sync.member_id = joined->member_id;
        sync.protocol_type = "consumer";
        sync.protocol_name = joined->protocol_name;
        auto synced = c.call<msg::sync_group_response>(14, 5, sync);
        ASSERT_TRUE(synced);
        while (!stop && generation.load() == g && synced->error_code == 0) {
          msg::heartbeat_request hb;
          hb.group_id = group;
          hb.generation_id = joined->generation_id;
          hb.member_id = joined->member_id;
          auto beat = c.call<msg::heartbeat_response>(12, 4, hb);
          ASSERT_TRUE(beat);
          if (beat->error_code != 0) break;  // rebalancing, or the group went
          EXPECT_TRUE(c.fetch(topic_of(g), 0, 0, -1, 200)) << "a fetch in the group's topic went unanswered";
        }
      }
      msg::leave_group_request leave;
      leave.group_id = group;
      leave.members.push_back({join.member_id, {}, {}, {}});
      ASSERT_TRUE(c.call<msg::leave_group_response>(13, 5, leave));
      wait_until([&] { return stop || generation.load() != g; }, 30s);
    }
  });
  // Raw long polls at the log end of every partition of the current topic.
  std::thread poller([&] {
    int32_t corr = 0;
    while (!stop) {
      kafka_socket s(port);
      if (!s.connected()) continue;
      for (int i = 0; i < 20 && !stop; ++i) {
        if (!s.send_frame(long_poll_fetch(topic_of(generation.load()), 0, 1000, ++corr))) break;
        auto frame = s.read_frame(10s);
        if (!frame) break;
        EXPECT_TRUE(decode_fetch(*frame)) << "a fetch answer that does not decode";
      }
    }
  });

  raw_client admin(port);
  // The groups' coordinator up before DeleteGroups is asked of it.
  ASSERT_TRUE(wait_until(
      [&] {
        msg::find_coordinator_request find;
        find.key = "churn-group-0";
        auto found = admin.call<msg::find_coordinator_response>(10, 3, find);
        return found && found->error_code == 0;
      },
      20s));
  int rounds = 0;
  const auto deadline = std::chrono::steady_clock::now() + run_for;
  while (std::chrono::steady_clock::now() < deadline && broker.running()) {
    const int g = generation.load();
    const std::string topic = topic_of(g);
    auto created = admin.create_topic(topic, 2);
    ASSERT_TRUE(created);
    ASSERT_EQ(created->topics[0].error_code, 0);
    // Let the clients find it and write to it, then grow it.
    wait_until(
        [&] {
          auto end = admin.list_offset(topic, 0, -1);
          return end && end->offset > 0;
        },
        3s);
    msg::create_partitions_request grow;
    msg::create_partitions_request::create_partitions_topic t;
    t.name = topic;
    t.count = 4;
    t.assignments.reset();
    grow.topics.push_back(t);
    grow.timeout_ms = 30000;
    auto grown = admin.call<msg::create_partitions_response>(37, 3, grow);
    ASSERT_TRUE(grown);
    ASSERT_EQ(grown->results.size(), 1u);
    EXPECT_EQ(grown->results[0].error_code, 0);
    // Then everything goes while in use.
    EXPECT_EQ(delete_topic(admin, topic), 0);
    msg::delete_groups_request dg;
    dg.groups_names = {"churn-group-" + std::to_string(g)};
    auto deleted = admin.call<msg::delete_groups_response>(42, 2, dg);
    ASSERT_TRUE(deleted);
    ASSERT_EQ(deleted->results.size(), 1u);
    // A group with live members cannot go (NON_EMPTY_GROUP); one that never
    // formed is not found; one that emptied goes.
    const int16_t e = deleted->results[0].error_code;
    EXPECT_TRUE(e == 0 || e == code(error_code::non_empty_group) || e == code(error_code::group_id_not_found))
        << "DeleteGroups answered " << e;
    generation.store(g + 1);
    ++rounds;
  }
  stop = true;
  producer.join();
  grouped.join();
  poller.join();
  ASSERT_TRUE(broker.running()) << broker.log();
  EXPECT_GE(rounds, 2);
  auto md = admin.metadata(std::nullopt);
  ASSERT_TRUE(md);
  EXPECT_EQ(broker.stop(SIGTERM), 0) << broker.log();
}

}  // namespace
}  // namespace hw::testing
