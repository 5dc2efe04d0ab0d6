#pragma once
// Producer-id control: blocks of producer ids for the brokers' transaction
// coordinators and idempotent producers — the image's next_producer_id,
// written by ProducerIdsRecord — as Kafka's ProducerIdControlManager hands
// them out, 1000 at a time.
//
// Owner: the controller strand, through quorum_controller. Stateless
// beyond the image it is handed.

#include "controller/controller_result.h"
#include "controller/metadata/image.h"
#include "protocol/messages/allocate_producer_ids.h"

namespace hw::controller {

class producer_id_control {
 public:
  static constexpr int32_t block_size = 1000;  // Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE

  static controller_result<msg::allocate_producer_ids_response> allocate_producer_ids(
      const metadata_image& image, const msg::allocate_producer_ids_request& request);
};

}  // namespace hw::controller
