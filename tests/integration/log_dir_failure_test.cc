// A failed disk (KIP-858) on three combined nodes: node 2 has two log dirs,
// the second an ext4 file system on a loop device that the test shuts
// down (EXT4_IOC_SHUTDOWN: every later read, write and sync fails with
// EIO, as a dead disk's would). Node 2 places its replicas across both
// dirs and reports where (AssignReplicasToDirs); once a write fails, that
// dir goes offline, the next heartbeat names it and the controller moves
// the leaderships of its replicas away and drops them from their ISRs,
// while node 2 keeps leading and serving the partitions of its other dir.
// Nothing acknowledged is lost. Needs root and a free loop device (else
// skipped, saying why).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "protocol/messages/alter_replica_log_dirs.h"
#include "protocol/messages/describe_log_dirs.h"
#include "replication_cluster.h"

namespace hw::testing {
namespace {

// EXT4_IOC_SHUTDOWN and its "no log flush" flag (linux/ext4.h is not a
// userspace header everywhere).
constexpr unsigned long k_ext4_ioc_shutdown = _IOR('X', 125, uint32_t);
constexpr uint32_t k_ext4_shutdown_nologflush = 2;

int run(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()); }

std::string run_output(const std::string& command) {
  std::string out;
  if (FILE* f = popen(command.c_str(), "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, f)) out += buf;
    pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

class LogDirFailureIT : public replication_cluster {
 protected:
  std::string disk_dir() const { return nodes[1]->dir() + "/disk2"; }

  std::vector<std::string> node_overrides(int i) const override {
    if (i != 1) return {};
    return {"log.dirs=" + nodes[1]->dir() + "/data," + disk_dir()};
  }

  bool before_start(int i) override {
    if (i != 1 || !device_.empty() || !unavailable_.empty()) return true;
    const std::string image = nodes[1]->dir() + "/disk2.img";
    std::filesystem::create_directories(disk_dir());
    if (geteuid() != 0) {
      unavailable_ = "needs root for a loop device";
      return true;
    }
    if (run("truncate -s 128M " + image) != 0 || run("mkfs.ext4 -q -F " + image) != 0) {
      unavailable_ = "cannot make an ext4 image (mkfs.ext4)";
      return true;
    }
    device_ = run_output("losetup -f --show " + image + " 2>/dev/null");
    if (device_.empty()) {
      unavailable_ = "no free loop device (losetup -f)";
      return true;
    }
    if (run("mount " + device_ + " " + disk_dir()) != 0) {
      unavailable_ = "cannot mount " + device_;
      run("losetup -d " + device_);
      device_.clear();
      return true;
    }
    mounted_ = true;
    return true;
  }

  void TearDown() override {
    if (nodes.size() > 1) nodes[1]->stop(SIGKILL);
    if (mounted_) run("umount -l " + disk_dir());
    if (!device_.empty()) run("losetup -d " + device_);
    replication_cluster::TearDown();
  }

  // The disk dies: every later operation on it fails with EIO.
  bool fail_disk() const {
    int fd = ::open(disk_dir().c_str(), O_RDONLY | O_DIRECTORY);
    if (fd < 0) return false;
    uint32_t flags = k_ext4_shutdown_nologflush;
    const bool ok = ::ioctl(fd, k_ext4_ioc_shutdown, &flags) == 0;
    ::close(fd);
    return ok;
  }

  // Topic name → the dir holding it on node 2 (DescribeLogDirs v4), and
  // each dir's error.
  struct dirs_view {
    std::map<std::string, std::string> holder;
    std::map<std::string, int16_t> errors;
  };
  std::optional<dirs_view> dirs_of_node2() {
    raw_client client(at(1));
    msg::describe_log_dirs_request all;
    all.topics.reset();
    auto resp = client.call<msg::describe_log_dirs_response>(35, 4, all);
    if (!resp) return std::nullopt;
    dirs_view out;
    for (const auto& d : resp->results) {
      out.errors[d.log_dir] = d.error_code;
      for (const auto& t : d.topics) out.holder[t.name] = d.log_dir;
    }
    return out;
  }

  std::string device_;
  std::string unavailable_;
  bool mounted_ = false;
};

TEST_F(LogDirFailureIT, AFailedDiskTakesOnlyItsReplicasOfflineAndLosesNothingAcknowledged) {
  if (!unavailable_.empty()) GTEST_SKIP() << unavailable_;
  const std::vector<std::string> topics{"jbod-a", "jbod-b", "jbod-c", "jbod-d"};
  for (const auto& t : topics) create_placed(t, {2, 1, 3});

  // Node 2 spread them over its two dirs and the controller knows where.
  std::optional<dirs_view> placed;
  ASSERT_TRUE(wait_until(
      [&] {
        placed = dirs_of_node2();
        return placed && placed->holder.size() >= topics.size();
      },
      10s));
  std::vector<std::string> on_disk, on_data;
  for (const auto& t : topics) (placed->holder.at(t) == disk_dir() ? on_disk : on_data).push_back(t);
  ASSERT_FALSE(on_disk.empty()) << "node 2 put nothing on its second dir";
  ASSERT_FALSE(on_data.empty()) << "node 2 put nothing on its first dir";
  ASSERT_TRUE(wait_until([&] { return nodes[1]->log().find("The controller recorded the log dirs of") !=
                                      std::string::npos; },
                         10s))
      << nodes[1]->log();

  const std::map<std::string, std::string> safe{{"enable.idempotence", "true"}, {"message.timeout.ms", "60000"}};
  std::map<std::string, std::vector<rd_record>> acknowledged;
  for (const auto& t : topics) {
    acknowledged[t] = produce_all(at(0), t, messages(t + "-before-", 200), "all", nullptr, safe);
    for (const auto& r : acknowledged[t]) ASSERT_GE(r.offset, 0) << t;
  }

  ASSERT_TRUE(fail_disk()) << "EXT4_IOC_SHUTDOWN on " << disk_dir();

  // Writing on: the leader's append on the dead disk fails, the dir goes
  // offline, leadership moves, the idempotent producer's retries land on
  // the new leader.
  for (const auto& t : topics) {
    auto more = produce_all(at(0), t, messages(t + "-after-", 200), "all", nullptr, safe);
    for (const auto& r : more) ASSERT_GE(r.offset, 0) << t << "\n" << logs();
    acknowledged[t].insert(acknowledged[t].end(), more.begin(), more.end());
  }

  for (const auto& t : on_disk) {
    EXPECT_TRUE(wait_until(
        [&] {
          auto v = view(0, t);
          return v && v->leader > 0 && v->leader != 2 && isr_is(0, t, {1, 3});
        },
        20s))
        << t << " still led by or in sync on node 2\n"
        << logs();
  }
  for (const auto& t : on_data) {
    auto v = view(0, t);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->leader, 2) << t << ": node 2's other dir keeps serving";
    EXPECT_TRUE(isr_is(0, t, {1, 2, 3})) << t;
  }
  EXPECT_TRUE(nodes[1]->running()) << "one failed dir of two does not stop the broker";
  EXPECT_NE(nodes[1]->log().find("Stopped serving replicas in failed log dir " + disk_dir()), std::string::npos);

  // Everything acknowledged is there, in order, read from the leaders.
  for (const auto& t : topics) {
    const auto& acked = acknowledged[t];
    const int64_t end = acked.back().offset + 1;
    auto read = read_from_beginning(at(0), t, end);
    ASSERT_EQ(read.size(), acked.size()) << t;
    for (size_t i = 0; i < acked.size(); ++i) {
      EXPECT_EQ(read[i].offset, acked[i].offset) << t;
      EXPECT_EQ(read[i].value, acked[i].value) << t;
    }
  }

  // DescribeLogDirs on node 2 reports the failed dir, and still describes
  // the other with its partitions.
  auto after = dirs_of_node2();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->errors.at(disk_dir()), 56) << "KAFKA_STORAGE_ERROR";
  EXPECT_EQ(after->errors.at(nodes[1]->dir() + "/data"), 0);
  for (const auto& t : on_data) EXPECT_EQ(after->holder.at(t), nodes[1]->dir() + "/data") << t;

  // Nothing moves to the failed dir.
  raw_client client(at(1));
  msg::alter_replica_log_dirs_request move;
  auto& d = move.dirs.emplace_back();
  d.path = disk_dir();
  auto& mt = d.topics.emplace_back();
  mt.name = on_data.front();
  mt.partitions = {0};
  auto moved = client.call<msg::alter_replica_log_dirs_response>(34, 2, move);
  ASSERT_TRUE(moved && moved->results.size() == 1 && moved->results[0].partitions.size() == 1);
  EXPECT_EQ(moved->results[0].partitions[0].error_code, 56) << "KAFKA_STORAGE_ERROR";
}

}  // namespace
}  // namespace hw::testing
