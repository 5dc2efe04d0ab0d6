// kafka-cluster.sh's command line: ClusterTool's argparse4j parsers, with our
// own help screens in argparse4j's layout at 75 columns (the usage lines,
// which errors repeat, are argparse4j's).

#include "tools/commands/cluster.h"

namespace hw::tools {
namespace {

constexpr const char* k_main_help =
    R"(usage: kafka-cluster [-h] {cluster-id,unregister,list-endpoints} ...

Inspect a Kafka cluster and retire its brokers.

positional arguments:
  {cluster-id,unregister,list-endpoints}
    cluster-id           Print the cluster's id.
    unregister           Remove a broker's registration.
    list-endpoints       Print the endpoints of the brokers or controllers.

optional arguments:
  -h, --help             Print this help screen and exit.
)";

// The options every sub-command has, after its own usage lines.
constexpr const char* k_connection_help =
    R"(
optional arguments:
  -h, --help             Print this help screen and exit.
  --bootstrap-server BOOTSTRAP_SERVER, -b BOOTSTRAP_SERVER
                         Broker addresses (host:port, comma separated) used
                         to reach the cluster.
  --bootstrap-controller BOOTSTRAP_CONTROLLER, -C BOOTSTRAP_CONTROLLER
                         Controller addresses (host:port, comma separated)
                         used to reach the KRaft quorum.
  --config CONFIG        Deprecated: the same as --command-config.
  --command-config COMMAND_CONFIG, -c COMMAND_CONFIG
                         Properties file with settings for the admin
                         client.
)";

constexpr const char* k_cluster_id_usage =
    R"(usage: kafka-cluster cluster-id [-h] [--config CONFIG]
                     [--command-config COMMAND_CONFIG]
                     (--bootstrap-server BOOTSTRAP_SERVER |
                     --bootstrap-controller BOOTSTRAP_CONTROLLER)
)";

constexpr const char* k_unregister_usage =
    R"(usage: kafka-cluster unregister [-h] [--config CONFIG]
                     [--command-config COMMAND_CONFIG] --id ID
                     (--bootstrap-server BOOTSTRAP_SERVER |
                     --bootstrap-controller BOOTSTRAP_CONTROLLER)
)";

constexpr const char* k_unregister_options =
    R"(  --id ID, -i ID         Id of the broker whose registration is removed.
)";

constexpr const char* k_list_endpoints_usage =
    R"(usage: kafka-cluster list-endpoints [-h] [--config CONFIG]
                     [--command-config COMMAND_CONFIG]
                     [--include-fenced-brokers]
                     (--bootstrap-server BOOTSTRAP_SERVER |
                     --bootstrap-controller BOOTSTRAP_CONTROLLER)
)";

constexpr const char* k_list_endpoints_options =
    R"(  --include-fenced-brokers
                         List fenced brokers too (with --bootstrap-server
                         only).
)";

cli::arg_parser with_connection(std::string help) {
  cli::arg_parser p("kafka-cluster", std::move(help));
  const int connection = p.mutex_group(true);
  p.store({"--bootstrap-server", "-b"}, false, connection).store({"--bootstrap-controller", "-C"}, false, connection);
  p.store({"--config"}).store({"--command-config", "-c"});
  return p;
}

}  // namespace

cli::arg_parser cluster_parser() {
  cli::arg_parser cluster_id = with_connection(std::string(k_cluster_id_usage) + k_connection_help);
  cli::arg_parser unregister =
      with_connection(std::string(k_unregister_usage) + k_connection_help + k_unregister_options);
  unregister.add({{"--id", "-i"}, cli::arg_option::kind::store, true, true});
  cli::arg_parser list_endpoints =
      with_connection(std::string(k_list_endpoints_usage) + k_connection_help + k_list_endpoints_options);
  list_endpoints.store_true({"--include-fenced-brokers"});

  cli::arg_parser main("kafka-cluster", k_main_help);
  main.command("cluster-id", cluster_id).command("unregister", unregister).command("list-endpoints", list_endpoints);
  return main;
}

}  // namespace hw::tools
