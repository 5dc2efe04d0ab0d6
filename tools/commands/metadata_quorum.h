#pragma once
// kafka-metadata-quorum.sh (Kafka's MetadataQuorumCommand): describe
// --status and describe --replication through DescribeQuorum, sent to any
// broker (--bootstrap-server) or to the active controller
// (--bootstrap-controller), as Kafka's admin client routes it;
// add-controller and remove-controller through AddRaftVoter and
// RemoveRaftVoter (metadata_quorum_voters.cc).

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>


#include "tools/cli/argparse.h"
#include "tools/commands/command.h"
#include "tools/commands/metadata_quorum_format.h"

namespace hw::tools {

// The command line with Kafka's options, sub-commands and help screens.
cli::arg_parser metadata_quorum_parser();

// The admin client, connected when a command first needs it (Kafka's is
// lazy: a dry run or a bad configuration never connects); nullptr with the
// reason.
using admin_connector = std::function<std::unique_ptr<admin_client>(std::string* error)>;

// add-controller: the controller of `props` (the --command-config file, its
// own configuration) added as a voter; has_config says the file was given.
int add_controller(const admin_connector& connect, const std::vector<std::pair<std::string, std::string>>& props,
                   bool dry_run, bool has_config, tool_io io);
// remove-controller --controller-id --controller-directory-id.
int remove_controller(const admin_connector& connect, const cli::arg_values& v, tool_io io);

}  // namespace hw::tools
