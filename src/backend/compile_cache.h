// On-disk cache of compile results: <cache_dir>/compile/<key>.bin holds the binary and
// <key>.json everything else. The json is written last, so its presence marks a complete entry.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "backend/backend.h"

namespace kforge {

// Content hash of everything that determines the compiler's output. `device` names the
// target (device name and architecture), `compiler` the compiler version.
std::string compile_cache_key(const CompileRequest& request, const std::string& backend,
                              const std::string& device, const std::string& compiler);

class CompileCache {
 public:
  explicit CompileCache(std::filesystem::path dir);
  // <cache_dir()>/compile, resolved on each call so KFORGE_CACHE_DIR changes take effect.
  static std::filesystem::path default_dir();
  // KFORGE_NO_COMPILE_CACHE=1 turns the cache off.
  static bool disabled_by_env();

  // The stored result with cache_hit=true and seconds=0; nullopt on a miss or a damaged entry.
  std::optional<CompileResult> load(const std::string& key) const;
  // Stores `result` under result.key. Thread-safe; concurrent processes are safe too because
  // files are replaced atomically.
  void store(const CompileResult& result) const;

 private:
  std::filesystem::path dir_;
};

// Serves `key` from the default cache, or runs `compile`, times it and stores its result.
// `compile` sets `cacheable` to false for failures that are not the compiler's verdict on the
// source (a missing library, no device), which must not be remembered.
CompileResult compile_with_cache(const std::string& key,
                                 const std::function<CompileResult(bool& cacheable)>& compile);

}  // namespace kforge
