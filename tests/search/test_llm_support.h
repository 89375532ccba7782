// Shared pieces of the LLM operator tests: scripted kernels for the tunable_vadd fixture, a
// request's last user message, and a temporary run folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../llm/fake_llm_server.h"
#include "support/temp_dir.h"

namespace kforge::llm_test {

using llm::testing::FakeLlmServer;
using llm::testing::ReceivedRequest;
using llm::testing::ScriptedReply;

inline constexpr const char* kSecret = "sk-test-SECRET";

inline std::filesystem::path fixture_dir() {
  return std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/tunable_vadd";
}

using kforge::testing::make_temp_dir;

inline std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether `needle` occurs in any file under `dir` (run.db with its WAL, reports, jsonl).
inline bool any_file_contains(const std::filesystem::path& dir, const std::string& needle) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && read_all(entry.path()).find(needle) != std::string::npos) return true;
  return false;
}

// The text of the last user message (both wire formats: string or text blocks).
inline std::string last_user_text(const ReceivedRequest& request) {
  const auto body = nlohmann::json::parse(request.body, nullptr, false);
  if (!body.is_object() || !body.contains("messages")) return "";
  for (auto it = body["messages"].rbegin(); it != body["messages"].rend(); ++it) {
    if ((*it).value("role", "") != "user") continue;
    const auto& content = (*it)["content"];
    if (content.is_string()) return content.get<std::string>();
    std::string text;
    for (const auto& block : content) text += block.value("text", "");
    return text;
  }
  return "";
}

inline bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Four elements per work-item through float4 loads, in a grid-stride loop so that every
// element is covered under the manifest's fixed geometry whatever BLOCK and ITEMS are, plus
// a scalar tail for n not divisible by 4.
inline const std::string kFastKernel = R"(#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef STRIDED
#define STRIDED 1
#endif

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void vector_add(__global const float* restrict a, __global const float* restrict b,
                __global float* restrict c, const int n) {
  const int n4 = n / 4;
  const int stride = (int)get_global_size(0);
  for (int i = (int)get_global_id(0); i < n4; i += stride) {
    vstore4(vload4(i, a) + vload4(i, b), i, c);
  }
  for (int i = n4 * 4 + (int)get_global_id(0); i < n; i += stride) c[i] = a[i] + b[i];
}
)";

// The fixture's own kernel with a syntax error (a missing semicolon).
inline const std::string kBrokenKernel = R"(#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void vector_add(__global const float* restrict a, __global const float* restrict b,
                __global float* restrict c, const int n) {
  const int i = (int)get_global_id(0)
  if (i < n) c[i] = a[i] + b[i];
}
)";

// A correct grid-stride kernel: what the repair turn returns.
inline const std::string kRepairedKernel = R"(#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void vector_add(__global const float* restrict a, __global const float* restrict b,
                __global float* restrict c, const int n) {
  for (int i = (int)get_global_id(0); i < n; i += (int)get_global_size(0)) c[i] = a[i] + b[i];
}
)";

inline std::string whole_file_reply(const std::string& strategy, const std::string& rationale,
                                    const std::string& source) {
  return "STRATEGY: " + strategy + "\nRATIONALE: " + rationale + "\n\n```opencl\n" + source + "```\n";
}

inline std::string edit_reply(const std::string& strategy, const std::string& search, const std::string& replace) {
  return "STRATEGY: " + strategy + "\nRATIONALE: a small edit\n\n<<<<<<< SEARCH\n" + search + "=======\n" + replace +
         ">>>>>>> REPLACE\n";
}

// SEARCH text that is in no version of the kernel.
inline std::string stale_edit_reply() {
  return edit_reply("stale edit", "  this line is not in the kernel;\n", "  neither is this one;\n");
}

}  // namespace kforge::llm_test
