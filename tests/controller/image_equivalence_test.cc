// The image does not depend on how the log is cut into deltas: one delta
// for everything, one per record, or batches of any size give the same
// image, with untouched topics shared between consecutive images.

#include <gtest/gtest.h>

#include "controller/metadata/delta.h"
#include "tests/controller/controller_harness.h"
#include "tests/controller/snapshot_support.h"

namespace hw::controller {
namespace {


// A log with topics, configs, fencing, elections and ISR changes.
std::vector<metadata_record> busy_log(std::shared_ptr<const metadata_image>* final_image) {
  testing::harness h;
  h.add_brokers({1, 2, 3});
  h.create("a", 3, 3, {{"retention.ms", "10"}});
  h.create("b", 2, 2);
  h.create("c", 1, 1);
  h.heartbeat(2, false, true);
  h.now_ms += 20'000;
  h.heartbeat(1);
  h.heartbeat(2);
  h.apply(h.controller.tick(h.now_ms));
  msg::delete_topics_request del;
  del.topics.push_back({std::string("c"), {}, {}});
  h.run(h.controller.delete_topics(del, 6));
  msg::incremental_alter_configs_request cfg;
  auto& r = cfg.resources.emplace_back();
  r.resource_type = static_cast<int8_t>(config_resource_type::topic);
  r.resource_name = "a";
  r.configs.push_back({"min.insync.replicas", 0, "3", {}});
  h.run(h.controller.incremental_alter_configs(cfg));
  msg::allocate_producer_ids_request ids;
  ids.broker_id = 1;
  ids.broker_epoch = h.image().broker(node_id(1))->epoch.value;
  h.run(h.controller.allocate_producer_ids(ids));
  h.heartbeat(3);
  *final_image = h.controller.working_image();
  return h.log;
}

TEST(ImageEquivalence, DeltaBoundariesDoNotMatter) {
  std::shared_ptr<const metadata_image> expected;
  std::vector<metadata_record> log = busy_log(&expected);
  ASSERT_GT(log.size(), 30u);
  for (size_t chunk : {log.size(), size_t{1}, size_t{2}, size_t{7}}) {
    auto image = std::make_shared<const metadata_image>();
    for (size_t i = 0; i < log.size(); i += chunk) {
      metadata_delta delta(image);
      for (size_t j = i; j < std::min(log.size(), i + chunk); ++j) {
        auto refused = delta.replay(log[j]);
        ASSERT_FALSE(refused) << "record " << j << ": " << *refused;
      }
      auto next = delta.apply(storage::offset(static_cast<int64_t>(std::min(log.size(), i + chunk)) - 1), leader_epoch(1));
      // Topics no record of this delta touched are the same objects.
      for (const auto& [id, t] : next->topics_by_id) {
        bool touched = false;
        for (const auto& c : delta.changed_partitions()) touched |= c.topic_id == id;
        for (const auto& created : delta.created_topics()) touched |= created == id;
        if (!touched && image->topics_by_id.count(id)) {
          EXPECT_EQ(t.get(), image->topics_by_id.at(id).get()) << "chunk " << chunk << " at " << i;
        }
      }
      image = next;
    }
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    testing::expect_same_image(*image, *expected);
    EXPECT_EQ(image->provenance.offset, storage::offset(static_cast<int64_t>(log.size()) - 1));
  }
}

}  // namespace
}  // namespace hw::controller
