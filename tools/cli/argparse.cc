#include "tools/cli/argparse.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>

namespace hw::tools::cli {
namespace {

// argparse4j's flagFound: "-x..." but not a negative number ("-1"), and
// not a lone "-" (argparse4j's prefix pattern must leave something).
bool looks_like_flag(const std::string& term) {
  if (term.size() < 2 || term[0] != '-') return false;
  return !std::all_of(term.begin() + 1, term.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool consumes(const arg_option& o) { return o.action == arg_option::kind::store || o.action == arg_option::kind::append; }

// Integer.valueOf, Long.valueOf or Short.valueOf (bits 32, 64, 16): an
// optional sign and decimal digits, within the type's range; else the
// message of the NumberFormatException Java throws.
bool java_number(const std::string& text, int bits, std::string* error) {
  std::string_view s = text;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  long long v = 0;
  const bool digits = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  auto [p, ec] = std::from_chars(text.data() + (!text.empty() && text[0] == '+' ? 1 : 0), text.data() + text.size(), v);
  const bool fits_long = digits && ec == std::errc{} && p == text.data() + text.size();
  const bool fits_int = fits_long && v >= -2147483648LL && v <= 2147483647LL;
  if (bits == 64 ? fits_long : fits_int) {
    if (bits != 16 || (v >= -32768 && v <= 32767)) return true;
    *error = "Value out of range. Value:\"" + text + "\" Radix:10";  // Short.parseShort
    return false;
  }
  *error = "For input string: \"" + text + "\"";
  return false;
}

const char* java_number_type(int bits) { return bits == 64 ? "Long" : bits == 16 ? "Short" : "Integer"; }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Where Java's line BreakIterator lets ASCII text break, as segments.
std::vector<std::string_view> line_segments(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t p = 1; p < s.size(); ++p) {
    const char before = s[p - 1], at = s[p];
    const bool after_space = before == ' ' && at != ' ';
    const bool after_dash = before == '-' && is_alnum(at);
    const bool after_word_end = (before == '.' || before == '"' || before == '\'') && is_alpha(at) && p >= 2 &&
                                (is_alpha(s[p - 2]) || s[p - 2] == '=');
    if (before == '\n' || after_space || after_dash || after_word_end) {
      out.push_back(s.substr(start, p - start));
      start = p;
    }
  }
  if (start < s.size()) out.push_back(s.substr(start));
  return out;
}

// TextHelper.adjustSpace: trims the line and spreads the missing width over
// its runs of spaces, the odd ones to the middle runs.
std::string adjust_space(std::string sb, int width, int current) {
  const size_t original = sb.size();
  const size_t first = sb.find_first_not_of(' ');
  sb = first == std::string::npos ? std::string() : sb.substr(first, sb.find_last_not_of(' ') - first + 1);
  current -= static_cast<int>(original - sb.size());
  int blocks = 0;
  for (size_t i = 0; i < sb.size(); ++i)
    if (sb[i] == ' ' && (i == 0 || sb[i - 1] != ' ')) ++blocks;
  if (blocks == 0) return sb;
  const int need = width - current;
  const int each = need / blocks, rem = need % blocks;
  const int rem_start = (blocks - rem + 1) / 2, rem_end = rem_start + rem;
  std::string out;
  int b = 0;
  for (size_t i = 0; i < sb.size(); ++i) {
    if (sb[i] == ' ' && (i == 0 || sb[i - 1] != ' ')) {
      const int add = each + (rem_start <= b && b < rem_end ? 1 : 0);
      out.append(static_cast<size_t>(std::max(add, 0)), ' ');
      ++b;
    }
    out += sb[i];
  }
  return out;
}

// git's weighted Damerau-Levenshtein distance, as argparse4j computes it.
int levenshtein(const std::string& a, const std::string& b, int swap, int sub, int add, int del) {
  std::vector<std::vector<int>> dp(3, std::vector<int>(b.size() + 1));
  for (size_t i = 0; i <= b.size(); ++i) dp[1][i] = static_cast<int>(i);
  for (size_t i = 1; i <= a.size(); ++i) {
    dp[0][0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      dp[0][j] = dp[1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : sub);
      if (i >= 2 && j >= 2 && a[i - 1] != b[j - 1] && a[i - 2] == b[j - 1] && a[i - 1] == b[j - 2])
        dp[0][j] = std::min(dp[0][j], dp[2][j - 2] + swap);
      dp[0][j] = std::min(dp[0][j], std::min(dp[1][j] + del, dp[0][j - 1] + add));
    }
    std::rotate(dp.begin(), dp.begin() + 2, dp.end());  // rows 0,1,2 become the old 2,0,1
  }
  return dp[1][b.size()];
}

}  // namespace

std::string arg_option::textual_name() const { return join(flags, "/"); }

std::string arg_option::dest() const {
  std::string name = flags.front();
  for (const auto& f : flags)
    if (f.rfind("--", 0) == 0) {
      name = f;
      break;
    }
  name.erase(0, name.find_first_not_of('-'));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::optional<std::string> arg_values::value(std::string_view dest) const {
  auto it = values_.find(dest);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> arg_values::values(std::string_view dest) const {
  auto it = values_.find(dest);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

arg_parser::arg_parser(std::string prog, std::string help) : prog_(std::move(prog)), help_(std::move(help)) {
  add({{"-h", "--help"}, arg_option::kind::help});
}

arg_parser& arg_parser::add(arg_option option) {
  options_.push_back(std::move(option));
  return *this;
}

arg_parser& arg_parser::store_true(std::vector<std::string> flags, int group) {
  return add({std::move(flags), arg_option::kind::store_true, false, false, true, group});
}

arg_parser& arg_parser::store(std::vector<std::string> flags, bool required, int group) {
  return add({std::move(flags), arg_option::kind::store, required, false, true, group});
}

arg_parser& arg_parser::append(std::vector<std::string> flags, bool required) {
  return add({std::move(flags), arg_option::kind::append, required});
}

arg_parser& arg_parser::unsupported(std::vector<std::string> flags, arg_option::kind action) {
  return add({std::move(flags), action, false, false, false});
}

int arg_parser::mutex_group(bool required) {
  group_required_.push_back(required);
  return static_cast<int>(group_required_.size()) - 1;
}

arg_parser& arg_parser::command(std::string name, arg_parser sub, bool supported) {
  commands_.emplace_back(std::move(name), std::move(sub));
  command_supported_.push_back(supported);
  return *this;
}

arg_parser& arg_parser::from_file_prefix(char prefix) {
  from_file_ = prefix;
  return *this;
}

std::string arg_parser::usage() const {
  const size_t end = help_.find("\n\n");
  return end == std::string::npos ? help_ : help_.substr(0, end + 1);
}

struct arg_parser::state {
  std::vector<std::string> args;
  size_t index = 0;
  bool consumed_separator = false;
  char from_file = 0;
  const arg_parser* root = nullptr;
  std::optional<arg_error> deferred;  // required options missing: reported after the whole line
  // Replaces "@file" at the current position by the file's lines.
  bool expand(const arg_parser& parser, arg_error* error) {
    while (from_file && index < args.size() && args[index].size() > 1 && args[index][0] == from_file) {
      const std::string file = args[index].substr(1);
      std::ifstream in(file);
      if (!in) return parser.fail(error, "Could not read arguments from file '" + file + "'");
      std::vector<std::string> lines;
      for (std::string line; std::getline(in, line);) lines.push_back(line);
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(index));
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(index), lines.begin(), lines.end());
    }
    return true;
  }
};

bool arg_parser::fail(arg_error* error, std::string message) const {
  error->what = arg_error::kind::usage;
  error->parser = this;
  error->message = std::move(message);
  error->candidates.clear();
  return false;
}

bool arg_parser::parse(std::span<const std::string> args, arg_values* out, arg_error* error) const {
  *out = arg_values{};
  state st;
  st.args.assign(args.begin(), args.end());
  st.from_file = from_file_;
  st.root = this;
  if (!parse_level(st, out, error)) return false;
  if (st.deferred) {
    *error = *st.deferred;
    return false;
  }
  for (size_t i = 0; i < commands_.size(); ++i) {
    if (commands_[i].first != out->command_ || command_supported_[i]) continue;
    error->what = arg_error::kind::unsupported;
    error->parser = this;
    error->message = "Command " + commands_[i].first + " is not supported by this native tool";
    return false;
  }
  return true;
}

bool arg_parser::parse_level(state& st, arg_values* out, arg_error* error) const {
  std::vector<bool> used(options_.size(), false);
  std::vector<int> group_used(group_required_.size(), -1);
  while (st.index < st.args.size()) {
    if (!st.expand(*this, error)) return false;
    if (st.index >= st.args.size()) break;
    const std::string term = st.args[st.index];
    if (!st.consumed_separator && looks_like_flag(term)) {
      if (!take_option(st, term, out, used, group_used, error)) return false;
    } else if (term == "--" && !st.consumed_separator) {
      st.consumed_separator = true;
      ++st.index;
    } else if (!commands_.empty() && !st.consumed_separator) {
      check_required(st, used, group_used);
      return take_command(st, out, error);
    } else {
      std::vector<std::string> rest(st.args.begin() + static_cast<std::ptrdiff_t>(st.index), st.args.end());
      return fail(error, "unrecognized arguments: '" + join(rest, " ") + "'");
    }
  }
  if (!commands_.empty()) return fail(error, "too few arguments");
  check_required(st, used, group_used);
  return true;
}

int arg_parser::resolve(const std::string& flag, arg_error* error) const {
  std::vector<std::pair<std::string, int>> candidates;
  for (size_t i = 0; i < options_.size(); ++i)
    for (const auto& f : options_[i].flags) {
      if (f == flag) return static_cast<int>(i);
      if (f.rfind(flag, 0) == 0) candidates.emplace_back(f, static_cast<int>(i));
    }
  if (candidates.empty()) return -1;
  if (candidates.size() == 1 && !(flag.size() > 1 && flag[1] != '-')) return candidates.front().second;
  std::vector<std::string> names;
  for (const auto& c : candidates) names.push_back(c.first);
  if (flag.size() > 1 && flag[1] != '-') names.push_back(flag.substr(0, 2));
  std::sort(names.begin(), names.end());
  fail(error, "ambiguous option: " + flag + " could match " + join(names, ", "));
  return -2;
}

bool arg_parser::take_option(state& st, const std::string& term, arg_values* out, std::vector<bool>& used,
                             std::vector<int>& group_used, arg_error* error) const {
  const size_t eq = term.find('=');
  std::string flag = term.substr(0, eq);
  std::optional<std::string> embedded;
  if (eq != std::string::npos) embedded = term.substr(eq + 1);
  int index = resolve(flag, error);
  if (index == -2) return false;
  if (index < 0) {
    // Concatenated short options ("-gs", "-cFILE"); anything else is unknown.
    embedded.reset();
    bool found = term[1] != '-';
    for (size_t i = 1; found && i < term.size(); ++i) {
      const std::string short_flag = std::string("-") + term[i];
      int k = -1;
      for (size_t j = 0; j < options_.size() && k < 0; ++j)
        if (std::find(options_[j].flags.begin(), options_[j].flags.end(), short_flag) != options_[j].flags.end())
          k = static_cast<int>(j);
      if (k < 0) {
        found = false;
        break;
      }
      if (consumes(options_[k])) {
        flag = short_flag;
        index = k;
        if (term.size() > i + 1) embedded = term.substr(i + 1);
        break;
      }
      if (!run_option(st, static_cast<size_t>(k), short_flag, std::nullopt, out, used, group_used, error)) return false;
    }
    if (!found) {
      fail(error, "unrecognized arguments: '" + term + "'");
      const std::string body = term.substr(term.find_first_not_of('-'));
      if (body.size() >= 2) error->candidates = flag_candidates(body);
      return false;
    }
  }
  ++st.index;
  if (index < 0) return true;
  return run_option(st, static_cast<size_t>(index), flag, embedded, out, used, group_used, error);
}

bool arg_parser::run_option(state& st, size_t index, const std::string&, std::optional<std::string> embedded,
                            arg_values* out, std::vector<bool>& used, std::vector<int>& group_used,
                            arg_error* error) const {
  const arg_option& o = options_[index];
  const std::string name = o.textual_name();
  if (o.group >= 0) {
    int& first = group_used[static_cast<size_t>(o.group)];
    if (first < 0) first = static_cast<int>(index);
    else if (first != static_cast<int>(index))
      return fail(error, "argument " + name + ": not allowed with argument " + options_[static_cast<size_t>(first)].textual_name());
  }
  if (o.action == arg_option::kind::help || o.action == arg_option::kind::version) {
    error->what = o.action == arg_option::kind::help ? arg_error::kind::help : arg_error::kind::version;
    error->parser = this;
    return false;
  }
  if (!o.supported) {
    error->what = arg_error::kind::unsupported;
    error->parser = this;
    error->message = "Option " + o.flags.front() + " is not supported by this native tool";
    return false;
  }
  if (o.action == arg_option::kind::store_true) {
    if (embedded) return fail(error, "argument " + name + ": ignore implicit argument '" + *embedded + "'");
    out->values_[o.dest()] = {"true"};
  } else {
    if (!embedded) {
      if (!st.expand(*this, error)) return false;
      if (st.index < st.args.size() && !looks_like_flag(st.args[st.index]) &&
          !(st.args[st.index] == "--" && !st.consumed_separator))
        embedded = st.args[st.index++];
    }
    if (!embedded) return fail(error, "argument " + name + ": expected one argument");
    std::string number_error;
    if (o.integer && !java_number(*embedded, o.bits, &number_error))
      return fail(error, "argument " + name + ": could not convert '" + *embedded + "' to " + java_number_type(o.bits) +
                             " (" + number_error + ")");
    auto& slot = out->values_[o.dest()];
    if (o.action == arg_option::kind::store) slot.clear();
    slot.push_back(*embedded);
  }
  used[index] = true;
  return true;
}

void arg_parser::check_required(state& st, const std::vector<bool>& used, const std::vector<int>& group_used) const {
  if (st.deferred) return;
  arg_error e;
  e.parser = this;
  // argparse4j reports the last missing one.
  for (size_t i = 0; i < options_.size(); ++i)
    if (options_[i].required && !used[i]) e.message = "argument " + options_[i].textual_name() + " is required";
  if (e.message.empty()) {
    for (size_t g = 0; g < group_required_.size(); ++g) {
      if (!group_required_[g] || group_used[g] >= 0) continue;
      std::string names;
      for (const auto& o : options_)
        if (o.group == static_cast<int>(g)) names += o.textual_name() + " ";
      e.message = "one of the arguments " + names + "is required";
    }
  }
  if (!e.message.empty()) st.deferred = e;
}

bool arg_parser::take_command(state& st, arg_values* out, arg_error* error) const {
  const std::string& given = st.args[st.index];
  const std::pair<std::string, arg_parser>* chosen = nullptr;
  std::vector<std::string> prefixed;
  for (const auto& c : commands_) {
    if (c.first == given) chosen = &c;
    if (!given.empty() && c.first.rfind(given, 0) == 0) prefixed.push_back(c.first);
  }
  if (!chosen && prefixed.size() > 1) {
    std::sort(prefixed.begin(), prefixed.end());
    return st.root->fail(error, "ambiguous command: " + given + " could match " + join(prefixed, ", "));
  }
  if (!chosen && prefixed.size() == 1)
    for (const auto& c : commands_)
      if (c.first == prefixed.front()) chosen = &c;
  if (!chosen) {
    std::vector<std::string> quoted;
    std::vector<std::pair<std::string, std::string>> subjects;
    for (const auto& c : commands_) {
      quoted.push_back("'" + c.first + "'");
      subjects.emplace_back(c.first, c.first);
    }
    st.root->fail(error, "invalid choice: '" + given + "' (choose from " + join(quoted, ", ") + ")");
    error->candidates = did_you_mean(given, subjects);
    return false;
  }
  ++st.index;
  out->command_ = chosen->first;
  return chosen->second.parse_level(st, out, error);
}

std::string arg_parser::flag_candidates(const std::string& body) const {
  std::vector<std::pair<std::string, std::string>> subjects;
  for (const auto& o : options_)
    for (const auto& f : o.flags) {
      std::string b = f.substr(f.find_first_not_of('-'));
      if (b.size() > 1) subjects.emplace_back(f, b);
    }
  return did_you_mean(body, subjects);
}

std::string did_you_mean(const std::string& body, const std::vector<std::pair<std::string, std::string>>& subjects) {
  std::vector<std::pair<int, std::string>> candidates;
  for (const auto& [subject, subject_body] : subjects)
    candidates.emplace_back(subject_body.rfind(body, 0) == 0 ? 0 : levenshtein(body, subject_body, 0, 2, 1, 4), subject);
  if (candidates.empty()) return {};
  std::sort(candidates.begin(), candidates.end());
  const int threshold = candidates.front().first;
  if (threshold >= 7) return {};
  std::string out = "\nDid you mean:\n";
  for (const auto& [similarity, subject] : candidates) {
    if (similarity > threshold) break;
    out += "\t" + subject + "\n";
  }
  return out;
}

std::string java_wrap(std::string_view text, size_t width) {
  std::string result, line;
  int current = 0;
  const int w = static_cast<int>(width);
  for (std::string_view sub : line_segments(text)) {
    const int sub_width = static_cast<int>(sub.size());
    current += sub_width;
    if (current > w) {
      result += adjust_space(line, w, current - sub_width) + "\n";
      line.clear();
      current = sub_width;
    }
    line += sub;
    if (!sub.empty() && sub.back() == '\n') {
      result += line;
      line.clear();
      current = 0;
    }
  }
  return result + line;
}

std::string format_arg_error(const arg_error& error) {
  const arg_parser& p = *error.parser;
  return p.usage() + java_wrap(p.prog() + ": error: " + error.message + "\n", 75) + error.candidates;
}

}  // namespace hw::tools::cli
