#include "controller/producer_id_control.h"

#include <limits>

#include "controller/broker_epoch_check.h"

namespace hw::controller {

controller_result<msg::allocate_producer_ids_response> producer_id_control::allocate_producer_ids(
    const metadata_image& image, const msg::allocate_producer_ids_request& request) {
  using result = msg::allocate_producer_ids_response;
  api_error epoch = check_broker_epoch(image, node_id(request.broker_id), broker_epoch(request.broker_epoch));
  if (!epoch.ok()) return failed<result>(epoch.code);
  int64_t start = image.next_producer_id;
  if (start > std::numeric_limits<int64_t>::max() - block_size) return failed<result>(error_code::unknown_server_error);
  controller_result<result> out;
  msg::producer_ids_record record;
  record.broker_id = request.broker_id;
  record.broker_epoch = request.broker_epoch;
  record.next_producer_id = start + block_size;
  out.records.push_back(record);
  out.response.producer_id_start = start;
  out.response.producer_id_len = block_size;
  return out;
}

}  // namespace hw::controller
