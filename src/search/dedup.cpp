#include "search/dedup.h"

#include "store/source_hash.h"
#include "util/hash.h"

namespace kforge {
namespace {

SourceSyntax syntax_of(Language language) {
  return language_facts(language).syntax == SyntaxFamily::Python ? SourceSyntax::Python : SourceSyntax::CLike;
}

}  // namespace

std::string variant_identity(const KernelVariant& variant, Language language) {
  std::vector<std::string> options = variant.options;
  // The entry point is part of the identity only when it overrides the task's.
  if (!variant.kernel.empty()) options.push_back("entry-point:" + variant.kernel);
  return dedup_hash(variant.source, variant.params, options, syntax_of(language));
}

std::string source_identity(const std::string& source, Language language) {
  return content_hash(normalize_source(source, syntax_of(language)));
}

bool SeenSet::insert(const KernelVariant& variant) {
  return identities_.insert(variant_identity(variant, language_)).second;
}

bool SeenSet::contains(const KernelVariant& variant) const {
  return identities_.count(variant_identity(variant, language_)) > 0;
}

}  // namespace kforge
