#include "controller/topic_name.h"

#include <algorithm>

namespace hw::controller {

namespace {

bool legal_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

}  // namespace

std::optional<std::string> invalid_topic_name(std::string_view name) {
  std::string why;
  if (name.empty()) {
    why = "the empty string is not allowed";
  } else if (name == ".") {
    why = "'.' is not allowed";
  } else if (name == "..") {
    why = "'..' is not allowed";
  } else if (name.size() > max_topic_name_length) {
    why = "the length of '" + std::string(name) + "' is longer than the max allowed length 249";
  } else if (!std::all_of(name.begin(), name.end(), legal_char)) {
    why = "'" + std::string(name) +
          "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'";
  } else {
    return std::nullopt;
  }
  return "Topic name is invalid: " + why;
}

bool has_collision_chars(std::string_view name) {
  return name.find('.') != std::string_view::npos || name.find('_') != std::string_view::npos;
}

std::string unify_collision_chars(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '.', '_');
  return out;
}

bool is_internal_topic(std::string_view name) {
  return name == "__consumer_offsets" || name == "__transaction_state" || name == "__share_group_state";
}

}  // namespace hw::controller
