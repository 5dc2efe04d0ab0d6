// Every API the broker advertises, at every version it advertises: one
// highwater for the whole executable; one test per API key in the tables of
// versions_{data,groups,admin}_test.cc, each run over min..max as the broker's
// ApiVersions says; and a test that fails when an advertised key has no
// sweep (a new API needs one) or a range reaches outside the schema.
//
// HW_VERSIONS_BROKER_PORT=<port> runs the same checks against a broker that
// is already listening on 127.0.0.1 (e.g. Apache Kafka started by
// scripts/kafka-server.sh, node id 1, no initial rebalance delay): how the
// expectations here were checked against Kafka.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>

#include "versions_support.h"

namespace hw::testing::versions {
namespace {

class VersionsIT : public ::testing::TestWithParam<api_sweep> {
 protected:
  static void SetUpTestSuite() {
    if (const char* external = std::getenv("HW_VERSIONS_BROKER_PORT")) {
      port_ = static_cast<uint16_t>(std::atoi(external));
    } else {
      broker_ = new broker_process();
      // No initial-rebalance delay: every JoinGroup case starts a new group.
      if (!broker_->start({"--override", "group.initial.rebalance.delay.ms=0"})) {
        start_error_ = "highwater did not start:\n" + broker_->log();
        return;
      }
      port_ = broker_->port();
    }
    version_client c(port_);
    ranges_ = new std::map<int16_t, std::pair<int16_t, int16_t>>(advertised(c));
  }
  static void TearDownTestSuite() {
    delete ranges_;
    ranges_ = nullptr;
    delete broker_;
    broker_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(start_error_.empty()) << start_error_;
    ASSERT_NE(ranges_, nullptr);
    ASSERT_FALSE(ranges_->empty()) << "ApiVersions answered no API";
  }
  void TearDown() override {
    if (HasFailure() && broker_ && !broker_->running()) ADD_FAILURE() << "highwater died:\n" << broker_->log();
  }
  static bool broker_alive() { return !broker_ || broker_->running(); }
  static std::string broker_log() { return broker_ ? broker_->log() : std::string("(external broker)"); }

  static broker_process* broker_;
  static uint16_t port_;
  static std::map<int16_t, std::pair<int16_t, int16_t>>* ranges_;
  static std::string start_error_;
};

broker_process* VersionsIT::broker_ = nullptr;
uint16_t VersionsIT::port_ = 0;
std::map<int16_t, std::pair<int16_t, int16_t>>* VersionsIT::ranges_ = nullptr;
std::string VersionsIT::start_error_;

TEST_P(VersionsIT, EveryAdvertisedVersion) {
  const api_sweep& s = GetParam();
  auto range = ranges_->find(s.api_key);
  ASSERT_NE(range, ranges_->end()) << "api " << s.api_key << " (" << s.name << ") has a sweep but is not advertised";
  auto [min, max] = range->second;
  ASSERT_LE(min, max);
  // Kafka advertises versions it refuses (Produce v0-2), and so do we: the
  // sweep starts at the protocol layer's first version (what those older
  // versions get is compared with Kafka's by tests/differential).
  if (const auto* schema = protocol::find_api(s.api_key)) min = std::max(min, schema->min_version);
  for (int16_t v = min; v <= max; ++v) {
    SCOPED_TRACE(std::string(s.name) + " v" + std::to_string(v));
    // A fresh connection per version: one version's failure cannot leave
    // bytes behind for the next.
    version_client c(port_);
    ASSERT_TRUE(c.connected());
    sweep_context ctx{c, port_, broker_ == nullptr};
    s.run(ctx, v);
    ASSERT_TRUE(broker_alive()) << "the broker died at " << s.name << " v" << v << ":\n" << broker_log();
  }
}

TEST_F(VersionsIT, EveryAdvertisedApiHasASweep) {
  std::set<int16_t> swept;
  for (const auto& s : all_sweeps()) EXPECT_TRUE(swept.insert(s.api_key).second) << "two sweeps for api " << s.api_key;
  for (const auto& [key, range] : *ranges_) {
    EXPECT_TRUE(swept.count(key)) << "api key " << key << " is advertised (v" << range.first << "-v" << range.second
                                  << ") but versions_*_test.cc has no sweep for it";
    const auto* schema = protocol::find_api(key);
    if (!broker_) continue;  // Kafka advertises versions it no longer serves
    ASSERT_NE(schema, nullptr) << "api key " << key << " is advertised but the protocol layer has no schema for it";
    // Produce is advertised from v0 as Kafka does (KAFKA-18659), served from v3.
    EXPECT_GE(range.first, key == 0 ? 0 : schema->min_version) << schema->name;
    EXPECT_LE(range.second, schema->max_version) << schema->name;
  }
}

}  // namespace

// Test output names the API rather than dumping bytes.
void PrintTo(const api_sweep& s, std::ostream* os) { *os << s.name << " (key " << s.api_key << ")"; }

namespace {

INSTANTIATE_TEST_SUITE_P(Apis, VersionsIT, ::testing::ValuesIn(all_sweeps()),
                         [](const ::testing::TestParamInfo<api_sweep>& info) {
                           return std::string(info.param.api_key < 10 ? "k0" : "k") +
                                  std::to_string(info.param.api_key) + "_" + info.param.name;
                         });

}  // namespace
}  // namespace hw::testing::versions
