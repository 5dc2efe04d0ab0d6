// snapshot_file: names and the files themselves.

#include "controller/raft/snapshot_file.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace hw::controller::raft {

namespace {

constexpr size_t offset_digits = 20;
constexpr size_t epoch_digits = 10;
constexpr size_t id_chars = offset_digits + 1 + epoch_digits;

std::optional<uint64_t> parse_digits(std::string_view s) {
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

bool older(const snapshot_id& a, const snapshot_id& b) {
  if (a.end_offset != b.end_offset) return a.end_offset < b.end_offset;
  return a.leader_epoch < b.leader_epoch;
}

std::filesystem::path path_of(const std::filesystem::path& dir, snapshot_id id) {
  return dir / snapshot_file_name(id);
}

}  // namespace

std::string snapshot_file_name(snapshot_id id) {
  char name[64];
  std::snprintf(name, sizeof(name), "%020lld-%010d", static_cast<long long>(id.end_offset.value),
                id.leader_epoch.value);
  return std::string(name) + std::string(snapshot_suffix);
}

std::optional<snapshot_file_info> classify_snapshot_file_name(std::string_view name) {
  if (name.size() < id_chars || name[offset_digits] != '-') return std::nullopt;
  auto offset = parse_digits(name.substr(0, offset_digits));
  auto e = parse_digits(name.substr(offset_digits + 1, epoch_digits));
  if (!offset || !e || *offset > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
      *e > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return std::nullopt;
  }
  snapshot_file_info info;
  info.id = {raft::offset(static_cast<int64_t>(*offset)), epoch(static_cast<int32_t>(*e))};
  const std::string_view rest = name.substr(id_chars);
  if (rest == snapshot_suffix) {
    info.kind = snapshot_file_kind::complete;
  } else if (rest == deleted_snapshot_suffix) {
    info.kind = snapshot_file_kind::deleted;
  } else if (rest.ends_with(partial_snapshot_suffix) &&
             (rest.size() == partial_snapshot_suffix.size() || rest.front() == '-')) {
    // Ours: <id>.checkpoint.part; Kafka's temp files: <id>-<random>.checkpoint.part.
    info.kind = snapshot_file_kind::partial;
  } else {
    return std::nullopt;
  }
  return info;
}

std::optional<snapshot_id> parse_snapshot_file_name(std::string_view name) {
  auto info = classify_snapshot_file_name(name);
  if (!info || info->kind != snapshot_file_kind::complete) return std::nullopt;
  return info->id;
}

std::error_code write_snapshot_file(storage::file_system& fs, const std::filesystem::path& dir, snapshot_id id,
                                    std::span<const uint8_t> bytes) {
  const std::filesystem::path final_path = path_of(dir, id);
  std::filesystem::path part = final_path;
  part += ".part";
  {
    std::unique_ptr<storage::file> f;
    if (auto ec = fs.open(part, storage::open_mode::read_write, &f)) return ec;
    if (auto ec = f->truncate(0)) return ec;
    if (auto ec = f->write_at(0, bytes)) return ec;
    if (auto ec = f->sync()) return ec;
  }
  if (auto ec = fs.rename(part, final_path)) return ec;
  return fs.sync_directory(dir);
}

std::error_code list_snapshot_files(storage::file_system& fs, const std::filesystem::path& dir,
                                    std::vector<snapshot_id>* out) {
  out->clear();
  std::vector<std::string> names;
  if (auto ec = fs.list(dir, &names)) return ec;
  bool removed = false;
  for (const auto& name : names) {
    auto info = classify_snapshot_file_name(name);
    if (!info) continue;
    if (info->kind == snapshot_file_kind::complete) {
      out->push_back(info->id);
      continue;
    }
    if (auto ec = fs.remove(dir / name)) return ec;
    removed = true;
  }
  std::sort(out->begin(), out->end(), older);
  return removed ? fs.sync_directory(dir) : std::error_code();
}

std::error_code read_snapshot_file(storage::file_system& fs, const std::filesystem::path& dir, snapshot_id id,
                                   std::vector<uint8_t>* out) {
  out->clear();
  std::unique_ptr<storage::file> f;
  if (auto ec = fs.open(path_of(dir, id), storage::open_mode::read_only, &f)) return ec;
  uint64_t size = 0;
  if (auto ec = f->size(&size)) return ec;
  out->resize(size);
  size_t read = 0;
  if (auto ec = f->read_at(0, *out, &read)) return ec;
  out->resize(read);  // shorter only if the file shrank meanwhile; decoding will tell
  return {};
}

std::error_code delete_snapshot_files_before(storage::file_system& fs, const std::filesystem::path& dir,
                                             snapshot_id keep) {
  std::vector<snapshot_id> ids;
  if (auto ec = list_snapshot_files(fs, dir, &ids)) return ec;
  bool removed = false;
  for (const auto& id : ids) {
    if (!older(id, keep)) continue;
    if (auto ec = fs.remove(path_of(dir, id))) return ec;
    removed = true;
  }
  return removed ? fs.sync_directory(dir) : std::error_code();
}

}  // namespace hw::controller::raft
