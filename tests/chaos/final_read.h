#pragma once
// The final read of a chaos run: every partition from its log start to its
// high watermark, fetched from the partition's leader as a consumer would
// (a fresh reader that assigns itself every partition; no group), into the
// history. It speaks Fetch itself rather than through librdkafka so that
// each record comes with its batch's producer id, epoch and sequence and
// the leader epoch it was appended in: what tells a write appended twice by
// the broker from a value the client sent again. Every batch's CRC is
// checked.

#include <chrono>
#include <string>
#include <vector>

#include "cluster.h"
#include "history.h"

namespace hw::chaos {

struct final_read_result {
  bool complete = false;  // every partition read up to its high watermark
  int64_t records = 0;
  std::string detail;               // per partition: where it starts and ends, how far it was read
  std::vector<std::string> corrupt;  // batches whose CRC or records did not check
};

final_read_result read_everything(chaos_cluster& cluster, const std::string& topic, int partitions, history& h,
                                  std::chrono::milliseconds timeout);

}  // namespace hw::chaos
