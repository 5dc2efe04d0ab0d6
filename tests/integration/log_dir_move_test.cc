// Moving a replica between a broker's log dirs online (AlterReplicaLogDirs,
// what kafka-reassign-partitions.sh sends for "log_dirs"): one broker with
// two log dirs; a partition moves from one to the other while a producer
// writes to it (acks=all, idempotent) and a consumer reads it; afterwards
// every acknowledged record is there at its offset, DescribeLogDirs shows
// the partition in its new dir only, the controller has been told, and a
// restart finds it there. Plus the refusals: a path that is not a log dir,
// a partition not there yet (whose dir is remembered for when it comes).

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "broker_process.h"
#include "protocol/messages/alter_replica_log_dirs.h"
#include "protocol/messages/describe_log_dirs.h"
#include "raw_requests.h"
#include "rdkafka_support.h"

namespace hw::testing {
namespace {

using namespace rdk;

std::vector<std::pair<std::string, std::string>> messages(const std::string& prefix, int n) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < n; ++i) out.emplace_back(prefix + std::to_string(i), prefix + std::to_string(i) + std::string(1000, 'v'));
  return out;
}

class LogDirMoveIT : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(start()) << broker.log(); }

  bool start() {
    return broker.start({"--override", "log.dirs=" + d1() + "," + d2(), "--override", "log.segment.bytes=1048576"});
  }
  std::string d1() const { return broker.dir() + "/d1"; }
  std::string d2() const { return broker.dir() + "/d2"; }

  struct placement {
    std::string dir;
    bool future = false;
    int64_t lag = 0;
  };
  // Where each partition of `topic` is on this broker (DescribeLogDirs v4).
  std::vector<placement> where(const std::string& topic, int32_t partition) {
    raw_client client(broker.port());
    msg::describe_log_dirs_request req;
    req.topics.reset();
    auto resp = client.call<msg::describe_log_dirs_response>(35, 4, req);
    std::vector<placement> out;
    if (!resp) return out;
    for (const auto& d : resp->results)
      for (const auto& t : d.topics)
        for (const auto& p : t.partitions)
          if (t.name == topic && p.partition_index == partition) out.push_back({d.log_dir, p.is_future_key, p.offset_lag});
    return out;
  }

  // AlterReplicaLogDirs of one partition: its error code (-1: no answer).
  int16_t move(const std::string& topic, int32_t partition, const std::string& dir) {
    raw_client client(broker.port());
    msg::alter_replica_log_dirs_request req;
    auto& d = req.dirs.emplace_back();
    d.path = dir;
    auto& t = d.topics.emplace_back();
    t.name = topic;
    t.partitions = {partition};
    auto resp = client.call<msg::alter_replica_log_dirs_response>(34, 2, req);
    if (!resp || resp->results.size() != 1 || resp->results[0].partitions.size() != 1) return -1;
    return resp->results[0].partitions[0].error_code;
  }

  broker_process broker;
};

TEST_F(LogDirMoveIT, AReplicaMovesBetweenDirsUnderLoadAndKeepsEverything) {
  ASSERT_EQ(create_topic(broker.port(), "moving", {}), "") << broker.log();
  std::vector<placement> at;
  ASSERT_TRUE(wait_until([&] { return (at = where("moving", 0)).size() == 1; }, 10s));
  const std::string from = at[0].dir;
  const std::string to = from == d1() ? d2() : d1();

  const std::map<std::string, std::string> safe{{"enable.idempotence", "true"}};
  std::vector<rd_record> acked = produce_all(broker.port(), "moving", messages("before-", 3000), "all", nullptr, safe);
  ASSERT_EQ(acked.back().offset, 2999);

  // A producer and a reader keep going through the move.
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::thread producer([&] {
    for (int round = 0; !stop.load(); ++round) {
      auto more = produce_all(broker.port(), "moving", messages("during-" + std::to_string(round) + "-", 200), "all",
                              nullptr, safe);
      std::lock_guard lock(mutex);
      acked.insert(acked.end(), more.begin(), more.end());
    }
  });
  std::atomic<int> reads{0};
  std::atomic<bool> short_read{false};
  std::thread reader([&] {
    while (!stop.load()) {
      if (read_from_beginning(broker.port(), "moving", 3000).size() != 3000) short_read = true;
      ++reads;
    }
  });

  EXPECT_EQ(move("moving", 0, to), 0) << broker.log();
  bool moved = wait_until(
      [&] {
        auto now = where("moving", 0);
        return now.size() == 1 && now[0].dir == to && !now[0].future;
      },
      60s);
  // Some more writes land in the moved log.
  size_t after_move = 0;
  {
    std::lock_guard lock(mutex);
    after_move = acked.size();
  }
  ASSERT_TRUE(wait_until([&] {
    std::lock_guard lock(mutex);
    return acked.size() > after_move + 200;
  }, 30s));
  stop = true;
  producer.join();
  reader.join();
  ASSERT_TRUE(moved) << broker.log();
  EXPECT_FALSE(short_read) << "a reader saw less than what was there before the move";
  EXPECT_GT(reads.load(), 0);

  for (const auto& r : acked) ASSERT_GE(r.offset, 0) << "a write failed during the move\n" << broker.log();
  auto check_all = [&] {
    auto read = read_from_beginning(broker.port(), "moving", acked.back().offset + 1);
    ASSERT_EQ(read.size(), acked.size());
    for (size_t i = 0; i < acked.size(); ++i) {
      ASSERT_EQ(read[i].offset, acked[i].offset);
      ASSERT_EQ(read[i].value, acked[i].value);
    }
  };
  check_all();
  EXPECT_FALSE(std::filesystem::exists(from + "/moving-0")) << "the old copy was renamed for deletion";
  EXPECT_TRUE(std::filesystem::exists(to + "/moving-0"));
  const std::string log = broker.log();
  EXPECT_NE(log.find("Moved moving-0 from " + from + " to " + to), std::string::npos) << log;
  // Placed at creation and moved: the controller heard both.
  size_t told = 0;
  for (size_t at = log.find("The controller recorded the log dirs of"); at != std::string::npos;
       at = log.find("The controller recorded the log dirs of", at + 1))
    ++told;
  EXPECT_GE(told, 2u) << log;

  // A restart finds it in its new dir, whole.
  ASSERT_TRUE(broker.stop(SIGTERM));
  ASSERT_TRUE(start()) << broker.log();
  auto again = where("moving", 0);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].dir, to);
  check_all();
}

TEST_F(LogDirMoveIT, Refusals) {
  ASSERT_EQ(create_topic(broker.port(), "stays", {}), "") << broker.log();
  ASSERT_TRUE(wait_until([&] { return where("stays", 0).size() == 1; }, 10s));
  EXPECT_EQ(move("stays", 0, broker.dir() + "/elsewhere"), 57) << "LOG_DIR_NOT_FOUND";
  EXPECT_EQ(move("stays", 0, "d1"), 57) << "named by absolute path only";
  const std::string here = where("stays", 0)[0].dir;
  EXPECT_EQ(move("stays", 0, here), 0) << "already there";
  EXPECT_EQ(where("stays", 0).size(), 1u) << "no future made";

  // Not there yet: UNKNOWN_TOPIC_OR_PARTITION, and the partition is created
  // in that dir when it comes.
  const std::string other = here == d1() ? d2() : d1();
  EXPECT_EQ(move("later", 0, here), 3) << "UNKNOWN_TOPIC_OR_PARTITION";
  ASSERT_EQ(create_topic(broker.port(), "later", {}), "") << broker.log();
  std::vector<placement> at;
  ASSERT_TRUE(wait_until([&] { return (at = where("later", 0)).size() == 1; }, 10s));
  EXPECT_EQ(at[0].dir, here) << "the emptiest dir was " << other << ", but this one was asked for";
}

}  // namespace
}  // namespace hw::testing
