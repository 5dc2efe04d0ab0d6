#include "broker/group/group_partition.h"

#include <cassert>

#include "broker/group/consumer/java_strings.h"

namespace hw::broker::group {

int32_t java_string_hash(std::string_view utf8) { return consumer::java_string_hash(utf8); }

int32_t kafka_abs(int32_t n) { return n == INT32_MIN ? 0 : (n < 0 ? -n : n); }

int32_t group_partition(std::string_view group_id, int32_t num_partitions) {
  assert(num_partitions > 0);
  return kafka_abs(java_string_hash(group_id)) % num_partitions;
}

}  // namespace hw::broker::group
