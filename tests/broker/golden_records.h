#pragma once
// Records Apache Kafka 4.3.1 wrote to __consumer_offsets, kept as fixtures
// (tests/broker/fixtures/*.txt: "<offset> <key hex> <value hex or null>"
// a line, '#' comments), read back for the group coordinator's tests.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace hw::testing {

struct golden_record {
  int64_t offset = 0;
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> value;  // nullopt: a tombstone
};

inline std::vector<uint8_t> unhex(const std::string& s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) out.push_back(static_cast<uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
  return out;
}

// The fixture's records in log order; a missing or empty fixture fails the test.
inline std::vector<golden_record> read_golden(const std::string& file) {
  std::ifstream in(std::string(HW_SOURCE_DIR) + "/tests/broker/fixtures/" + file);
  EXPECT_TRUE(in.good()) << file;
  std::vector<golden_record> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    golden_record g;
    std::string key, value;
    fields >> g.offset >> key >> value;
    g.key = unhex(key);
    if (value != "null") g.value = unhex(value);
    out.push_back(std::move(g));
  }
  EXPECT_FALSE(out.empty()) << file;
  return out;
}

}  // namespace hw::testing
