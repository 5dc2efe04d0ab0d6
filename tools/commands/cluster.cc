// kafka-cluster.sh: the command's flow and its requests (cluster.h). Every
// failure ends as ClusterTool's main ends one: the exception's message, then
// the first line of its stack trace and an empty line, exit status 1.

#include "tools/commands/cluster.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/unregister_broker.h"
#include "tools/commands/argparse_tool.h"
#include "tools/commands/tools.h"

namespace hw::tools {

std::string format_endpoints(const std::vector<cluster_endpoint>& rows, bool controllers) {
  size_t host_width = rows.empty() ? 100 : 0, rack_width = 0;
  bool any_rack = false;
  for (const auto& r : rows) {
    host_width = std::max(host_width, r.host.size());
    if (r.rack) rack_width = std::max(rack_width, r.rack->size()), any_rack = true;
  }
  if (!any_rack) rack_width = 10;
  auto pad = [](const std::string& s, size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
  };
  auto line = [&](const std::string& id, const std::string& host, const std::string& port, const std::string& rack,
                  const std::string& state, const std::string& type) {
    std::string out = pad(id, 10) + ' ' + pad(host, host_width) + ' ' + pad(port, 10) + ' ' + pad(rack, rack_width) + ' ';
    if (!controllers) out += pad(state, 10) + ' ';
    return out + pad(type, 15) + '\n';
  };
  std::string out = line("ID", "HOST", "PORT", "RACK", "STATE", "ENDPOINT_TYPE");
  for (const auto& r : rows)
    out += line(std::to_string(r.id), r.host, std::to_string(r.port), r.rack.value_or("null"),
                r.fenced ? "fenced" : "unfenced", controllers ? "controller" : "broker");
  return out;
}

namespace {

using property_list = std::vector<std::pair<std::string, std::string>>;
namespace msg = protocol::msg;

int fail(const std::string& message, const std::string& exception, tool_io io) {
  io.err << message << '\n' << exception << ": " << message << "\n\n";
  return 1;
}

// A failed admin future, as ClusterTool's main prints its ExecutionException.
int fail_future(int16_t code, const std::optional<std::string>& message, tool_io io) {
  const std::string cause = java_exception_class(code) + ": " + error_message(code, message);
  return fail(cause, "java.util.concurrent.ExecutionException", io);
}

bool describe_cluster(admin_client& admin, bool include_fenced, msg::describe_cluster_response* resp,
                      std::string* error) {
  msg::describe_cluster_request req;
  req.include_fenced_brokers = include_fenced;
  req.endpoint_type = admin.bootstrap_controllers() ? 2 : 1;
  return admin.call(admin_client::any_node, req, resp, error);
}

int cluster_id(admin_client& admin, tool_io io) {
  msg::describe_cluster_response resp;
  std::string error;
  if (!describe_cluster(admin, false, &resp, &error)) return fail(error, "java.util.concurrent.ExecutionException", io);
  if (resp.error_code != 0) return fail_future(resp.error_code, resp.error_message, io);
  io.out << "Cluster ID: " << resp.cluster_id << '\n';
  return 0;
}

int list_endpoints(admin_client& admin, bool include_fenced, tool_io io) {
  msg::describe_cluster_response resp;
  std::string error;
  if (!describe_cluster(admin, include_fenced, &resp, &error)) {
    if (admin_client::unsupported(error)) {
      io.out << error << '\n';
      return 0;
    }
    return fail(error, "java.util.concurrent.ExecutionException", io);
  }
  if (resp.error_code != 0) return fail_future(resp.error_code, resp.error_message, io);
  std::vector<cluster_endpoint> rows;
  for (const auto& b : resp.brokers) rows.push_back({b.broker_id, b.host, b.port, b.rack, b.is_fenced});
  io.out << format_endpoints(rows, admin.bootstrap_controllers());
  return 0;
}

int unregister(admin_client& admin, int32_t id, tool_io io) {
  for (;;) {
    // A broker forwards it to the active controller; a controller answers it.
    const int32_t node =
        admin.bootstrap_controllers() && admin.controller_id() >= 0 ? admin.controller_id() : admin_client::any_node;
    msg::unregister_broker_request req;
    req.broker_id = id;
    msg::unregister_broker_response resp;
    std::string error;
    if (!admin.call(node, req, &resp, &error)) {
      if (admin_client::unsupported(error)) {
        io.out << "The target cluster does not support the broker unregistration API.\n";
        return 0;
      }
      return fail(error, "java.util.concurrent.ExecutionException", io);
    }
    // REQUEST_TIMED_OUT and NOT_CONTROLLER are tried again, as Kafka's admin client does.
    if ((resp.error_code == 7 || resp.error_code == 41) && admin.back_off()) continue;
    if (resp.error_code != 0) return fail_future(resp.error_code, resp.error_message, io);
    io.out << "Broker " << id << " is no longer registered.\n";
    return 0;
  }
}

}  // namespace

int kafka_cluster(tool_args args, tool_io io) {
  cli::arg_values v;
  cli::arg_error parse_error;
  const cli::arg_parser parser = cluster_parser();  // outlives parse_error, which points into it
  if (!parser.parse(args, &v, &parse_error)) {
    // ClusterTool parses with parseArgsOrFail: even --help exits with status 1.
    report_parse_failure(parse_error, io);
    return 1;
  }
  const auto config = v.value("config"), command_config = v.value("command_config");
  if (config && command_config) {
    const std::string message = "--config and --command-config cannot be specified together.";
    return fail(message, "net.sourceforge.argparse4j.inf.ArgumentParserException", io);
  }
  if (config)
    io.out << "Option --config has been deprecated and will be removed in a future version. Use --command-config "
              "instead.\n";
  property_list props;
  std::string error;
  if (const auto path = config ? config : command_config) {
    // Kafka's Utils.loadProps fails with NoSuchFileException, whose message is the path.
    if (!std::filesystem::exists(*path))
      return fail(*path, "java.nio.file.NoSuchFileException", io);
    if (!load_properties_file(*path, &props, &error)) return fail(error, "org.apache.kafka.common.KafkaException", io);
  }
  const bool controllers = v.has("bootstrap_controller");
  const auto bootstrap = v.value(controllers ? "bootstrap_controller" : "bootstrap_server");
  const std::string& command = v.command();
  const bool include_fenced = v.has("include_fenced_brokers");
  if (command == "list-endpoints" && include_fenced && controllers) {
    return fail("The option --include-fenced-brokers is only supported with --bootstrap-server option",
                "java.lang.IllegalArgumentException", io);
  }
  auto admin = connect_admin(bootstrap, controllers, props, &error);
  if (!admin) return fail(error, "java.util.concurrent.ExecutionException", io);
  if (command == "cluster-id") return cluster_id(*admin, io);
  if (command == "unregister") return unregister(*admin, std::stoi(*v.value("id")), io);
  return list_endpoints(*admin, include_fenced, io);
}

}  // namespace hw::tools
