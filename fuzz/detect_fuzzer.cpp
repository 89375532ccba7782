// libFuzzer target: the kernel detector and its C tokenizer, in every language it reads.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "task/detect.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  for (const auto language : {kforge::Language::Cuda, kforge::Language::OpenCL, kforge::Language::Hip,
                              kforge::Language::Triton}) {
    try {
      (void)kforge::detect_kernels_in_source(source, language, "fuzz.src");
    } catch (const kforge::TaskError&) {
    }
  }
  (void)kforge::language_for_file("fuzz.cu", source);
  (void)kforge::language_for_file("fuzz.py", source);
  return 0;
}
