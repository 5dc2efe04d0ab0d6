// Metadata (known, unknown, auto-created, by id) and CreateTopics (valid,
// existing, invalid name, replication factor, partitions, configs,
// validate-only), compared field by field.

#include "broker_process.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/metadata.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

msg::metadata_request metadata_of(const std::vector<std::string>& names, bool auto_create = false) {
  msg::metadata_request req;
  for (const auto& n : names) {
    msg::metadata_request::metadata_request_topic mt;
    mt.name = n;
    req.topics->push_back(mt);
  }
  req.allow_auto_topic_creation = auto_create;
  return req;
}

TEST_F(DifferentialTest, MetadataKnownAndUnknownTopics) {
  const std::string known = fresh_name("md"), unknown = fresh_name("md-unknown");
  create_topic(t(), known, 3);
  // v1-v3 always auto-create what they name: only the known topic there.
  expect_same(t().call("Metadata v1 known", 3, 1, metadata_of({known})));
  for (int16_t v : {4, 9, 12, 13}) expect_same(t().call("Metadata known+unknown", 3, v, metadata_of({known, unknown})));
}

TEST_F(DifferentialTest, MetadataNoTopicsListsBrokers) {
  expect_same(t().call("Metadata no topics", 3, 12, metadata_of({})));
}

// Metadata with auto-creation on an unknown topic: created on both. Kafka
// creates it asynchronously and first answers UNKNOWN_TOPIC_OR_PARTITION;
// Highwater answers once it is created, with the topic. Clients retry
// Metadata on either answer, so the first answer may differ in the topic;
// once both have it, the answers must agree.
TEST_F(DifferentialTest, MetadataAutoCreates) {
  const std::string name = fresh_name("md-auto");
  expect_same(t().call("Metadata auto-create", 3, 12, metadata_of({name}, true)),
              {{"topics[0].*", allowed::rule::may_be_absent,
                "Kafka creates the topic asynchronously and answers the first request with an error"}});
  for (side s : k_sides)
    EXPECT_TRUE(wait_until(
        [&] {
          std::vector<uint8_t> body;
          protocol::writer w(body);
          metadata_of({name}).encode(w, 12);
          auto a = t().send(s, 3, 12, body);
          if (!a.error.empty()) return false;
          auto md = a.as<msg::metadata_response>(12);
          return md.topics.size() == 1 && md.topics[0].error_code == 0 && md.topics[0].partitions.size() == 1 &&
                 md.topics[0].partitions[0].leader_id >= 0;
        },
        30s))
        << side_name(s) << " did not create " << name;
  expect_same(t().call("Metadata after auto-create", 3, 12, metadata_of({name})));
}

// Metadata v10+ by topic id: an id no topic has.
TEST_F(DifferentialTest, MetadataUnknownTopicId) {
  msg::metadata_request req;
  msg::metadata_request::metadata_request_topic mt;
  mt.name.reset();
  mt.topic_id = protocol::uuid::parse("AAAAAAAAAAAAAAAAAAAAAQ").value_or(protocol::uuid{});
  mt.topic_id.bytes[3] = 0x42;
  req.topics->push_back(mt);
  req.allow_auto_topic_creation = false;
  expect_same(t().call("Metadata unknown id", 3, 12, req));
}

msg::create_topics_request::creatable_topic topic_spec(const std::string& name, int32_t partitions,
                                                       int16_t replication_factor = 1) {
  msg::create_topics_request::creatable_topic ct;
  ct.name = name;
  ct.num_partitions = partitions;
  ct.replication_factor = replication_factor;
  return ct;
}

msg::create_topics_request create_req(std::vector<msg::create_topics_request::creatable_topic> topics,
                                      bool validate_only = false) {
  msg::create_topics_request req;
  req.timeout_ms = 30000;
  req.validate_only = validate_only;
  req.topics = std::move(topics);
  return req;
}

TEST_F(DifferentialTest, CreateTopicsValidAndExisting) {
  const std::string name = fresh_name("ct");
  for (int16_t v : {2, 5, 7}) {
    const std::string n = name + "-v" + std::to_string(v);
    expect_same(t().call("CreateTopics valid", 19, v, create_req({topic_spec(n, 2)})));
    expect_same(t().call("CreateTopics existing", 19, v, create_req({topic_spec(n, 2)})));
  }
}

TEST_F(DifferentialTest, CreateTopicsInvalid) {
  const std::string name = fresh_name("ct-bad");
  expect_same(t().call("CreateTopics invalid name", 19, 7, create_req({topic_spec("bad/name", 1)})));
  expect_same(t().call("CreateTopics name too long", 19, 7, create_req({topic_spec(std::string(250, 'x'), 1)})));
  expect_same(t().call("CreateTopics replication factor 3", 19, 7, create_req({topic_spec(name + "-rf", 1, 3)})));
  expect_same(t().call("CreateTopics zero partitions", 19, 7, create_req({topic_spec(name + "-p0", 0)})));
  auto bad_value = topic_spec(name + "-cfg", 1);
  msg::create_topics_request::creatable_topic_config c;
  c.name = "cleanup.policy";
  c.value = "sometimes";
  bad_value.configs.push_back(c);
  expect_same(t().call("CreateTopics invalid config value", 19, 7, create_req({bad_value})));
  auto unknown_key = topic_spec(name + "-cfg2", 1);
  c.name = "no.such.config";
  c.value = "1";
  unknown_key.configs.push_back(c);
  expect_same(t().call("CreateTopics unknown config", 19, 7, create_req({unknown_key})));
  // Two entries for one name in one request.
  expect_same(t().call("CreateTopics duplicate", 19, 7,
                       create_req({topic_spec(name + "-dup", 1), topic_spec(name + "-dup", 1)})));
}

TEST_F(DifferentialTest, CreateTopicsValidateOnlyAndConfigs) {
  const std::string name = fresh_name("ct-vo");
  expect_same(t().call("CreateTopics validate only", 19, 7, create_req({topic_spec(name, 2)}, true)));
  // Not created: Metadata does not know it.
  expect_same(t().call("Metadata after validate only", 3, 12, metadata_of({name})));
  auto spec = topic_spec(name + "-cfg", 1);
  msg::create_topics_request::creatable_topic_config c;
  c.name = "retention.ms";
  c.value = "123456";
  spec.configs.push_back(c);
  expect_same(t().call("CreateTopics with config", 19, 7, create_req({spec})));
}

TEST_F(DifferentialTest, DeleteTopics) {
  const std::string name = fresh_name("dt");
  create_topic(t(), name);
  msg::delete_topics_request req;
  req.timeout_ms = 30000;
  // One topic per request: Kafka answers a request's topics in no fixed order.
  req.topic_names = {name};
  expect_same(t().call("DeleteTopics by name", 20, 5, req));
  req.topic_names = {fresh_name("dt-unknown")};
  expect_same(t().call("DeleteTopics unknown name", 20, 5, req));
  msg::delete_topics_request by_id;
  by_id.timeout_ms = 30000;
  msg::delete_topics_request::delete_topic_state st;
  st.name.reset();
  st.topic_id.bytes[5] = 7;
  by_id.topics.push_back(st);
  expect_same(t().call("DeleteTopics unknown id", 20, 6, by_id));
}

}  // namespace
}  // namespace hw::testing::differential
