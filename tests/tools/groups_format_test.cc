// kafka-consumer-groups.sh's tables, byte for byte against what Kafka 4.3.1's
// tool printed for the same data (captured from it against a highwater).

#include <gtest/gtest.h>

#include "tools/commands/consumer_groups.h"

namespace hw::tools::groups {
namespace {

const std::string k_member = "console-consumer-8f433e8a-466b-414d-aebe-fcc1868a5cc7";

offset_row row(const std::string& topic, int32_t partition, int64_t offset, int64_t end, bool member) {
  offset_row r{"g2", topic, partition, std::nullopt, offset, end, end - offset, std::nullopt, std::nullopt,
               std::nullopt};
  if (member) {
    r.consumer_id = k_member;
    r.host = "/127.0.0.1";
    r.client_id = "console-consumer";
  } else {
    r.consumer_id = r.host = r.client_id = "-";
  }
  return r;
}

TEST(GroupsFormat, OffsetsWithAnActiveMember) {
  const std::vector<offset_row> rows{row("orders", 0, 0, 0, true), row("payments", 1, 7, 7, true)};
  EXPECT_EQ(format_offsets(rows, false),
            "\n"
            "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID        "
            "                                   HOST            CLIENT-ID\n"
            "g2              orders          0          0               0               0               " + k_member +
                " /127.0.0.1      console-consumer\n"
            "g2              payments        1          7               7               0               " + k_member +
                " /127.0.0.1      console-consumer\n");
}

TEST(GroupsFormat, OffsetsVerboseWithoutMembers) {
  offset_row r = row("orders", 2, 12, 20, false);
  r.group = "g1";
  offset_row unknown{"g1", "orders", 3, 5, std::nullopt, std::nullopt, std::nullopt, "-", "-", "-"};
  EXPECT_EQ(format_offsets({r, unknown}, true),
            "\n"
            "GROUP           TOPIC           PARTITION  LEADER-EPOCH    CURRENT-OFFSET  LOG-END-OFFSET  LAG             "
            "CONSUMER-ID     HOST            CLIENT-ID\n"
            "g1              orders          2          -               12              20              8               "
            "-               -               -\n"
            "g1              orders          3          5               -               -               -               "
            "-               -               -\n");
}

TEST(GroupsFormat, Members) {
  member_row m;
  m.group = "g2";
  m.consumer_id = k_member;
  m.host = "/127.0.0.1";
  m.client_id = "console-consumer";
  m.partitions = 5;
  m.assignment = {{"payments", 1}, {"orders", 2}, {"orders", 0}, {"payments", 0}, {"orders", 1}};
  EXPECT_EQ(format_members({m}, false, true),
            "\n"
            "GROUP           CONSUMER-ID                                           HOST            CLIENT-ID        "
            "#PARTITIONS     \n"
            "g2              " + k_member + " /127.0.0.1      console-consumer 5               \n");
  EXPECT_EQ(format_members({m}, true, true),
            "\n"
            "GROUP           CONSUMER-ID                                           HOST            CLIENT-ID        "
            "#PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT        TARGET-EPOCH    TARGET-ASSIGNMENT   \n"
            "g2              " + k_member +
                " /127.0.0.1      console-consumer 5               -               orders:0,1,2;payments:0,1 -          "
                "     -                   \n");
  // An empty group: the header alone, Kafka's default widths.
  EXPECT_EQ(format_members({}, true, false),
            "\n"
            "GROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   "
            "CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT   \n");
}

TEST(GroupsFormat, MembersWithInstanceIdsAndUpgradedColumn) {
  member_row a;
  a.group = "g";
  a.consumer_id = "c1";
  a.instance_id = "static-1";
  a.host = "/h";
  a.client_id = "cl";
  a.upgraded = true;
  member_row b = a;
  b.consumer_id = "c2";
  b.instance_id = "";
  b.upgraded = false;
  const std::string out = format_members({a, b}, true, true);
  EXPECT_NE(out.find("GROUP           CONSUMER-ID     GROUP-INSTANCE-ID HOST            CLIENT-ID       #PARTITIONS     "
                     "CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT    UPGRADED\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("g               c1              static-1          /h              cl              0               "
                     "-               -                    -               -                    true\n"),
            std::string::npos)
      << out;
}

TEST(GroupsFormat, State) {
  group_info g;
  g.group_id = "g2";
  g.state = group_state::stable;
  g.assignor = "range";
  g.coordinator = {1, {"127.0.0.1", 34611}, std::nullopt};
  g.members.resize(1);
  EXPECT_EQ(format_state(g, false),
            "\n"
            "GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS\n"
            "g2              127.0.0.1:34611  (1)      range                Stable               1\n");
  g.group_id = "g1";
  g.state = group_state::empty;
  g.assignor.clear();
  g.members.clear();
  EXPECT_EQ(format_state(g, true),
            "\n"
            "GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                GROUP-EPOCH     "
            "TARGET-ASSIGNMENT-EPOCH   #MEMBERS\n"
            "g1              127.0.0.1:34611  (1)      -                    Empty                -               -    "
            "                     0\n");
}

TEST(GroupsFormat, GroupList) {
  const std::vector<group_listing> groups{{"g1", "classic", "Empty"}, {"g2", "Classic", "stable"}};
  EXPECT_EQ(format_group_list(groups, true, true),
            "GROUP                     TYPE                 STATE               \n"
            "g1                        Classic              Empty               \n"
            "g2                        Classic              Stable              \n");
  EXPECT_EQ(format_group_list({}, false, true), "GROUP                     STATE               \n");
  EXPECT_EQ(format_group_list({{"a-rather-long-group-name", "", ""}}, true, false),
            "GROUP                              TYPE                \n"
            "a-rather-long-group-name           Unknown             \n");
}

TEST(GroupsFormat, ResetPlanAndCsv) {
  const reset_plan plan{{"g1", {{{"payments", 1}, 5}, {{"orders", 0}, 0}}}, {"g2", {}}};
  EXPECT_EQ(format_reset_plan(plan),
            "\n"
            "GROUP           TOPIC           PARTITION  NEW-OFFSET\n"
            "g1              payments        1          5\n"
            "g1              orders          0          0\n");
  EXPECT_EQ(format_reset_plan({}), "\n");
  EXPECT_EQ(format_reset_csv(plan, false), "payments,1,5\norders,0,0\n\n");
  EXPECT_EQ(format_reset_csv({{"a b", {{{"t", 0}, 3}}}}, true), "\"a b\",t,0,3\n\n");
}

TEST(GroupsFormat, DeleteOffsets) {
  const std::vector<std::pair<topic_partition, std::string>> results{
      {{"orders", 1}, ""},
      {{"orders", 0}, ""},
      {{"nope", -1},
       "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this "
       "topic-partition."}};
  EXPECT_EQ(format_delete_offsets(results),
            "\n"
            "TOPIC           PARTITION  STATUS         \n"
            "nope            -          Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This "
            "server does not host this topic-partition.\n"
            "orders          0          Successful     \n"
            "orders          1          Successful     \n");
}

TEST(GroupsFormat, AssignmentStringSortsAsKafkaJoinsIt) {
  // Kafka sorts the joined "topic:partitions" strings: ':' sorts after '2'.
  EXPECT_EQ(assignment_string({{"orders2", 0}, {"orders", 1}, {"orders", 0}}), "orders2:0;orders:0,1");
}

}  // namespace
}  // namespace hw::tools::groups
