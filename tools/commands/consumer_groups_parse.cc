// Pure parsing for kafka-consumer-groups.sh: the arguments Kafka's tool reads
// with Java's own parsers (GroupState.parse, SimpleDateFormat,
// Duration.parse), so that the native tool accepts and refuses the same text.

#include <algorithm>
#include <cctype>
#include <regex>

#include "tools/commands/consumer_groups.h"
#include "tools/commands/get_offsets.h"

namespace hw::tools::groups {
namespace {

using get_offsets::java_parse_int;
using get_offsets::java_parse_long;
using get_offsets::java_split;
using get_offsets::java_trim;

const std::pair<group_state, const char*> k_state_names[] = {
    {group_state::unknown, "Unknown"},
    {group_state::preparing_rebalance, "PreparingRebalance"},
    {group_state::completing_rebalance, "CompletingRebalance"},
    {group_state::stable, "Stable"},
    {group_state::dead, "Dead"},
    {group_state::empty, "Empty"},
    {group_state::assigning, "Assigning"},
    {group_state::reconciling, "Reconciling"},
    {group_state::not_ready, "NotReady"},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// ---- SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS" + zone), not lenient ----

struct date_fields {
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0;
  int64_t offset_minutes = 0;
};

// A numeric field: the digits there (as many as follow; the pattern's
// fields never abut), or false.
bool take_number(std::string_view text, size_t* pos, int64_t* out) {
  size_t end = *pos;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  if (end == *pos || end - *pos > 12) return false;  // too long a number is out of every field's range
  *out = std::stoll(std::string(text.substr(*pos, end - *pos)));
  *pos = end;
  return true;
}

bool take_char(std::string_view text, size_t* pos, char c) {
  if (*pos >= text.size() || text[*pos] != c) return false;
  ++*pos;
  return true;
}

bool two_digits(std::string_view text, size_t* pos, int64_t* out) {
  if (*pos + 2 > text.size() || !std::isdigit(static_cast<unsigned char>(text[*pos])) ||
      !std::isdigit(static_cast<unsigned char>(text[*pos + 1])))
    return false;
  *out = (text[*pos] - '0') * 10 + (text[*pos + 1] - '0');
  *pos += 2;
  return true;
}

// The ISO 8601 zone: "Z", or +hh:mm (XXX) / +hh (X).
bool take_zone(std::string_view text, size_t* pos, bool with_minutes, int64_t* offset_minutes) {
  if (take_char(text, pos, 'Z')) {
    *offset_minutes = 0;
    return true;
  }
  if (*pos >= text.size() || (text[*pos] != '+' && text[*pos] != '-')) return false;
  const int sign = text[(*pos)++] == '-' ? -1 : 1;
  int64_t hours = 0, minutes = 0;
  if (!two_digits(text, pos, &hours) || hours > 23) return false;
  if (with_minutes && (!take_char(text, pos, ':') || !two_digits(text, pos, &minutes) || minutes > 59)) return false;
  *offset_minutes = sign * (hours * 60 + minutes);
  return true;
}

bool julian(const date_fields& f) {
  return std::tie(f.year, f.month, f.day) < std::tuple<int64_t, int64_t, int64_t>(1582, 10, 15);
}

int64_t days_in_month(int64_t year, int64_t month, bool julian_calendar) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = julian_calendar ? year % 4 == 0 : (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0));
  return month == 2 && leap ? 29 : days[month - 1];
}

// Days since 1970-01-01 of a Gregorian (or, before 1582-10-15, Julian) date,
// as GregorianCalendar counts them.
int64_t epoch_day(const date_fields& f) {
  const int64_t a = (14 - f.month) / 12, y = f.year + 4800 - a, m = f.month + 12 * a - 3;
  int64_t jdn = f.day + (153 * m + 2) / 5 + 365 * y + y / 4;
  jdn += julian(f) ? -32083 : -y / 100 + y / 400 - 32045;
  return jdn - 2440588;
}

bool parse_with_pattern(std::string_view text, bool zone_minutes, int64_t* epoch_ms) {
  date_fields f;
  size_t pos = 0;
  const bool parsed = take_number(text, &pos, &f.year) && take_char(text, &pos, '-') &&
                      take_number(text, &pos, &f.month) && take_char(text, &pos, '-') &&
                      take_number(text, &pos, &f.day) && take_char(text, &pos, 'T') &&
                      take_number(text, &pos, &f.hour) && take_char(text, &pos, ':') &&
                      take_number(text, &pos, &f.minute) && take_char(text, &pos, ':') &&
                      take_number(text, &pos, &f.second) && take_char(text, &pos, '.') &&
                      take_number(text, &pos, &f.millis) && take_zone(text, &pos, zone_minutes, &f.offset_minutes);
  // What follows the pattern is ignored, as DateFormat.parse ignores it.
  if (!parsed) return false;
  if (f.year < 1 || f.year > 292278994 || f.month < 1 || f.month > 12 || f.day < 1 ||
      f.day > days_in_month(f.year, f.month, julian(f)) || f.hour > 23 || f.minute > 59 || f.second > 59 ||
      f.millis > 999)
    return false;
  *epoch_ms = ((epoch_day(f) * 24 + f.hour) * 60 + f.minute - f.offset_minutes) * 60000 + f.second * 1000 + f.millis;
  return true;
}

}  // namespace

std::string state_name(group_state s) {
  for (const auto& [state, name] : k_state_names)
    if (state == s) return name;
  return "Unknown";
}

group_state parse_state(std::string_view name) {
  const std::string wanted = lower(name);
  for (const auto& [state, text] : k_state_names)
    if (state != group_state::unknown && lower(text) == wanted) return state;
  return group_state::unknown;
}

bool parse_state_list(const std::string& input, std::vector<group_state>* out, std::string* error) {
  out->clear();
  bool valid = true;
  for (const auto& part : java_split(input, ',')) {
    const group_state s = parse_state(java_trim(part));
    valid = valid && s != group_state::unknown && s != group_state::not_ready;
    if (std::find(out->begin(), out->end(), s) == out->end()) out->push_back(s);
  }
  if (valid) return true;
  // Kafka names the valid states from a Set, whose order varies from run to run; this is one of them.
  *error = "Invalid state list '" + input +
           "'. Valid states are: Dead, Empty, PreparingRebalance, CompletingRebalance, Assigning, Stable, Reconciling";
  return false;
}

bool parse_type_list(const std::string& input, std::vector<std::string>* out, std::string* error) {
  out->clear();
  bool valid = true;
  for (const auto& part : java_split(lower(input), ',')) {
    const std::string t = java_trim(part);
    const char* name = t == "classic" ? "Classic" : t == "consumer" ? "Consumer" : nullptr;
    valid = valid && name;
    if (name && std::find(out->begin(), out->end(), name) == out->end()) out->push_back(name);
  }
  if (valid) return true;
  *error = "Invalid types list '" + input + "'. Valid types are: Consumer, Classic";
  return false;
}

bool parse_topic_with_partitions(const std::string& arg, std::vector<topic_partition>* out, std::string* error) {
  const auto parts = java_split(arg, ':');
  if (parts.size() != 2) {
    *error = "Invalid topic arg '" + arg + "', expected topic name and partitions";
    return false;
  }
  for (const auto& p : java_split(parts[1], ',')) {
    int32_t partition = 0;
    if (!java_parse_int(p, &partition)) {
      *error = "Invalid partition '" + p + "' specified in topic arg '" + arg + "''";
      return false;
    }
    out->push_back({parts[0], partition});
  }
  return true;
}

bool parse_datetime(const std::string& input, int64_t* epoch_ms, std::string* error) {
  const auto parts = java_split(input, 'T');
  if (parts.size() < 2) {
    *error = "java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format";
    return false;
  }
  std::string text = input;
  if (parts[1].find_first_of("+-Z") == std::string::npos) text += "Z";
  if (parse_with_pattern(text, true, epoch_ms) || parse_with_pattern(text, false, epoch_ms)) return true;
  *error = "java.text.ParseException: Unparseable date: \"" + text + "\"";
  return false;
}

bool parse_duration(const std::string& text, __int128* nanos) {
  static const std::regex pattern(
      "([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?",
      std::regex::ECMAScript | std::regex::icase);
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return false;
  if (m[3].matched && m[3].length() == 1) return false;  // a "T" with nothing after it
  if (!m[2].matched && !m[4].matched && !m[5].matched && !m[6].matched) return false;
  __int128 total = 0;
  const std::pair<int, int64_t> units[] = {{2, 86400}, {4, 3600}, {5, 60}, {6, 1}};
  for (const auto& [group, seconds] : units) {
    if (!m[group].matched) continue;
    int64_t v = 0;
    if (!java_parse_long(m[group].str(), &v)) return false;
    total += static_cast<__int128>(v) * seconds * 1000000000;
  }
  if (m[7].matched && m[7].length() > 0) {
    std::string digits = m[7].str();
    digits.append(9 - digits.size(), '0');
    const __int128 fraction = std::stoll(digits);
    total += m[6].str().front() == '-' ? -fraction : fraction;
  }
  if (m[1].str() == "-") total = -total;
  const __int128 limit = static_cast<__int128>(INT64_MAX) * 1000000000;
  if (total > limit || total < -limit) return false;
  *nanos = total;
  return true;
}

}  // namespace hw::tools::groups
