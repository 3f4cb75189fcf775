//===- kernel_cache.cc - Compiled kernels on disk -------------------------===//
#include "codegen/kernel_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codegen/kernel_spec.h"

namespace gpuc::codegen {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "gpuc-kernel-1\n";
constexpr char kSuffix[] = ".gko";

void AppendU64(std::string& out, uint64_t v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

bool ReadU64(const std::string& in, size_t& at, uint64_t& v) {
  if (at + sizeof v > in.size()) return false;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return true;
}

}  // namespace

std::string DiskCache::PathFor(const std::string& key) const {
  const std::string hex = absl::StrFormat("%016x", StableHash(key));
  return absl::StrCat(directory_, "/", hex.substr(0, 2), "/", hex, kSuffix);
}

std::optional<std::string> DiskCache::Load(const std::string& key) {
  const std::string path = PathFor(key);
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || !fs::exists(status)) return std::nullopt;
  if (!fs::is_regular_file(status)) {
    // A FIFO, socket or device node at an entry's name would block the read or never end it;
    // it is not an entry, so it is skipped (and left alone: it is not ours to remove).
    ++skipped_;
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream contents;
  contents << in.rdbuf();
  const std::string data = contents.str();
  in.close();
  // magic, key length, key, object length, object, checksum of all before it
  size_t at = sizeof kMagic - 1;
  uint64_t key_size = 0, object_size = 0, checksum = 0;
  bool valid = data.compare(0, at, kMagic) == 0 && ReadU64(data, at, key_size) &&
               at + key_size <= data.size();
  std::string stored_key;
  if (valid) {
    stored_key = data.substr(at, key_size);
    at += key_size;
    valid = ReadU64(data, at, object_size) && at + object_size + sizeof checksum == data.size();
  }
  if (valid) {
    size_t sum_at = at + object_size;
    valid = ReadU64(data, sum_at, checksum) &&
            checksum == StableHash(std::string_view(data.data(), at + object_size));
  }
  if (!valid || stored_key != key) {
    // Damaged, or another key's entry under the same name: drop it; it is recompiled.
    ++corrupt_;
    std::error_code ignored;
    fs::remove(path, ignored);
    return std::nullopt;
  }
  std::error_code ignored;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ignored);  // recently used
  return data.substr(at, object_size);
}

void DiskCache::Remove(const std::string& key) {
  std::error_code ignored;
  if (fs::is_regular_file(PathFor(key), ignored)) fs::remove(PathFor(key), ignored);
}

void DiskCache::Store(const std::string& key, const std::string& object) {
  const fs::path path = PathFor(key);
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  if (error) return;
  std::string data = kMagic;
  AppendU64(data, key.size());
  data += key;
  AppendU64(data, object.size());
  data += object;
  AppendU64(data, StableHash(data));
  // A name no other writer uses, in the same directory so that rename is atomic.
  std::random_device random;
  const fs::path temp = path.string() + absl::StrFormat(".tmp%08x%08x", random(), random());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      out.close();
      fs::remove(temp, error);
      return;
    }
  }
  fs::rename(temp, path, error);
  if (error) {
    fs::remove(temp, error);
    return;
  }
  // Scanning the directory costs a few milliseconds: do it every 64 stores, not every one.
  if (++stored_since_prune_ % 64 == 1) Prune(max_bytes_);
}

namespace {

struct Entry {
  fs::path path;
  int64_t bytes;
  fs::file_time_type used;
};

std::vector<Entry> Entries(const std::string& directory) {
  std::vector<Entry> entries;
  std::error_code error;
  fs::recursive_directory_iterator it(directory, error), end;
  for (; !error && it != end; it.increment(error)) {
    if (!it->is_regular_file(error) || it->path().extension() != kSuffix) continue;
    std::error_code e;
    const auto size = fs::file_size(it->path(), e);
    const auto time = fs::last_write_time(it->path(), e);
    if (!e) entries.push_back({it->path(), static_cast<int64_t>(size), time});
  }
  return entries;
}

}  // namespace

DiskCache::Usage DiskCache::Scan() const {
  Usage usage;
  for (const Entry& e : Entries(directory_)) {
    ++usage.entries;
    usage.bytes += e.bytes;
  }
  return usage;
}

int64_t DiskCache::Prune(int64_t max_bytes) {
  std::vector<Entry> entries = Entries(directory_);
  int64_t total = 0;
  for (const Entry& e : entries) total += e.bytes;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  int64_t removed = 0;
  for (const Entry& e : entries) {
    if (total <= max_bytes) break;
    std::error_code error;
    if (fs::remove(e.path, error)) {
      total -= e.bytes;
      ++removed;
    }
  }
  return removed;
}

int64_t DiskCache::Clear() {
  int64_t removed = 0;
  for (const Entry& e : Entries(directory_)) {
    std::error_code error;
    if (fs::remove(e.path, error)) ++removed;
  }
  return removed;
}

}  // namespace gpuc::codegen
