// java_regex: Java's replacement syntax on std::regex.
#include "broker/security/java_regex.h"

#include <cctype>

namespace hw::broker {

namespace {

// Matcher.appendReplacement's expansion of `replacement` for match m.
std::optional<std::string> expand(const std::string& replacement, const std::smatch& m, std::string* error) {
  const size_t groups = m.size() - 1;
  std::string out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c == '\\') {
      if (++i == replacement.size()) {
        *error = "character to be escaped is missing";
        return std::nullopt;
      }
      out += replacement[i];
    } else if (c == '$') {
      if (++i == replacement.size() || !std::isdigit(static_cast<unsigned char>(replacement[i]))) {
        *error = "Illegal group reference";
        return std::nullopt;
      }
      size_t ref = static_cast<size_t>(replacement[i] - '0');
      while (i + 1 < replacement.size() && std::isdigit(static_cast<unsigned char>(replacement[i + 1]))) {
        const size_t next = ref * 10 + static_cast<size_t>(replacement[i + 1] - '0');
        if (next > groups) break;
        ref = next;
        ++i;
      }
      if (ref > groups) {
        *error = "No group " + std::to_string(ref);
        return std::nullopt;
      }
      if (m[ref].matched) out += m[ref].str();
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

bool java_only_regex_syntax(const std::string& pattern) {
  return pattern.find("\\Q") != std::string::npos || pattern.find("(?<") != std::string::npos ||
         pattern.find("*+") != std::string::npos || pattern.find("++") != std::string::npos ||
         pattern.find("?+") != std::string::npos;
}

std::optional<std::string> java_replace(const std::string& subject, const std::regex& pattern,
                                        const std::string& replacement, bool all, std::string* error) {
  std::string out;
  auto last = subject.cbegin();
  for (std::sregex_iterator it(subject.begin(), subject.end(), pattern), end; it != end; ++it) {
    const std::smatch& m = *it;
    out.append(last, m[0].first);
    auto expanded = expand(replacement, m, error);
    if (!expanded) return std::nullopt;
    out += *expanded;
    last = m[0].second;
    if (!all) break;
  }
  out.append(last, subject.cend());
  return out;
}

}  // namespace hw::broker
