#include "tools/cli/options.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

namespace hw::tools::cli {
namespace {

// Whether joptsimple's Long converter (Long.valueOf) takes the word, as its
// canConvertArgument asks: an optional sign, ASCII digits, in range. An
// empty word has no value to convert and passes.
bool converts_to_long(std::string_view text) {
  if (text.empty()) return true;
  const bool negative = text[0] == '-';
  if (text[0] == '-' || text[0] == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  uint64_t value = 0;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (value > (limit - d) / 10) return false;
    value = value * 10 + d;
  }
  return true;
}

}  // namespace

std::optional<std::string> option_set::value(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

std::string option_set::value_or(std::string_view name, std::string fallback) const {
  auto v = value(name);
  return v ? *v : std::move(fallback);
}

std::vector<std::string> option_set::values(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

option_parser& option_parser::flag(std::string name, std::string help) {
  specs_.push_back({std::move(name), false, true, false, false, {}, std::move(help)});
  return *this;
}

option_parser& option_parser::option(std::string name, std::string value_name, std::string help) {
  specs_.push_back({std::move(name), true, true, false, false, std::move(value_name), std::move(help)});
  return *this;
}

option_parser& option_parser::optional(std::string name, std::string value_name, std::string help) {
  specs_.push_back({std::move(name), true, true, true, false, std::move(value_name), std::move(help)});
  return *this;
}

option_parser& option_parser::optional_long(std::string name, std::string value_name, std::string help) {
  specs_.push_back({std::move(name), true, true, true, true, std::move(value_name), std::move(help)});
  return *this;
}

option_parser& option_parser::unsupported(std::string name, bool takes_value) {
  specs_.push_back({std::move(name), takes_value, false, false, false, {}, {}});
  return *this;
}

const option_parser::spec* option_parser::find(std::string_view name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

bool option_parser::parse(std::span<const std::string> args, option_set* out, std::string* error) const {
  *out = option_set{};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    // "--" ends the options; a lone "-" and anything without dashes is an argument.
    if (arg == "--") {
      out->non_options_.insert(out->non_options_.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      out->non_options_.push_back(arg);
      continue;
    }
    std::string_view body = std::string_view(arg).substr(arg[1] == '-' ? 2 : 1);
    std::optional<std::string> inline_value;
    if (auto eq = body.find('='); eq != std::string_view::npos) {
      inline_value = std::string(body.substr(eq + 1));
      body = body.substr(0, eq);
    }
    const spec* s = find(body);
    if (!s) {
      *error = std::string(body) + " is not a recognized option";
      return false;
    }
    if (!s->supported) {
      *error = "Option --" + s->name + " is not supported by this native tool";
      return false;
    }
    auto& slot = out->values_[s->name];
    if (!s->takes_value) continue;  // joptsimple drops a flag's "=value" without a word
    if (inline_value) {
      slot.push_back(*inline_value);
    } else if (s->value_optional) {
      const bool next_is_option = i + 1 < args.size() && args[i + 1].size() > 1 && args[i + 1][0] == '-';
      const bool taken = s->value_long ? i + 1 < args.size() && converts_to_long(args[i + 1])
                                       : i + 1 < args.size() && !next_is_option;
      if (taken) slot.push_back(args[++i]);
    } else if (i + 1 < args.size()) {
      slot.push_back(args[++i]);
    } else {
      *error = "Option " + s->name + " requires an argument";
      return false;
    }
  }
  return true;
}

std::string option_parser::usage() const {
  std::vector<const spec*> shown;
  for (const auto& s : specs_)
    if (s.supported) shown.push_back(&s);
  std::sort(shown.begin(), shown.end(), [](const spec* a, const spec* b) { return a->name < b->name; });
  std::vector<std::string> left;
  size_t width = 6;
  for (const spec* s : shown) {
    std::string l = "--" + s->name;
    if (s->takes_value) l += s->value_optional ? " [" + s->value_name + "]" : " <" + s->value_name + ">";
    width = std::max(width, l.size());
    left.push_back(std::move(l));
  }
  width += 2;
  std::ostringstream out;
  auto line = [&](const std::string& a, const std::string& b) {
    out << a << std::string(width - a.size(), ' ') << b << '\n';
  };
  line("Option", "Description");
  line("------", "-----------");
  for (size_t i = 0; i < shown.size(); ++i) {
    // Help texts keep their own line breaks, each continuation indented under the first.
    std::istringstream help(shown[i]->help);
    std::string first, more;
    std::getline(help, first);
    line(left[i], first);
    while (std::getline(help, more)) line("", "  " + more);
  }
  return out.str();
}

bool split_key_value(std::string_view text, std::string* key, std::string* value) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos) return false;
  *key = std::string(text.substr(0, eq));
  *value = std::string(text.substr(eq + 1));
  return true;
}

}  // namespace hw::tools::cli
