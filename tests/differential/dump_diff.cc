#include "dump_diff.h"

#include <map>

namespace hw::testing::differential {
namespace {

const char* const k_absent = "(absent)";

const allowed* find_rule(const allowlist& allow, const std::string& path) {
  for (const auto& a : allow)
    if (path_matches(a.pattern, path)) return &a;
  return nullptr;
}

bool empty(const std::string& v) { return v == "null" || v == "\"\""; }

bool acceptable(const allowed* rule, const std::string* kafka, const std::string* highwater) {
  if (kafka && highwater && *kafka == *highwater) return true;
  if (!rule) return false;
  switch (rule->how) {
    case allowed::rule::any_value:
      return kafka && highwater;
    case allowed::rule::same_nullness:
      return kafka && highwater && ((*kafka == "null") == (*highwater == "null"));
    case allowed::rule::same_emptiness:
      return kafka && highwater && (empty(*kafka) == empty(*highwater));
    case allowed::rule::may_be_absent:
      return true;
  }
  return false;
}

}  // namespace

bool path_matches(const std::string& pattern, const std::string& path) {
  // Iterative glob with `*` only: remember the last star and retry from it.
  size_t p = 0, s = 0, star = std::string::npos, mark = 0;
  while (s < path.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = s;
    } else if (p < pattern.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
    } else if (star != std::string::npos) {
      p = star + 1;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<difference> compare(const dump_lines& kafka, const dump_lines& highwater, const allowlist& allow) {
  std::map<std::string, const std::string*> hw_by_path;
  for (const auto& l : highwater) hw_by_path.emplace(l.path, &l.value);
  std::map<std::string, bool> kafka_paths;
  std::vector<difference> out;
  for (const auto& l : kafka) {
    kafka_paths[l.path] = true;
    auto it = hw_by_path.find(l.path);
    const std::string* hw = it == hw_by_path.end() ? nullptr : it->second;
    if (!acceptable(find_rule(allow, l.path), &l.value, hw)) out.push_back({l.path, l.value, hw ? *hw : k_absent});
  }
  for (const auto& l : highwater) {
    if (kafka_paths.count(l.path)) continue;
    if (!acceptable(find_rule(allow, l.path), nullptr, &l.value)) out.push_back({l.path, k_absent, l.value});
  }
  return out;
}

std::string render(const std::vector<difference>& diffs, size_t max_lines) {
  std::string out;
  for (size_t i = 0; i < diffs.size() && i < max_lines; ++i)
    out += "  " + diffs[i].path + ": kafka=" + diffs[i].kafka + " highwater=" + diffs[i].highwater + "\n";
  if (diffs.size() > max_lines) out += "  ... and " + std::to_string(diffs.size() - max_lines) + " more\n";
  return out;
}

std::string render(const dump_lines& lines, size_t max_lines) {
  std::string out;
  for (size_t i = 0; i < lines.size() && i < max_lines; ++i) out += "  " + lines[i].path + " = " + lines[i].value + "\n";
  if (lines.size() > max_lines) out += "  ... and " + std::to_string(lines.size() - max_lines) + " more lines\n";
  return out;
}

}  // namespace hw::testing::differential
