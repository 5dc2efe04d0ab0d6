#include "storage/io/faulty_file_system.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <set>

namespace hw::storage {

struct faulty_file_system::node {
  bool is_dir = false;
  std::vector<uint8_t> data;    // current bytes
  std::vector<uint8_t> synced;  // bytes as of the last successful sync()
  std::map<std::string, std::shared_ptr<node>> entries;          // current
  std::map<std::string, std::shared_ptr<node>> durable_entries;  // as of the last sync_directory()
};

namespace {
std::shared_ptr<faulty_file_system::node> make_directory() {
  auto n = std::make_shared<faulty_file_system::node>();
  n->is_dir = true;
  return n;
}
}  // namespace

struct faulty_file_system::state {
  mutable std::mutex mu;
  std::shared_ptr<node> root = make_directory();
  uint64_t generation = 0;  // bumped by every crash; handles of older generations are stale
  bool halted = false;
  std::optional<uint64_t> space_left;
  bool fail_syncs = false;
  bool fail_directory_syncs = false;
  std::vector<fault> faults;
  std::vector<std::string> fired;
  counters stats;
};

namespace {

using node = faulty_file_system::node;
using state = faulty_file_system::state;

std::error_code err(std::errc e) { return std::make_error_code(e); }

const char* op_name(fs_op op) {
  switch (op) {
    case fs_op::open: return "open";
    case fs_op::write: return "write";
    case fs_op::sync: return "sync";
    case fs_op::truncate: return "truncate";
    case fs_op::rename: return "rename";
    case fs_op::remove: return "remove";
    case fs_op::create_directories: return "create_directories";
    case fs_op::sync_directory: return "sync_directory";
  }
  return "?";
}

std::vector<std::string> components(const std::filesystem::path& p) {
  std::vector<std::string> out;
  for (const auto& c : p.lexically_normal().relative_path()) {
    std::string s = c.string();
    if (!s.empty() && s != ".") out.push_back(std::move(s));
  }
  return out;
}

// Walks the current tree (or the durable one); null if any component is missing.
std::shared_ptr<node> lookup(const state& s, const std::vector<std::string>& parts, size_t count,
                             bool durable, std::error_code* ec) {
  std::shared_ptr<node> n = s.root;
  for (size_t i = 0; i < count; ++i) {
    if (!n->is_dir) {
      *ec = err(std::errc::not_a_directory);
      return nullptr;
    }
    const auto& entries = durable ? n->durable_entries : n->entries;
    auto it = entries.find(parts[i]);
    if (it == entries.end()) {
      *ec = err(std::errc::no_such_file_or_directory);
      return nullptr;
    }
    n = it->second;
  }
  return n;
}

std::shared_ptr<node> lookup(const state& s, const std::filesystem::path& p, std::error_code* ec) {
  auto parts = components(p);
  return lookup(s, parts, parts.size(), false, ec);
}

// The directory that holds p's last component, and that component's name.
std::shared_ptr<node> lookup_parent(const state& s, const std::filesystem::path& p, std::string* name,
                                    std::error_code* ec) {
  auto parts = components(p);
  if (parts.empty()) {
    *ec = err(std::errc::invalid_argument);  // the root has no parent entry
    return nullptr;
  }
  auto dir = lookup(s, parts, parts.size() - 1, false, ec);
  if (!dir) return nullptr;
  if (!dir->is_dir) {
    *ec = err(std::errc::not_a_directory);
    return nullptr;
  }
  *name = parts.back();
  return dir;
}

void revert(node& n, std::set<const node*>& seen) {
  if (!seen.insert(&n).second) return;
  if (!n.is_dir) {
    n.data = n.synced;
    return;
  }
  n.entries = n.durable_entries;
  for (auto& [name, child] : n.entries) revert(*child, seen);
}

void crash_locked(state& s) {
  std::set<const node*> seen;
  revert(*s.root, seen);
  ++s.generation;
}

// Consumes the first matching fault, if any, and records where it fired.
std::optional<fault> take_fault(state& s, fs_op op, const std::string& path) {
  for (auto it = s.faults.begin(); it != s.faults.end(); ++it) {
    if (it->op != op) continue;
    if (!it->path_contains.empty() && path.find(it->path_contains) == std::string::npos) continue;
    if (it->skip > 0) {
      --it->skip;
      continue;
    }
    fault f = *it;
    if (it->times > 0 && --it->times == 0) s.faults.erase(it);
    s.fired.push_back(fault_point_name(op, f.action) + ": " + path);
    return f;
  }
  return std::nullopt;
}

// Runs one operation under the lock with fault injection around it.
std::error_code guarded(state& s, fs_op op, const std::string& path, const std::function<std::error_code()>& body) {
  if (s.halted) return err(std::errc::io_error);
  std::optional<fault> f = take_fault(s, op, path);
  if (f && f->action == fault_action::fail_before) return f->error;
  if (f && f->action == fault_action::crash_before) {
    crash_locked(s);
    s.halted = true;
    return err(std::errc::io_error);
  }
  if (auto ec = body()) return ec;
  if (f && f->action == fault_action::fail_after) return f->error;
  if (f && f->action == fault_action::crash_after) {
    crash_locked(s);
    s.halted = true;
    return err(std::errc::io_error);
  }
  return {};
}

class faulty_file final : public file {
 public:
  faulty_file(std::shared_ptr<state> s, std::shared_ptr<node> n, std::string path, bool writable)
      : state_(std::move(s)), node_(std::move(n)), path_(std::move(path)), writable_(writable),
        generation_(state_->generation) {}

  std::error_code write_at(uint64_t offset, std::span<const uint8_t> data) override {
    std::lock_guard lock(state_->mu);
    if (auto ec = usable(true)) return ec;
    return guarded(*state_, fs_op::write, path_, [&]() -> std::error_code {
      size_t n = data.size();
      bool full = state_->space_left && *state_->space_left < n;
      if (full) n = static_cast<size_t>(*state_->space_left);
      if (n > 0) {
        auto& bytes = node_->data;
        if (bytes.size() < offset + n) bytes.resize(offset + n);
        std::memcpy(bytes.data() + offset, data.data(), n);
      }
      if (state_->space_left) *state_->space_left -= n;
      state_->stats.bytes_written += n;
      return full ? err(std::errc::no_space_on_device) : std::error_code{};
    });
  }

  std::error_code read_at(uint64_t offset, std::span<uint8_t> out, size_t* read) override {
    std::lock_guard lock(state_->mu);
    *read = 0;
    if (auto ec = usable(false)) return ec;
    const auto& bytes = node_->data;
    if (offset >= bytes.size()) return {};
    size_t n = std::min<uint64_t>(out.size(), bytes.size() - offset);
    std::memcpy(out.data(), bytes.data() + offset, n);
    *read = n;
    return {};
  }

  std::error_code sync() override {
    std::lock_guard lock(state_->mu);
    if (auto ec = usable(false)) return ec;
    if (state_->fail_syncs) return err(std::errc::io_error);
    return guarded(*state_, fs_op::sync, path_, [&] {
      node_->synced = node_->data;
      ++state_->stats.file_syncs;
      return std::error_code{};
    });
  }

  std::error_code truncate(uint64_t size) override {
    std::lock_guard lock(state_->mu);
    if (auto ec = usable(true)) return ec;
    return guarded(*state_, fs_op::truncate, path_, [&] {
      node_->data.resize(size);
      return std::error_code{};
    });
  }

  std::error_code size(uint64_t* out) override {
    std::lock_guard lock(state_->mu);
    if (auto ec = usable(false)) return ec;
    *out = node_->data.size();
    return {};
  }

  int native_handle() const override { return -1; }

 private:
  std::error_code usable(bool for_write) const {
    if (state_->halted || generation_ != state_->generation) return err(std::errc::io_error);
    if (for_write && !writable_) return err(std::errc::bad_file_descriptor);
    return {};
  }

  std::shared_ptr<state> state_;
  std::shared_ptr<node> node_;
  std::string path_;
  bool writable_;
  uint64_t generation_;
};

}  // namespace

std::string fault_point_name(fs_op op, fault_action action) {
  bool before = action == fault_action::fail_before || action == fault_action::crash_before;
  return std::string(before ? "before " : "after ") + op_name(op);
}

faulty_file_system::faulty_file_system() : state_(std::make_shared<state>()) {}
faulty_file_system::~faulty_file_system() = default;

std::error_code faulty_file_system::open(const std::filesystem::path& p, open_mode mode,
                                         std::unique_ptr<file>* out) {
  std::lock_guard lock(state_->mu);
  std::shared_ptr<node> target;
  auto ec = guarded(*state_, fs_op::open, p.string(), [&]() -> std::error_code {
    std::string name;
    std::error_code lookup_ec;
    auto dir = lookup_parent(*state_, p, &name, &lookup_ec);
    if (!dir) return lookup_ec;
    auto it = dir->entries.find(name);
    if (it != dir->entries.end()) {
      if (mode == open_mode::create_exclusive) return err(std::errc::file_exists);
      if (it->second->is_dir) return err(std::errc::is_a_directory);
      target = it->second;
      return {};
    }
    if (mode == open_mode::read_only) return err(std::errc::no_such_file_or_directory);
    target = std::make_shared<node>();
    dir->entries[name] = target;
    return {};
  });
  if (ec) return ec;
  *out = std::make_unique<faulty_file>(state_, target, p.string(), mode != open_mode::read_only);
  return {};
}

std::error_code faulty_file_system::rename(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::lock_guard lock(state_->mu);
  return guarded(*state_, fs_op::rename, from.string(), [&]() -> std::error_code {
    std::string from_name, to_name;
    std::error_code ec;
    auto from_dir = lookup_parent(*state_, from, &from_name, &ec);
    if (!from_dir) return ec;
    auto to_dir = lookup_parent(*state_, to, &to_name, &ec);
    if (!to_dir) return ec;
    auto src = from_dir->entries.find(from_name);
    if (src == from_dir->entries.end()) return err(std::errc::no_such_file_or_directory);
    auto moving = src->second;
    auto from_parts = components(from), to_parts = components(to);
    if (from_parts == to_parts) return {};
    if (moving->is_dir && to_parts.size() > from_parts.size() &&
        std::equal(from_parts.begin(), from_parts.end(), to_parts.begin()))
      return err(std::errc::invalid_argument);  // into its own subtree
    auto dst = to_dir->entries.find(to_name);
    if (dst != to_dir->entries.end()) {
      if (dst->second->is_dir && !moving->is_dir) return err(std::errc::is_a_directory);
      if (!dst->second->is_dir && moving->is_dir) return err(std::errc::not_a_directory);
      if (dst->second->is_dir && !dst->second->entries.empty()) return err(std::errc::directory_not_empty);
    }
    from_dir->entries.erase(src);
    to_dir->entries[to_name] = moving;
    ++state_->stats.renames;
    return {};
  });
}

namespace {

// Unlinks p's entry; a missing entry is no error. A directory is removed
// (with everything below it) only when `recursive`: remove() has unlink(2)
// semantics, as the posix file system's.
std::error_code remove_entry(state& s, const std::filesystem::path& p, bool recursive) {
  return guarded(s, fs_op::remove, p.string(), [&]() -> std::error_code {
    std::string name;
    std::error_code ec;
    auto dir = lookup_parent(s, p, &name, &ec);
    if (!dir) return ec == std::errc::no_such_file_or_directory ? std::error_code{} : ec;
    auto it = dir->entries.find(name);
    if (it == dir->entries.end()) return {};
    if (it->second->is_dir && !recursive) return err(std::errc::is_a_directory);
    dir->entries.erase(it);
    return {};
  });
}

}  // namespace

std::error_code faulty_file_system::remove(const std::filesystem::path& p) {
  std::lock_guard lock(state_->mu);
  return remove_entry(*state_, p, false);
}

std::error_code faulty_file_system::remove_all(const std::filesystem::path& p) {
  std::lock_guard lock(state_->mu);
  return remove_entry(*state_, p, true);
}

std::error_code faulty_file_system::create_directories(const std::filesystem::path& p) {
  std::lock_guard lock(state_->mu);
  return guarded(*state_, fs_op::create_directories, p.string(), [&]() -> std::error_code {
    std::shared_ptr<node> n = state_->root;
    for (const auto& part : components(p)) {
      auto& child = n->entries[part];
      if (!child) child = make_directory();
      if (!child->is_dir) return err(std::errc::file_exists);
      n = child;
    }
    return {};
  });
}

std::error_code faulty_file_system::sync_directory(const std::filesystem::path& p) {
  std::lock_guard lock(state_->mu);
  if (state_->halted) return err(std::errc::io_error);
  if (state_->fail_directory_syncs) return err(std::errc::io_error);
  return guarded(*state_, fs_op::sync_directory, p.string(), [&]() -> std::error_code {
    std::error_code ec;
    auto dir = lookup(*state_, p, &ec);
    if (!dir) return ec;
    if (!dir->is_dir) return err(std::errc::not_a_directory);
    dir->durable_entries = dir->entries;
    ++state_->stats.directory_syncs;
    return {};
  });
}

std::error_code faulty_file_system::list(const std::filesystem::path& dir, std::vector<std::string>* names) {
  std::lock_guard lock(state_->mu);
  names->clear();
  if (state_->halted) return err(std::errc::io_error);
  std::error_code ec;
  auto n = lookup(*state_, dir, &ec);
  if (!n) return ec;
  if (!n->is_dir) return err(std::errc::not_a_directory);
  for (const auto& [name, child] : n->entries) names->push_back(name);  // std::map: already sorted
  return {};
}

bool faulty_file_system::exists(const std::filesystem::path& p) {
  std::lock_guard lock(state_->mu);
  std::error_code ec;
  return !state_->halted && lookup(*state_, p, &ec) != nullptr;
}

bool faulty_file_system::is_directory(const std::filesystem::path& p) {
  std::lock_guard lock(state_->mu);
  std::error_code ec;
  if (state_->halted) return false;
  auto n = lookup(*state_, p, &ec);
  return n && n->is_dir;
}

void faulty_file_system::set_space_left(uint64_t bytes) {
  std::lock_guard lock(state_->mu);
  state_->space_left = bytes;
}

void faulty_file_system::clear_space_limit() {
  std::lock_guard lock(state_->mu);
  state_->space_left.reset();
}

void faulty_file_system::fail_syncs(bool on) {
  std::lock_guard lock(state_->mu);
  state_->fail_syncs = on;
}

void faulty_file_system::fail_directory_syncs(bool on) {
  std::lock_guard lock(state_->mu);
  state_->fail_directory_syncs = on;
}

void faulty_file_system::inject(fault f) {
  std::lock_guard lock(state_->mu);
  if (f.times != 0) state_->faults.push_back(std::move(f));
}

void faulty_file_system::clear_faults() {
  std::lock_guard lock(state_->mu);
  state_->faults.clear();
}

std::vector<std::string> faulty_file_system::fired_faults() const {
  std::lock_guard lock(state_->mu);
  return state_->fired;
}

void faulty_file_system::crash() {
  std::lock_guard lock(state_->mu);
  crash_locked(*state_);
}

void faulty_file_system::restart() {
  std::lock_guard lock(state_->mu);
  state_->halted = false;
}

bool faulty_file_system::halted() const {
  std::lock_guard lock(state_->mu);
  return state_->halted;
}

std::optional<std::string> faulty_file_system::durable_content(const std::filesystem::path& p) const {
  std::lock_guard lock(state_->mu);
  auto parts = components(p);
  std::error_code ec;
  auto n = lookup(*state_, parts, parts.size(), true, &ec);
  if (!n || n->is_dir) return std::nullopt;
  return std::string(n->synced.begin(), n->synced.end());
}

faulty_file_system::counters faulty_file_system::stats() const {
  std::lock_guard lock(state_->mu);
  return state_->stats;
}

}  // namespace hw::storage
