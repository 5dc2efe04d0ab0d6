#pragma once
// Compares two dumps of the same API answer (Kafka's and Highwater's) field
// by field, with an allowlist of paths allowed to differ, and renders the
// differences readably. Pure functions.

#include <string>
#include <vector>

#include "protocol/testing/dump_support.h"

namespace hw::testing::differential {

using protocol::testing::dump_line;
using protocol::testing::dump_lines;

// A path pattern allowed to differ, and why. `*` matches any run of
// characters (dots and brackets included); everything else is literal, so
// `brokers[*].port` names every broker's port and `*topic_id` every topic id.
struct allowed {
  enum class rule {
    any_value,   // the field must exist on both sides; its values may differ
    same_nullness,  // both null, or both non-null with any text (error messages)
    same_emptiness,  // both empty ("" or null), or both non-empty with any text (member ids)
    may_be_absent,  // may exist on one side only (elements of arrays that differ by design)
  };
  std::string pattern;
  rule how = rule::any_value;
  std::string why;
};
// The first pattern that matches a path decides how it is compared.
using allowlist = std::vector<allowed>;

bool path_matches(const std::string& pattern, const std::string& path);

struct difference {
  std::string path;
  std::string kafka;      // "(absent)" when Kafka's answer has no such field
  std::string highwater;  // likewise
};

// The fields that differ and are not allowed to, in Kafka's order (then
// fields only Highwater has).
std::vector<difference> compare(const dump_lines& kafka, const dump_lines& highwater, const allowlist& allow);

// "path: kafka=... highwater=..." lines, at most max_lines of them.
std::string render(const std::vector<difference>& diffs, size_t max_lines = 60);
// "path = value" lines, at most max_lines of them (ctest cuts long output).
std::string render(const dump_lines& lines, size_t max_lines = 80);

}  // namespace hw::testing::differential
