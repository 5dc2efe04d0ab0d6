// kafka-metadata-quorum.sh's command line: MetadataQuorumCommand's
// argparse4j-style parsers, with our own help screens (argparse4j's layout
// at 75 columns, as when the output is not a terminal).

#include "tools/commands/metadata_quorum.h"

namespace hw::tools {
namespace {

constexpr const char* k_main_help =
    R"(usage: kafka-metadata-quorum [-h] [--command-config COMMAND_CONFIG]
                             (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             {describe,add-controller,remove-controller}
                             ...

Inspect and change the KRaft metadata quorum.

positional arguments:
  {describe,add-controller,remove-controller}
    describe             Show the state of the metadata quorum
    add-controller       Join a new controller to the KRaft controller set
    remove-controller    Take a controller out of the KRaft controller set

optional arguments:
  -h, --help             Print this help screen and exit.
  --bootstrap-server BOOTSTRAP_SERVER
                         Broker addresses (host:port, comma separated) used
                         to reach the cluster.
  --bootstrap-controller BOOTSTRAP_CONTROLLER
                         Controller addresses (host:port, comma separated)
                         used to reach the controllers directly.
  --command-config COMMAND_CONFIG
                         Properties file with settings for the admin
                         client. add-controller also reads the new
                         controller's own settings from it.
)";

constexpr const char* k_describe_help =
    R"(usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             describe [-h] [--status] [--replication]
                             [--human-readable]

optional arguments:
  -h, --help             Print this help screen and exit.

Status:
  --status               Print a brief overview of the quorum: leader,
                         epoch, offsets and voters.

Replication:
  --replication          Print per-replica replication progress (log end
                         offset, lag, fetch times)
  --human-readable       Show times as relative durations instead of raw
                         timestamps
)";

constexpr const char* k_add_controller_help =
    R"(usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             add-controller [-h] [--dry-run]

optional arguments:
  -h, --help             Print this help screen and exit.
  --dry-run              Show the change that would be made without
                         applying it.
)";

constexpr const char* k_remove_controller_help =
    R"(usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             remove-controller [-h]
                             --controller-id CONTROLLER_ID
                             --controller-directory-id CONTROLLER_DIRECTORY_ID
                             [--dry-run]

optional arguments:
  -h, --help             Print this help screen and exit.
  --controller-id CONTROLLER_ID, -i CONTROLLER_ID
                         Node id of the controller being removed.
  --controller-directory-id CONTROLLER_DIRECTORY_ID, -d CONTROLLER_DIRECTORY_ID
                         Metadata directory id of the controller being
                         removed.
  --dry-run              Show the change that would be made without
                         applying it.
)";

}  // namespace

cli::arg_parser metadata_quorum_parser() {
  const std::string prog = "kafka-metadata-quorum";
  cli::arg_parser describe(prog, k_describe_help);
  describe.store_true({"--status"}).store_true({"--replication"}).store_true({"--human-readable"});

  cli::arg_parser add_controller(prog, k_add_controller_help);
  add_controller.store_true({"--dry-run"});

  cli::arg_parser remove_controller(prog, k_remove_controller_help);
  remove_controller.add({{"--controller-id", "-i"}, cli::arg_option::kind::store, true, true});
  remove_controller.store({"--controller-directory-id", "-d"}, true);
  remove_controller.store_true({"--dry-run"});

  cli::arg_parser main(prog, k_main_help);
  const int bootstrap = main.mutex_group(true);
  main.store({"--bootstrap-server"}, false, bootstrap).store({"--bootstrap-controller"}, false, bootstrap);
  main.store({"--command-config"});
  main.command("describe", describe).command("add-controller", add_controller);
  main.command("remove-controller", remove_controller);
  return main;
}

}  // namespace hw::tools
