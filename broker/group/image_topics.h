#pragma once
// The broker's metadata image as the consumer groups read it (glue between
// controller/metadata/image.h and consumer/target_assignment.h's
// topic_image_view): topics by name and id, partition counts, each
// partition's replicas' racks, the image's offset as its version, the
// groups' own configs (the GROUP config resource). Holds
// the image it was made from; immutable, so shards on any strand share it.

#include <memory>
#include <set>
#include <string>

#include "broker/group/consumer/target_assignment.h"
#include "controller/metadata/image.h"

namespace hw::broker::group {

class image_topics final : public consumer::topic_image_view {
 public:
  explicit image_topics(std::shared_ptr<const controller::metadata_image> image) : image_(std::move(image)) {}

  std::optional<protocol::uuid> topic_id(std::string_view name) const override;
  std::optional<std::string> topic_name(const protocol::uuid& id) const override;
  std::vector<std::string> topic_names() const override;
  int32_t partition_count(const protocol::uuid& id) const override;
  std::vector<std::vector<std::string>> partition_racks(const protocol::uuid& id) const override;
  int64_t version() const override { return image_->provenance.offset.value; }
  std::optional<std::string> group_config(std::string_view group_id, std::string_view key) const override;

 private:
  std::shared_ptr<const controller::metadata_image> image_;
};

// What a new image changed for the consumer groups: the names of topics
// created, deleted or changed (partitions, replicas; every topic when a
// broker's rack changed), and whether any was created.
struct topic_changes {
  std::set<std::string> changed;
  bool created = false;
};
topic_changes changes_between(const controller::metadata_image& before, const controller::metadata_image& after);

}  // namespace hw::broker::group
