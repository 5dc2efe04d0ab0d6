#pragma once
// java.lang.String's methods that Kafka's parsing leans on, where the
// result must match Java's byte for byte (JAAS options, principal rules,
// super.users, OAUTHBEARER allow-lists and claims). Pure.

#include <string_view>

namespace hw::protocol {

// String.trim: strips every character up to and including the space
// (control characters too), unlike config::trim's ASCII white space.
inline std::string_view java_trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

}  // namespace hw::protocol
