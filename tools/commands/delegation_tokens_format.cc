// kafka-delegation-tokens.sh: the pure parts (delegation_tokens.h).

#include <time.h>

#include <array>
#include <cstdio>

#include "protocol/sasl/scram.h"
#include "tools/commands/delegation_tokens.h"
#include "tools/commands/get_offsets.h"
#include "tools/commands/java.h"

namespace hw::tools::dtokens {
namespace {

const char* const k_npe_unboxing =
    "Cannot invoke \"java.lang.Long.longValue()\" because the return value of "
    "\"joptsimple.OptionSet.valueOf(joptsimple.OptionSpec)\" is null";

failure multiple_arguments(const std::string& option) {
  return thrown("joptsimple.MultipleArgumentsForOptionException",
                "Found multiple arguments for option " + option + ", but you asked for only one");
}

failure illegal_argument(const std::string& message) { return thrown("java.lang.IllegalArgumentException", message); }

// Java's %-Ns: the text, then spaces up to N UTF-16 units.
std::string left(const std::string& text, size_t width) {
  const size_t n = java::length(text);
  return n >= width ? text : text + std::string(width - n, ' ');
}

std::string table_line(const std::array<std::string, 8>& columns) {
  static constexpr size_t widths[] = {15, 30, 15, 15, 25, 15, 15, 15};
  std::string line;
  for (size_t i = 0; i < columns.size(); ++i) line += (i ? " " : "") + left(columns[i], widths[i]);
  return line;
}

// The characters of a Java String as String.getBytes(ISO_8859_1) gives
// them: one byte each, '?' for what Latin-1 lacks (a surrogate pair is one
// character there). The argument is read as UTF-8, as the JVM reads its
// arguments under a UTF-8 locale (under the C locale it makes each byte
// beyond ASCII a U+FFFD, hence '?').
std::vector<uint8_t> latin1(const std::string& utf8) {
  const std::u16string units = java::utf16(utf8);
  std::vector<uint8_t> out;
  for (size_t i = 0; i < units.size(); ++i) {
    const char16_t u = units[i];
    if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units.size() && units[i + 1] >= 0xDC00 && units[i + 1] <= 0xDFFF) ++i;
    out.push_back(u > 0xFF ? uint8_t{'?'} : static_cast<uint8_t>(u));
  }
  return out;
}

// The value of a base64 character in Java's basic alphabet; -2 for '=',
// -1 for anything else.
int base64_value(uint8_t c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  if (c == '=') return -2;
  return -1;
}

// Integer.toString(b, 16) of a signed Java byte.
std::string signed_hex(uint8_t b) {
  const int v = static_cast<int8_t>(b);
  char buf[8];
  std::snprintf(buf, sizeof buf, "%s%x", v < 0 ? "-" : "", static_cast<unsigned>(v < 0 ? -v : v));
  return buf;
}

}  // namespace

failure usage(std::string message) { return failure{true, std::move(message), {}}; }

failure thrown(const std::string& exception, const std::string& message, std::vector<std::string> causes) {
  failure f{false, message, {exception + ": " + message}};
  for (auto& c : causes) f.trace.push_back("Caused by: " + std::move(c));
  return f;
}

failure execution(const std::string& cause) {
  return failure{false, cause, {"java.util.concurrent.ExecutionException: " + cause, "Caused by: " + cause}};
}

std::string failure_text(const failure& f) {
  std::string text = f.message + "\n";
  for (const auto& line : f.trace) text += line + "\n";
  if (!f.trace.empty()) text += "\n";  // println of a trace that ends with its own line break
  return text;
}

std::optional<failure> long_value(const std::vector<std::string>& values, const std::string& option, int64_t* out) {
  for (const auto& v : values) {
    int64_t parsed = 0;
    if (!get_offsets::java_parse_long(v, &parsed)) {
      const std::string number_format = "java.lang.NumberFormatException: For input string: \"" + v + "\"";
      return thrown("joptsimple.OptionArgumentConversionException",
                    "Cannot parse argument '" + v + "' of option " + option,
                    {"joptsimple.internal.ReflectionException: " + number_format, number_format});
    }
    *out = parsed;
  }
  if (values.size() > 1) return multiple_arguments(option);
  if (values.empty()) return thrown("java.lang.NullPointerException", k_npe_unboxing);
  return std::nullopt;
}

std::optional<failure> string_value(const std::vector<std::string>& values, const std::string& option,
                                    std::optional<std::string>* out) {
  if (values.size() > 1) return multiple_arguments(option);
  *out = values.empty() ? std::nullopt : std::optional<std::string>(values.front());
  return std::nullopt;
}

std::optional<failure> principals(const std::vector<std::string>& values, std::vector<principal>* out) {
  out->clear();
  for (const auto& v : values) {
    const std::string text = get_offsets::java_trim(v);
    const size_t colon = text.find(':');
    if (text.empty() || colon == std::string::npos)
      return illegal_argument("expected a string in format principalType:principalName but got " + text);
    out->push_back({text.substr(0, colon), text.substr(colon + 1)});
  }
  return std::nullopt;
}

std::string principal_list(const std::vector<principal>& ps) {
  std::string s = "[";
  for (size_t i = 0; i < ps.size(); ++i) s += (i ? ", " : "") + ps[i].str();
  return s + "]";
}

std::optional<failure> decode_hmac(const std::optional<std::string>& text, std::vector<uint8_t>* out) {
  out->clear();
  if (!text)
    return thrown("java.lang.NullPointerException",
                  "Cannot invoke \"String.getBytes(java.nio.charset.Charset)\" because \"src\" is null");
  const std::vector<uint8_t> src = latin1(*text);
  const size_t sl = src.size();
  if (sl == 0) return std::nullopt;
  if (sl < 2) return illegal_argument("Input byte[] should at least have 2 bytes for base64 bytes");
  uint32_t bits = 0;
  int shift = 18;
  size_t sp = 0;
  while (sp < sl) {
    const int v = base64_value(src[sp++]);
    if (v == -2) {  // padding
      if ((shift == 6 && (sp == sl || src[sp++] != '=')) || shift == 18)
        return illegal_argument("Input byte array has wrong 4-byte ending unit");
      break;
    }
    if (v < 0) return illegal_argument("Illegal base64 character " + signed_hex(src[sp - 1]));
    bits |= static_cast<uint32_t>(v) << shift;
    shift -= 6;
    if (shift < 0) {
      out->push_back(static_cast<uint8_t>(bits >> 16));
      out->push_back(static_cast<uint8_t>(bits >> 8));
      out->push_back(static_cast<uint8_t>(bits));
      shift = 18;
      bits = 0;
    }
  }
  if (shift == 6) {
    out->push_back(static_cast<uint8_t>(bits >> 16));
  } else if (shift == 0) {
    out->push_back(static_cast<uint8_t>(bits >> 16));
    out->push_back(static_cast<uint8_t>(bits >> 8));
  } else if (shift == 12) {
    return illegal_argument("Last unit does not have enough valid bits");
  }
  if (sp < sl) return illegal_argument("Input byte array has incorrect ending byte at " + std::to_string(sp));
  return std::nullopt;
}

std::string hmac_text(const std::vector<uint8_t>& hmac) { return protocol::scram::base64(hmac); }

std::string date_text(int64_t ms) {
  // The second that holds the instant (floor, for instants before 1970).
  const int64_t seconds = ms / 1000 - (ms % 1000 < 0 ? 1 : 0);
  const time_t t = static_cast<time_t>(seconds);
  tm local{};
  if (!localtime_r(&t, &local)) return std::to_string(ms);
  // yyyy: the year of the era, at least four digits.
  const int64_t year = int64_t{local.tm_year} + 1900;
  const int64_t year_of_era = year > 0 ? year : 1 - year;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d", static_cast<long long>(year_of_era), local.tm_mon + 1,
                local.tm_mday, local.tm_hour, local.tm_min);
  return buf;
}

std::string token_table(const std::vector<token>& tokens) {
  std::string text = "\n" + table_line({"TOKENID", "HMAC", "OWNER", "REQUESTER", "RENEWERS", "ISSUEDATE", "EXPIRYDATE",
                                        "MAXDATE"}) +
                     "\n";
  for (const auto& t : tokens)
    text += "\n" +
            table_line({t.token_id, hmac_text(t.hmac), t.owner.str(), t.requester.str(), principal_list(t.renewers),
                        date_text(t.issue), date_text(t.expiry), date_text(t.max)}) +
            "\n";
  return text;
}

std::string create_calling_line(const std::vector<principal>& renewers, int64_t max_life_ms) {
  return "Calling create token operation with renewers :" + principal_list(renewers) +
         " , max-life-time-period :" + std::to_string(max_life_ms);
}

std::string renew_calling_line(const std::optional<std::string>& hmac, int64_t period_ms) {
  return "Calling renew token operation with hmac :" + hmac.value_or("null") +
         " , renew-time-period :" + std::to_string(period_ms);
}

std::string expire_calling_line(const std::optional<std::string>& hmac, int64_t period_ms) {
  return "Calling expire token operation with hmac :" + hmac.value_or("null") +
         " , expire-time-period :" + std::to_string(period_ms);
}

std::string describe_calling_line(const std::vector<principal>& owners) {
  return owners.empty() ? "Calling describe token operation for current user."
                        : "Calling describe token operation for owners: " + principal_list(owners);
}

}  // namespace hw::tools::dtokens
