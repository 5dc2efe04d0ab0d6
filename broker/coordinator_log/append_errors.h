#pragma once
// How Kafka's coordinators (group and transaction) answer a request whose
// record could not be appended to their partition: the storage error
// becomes a coordinator error the client knows how to retry. Pure; any
// thread.

#include "protocol/error_code.h"

namespace hw::broker {

inline protocol::error_code coordinator_error_of_append(protocol::error_code append_error) {
  using protocol::error_code;
  switch (append_error) {
    case error_code::unknown_topic_or_partition:
    case error_code::not_enough_replicas:
    case error_code::not_enough_replicas_after_append:
    case error_code::request_timed_out:
      return error_code::coordinator_not_available;
    case error_code::not_leader_or_follower:
    case error_code::kafka_storage_error:
      return error_code::not_coordinator;
    case error_code::message_too_large:
    case error_code::record_list_too_large:
    case error_code::invalid_fetch_size:
      return error_code::unknown_server_error;
    default:
      return append_error;
  }
}

}  // namespace hw::broker
