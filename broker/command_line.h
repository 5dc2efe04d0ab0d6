#pragma once
// The highwater command line:
//   highwater [server.properties] [--config PATH] [--override key=value]... [--port-file PATH]
//   highwater format --cluster-id ID [--config PATH] [--override key=value]... [--ignore-formatted]
// A bare path is the properties file, as with kafka-server-start.sh.

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hw::broker {

struct command_line {
  bool format = false;                     // the `format` subcommand
  std::optional<std::string> cluster_id;   // format --cluster-id
  bool ignore_formatted = false;           // format --ignore-formatted
  std::optional<std::string> config_path;
  std::vector<std::string> overrides;      // "key=value"
  std::optional<std::string> port_file;    // where to write the bound listeners
  bool help = false;
  std::vector<std::string> errors;
};

command_line parse_command_line(std::span<const char* const> args);  // args excludes argv[0]
const char* usage();

}  // namespace hw::broker
