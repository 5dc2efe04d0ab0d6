#include "broker/command_line.h"

#include <string_view>

namespace hw::broker {

const char* usage() {
  return "Usage: highwater [server.properties] [--config PATH] [--override key=value]... [--port-file PATH]\n"
         "  --config PATH          read broker configuration from a Java .properties file\n"
         "  --override key=value   set one configuration key (wins over the file and KAFKA_* variables)\n"
         "  --port-file PATH       write the bound listeners, one NAME://host:port per line, once listening\n"
         "       highwater format --cluster-id ID [--config PATH] [--override key=value]... [--ignore-formatted]\n"
         "  writes meta.properties into every log dir and the metadata log dir (a first start does it by itself)\n";
}

command_line parse_command_line(std::span<const char* const> args) {
  command_line cl;
  auto set_config = [&](std::string path) {
    if (cl.config_path) cl.errors.push_back("more than one configuration file given");
    cl.config_path = std::move(path);
  };
  size_t first = 0;
  if (!args.empty() && std::string_view(args[0]) == "format") {
    cl.format = true;
    first = 1;
  }
  for (size_t i = first; i < args.size(); ++i) {
    std::string_view a = args[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string> {
      if (a.size() > flag.size() && a.substr(0, flag.size()) == flag && a[flag.size()] == '=')
        return std::string(a.substr(flag.size() + 1));
      if (a != flag) return std::nullopt;
      if (i + 1 >= args.size()) {
        cl.errors.push_back(std::string(flag) + " needs a value");
        return std::string();
      }
      return std::string(args[++i]);
    };
    if (a == "-h" || a == "--help") {
      cl.help = true;
    } else if (auto v = value("--config")) {
      if (!v->empty()) set_config(*v);
    } else if (auto v = value("--override")) {
      if (!v->empty()) cl.overrides.push_back(*v);
    } else if (auto v = value("--port-file")) {
      if (!v->empty()) cl.port_file = *v;
    } else if (cl.format && (a == "--cluster-id" || a.starts_with("--cluster-id=") || a == "-t")) {
      if (auto id = value(a == "-t" ? "-t" : "--cluster-id"); id && !id->empty()) cl.cluster_id = *id;
    } else if (cl.format && (a == "--ignore-formatted" || a == "-g")) {
      cl.ignore_formatted = true;
    } else if (!a.empty() && a[0] == '-') {
      cl.errors.push_back("unknown option " + std::string(a));
    } else {
      set_config(std::string(a));
    }
  }
  if (cl.format && !cl.cluster_id) cl.errors.push_back("format needs --cluster-id");
  return cl;
}

}  // namespace hw::broker
