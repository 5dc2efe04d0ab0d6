#include "broker/logging.h"

#include <memory>
#include <string>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace hw::broker {
namespace {

// log4j's level names (WARN, not "warning").
class kafka_level_flag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    static constexpr std::string_view names[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"};
    std::string_view n = names[static_cast<int>(msg.level)];
    dest.append(n.data(), n.data() + n.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<kafka_level_flag>(); }
};

spdlog::level::level_enum parse_level(std::string_view s) {
  std::string u(s);
  for (char& c : u)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  if (u == "TRACE" || u == "ALL") return spdlog::level::trace;
  if (u == "DEBUG") return spdlog::level::debug;
  if (u == "WARN" || u == "WARNING") return spdlog::level::warn;
  if (u == "ERROR") return spdlog::level::err;
  if (u == "FATAL") return spdlog::level::critical;
  if (u == "OFF") return spdlog::level::off;
  return spdlog::level::info;
}

}  // namespace

void setup_logging(std::optional<std::string_view> level_name) {
  auto logger = std::make_shared<spdlog::logger>("highwater", std::make_shared<spdlog::sinks::stdout_sink_mt>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<kafka_level_flag>('*').set_pattern("[%Y-%m-%d %H:%M:%S,%e] %* %v (%n)");
  logger->set_formatter(std::move(formatter));
  logger->set_level(level_name ? parse_level(*level_name) : spdlog::level::info);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace hw::broker
