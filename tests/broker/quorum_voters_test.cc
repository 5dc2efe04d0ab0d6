// broker/metadata/quorum_voters: controller.quorum.voters entries.

#include <gtest/gtest.h>

#include "broker/metadata/quorum_voters.h"

namespace hw::broker {
namespace {

TEST(QuorumVoters, ParsesKafkasForm) {
  auto v = parse_quorum_voter("3@controller-3:9093");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->id, 3);
  EXPECT_EQ(v->host, "controller-3");
  EXPECT_EQ(v->port, 9093);
  auto v6 = parse_quorum_voter("1@[::1]:19093");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 19093);
}

TEST(QuorumVoters, RefusesWhatIsNotAVoter) {
  for (const char* bad : {"", "controller:9093", "x@host:9093", "-1@host:9093", "1@:9093", "1@host", "1@host:0",
                          "1@host:70000", "1@host:12ab"}) {
    EXPECT_FALSE(parse_quorum_voter(bad)) << bad;
  }
  auto all = parse_quorum_voters({"1@a:1", "bogus", "2@b:2"});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].id, 2);
}

TEST(QuorumVoters, BootstrapServersAreHostAndPort) {
  auto v = parse_host_port("controller-1:9093");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->host, "controller-1");
  EXPECT_EQ(v->port, 9093);
  EXPECT_EQ(v->id, -1);
  auto v6 = parse_host_port("[::1]:19093");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  for (const char* bad : {"", "host", ":9093", "host:0", "host:70000", "host:12ab"}) EXPECT_FALSE(parse_host_port(bad)) << bad;
}

}  // namespace
}  // namespace hw::broker
