#pragma once
// The parts of kafka-console-producer.sh and kafka-console-consumer.sh that
// do not talk to a broker: Kafka's LineMessageReader (a line of stdin to a
// record's key, value and headers), its DefaultMessageFormatter (a consumed
// record to the bytes printed), stdin split into lines as Java's
// BufferedReader splits them, and the Java client properties the tools take
// (--command-property, --command-config) turned into librdkafka's.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hw::tools::console {

using properties = std::map<std::string, std::string>;

struct header {
  std::string key;
  std::optional<std::string> value;  // nullopt: a null header value
  bool operator==(const header&) const = default;
};

// ---- LineMessageReader ----------------------------------------------------

struct reader_settings {
  std::string topic;
  bool parse_key = false;
  std::string key_separator = "\t";
  bool parse_headers = false;
  std::string headers_delimiter = "\t";
  std::string headers_separator = ",";  // a Java regular expression
  std::string headers_key_separator = ":";
  bool ignore_error = false;
  std::optional<std::string> null_marker;
};

// The reader's properties (topic, parse.key, key.separator, ...) as
// LineMessageReader.configure reads them; false with the message of the
// KafkaException Kafka throws for a bad combination.
bool configure_reader(const properties& props, reader_settings* out, std::string* error);

struct produced_record {
  std::string topic;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<header> headers;
};

// One line (without its terminator) as the record LineMessageReader makes
// of it; line_number counts from 1. False with the KafkaException message
// ("No key separator found on line number 3: 'abc'").
bool parse_line(const reader_settings& settings, const std::string& line, int line_number, produced_record* out,
                std::string* error);

// Java's Pattern.split(input) for the headers separator: trailing empty
// pieces dropped, a zero-width match at the start never giving an empty
// first piece. False if the pattern does not compile.
bool java_split(const std::string& pattern, const std::string& input, std::vector<std::string>* out,
                std::string* error);

// Bytes decoded as UTF-8 and encoded again, as Java's readers and
// new String(bytes, UTF_8) do: each malformed sequence becomes U+FFFD.
std::string java_utf8(std::string_view bytes);

// stdin cut into lines as BufferedReader.readLine cuts it: "\n", "\r" and
// "\r\n" end a line; a last line without a terminator is still a line.
class line_splitter {
 public:
  // Appends bytes read; complete lines go to *lines.
  void feed(std::string_view bytes, std::vector<std::string>* lines);
  // At end of input: the unterminated last line, if any.
  std::optional<std::string> finish();

 private:
  std::string pending_;
  bool after_cr_ = false;  // the last byte seen ended a line with '\r'
};

// The size Kafka's producer estimates for a record before sending it
// (record batch overhead plus the record's upper bound), which it compares
// with max.request.size and buffer.memory.
int64_t estimated_record_size(const produced_record& record);

// ---- DefaultMessageFormatter ----------------------------------------------

enum class timestamp_type { none, create_time, log_append_time };

struct consumed_record {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  timestamp_type ts_type = timestamp_type::create_time;
  int64_t timestamp = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<header> headers;
};

struct formatter_settings {
  bool print_timestamp = false;
  bool print_key = false;
  bool print_value = true;
  bool print_partition = false;
  bool print_offset = false;
  bool print_delivery = false;
  bool print_epoch = false;
  bool print_headers = false;
  std::string key_separator = "\t";
  std::string line_separator = "\n";
  std::string headers_separator = ",";
  std::string null_literal = "null";
  // key.deserializer & co.: only Kafka's StringDeserializer, which prints
  // the bytes decoded as UTF-8 (malformed sequences as U+FFFD).
  bool key_as_string = false;
  bool value_as_string = false;
  bool headers_as_string = false;
};

// The formatter's properties (print.key, key.separator, ...); false with a
// message naming a deserializer the native tool cannot run.
bool configure_formatter(const properties& props, formatter_settings* out, std::string* error);

// What DefaultMessageFormatter.writeTo prints for the record.
std::string format_record(const formatter_settings& settings, const consumed_record& record);

// ---- Java client properties -----------------------------------------------

enum class client_kind { producer, consumer };

// Java client properties mapped to librdkafka's. Settings that change only
// timing or monitoring and that librdkafka lacks are dropped; a setting
// that would change what is sent or read and that librdkafka cannot honour
// fails with a message naming it.
struct client_settings {
  std::vector<std::pair<std::string, std::string>> rdkafka;  // set in this order
  // Values the tools apply themselves (Java semantics librdkafka lacks).
  int64_t max_block_ms = 60000;
  int64_t max_request_size = 1048576;
  int64_t buffer_memory = 33554432;
  int64_t delivery_timeout_ms = 120000;
  int64_t default_api_timeout_ms = 60000;
  std::optional<std::string> transactional_id;
  bool exclude_internal_topics = true;
  std::string client_id;
  std::string group_id;
};

// *error holds Java's ConfigException message ("Invalid value abc for
// configuration linger.ms: Not a number of type LONG") or the native
// tool's refusal.
bool map_client_properties(client_kind kind, const properties& java, client_settings* out, std::string* error);

// Kafka's Utils.getHost/getPort on "host:port" ("[::1]:9092",
// "PLAINTEXT://h:9092" too): the host, nullopt when there is no ":port".
std::optional<std::string> host_of_address(const std::string& address);

// bootstrap.servers as librdkafka takes it: the entries trimmed, empty ones dropped.
std::string librdkafka_bootstrap(const std::string& servers);

// Kafka's check of bootstrap.servers (ClientUtils.parseAndValidateAddresses):
// each entry host:port; false with the ConfigException message. Entries
// whose host does not resolve are named in *warnings (Kafka logs them).
bool validate_bootstrap(const std::string& servers, std::vector<std::string>* warnings, std::string* error);

// ---- Command lines as Kafka's tools read them ------------------------------

// joptsimple's conversion of an Integer (is_long false) or Long option
// value: an optional sign and decimal digits, in range; nullopt otherwise.
std::optional<int64_t> parse_java_integer(const std::string& text, bool is_long);

// Java's String.split(String.valueOf(separator)): trailing empty pieces
// dropped, the whole text when the separator does not occur.
std::vector<std::string> java_string_split(const std::string& text, char separator);

// One "key=value" of --command-property & co. as Kafka's parseKeyValueArgs
// reads it: split at the first '=', a missing value is empty.
std::pair<std::string, std::string> java_key_value(const std::string& text);

// A properties file (Java syntax) added to *out; false with the exception
// Kafka prints for it ("java.nio.file.NoSuchFileException: path").
bool load_java_properties(const std::string& path, properties* out, std::string* error);

// joptsimple's optional argument: "--name" with no value after it (the end
// of the line, or an option next) becomes "--name=" so that a parser
// requiring a value reads it as given and empty.
std::vector<std::string> with_optional_value(std::span<const std::string> args, const std::string& name);

// ---- Output shared by both tools --------------------------------------------

// A line as Kafka's tools log it (log4j's "[%d] %p %m (%c)%n"), now.
std::string log_line(const std::string& level, const std::string& message, const std::string& logger);

// The Java exception (class and message) Kafka's client raises for a
// broker error code, e.g. "org.apache.kafka.common.errors.InvalidTopicException:
// The request attempted to perform an operation on an invalid topic.".
std::string java_exception_for(int16_t code);

}  // namespace hw::tools::console
