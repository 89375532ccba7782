#include "backend/compile_cache.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>

#include "backend/include_policy.h"
#include "util/files.h"
#include "util/hash.h"
#include "util/log.h"

namespace kforge {
namespace {

// util/write_file names its temp file after the pid, so two threads of one process must not
// write the same entry at once.
std::mutex& store_mutex() {
  static std::mutex mutex;
  return mutex;
}

nlohmann::json to_json(const CompileResult& result) {
  return {{"ok", result.ok},
          {"log", result.log},
          {"binary_format", result.binary_format},
          {"binary_bytes", result.binary.size()},
          {"seconds", result.seconds},
          {"registers", result.registers},
          {"shared_bytes", result.shared_bytes},
          {"local_bytes", result.local_bytes},
          {"spill_bytes", result.spill_bytes},
          {"max_threads_per_block", result.max_threads_per_block},
          {"key", result.key},
          {"kernel", result.kernel},
          {"lowered_name", result.lowered_name},
          {"arch", result.arch}};
}

CompileResult from_json(const nlohmann::json& json) {
  CompileResult result;
  result.ok = json.at("ok").get<bool>();
  result.log = json.at("log").get<std::string>();
  result.binary_format = json.at("binary_format").get<std::string>();
  result.registers = json.at("registers").get<int>();
  result.shared_bytes = json.at("shared_bytes").get<int>();
  result.local_bytes = json.at("local_bytes").get<int>();
  result.spill_bytes = json.at("spill_bytes").get<int>();
  result.max_threads_per_block = json.at("max_threads_per_block").get<int>();
  result.key = json.at("key").get<std::string>();
  result.kernel = json.value("kernel", "");
  result.lowered_name = json.value("lowered_name", "");
  result.arch = json.value("arch", "");
  return result;
}

}  // namespace

std::string compile_cache_key(const CompileRequest& request, const std::string& backend,
                              const std::string& device, const std::string& compiler) {
  std::vector<std::string> parts{"kforge-compile-v2", backend, device, compiler,
                                 request.source, request.kernel};
  for (const auto& [name, value] : request.defines) parts.push_back("-D" + name + "=" + value);
  parts.push_back("--options--");
  for (const auto& option : request.options) parts.push_back(option);
  parts.push_back("--include-dirs--");
  for (const auto& dir : request.include_dirs) parts.push_back(dir);
  // The bytes of every task header the source includes, transitively (scan_includes): a
  // changed header is a different compile. Toolkit headers change with `compiler`.
  parts.push_back("--includes--");
  // Callers that did not scan (in-process tools) get the scan here, against the first -I.
  parts.push_back(!request.includes_digest.empty() || request.include_dirs.empty()
                      ? request.includes_digest
                      : scan_includes(request.source, request.include_dirs.front()).digest);
  return content_hash(parts);
}

CompileCache::CompileCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

std::filesystem::path CompileCache::default_dir() { return cache_dir() / "compile"; }

bool CompileCache::disabled_by_env() {
  const char* value = std::getenv("KFORGE_NO_COMPILE_CACHE");
  return value && *value && std::string(value) != "0";
}

std::optional<CompileResult> CompileCache::load(const std::string& key) const {
  const auto json_path = dir_ / (key + ".json");
  const auto bin_path = dir_ / (key + ".bin");
  std::error_code error;
  if (!std::filesystem::exists(json_path, error)) return std::nullopt;
  try {
    const auto json = nlohmann::json::parse(read_file(json_path));
    CompileResult result = from_json(json);
    result.binary = read_file(bin_path);
    if (result.binary.size() != json.at("binary_bytes").get<std::size_t>()) return std::nullopt;
    result.cache_hit = true;
    result.seconds = 0;
    return result;
  } catch (const std::exception& e) {
    log::verbose("compile cache: ignoring damaged entry {}: {}", key, e.what());
    return std::nullopt;
  }
}

void CompileCache::store(const CompileResult& result) const {
  std::lock_guard lock(store_mutex());
  write_file(dir_ / (result.key + ".bin"), result.binary);
  write_file(dir_ / (result.key + ".json"), to_json(result).dump(1));
}

CompileResult compile_with_cache(const std::string& key,
                                 const std::function<CompileResult(bool& cacheable)>& compile) {
  const bool use_cache = !CompileCache::disabled_by_env();
  std::optional<CompileCache> cache;
  if (use_cache) {
    cache.emplace(CompileCache::default_dir());
    if (auto hit = cache->load(key)) return *hit;
  }
  const auto start = std::chrono::steady_clock::now();
  bool cacheable = true;
  CompileResult result = compile(cacheable);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cache_hit = false;
  result.key = key;
  if (cache && cacheable) {
    try {
      cache->store(result);
    } catch (const std::exception& e) {  // a full disk must not fail the compile itself
      log::warn("compile cache: cannot store {}: {}", key, e.what());
    }
  }
  return result;
}

}  // namespace kforge
