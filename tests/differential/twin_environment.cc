#include "twin_environment.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "broker_process.h"
#include "kafka_server.h"

namespace hw::testing::differential {
namespace {

// The settings both brokers run with where their defaults differ or the
// tests need them: one partition for new and internal topics, replication
// factor 1, no initial rebalance delay (every JoinGroup starts a new group),
// automatic topic creation as Kafka's default; a partition leader passes a
// transaction coordinator's CONCURRENT_TRANSACTIONS on at once instead of
// asking again for 100 ms, so that the answer a writer gets while the
// markers of its last transaction are out can be seen.
const std::vector<std::pair<std::string, std::string>> k_shared_settings = {
    {"add.partitions.to.txn.retry.backoff.max.ms", "0"},
    {"num.partitions", "1"},
    {"default.replication.factor", "1"},
    {"offsets.topic.num.partitions", "1"},
    {"offsets.topic.replication.factor", "1"},
    {"group.initial.rebalance.delay.ms", "0"},
    {"auto.create.topics.enable", "true"},
};

brokers_environment* g_instance = nullptr;  // the test binary's one environment

}  // namespace

brokers_environment::brokers_environment() { g_instance = this; }
brokers_environment::~brokers_environment() {
  if (g_instance == this) g_instance = nullptr;
}

brokers_environment& brokers_environment::instance() {
  EXPECT_NE(g_instance, nullptr) << "the differential environment is not registered";
  return *g_instance;
}

void brokers_environment::SetUp() {
  const auto started = std::chrono::steady_clock::now();
  std::string props;
  std::vector<std::string> args;
  for (const auto& [k, v] : k_shared_settings) {
    props += k + "=" + v + "\n";
    args.push_back("--override");
    args.push_back(k + "=" + v);
  }
  if (const char* external = std::getenv("HW_DIFF_HIGHWATER_PORT")) {
    // A broker already listening (another Kafka: how the allowlist was
    // checked to hold only what differs between any two clusters).
    ports_[static_cast<int>(side::highwater)] = static_cast<uint16_t>(std::atoi(external));
  } else {
    highwater_ = std::make_unique<broker_process>();
    if (!highwater_->start(args)) {
      error_ = "highwater did not start:\n" + highwater_->log();
      FAIL() << error_;
    }
    ports_[static_cast<int>(side::highwater)] = highwater_->port();
  }
  kafka_ = std::make_unique<kafka_server>();
  if (!kafka_->start(props)) {
    error_ = "Apache Kafka 4.3.1 did not start (scripts/kafka-server.sh; jars from scripts/fetch-kafka.sh):\n" +
             kafka_->error();
    FAIL() << error_;
  }
  ports_[static_cast<int>(side::kafka)] = kafka_->port();
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started);
  std::printf("differential: Kafka on 127.0.0.1:%u, Highwater on 127.0.0.1:%u (started in %lds)\n",
              kafka_->port(), port(side::highwater), static_cast<long>(secs.count()));
}

void brokers_environment::TearDown() {
  if (kafka_) kafka_->stop();
  kafka_.reset();
  highwater_.reset();
}

std::string brokers_environment::highwater_log() const { return highwater_ ? highwater_->log() : std::string(); }
bool brokers_environment::highwater_alive() { return !highwater_ || highwater_->running(); }

}  // namespace hw::testing::differential
