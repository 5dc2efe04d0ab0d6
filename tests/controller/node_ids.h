#pragma once
// Broker ids as the image holds them (node_id), from the plain integers a
// test writes.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "storage/types.h"

namespace hw::controller {

inline std::vector<storage::node_id> ids(std::initializer_list<int32_t> values) {
  return storage::named_list<storage::node_id>(std::vector<int32_t>(values));
}
inline std::vector<storage::node_id> ids(const std::vector<int32_t>& values) {
  return storage::named_list<storage::node_id>(values);
}

}  // namespace hw::controller
