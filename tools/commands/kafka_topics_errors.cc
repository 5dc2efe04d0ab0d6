// The Java exception each error code becomes in Kafka's client
// (java_exception_class): TopicCommand logs the exception's class on
// stderr with its message, and users grep for it.

#include <cstdint>
#include <optional>
#include <string>

#include "tools/commands/command.h"
#include "tools/commands/kafka_topics.h"

namespace hw::tools::topics {

topic_error api_error(int16_t code, const std::optional<std::string>& broker_message) {
  // ApiError.exception(): a null message takes the error's default; an
  // empty one stays empty.
  std::string message = broker_message ? *broker_message : error_message(code);
  return {hw::tools::java_exception_class(code), std::move(message)};
}

}  // namespace hw::tools::topics
