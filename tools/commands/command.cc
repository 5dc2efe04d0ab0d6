#include "tools/commands/command.h"

#include "tools/client/client_security.h"

#include <charconv>
#include <fstream>
#include <ostream>
#include <sstream>

#include "config/properties.h"

namespace hw::tools {

cli::option_parser default_options() {
  cli::option_parser p;
  p.flag("help", "Show this list of options and exit.");
  p.flag("version", "Print the Kafka version this tool reports and exit.");
  return p;
}

bool parse_command_line(const cli::option_parser& parser, tool_args args, const std::string& banner,
                        cli::option_set* out, tool_io io, int* exit_status) {
  std::string error;
  if (!parser.parse(args, out, &error)) {
    io.err << error << '\n';
    *exit_status = 1;
    return false;
  }
  if (args.empty() || out->has("help")) {
    io.err << banner << '\n' << parser.usage();
    *exit_status = 1;
    return false;
  }
  if (out->has("version")) {
    io.out << kafka_tools_version << '\n';
    *exit_status = 0;
    return false;
  }
  return true;
}

int usage_error(const cli::option_parser& parser, const std::string& message, tool_io io) {
  io.err << message << '\n' << parser.usage();
  return 1;
}

bool load_properties_file(const std::string& path, std::vector<std::pair<std::string, std::string>>* out,
                          std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + " (No such file or directory)";
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  config::properties_result parsed = config::parse_properties(text.str());
  if (!parsed.errors.empty()) {
    *error = path + ": " + parsed.errors.front();
    return false;
  }
  out->clear();
  for (auto& p : parsed.entries) out->emplace_back(std::move(p.key), std::move(p.value));
  return true;
}

std::unique_ptr<admin_client> connect_admin(const std::optional<std::string>& bootstrap, bool controllers,
                                            const std::vector<std::pair<std::string, std::string>>& command_config,
                                            std::string* error) {
  admin_client::settings s;
  s.bootstrap_controllers = controllers;
  std::string servers = bootstrap.value_or("");
  for (const auto& [key, value] : command_config) {
    if ((key == "bootstrap.servers" && !controllers) || (key == "bootstrap.controllers" && controllers)) {
      if (!bootstrap) servers = value;
    } else if (key == "default.api.timeout.ms") {
      int64_t ms = 0;
      if (std::from_chars(value.data(), value.data() + value.size(), ms).ec != std::errc{} || ms <= 0) {
        *error = "Invalid value " + value + " for configuration default.api.timeout.ms";
        return nullptr;
      }
      s.timeout = std::chrono::milliseconds(ms);
    } else if ((key.starts_with("sasl.") || key.starts_with("ssl.")) && !is_security_key(key)) {
      *error = key + " is not supported by the native tools";
      return nullptr;
    }
    // Other client settings (client.id, request.timeout.ms, ...) change nothing a tool prints.
  }
  auto security = connection_security_from(command_config);
  if (auto* e = std::get_if<std::string>(&security)) {
    *error = *e;
    return nullptr;
  }
  s.security = std::get<std::shared_ptr<const connection_security>>(std::move(security));
  if (!parse_host_ports(servers, &s.bootstrap, error)) return nullptr;
  return admin_client::connect(s, error);
}

}  // namespace hw::tools
