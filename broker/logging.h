#pragma once
// spdlog set up to print Kafka-like lines:
//   [2025-01-31 12:00:00,123] INFO Listening on PLAINTEXT://localhost:9092 (highwater)
// Level from KAFKA_LOG4J_ROOT_LOGLEVEL (the apache/kafka image's variable)
// when given, else INFO.

#include <optional>
#include <string_view>

namespace hw::broker {

void setup_logging(std::optional<std::string_view> level_name);

}  // namespace hw::broker
