#include "controller/raft/metadata_log.h"

#include <cctype>
#include <charconv>

#include "controller/raft/raft_batches.h"

namespace hw::controller {
namespace {

// The integer after "name": in a flat JSON object; nullopt when absent.
std::optional<int64_t> json_int_field(std::string_view json, std::string_view name) {
  std::string quoted = "\"" + std::string(name) + "\"";
  size_t at = json.find(quoted);
  if (at == std::string_view::npos) return std::nullopt;
  at += quoted.size();
  while (at < json.size() && std::isspace(static_cast<unsigned char>(json[at]))) ++at;
  if (at >= json.size() || json[at] != ':') return std::nullopt;
  ++at;
  while (at < json.size() && std::isspace(static_cast<unsigned char>(json[at]))) ++at;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(json.data() + at, json.data() + json.size(), value);
  if (ec != std::errc() || (end < json.data() + json.size() && (*end == '.' || *end == 'e' || *end == 'E')))
    return std::nullopt;
  return value;
}

// Batches larger than this are not written by anyone; a reader asks for at
// least one whole batch anyway.
constexpr int32_t read_chunk_bytes = 1 << 20;

}  // namespace

std::string format_quorum_state(const quorum_state& s) {
  // Kafka's QuorumStateData JSON at data_version 1, without a voted
  // directory id (a null uuid is written as all zeros there).
  return "{\"leaderId\":" + std::to_string(s.leader_id) + ",\"leaderEpoch\":" + std::to_string(s.leader_epoch) +
         ",\"votedId\":" + std::to_string(s.voted_id) +
         ",\"votedDirectoryId\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"data_version\":1}";
}

std::optional<quorum_state> parse_quorum_state(std::string_view json) {
  auto epoch = json_int_field(json, "leaderEpoch");
  if (!epoch || *epoch < 0 || *epoch > INT32_MAX) return std::nullopt;
  quorum_state s;
  s.leader_epoch = static_cast<int32_t>(*epoch);
  s.leader_id = static_cast<int32_t>(json_int_field(json, "leaderId").value_or(-1));
  s.voted_id = static_cast<int32_t>(json_int_field(json, "votedId").value_or(-1));
  return s;
}

storage::storage_error metadata_log::open(storage::file_system& fs, const metadata_log_options& options,
                                          std::unique_ptr<metadata_log>* out) {
  auto dir = options.metadata_log_dir / metadata_partition_dir;
  if (auto ec = fs.create_directories(dir)) return {ec, "Cannot create " + dir.string() + ": " + ec.message()};
  std::unique_ptr<metadata_log> m(new metadata_log(fs, dir));

  storage::log_open_options open;
  // The metadata log is small and read whole at start-up anyway: always
  // scan it.
  open.recovery_point = storage::offset(0);
  open.had_clean_shutdown = false;
  open.now_ms = options.now_ms;
  storage::log_load_report report;
  if (auto ec = storage::log::open(fs, dir, options.config, open, &m->log_, &report))
    return {ec, "Cannot open the metadata log in " + dir.string() + ": " + ec.message()};

  std::string content;
  auto state_path = dir / quorum_state_file_name;
  if (fs.exists(state_path)) {
    if (auto ec = storage::read_whole_file(fs, state_path, &content))
      return {ec, "Cannot read " + state_path.string() + ": " + ec.message()};
    auto parsed = parse_quorum_state(content);
    if (!parsed)
      return {std::make_error_code(std::errc::invalid_argument),
              "Cannot parse " + state_path.string() + ": no leaderEpoch in '" + content + "'"};
    m->state_ = *parsed;
  }
  *out = std::move(m);
  return {};
}

metadata_log::~metadata_log() = default;

std::error_code metadata_log::write_state(const quorum_state& s) {
  if (auto ec = storage::write_file_atomically(fs_, dir_ / quorum_state_file_name, format_quorum_state(s)))
    return ec;
  state_ = s;
  return {};
}

std::error_code metadata_log::flush() { return log_->flush(); }

std::error_code metadata_log::append_entries(std::span<const raft::log_entry> entries) {
  if (entries.empty()) return {};
  if (entries.front().base_offset != end_offset()) return std::make_error_code(std::errc::invalid_argument);
  std::vector<uint8_t> batches = raft::encode_entries(entries);
  storage::append_options opts;
  opts.origin = storage::append_origin::replication;
  opts.now_ms = entries.back().append_time_ms;
  storage::append_result result;
  return log_->append(batches, opts, &result);
}

std::error_code metadata_log::truncate_to(storage::offset o, int64_t now_ms) { return log_->truncate_to(o, now_ms); }

std::error_code metadata_log::reset_to(storage::offset start, int64_t now_ms) {
  return log_->truncate_fully_and_start_at(start, now_ms);
}
std::error_code metadata_log::advance_start(storage::offset o, int64_t now_ms) {
  return log_->advance_log_start_offset(o, now_ms);
}

std::error_code metadata_log::read_entries(std::vector<raft::log_entry>* out, std::string* why) const {
  std::vector<uint8_t> buffer;
  storage::offset from = log_->log_start_offset();
  const storage::offset end = log_->log_end_offset();
  while (from < end) {
    storage::log_read_result r;
    if (auto ec = log_->read(from, read_chunk_bytes, end, true, &r)) return ec;
    if (r.length == 0 || !r.log_file) return std::make_error_code(std::errc::io_error);
    buffer.resize(r.length);
    size_t got = 0;
    if (auto ec = r.log_file->read_at(r.position, buffer, &got)) return ec;
    if (got != r.length) return std::make_error_code(std::errc::io_error);
    const size_t before = out->size();
    if (!raft::decode_entries(protocol::bytes_view(buffer.data(), buffer.size()), out, why)) {
      *why = "metadata log in " + dir_.string() + ": " + *why;
      return std::make_error_code(std::errc::illegal_byte_sequence);
    }
    if (out->size() == before) {
      *why = "metadata log in " + dir_.string() + ": no whole batch at offset " + std::to_string(from.value);
      return std::make_error_code(std::errc::illegal_byte_sequence);
    }
    from = out->back().end_offset();
  }
  return {};
}

std::error_code metadata_log::close() { return log_->close(); }

}  // namespace hw::controller
