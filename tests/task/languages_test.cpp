// The table of language facts (task/languages.h): one row per Language, unique ids and
// extensions, and detection driven by the table's extensions and content markers.
#include "task/languages.h"

#include <gtest/gtest.h>

#include <iterator>
#include <set>

#include "task/detect.h"

namespace kforge {
namespace {

// Every enumerator; the static_assert below fails when the enum grows without this list.
constexpr Language kEveryLanguage[] = {Language::Cuda, Language::OpenCL, Language::Hip, Language::Triton,
                                       Language::PyTorch};
static_assert(static_cast<std::size_t>(Language::PyTorch) + 1 == std::size(kEveryLanguage),
              "a new Language needs a row in task/languages.cpp and an entry here");

TEST(LanguageTable, EveryLanguageHasExactlyOneRow) {
  EXPECT_EQ(all_languages().size(), std::size(kEveryLanguage));
  for (const Language language : kEveryLanguage) {
    int rows = 0;
    for (const auto& row : all_languages()) rows += row.language == language;
    EXPECT_EQ(rows, 1) << static_cast<int>(language);
    EXPECT_EQ(language_facts(language).language, language);
  }
}

TEST(LanguageTable, IdsAreUniqueAndRoundTrip) {
  std::set<std::string> ids;
  for (const auto& row : all_languages()) {
    EXPECT_TRUE(ids.insert(row.id).second) << row.id;
    EXPECT_EQ(to_string(row.language), row.id);
    EXPECT_EQ(parse_language(row.id), row.language);
    EXPECT_FALSE(row.display_name.empty()) << row.id;
    EXPECT_FALSE(row.code_fence.empty()) << row.id;
    EXPECT_EQ(row.source_extension.front(), '.') << row.id;
  }
  EXPECT_EQ(parse_language("fortran"), std::nullopt);
  EXPECT_EQ(language_ids(), "cuda opencl hip triton pytorch");
}

TEST(LanguageTable, ExtensionsAreUniqueAcrossRows) {
  std::set<std::string> extensions;
  for (const auto& row : all_languages())
    for (const auto& extension : row.extensions) EXPECT_TRUE(extensions.insert(extension).second) << extension;
}

TEST(LanguageTable, FactsAreConsistent) {
  for (const auto& row : all_languages()) {
    if (row.entry_points == EntryPointStyle::QualifiedFunction) {
      EXPECT_EQ(row.syntax, SyntaxFamily::CLike) << row.id;
      EXPECT_FALSE(row.kernel_qualifiers.empty()) << row.id;
      EXPECT_FALSE(row.restrict_qualifier.empty()) << row.id;
    } else {
      EXPECT_EQ(row.syntax, SyntaxFamily::Python) << row.id;
    }
    // Python sources all share .py: a content marker (the import) tells them apart.
    if (row.syntax == SyntaxFamily::Python) {
      EXPECT_TRUE(row.content_marker.has_value()) << row.id;
    }
    if (row.profiler == HardwareProfiler::None) {
      EXPECT_FALSE(row.no_profiler_reason.empty()) << row.id;
    }
  }
}

TEST(LanguageTable, EachExtensionDetectsItsRow) {
  for (const auto& row : all_languages())
    for (const auto& extension : row.extensions)
      EXPECT_EQ(language_for_file("kernel" + extension, "int x;\n"), row.language) << extension;
}

TEST(LanguageTable, EachContentMarkerDetectsItsRow) {
  for (const auto& row : all_languages()) {
    if (!row.content_marker) continue;
    const std::string& marker = row.content_marker->marker;
    const std::string source =
        row.syntax == SyntaxFamily::CLike ? "#include <" + marker + ">\n" : "import " + marker + "\n";
    for (const auto& extension : row.content_marker->extensions)
      EXPECT_EQ(language_for_file("kernel" + extension, source), row.language) << row.id << " " << extension;
  }
}

TEST(LanguageTable, UnknownExtensionIsNoLanguage) {
  EXPECT_EQ(language_for_file("notes.txt", "__global__ void k() {}"), std::nullopt);
  EXPECT_EQ(language_for_file("plain.py", "import numpy\n"), std::nullopt);
  EXPECT_EQ(language_for_file("plain.cpp", "int main() {}\n"), std::nullopt);
}

}  // namespace
}  // namespace kforge
