#pragma once
// What log_manager.cc and log_manager_futures.cc share: one log dir's
// state and the names of retired directories. Private to the log manager.

#include <atomic>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "storage/log_manager.h"

namespace hw::storage {

struct log_manager::dir_state {
  std::filesystem::path path;
  std::optional<protocol::uuid> id;  // set by check_identity, before any other thread runs
  std::atomic<bool> offline{false};
  bool had_clean_shutdown = false;
  std::map<topic_partition, offset> recovery_points;
  std::map<topic_partition, offset> log_starts;
  std::map<topic_partition, offset> cleaner_offsets;  // under the manager's mutex after start
  size_t partitions = 0;  // under the manager's mutex
};

// 32 hex digits, for `<tp>.<hex>-delete` and `<tp>.<hex>-future` names.
inline std::string hex_uuid(std::mt19937_64& rng) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 32; ++i) s.push_back(digits[rng() & 15]);
  return s;
}

}  // namespace hw::storage
