#pragma once
// How ListGroups compares its state and type filters with the groups':
// case-insensitively, surrounding blanks ignored (Kafka lower-cases and
// trims them).

#include <cctype>
#include <string>
#include <string_view>

namespace hw::broker::group {

inline std::string lower_trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace hw::broker::group
