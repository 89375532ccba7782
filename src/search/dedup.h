// Identity of a kernel variant for deduplication: variants whose sources differ only in
// comments or layout, with the same params and options, compile to the same kernel.
#pragma once

#include <string>
#include <unordered_set>

#include "eval/result.h"
#include "task/task.h"

namespace kforge {

// Hash of the normalised source, params, options and entry point (the store's dedup_hash).
std::string variant_identity(const KernelVariant& variant, Language language);
// Hash of the normalised source alone: variants sharing it differ only in params or options.
std::string source_identity(const std::string& source, Language language);

// Identities of the variants proposed or evaluated so far in a run.
class SeenSet {
 public:
  explicit SeenSet(Language language) : language_(language) {}
  // True when the variant was new (and is now recorded).
  bool insert(const KernelVariant& variant);
  bool contains(const KernelVariant& variant) const;
  std::size_t size() const { return identities_.size(); }

 private:
  Language language_;
  std::unordered_set<std::string> identities_;
};

}  // namespace kforge
