// AlterReplicaLogDirs' answers on Kafka 4.3.1 and Highwater (one log dir
// each): a path that is not a log dir, a partition not hosted, a move to
// the dir a partition is already in, compared field by field. Each side is
// named its own log dir (from its DescribeLogDirs).

#include "protocol/messages/alter_replica_log_dirs.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_log_dirs.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

constexpr int16_t k_alter_replica_log_dirs = 34;

msg::alter_replica_log_dirs_request moving(const std::string& path, const std::string& topic, int32_t partition) {
  msg::alter_replica_log_dirs_request r;
  auto& d = r.dirs.emplace_back();
  d.path = path;
  auto& t = d.topics.emplace_back();
  t.name = topic;
  t.partitions = {partition};
  return r;
}

using LogDirsDifferential = DifferentialTest;

TEST_F(LogDirsDifferential, AlterReplicaLogDirsAnswers) {
  // Each side's own log dir.
  msg::describe_log_dirs_request describe;
  describe.topics.reset();
  auto dirs = t().call("DescribeLogDirs", 35, 4, describe);
  std::array<std::string, 2> own;
  for (side s : k_sides) {
    auto d = dirs.as<msg::describe_log_dirs_response>(s);
    ASSERT_EQ(d.results.size(), 1u);
    own[static_cast<int>(s)] = d.results[0].log_dir;
  }
  msg::create_topics_request create;
  auto& ct = create.topics.emplace_back();
  ct.name = "log-dirs-moved";
  ct.num_partitions = 1;
  ct.replication_factor = 1;
  expect_same(t().call("CreateTopics", 19, 7, create));

  for (int16_t v : {1, 2}) {
    expect_same(t().call("not a log dir", k_alter_replica_log_dirs, v,
                         moving("/no/such/log-dir", "log-dirs-moved", 0)));
    expect_same(t().call("relative path", k_alter_replica_log_dirs, v, moving("data", "log-dirs-moved", 0)));
    expect_same(t().call_each("not hosted", k_alter_replica_log_dirs, v, [&](side s) {
      return moving(own[static_cast<int>(s)], "log-dirs-nowhere", 3);
    }));
    expect_same(t().call_each("already there", k_alter_replica_log_dirs, v, [&](side s) {
      return moving(own[static_cast<int>(s)], "log-dirs-moved", 0);
    }));
  }
}

}  // namespace
}  // namespace hw::testing::differential
