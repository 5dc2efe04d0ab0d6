#include "tools/commands/metadata_quorum.h"

#include <chrono>
#include <filesystem>
#include <ostream>

#include "protocol/messages/describe_quorum.h"
#include "tools/client/connection.h"
#include "tools/commands/argparse_tool.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using property_list = std::vector<std::pair<std::string, std::string>>;

// Errors Kafka's admin client retries until the call's deadline: a quorum
// between leaders, a controller that moved, a broker still starting.
bool retriable(int16_t code) {
  switch (code) {
    case 3: case 5: case 6: case 7: case 8: case 13: case 15: case 41: case 51: case 89:
      return true;
    default:
      return false;
  }
}

int16_t first_error(const protocol::msg::describe_quorum_response& r) {
  if (r.error_code != 0) return r.error_code;
  for (const auto& t : r.topics)
    for (const auto& p : t.partitions)
      if (p.error_code != 0) return p.error_code;
  return 0;
}

// DescribeQuorum as Kafka's admin client sends it (describeMetadataQuorum):
// to any broker, or with --bootstrap-controller to the active controller.
bool describe_quorum(admin_client& admin, quorum_info* out, std::string* error) {
  protocol::msg::describe_quorum_request req;
  req.topics.push_back({"__cluster_metadata", {{0, {}}}, {}});
  for (;;) {
    const int32_t node =
        admin.bootstrap_controllers() && admin.controller_id() >= 0 ? admin.controller_id() : admin_client::any_node;
    protocol::msg::describe_quorum_response resp;
    std::string failure;
    if (admin.call(node, req, &resp, &failure)) {
      if (quorum_info_from(resp, out, &failure)) return true;
      if (!retriable(first_error(resp))) {
        *error = failure;
        return false;
      }
    } else if (admin_client::unsupported(failure)) {
      *error = node_does_not_support(protocol::msg::describe_quorum_request::schema.name);
      return false;
    }
    if (!admin.back_off()) {
      *error = failure;
      return false;
    }
  }
}

// The describe sub-command's flag checks, made before anything is sent.
bool check_describe_flags(const cli::arg_values& v, std::string* error) {
  const bool status = v.has("status"), replication = v.has("replication");
  if (status && replication) {
    *error = "Only one of --status or --replication should be specified with describe sub-command";
  } else if (!status && !replication) {
    *error = "One of --status or --replication must be specified with describe sub-command";
  } else if (status && v.has("human_readable")) {
    *error = "The option --human-readable is only supported along with --replication";
  } else {
    return true;
  }
  return false;
}

int describe(const cli::arg_values& v, const property_list& props, tool_io io) {
  std::string error;
  const bool controllers = v.has("bootstrap_controller");
  auto admin = connect_admin(v.value(controllers ? "bootstrap_controller" : "bootstrap_server"), controllers, props,
                             &error);
  if (!admin) {
    io.err << error << '\n';
    // A refused login fails the describe future: Kafka prints its message, then its trace.
    if (connection::authentication_failure(error))
      io.err << "java.util.concurrent.ExecutionException: " << error << "\nCaused by: " << error << "\n\n";
    return 1;
  }
  quorum_info q;
  if (!describe_quorum(*admin, &q, &error)) {
    io.err << error << '\n';
    return 1;
  }
  std::string text;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const bool ok = v.has("status") ? format_quorum_status(admin->cluster_id().value_or(""), q, &text, &error)
                                  : format_quorum_replication(q, v.has("human_readable"), now_ms, &text, &error);
  if (!ok) {
    io.err << error << '\n';
    return 1;
  }
  io.out << text;
  return 0;
}

}  // namespace

int kafka_metadata_quorum(tool_args args, tool_io io) {
  cli::arg_values v;
  cli::arg_error parse_error;
  const cli::arg_parser parser = metadata_quorum_parser();  // outlives parse_error, which points into it
  if (!parser.parse(args, &v, &parse_error)) return report_parse_failure(parse_error, io);

  property_list props;
  std::string error;
  if (auto path = v.value("command_config")) {
    if (!std::filesystem::exists(*path)) {
      io.err << "Properties file " << *path << " does not exists!\n";
      return 1;
    }
    if (!load_properties_file(*path, &props, &error)) {
      io.err << error << '\n';
      return 1;
    }
  }
  // Kafka's Admin.create rejects a malformed address before the checks below.
  std::vector<host_port> addresses;
  const bool controllers = v.has("bootstrap_controller");
  if (!parse_host_ports(v.value(controllers ? "bootstrap_controller" : "bootstrap_server").value_or(""), &addresses,
                        &error)) {
    io.err << "Failed to create new KafkaAdminClient\n" << error << '\n';
    return 1;
  }
  const admin_connector connect = [&](std::string* why) {
    return connect_admin(v.value(controllers ? "bootstrap_controller" : "bootstrap_server"), controllers, props, why);
  };
  if (v.command() == "add-controller")
    return add_controller(connect, props, v.has("dry_run"), v.has("command_config"), io);
  if (v.command() == "remove-controller") return remove_controller(connect, v, io);
  if (!check_describe_flags(v, &error)) {
    io.err << error << '\n';
    return 1;
  }
  return describe(v, props, io);
}

}  // namespace hw::tools
