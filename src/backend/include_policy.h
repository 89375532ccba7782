// What generated source may #include: files inside the task's folder, and the toolchain's own
// headers (NVRTC's built-ins and CUDA include dir, the OpenCL compiler's). Checked in the
// orchestrator before anything is compiled, on the text the compiler will see: comments,
// line splices, trigraphs and digraphs are undone first, so `#/**/include`, `%:include` and a
// directive split over lines are found. Refused, with one line naming the include: absolute
// paths, paths that leave the task folder (`..`, or a symlink whose target is outside it),
// computed includes (`#include MACRO`), and `#include_next`/`#import`/`#embed` in any form.
//
// The scan also yields a digest of every task file the source includes, transitively, for
// the compile cache key: a changed header must never be served from the cache.
#pragma once

#include <filesystem>
#include <string>

namespace kforge {

struct IncludeScan {
  std::string error;   // "error: #include \"/etc/passwd\": ..."; empty when every include is allowed
  std::string digest;  // content hash of the included task files (relative path + bytes), in order
};

// `source` is the main translation unit; it lives in memory, so its quoted includes resolve
// against `task_root` (the compiler's only -I), as the compiler resolves them.
IncludeScan scan_includes(const std::string& source, const std::filesystem::path& task_root);

// A compiler option that would add an include path or force-include a file ("-I/", "-include
// /etc/passwd", "--pre-include=..."): the error line, else empty. Applied to options a
// candidate carries, never to the manifest's own compile_options.
std::string include_option_error(const std::string& option);

}  // namespace kforge
