// highwater-tools: Kafka's command-line tools, native (tools/README.md).
//   kafka-topics.sh --bootstrap-server localhost:9092 --list     (called through a link)
//   highwater-tools kafka-topics.sh --bootstrap-server ...       (the tool named first)

#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "tools/commands/tools.h"

namespace {

struct tool_entry {
  const char* name;
  int (*run)(hw::tools::tool_args, hw::tools::tool_io);
};

constexpr tool_entry tools[] = {
    {"kafka-topics.sh", hw::tools::kafka_topics},
    {"kafka-metadata-quorum.sh", hw::tools::kafka_metadata_quorum},
    {"kafka-features.sh", hw::tools::kafka_features},
    {"kafka-storage.sh", hw::tools::kafka_storage},
    {"kafka-consumer-groups.sh", hw::tools::kafka_consumer_groups},
    {"kafka-get-offsets.sh", hw::tools::kafka_get_offsets},
    {"kafka-console-producer.sh", hw::tools::kafka_console_producer},
    {"kafka-console-consumer.sh", hw::tools::kafka_console_consumer},
    {"kafka-configs.sh", hw::tools::kafka_configs},
    {"kafka-leader-election.sh", hw::tools::kafka_leader_election},
    {"kafka-transactions.sh", hw::tools::kafka_transactions},
    {"kafka-dump-log.sh", hw::tools::kafka_dump_log},
    {"kafka-acls.sh", hw::tools::kafka_acls},
    {"kafka-delegation-tokens.sh", hw::tools::kafka_delegation_tokens},
    {"kafka-cluster.sh", hw::tools::kafka_cluster},
};

const tool_entry* find_tool(std::string_view name) {
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name = name.substr(slash + 1);
  for (const auto& t : tools)
    if (t.run && name == t.name) return &t;
  return nullptr;
}

int list_tools(std::ostream& err) {
  err << "usage: highwater-tools <tool> [options], or through a link named like the tool; tools:\n";
  for (const auto& t : tools)
    if (t.run) err << "  " << t.name << '\n';
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error, not a kill
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  const tool_entry* tool = find_tool(argc > 0 ? argv[0] : "");
  if (!tool) {
    if (args.empty()) return list_tools(std::cerr);
    tool = find_tool(args.front());
    if (!tool) {
      std::cerr << "highwater-tools: no tool named " << args.front() << '\n';
      return list_tools(std::cerr);
    }
    args.erase(args.begin());
  }
  hw::tools::tool_io io{std::cout, std::cerr};
  int status = tool->run(args, io);
  std::cout.flush();
  return status;
}
