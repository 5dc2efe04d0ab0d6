#pragma once
// A reader of Java .properties text (what Kafka's server.properties is):
// '#' and '!' comment lines, "key=value", "key: value" and "key value",
// backslash line continuation, and the escapes \t \n \r \f \uXXXX and \c -> c.
// Bytes outside ASCII pass through unchanged (files are taken as UTF-8, where
// Java would read ISO-8859-1); \uXXXX escapes are written out as UTF-8.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hw::config {

struct property {
  std::string key;
  std::string value;
  int line = 0;  // 1-based line where the entry starts
};

struct properties_result {
  std::vector<property> entries;  // in file order; a repeated key appears twice
  std::vector<std::string> errors;  // e.g. a malformed \u escape, with its line
};

properties_result parse_properties(std::string_view text);

}  // namespace hw::config
