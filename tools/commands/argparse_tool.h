#pragma once
// How the argparse4j-based tools end on a bad command line.

#include <cctype>
#include <ostream>
#include <string>
#include <string_view>

#include "tools/cli/argparse.h"
#include "tools/commands/command.h"

namespace hw::tools {

// As MetadataQuorumCommand and StorageTool do (argparse4j's handleError):
// --help prints the help screen, exit 0; a parse error prints the usage and
// the error to stderr, exit 1; an option or command the native tool refuses
// is named on stderr, exit 1.
inline int report_parse_failure(const cli::arg_error& e, tool_io io) {
  switch (e.what) {
    case cli::arg_error::kind::help:
      io.out << e.parser->help();
      return 0;
    case cli::arg_error::kind::unsupported:
      io.err << e.message << '\n';
      return 1;
    case cli::arg_error::kind::version:
      io.out << kafka_tools_version << '\n';
      return 0;
    case cli::arg_error::kind::usage:
      io.err << cli::format_arg_error(e);
      return 1;
  }
  return 1;
}

// Kafka's client message for an API the broker does not advertise: "The
// node does not support UPDATE_FEATURES", from a request's schema name
// ("UpdateFeaturesRequest").
inline std::string node_does_not_support(std::string_view request_name) {
  if (request_name.ends_with("Request")) request_name.remove_suffix(7);
  std::string api;
  for (size_t i = 0; i < request_name.size(); ++i) {
    const char c = request_name[i];
    if (i > 0 && std::isupper(static_cast<unsigned char>(c))) api += '_';
    api += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return admin_client::unsupported_prefix + api;
}

}  // namespace hw::tools
