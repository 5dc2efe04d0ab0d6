#pragma once
// What every native tool is: a function of its arguments (without the
// program name) that prints to `out` and `err` as Kafka's tool prints to
// stdout and stderr, and returns the exit status. Streams are passed in so
// that tests can read what a tool printed.

#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tools/cli/options.h"
#include "tools/client/admin_client.h"

namespace hw::tools {

struct tool_io {
  std::ostream& out;
  std::ostream& err;
};

using tool_args = std::span<const std::string>;

// The version Kafka's tools print for --version: the Kafka release whose
// tools these match.
inline constexpr const char* kafka_tools_version = "4.3.1";

// A parser with the options every Kafka tool has (--help, --version).
cli::option_parser default_options();

// Parses args with the tool's parser; on a bad command line prints the
// message (and, as Kafka's tools do, the usage) to err and returns false.
// No arguments or `--help` print the banner and the usage and return false
// with *exit_status 1 (as Kafka's tools exit); `--version` prints the
// version, exit status 0.
bool parse_command_line(const cli::option_parser& parser, tool_args args, const std::string& banner,
                        cli::option_set* out, tool_io io, int* exit_status);

// Prints a message such as Kafka's `Missing required argument "[topic]"`,
// then the usage, to err, and returns 1.
int usage_error(const cli::option_parser& parser, const std::string& message, tool_io io);

// Properties from --command-config (or --producer.config ...): key=value
// per line, Java .properties syntax; false with the reason.
bool load_properties_file(const std::string& path, std::vector<std::pair<std::string, std::string>>* out,
                          std::string* error);

// An admin client for --bootstrap-server (or --bootstrap-controller when
// controllers is set), with the command config's settings applied
// (bootstrap.servers if the option is absent, default.api.timeout.ms, the
// security keys of client_security.h: TLS and SASL). sasl.* and ssl.* keys
// the native client cannot honour fail with a message naming them.
std::unique_ptr<admin_client> connect_admin(const std::optional<std::string>& bootstrap, bool controllers,
                                            const std::vector<std::pair<std::string, std::string>>& command_config,
                                            std::string* error);

// The message Kafka's Java client gives an error code's exception when the
// broker sent none (Errors.java's defaults), or the broker's own message.
std::string error_message(int16_t code, const std::optional<std::string>& broker_message = std::nullopt);

// The fully qualified class of the exception Kafka's Java client raises for
// an error code (org.apache.kafka.common.errors.TopicExistsException ...),
// as the tools print it; UnknownServerException for a code it lacks.
std::string java_exception_class(int16_t code);

}  // namespace hw::tools
