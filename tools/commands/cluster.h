#pragma once
// kafka-cluster.sh (Kafka's ClusterTool): cluster-id and list-endpoints from
// DescribeCluster, unregister through UnregisterBroker (a broker forwards it
// to the active controller). The pure parts are here for the unit tests.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/cli/argparse.h"

namespace hw::tools {

cli::arg_parser cluster_parser();

// One row of list-endpoints: a broker (with its fenced state) or a controller.
struct cluster_endpoint {
  int32_t id = -1;
  std::string host;
  int32_t port = 0;
  std::optional<std::string> rack;
  bool fenced = false;
};

// list-endpoints' table as ClusterTool prints it: ID, HOST (as wide as the
// longest host; 100 when there is no row), PORT, RACK (as wide as the longest
// rack given; 10 when none is; "null" where a node has none), STATE for
// brokers only, ENDPOINT_TYPE; columns left-aligned, one space apart.
std::string format_endpoints(const std::vector<cluster_endpoint>& rows, bool controllers);

}  // namespace hw::tools
