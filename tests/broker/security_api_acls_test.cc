// The API → ACL table (broker/security/api_acls.h): every check belongs
// to an API this broker serves, names an operation Kafka supports on its
// resource type (but one Kafka asks for all the same), refuses with the error of that resource type (or, for a
// filter, with none), and each alternative names a check that names it
// back.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "broker/handlers/handlers.h"
#include "broker/security/api_acls.h"
#include "controller/metadata/acl_authorizer.h"

namespace hw::broker {
namespace {

using controller::acl_resource_type;
using protocol::error_code;

TEST(ApiAcls, EveryCheckIsOfAServedApiAndNamedOnce) {
  std::set<int16_t> served;
  for (const auto& h : all_handlers()) served.insert(h.api_key);
  for (const auto& h : controller_handlers()) served.insert(h.api_key);
  std::set<std::pair<int16_t, std::string>> seen;
  for (const auto& c : api_acl_table()) {
    EXPECT_TRUE(served.count(c.api_key)) << "api " << c.api_key << " is not served";
    EXPECT_TRUE(seen.insert({c.api_key, std::string(c.check)}).second) << c.api_key << " " << c.check;
    EXPECT_EQ(&api_acl(c.api_key, c.check), &c);
  }
}

TEST(ApiAcls, EveryOperationIsOneKafkaSupportsOnTheResourceType) {
  for (const auto& c : api_acl_table()) {
    // Kafka's DeleteTopics asks for DELETE on the cluster, which no ACL of
    // that type names but ALL grants.
    if (c.api_key == 20 && c.check == "cluster") continue;
    const auto ops = controller::supported_operations(c.resource_type);
    EXPECT_NE(std::find(ops.begin(), ops.end(), c.operation), ops.end())
        << c.api_key << " " << c.check << ": " << to_string(c.operation) << " on " << to_string(c.resource_type);
  }
}

TEST(ApiAcls, RefusalsMatchTheResourceRefused) {
  for (const auto& c : api_acl_table()) {
    if (c.scope == acl_scope::filter) {
      // Left out of the answer; Metadata, OffsetFetch and
      // DescribeTopicPartitions refuse a topic asked for by name.
      EXPECT_TRUE(c.refusal == error_code::none || c.resource_type == acl_resource_type::topic)
          << c.api_key << " " << c.check;
      continue;
    }
    switch (c.resource_type) {
      case acl_resource_type::group: EXPECT_EQ(c.refusal, error_code::group_authorization_failed); break;
      case acl_resource_type::transactional_id:
        EXPECT_EQ(c.refusal, error_code::transactional_id_authorization_failed);
        break;
      case acl_resource_type::topic:
        // InitProducerId's fallback (WRITE on some topic) refuses as the cluster check does.
        EXPECT_EQ(c.refusal, c.api_key == 22 ? error_code::cluster_authorization_failed
                                             : error_code::topic_authorization_failed)
            << c.api_key << " " << c.check;
        break;
      case acl_resource_type::cluster:
        // A refused replica fetch, auto-creation, topic creation or
        // deletion refuses the topics; the metadata log's fetch the request.
        if ((c.api_key == 1 && c.check == "follower") || c.api_key == 3 || c.api_key == 19 || c.api_key == 20 ||
            c.api_key == 23)
          EXPECT_EQ(c.refusal, error_code::topic_authorization_failed) << c.api_key << " " << c.check;
        else
          EXPECT_EQ(c.refusal, error_code::cluster_authorization_failed) << c.api_key << " " << c.check;
        break;
      default: ADD_FAILURE() << c.api_key << " " << c.check << ": unexpected resource type";
    }
  }
}

TEST(ApiAcls, AlternativesNameEachOther) {
  for (const auto& c : api_acl_table()) {
    if (c.or_check.empty()) continue;
    const auto& other = api_acl(c.api_key, c.or_check);
    EXPECT_EQ(other.or_check, c.check) << c.api_key << " " << c.check;
  }
}

}  // namespace
}  // namespace hw::broker
