#include "backend/compile_protocol.h"

#include "util/encoding.h"

namespace kforge {
using nlohmann::json;

json compile_request_json(const CompileRequest& request, const CompileTarget& target) {
  json defines = json::array();
  for (const auto& [name, value] : request.defines) defines.push_back({name, value});
  return {{"op", "compile"},
          {"request",
           {{"language", to_string(request.language)},
            {"source_b64", base64_encode(request.source)},
            {"source_name", request.source_name},
            {"kernel", request.kernel},
            {"defines", defines},
            {"options", request.options},
            {"include_dirs", request.include_dirs},
            {"device_index", request.device_index}}},
          {"target", {{"device", target.device}, {"compiler", target.compiler}, {"arch", target.arch}}}};
}

CompileRequest compile_request_from_json(const json& message) {
  const json& in = message.at("request");
  CompileRequest request;
  if (const auto language = parse_language(in.at("language").get<std::string>())) request.language = *language;
  request.source = base64_decode(in.at("source_b64").get<std::string>());
  request.source_name = in.value("source_name", "");
  request.kernel = in.value("kernel", "");
  for (const auto& define : in.at("defines")) request.defines.emplace_back(define.at(0), define.at(1));
  request.options = in.at("options").get<std::vector<std::string>>();
  request.include_dirs = in.at("include_dirs").get<std::vector<std::string>>();
  request.device_index = in.value("device_index", 0);
  return request;
}

CompileTarget compile_target_from_json(const json& message) {
  const json& in = message.at("target");
  return {in.value("device", ""), in.value("compiler", ""), in.value("arch", "")};
}

json compile_result_json(const CompileResult& result) {
  return {{"ok", result.ok},
          {"log", valid_utf8(result.log)},
          {"binary_b64", base64_encode(result.binary)},
          {"binary_format", result.binary_format},
          {"registers", result.registers},
          {"shared_bytes", result.shared_bytes},
          {"local_bytes", result.local_bytes},
          {"spill_bytes", result.spill_bytes},
          {"max_threads_per_block", result.max_threads_per_block},
          {"kernel", result.kernel},
          {"lowered_name", result.lowered_name},
          {"arch", result.arch}};
}

CompileResult compile_result_from_json(const json& in) {
  CompileResult result;
  result.ok = in.at("ok").get<bool>();
  result.log = in.value("log", "");
  result.binary = base64_decode(in.value("binary_b64", ""));
  result.binary_format = in.value("binary_format", "");
  result.registers = in.value("registers", -1);
  result.shared_bytes = in.value("shared_bytes", -1);
  result.local_bytes = in.value("local_bytes", -1);
  result.spill_bytes = in.value("spill_bytes", -1);
  result.max_threads_per_block = in.value("max_threads_per_block", -1);
  result.kernel = in.value("kernel", "");
  result.lowered_name = in.value("lowered_name", "");
  result.arch = in.value("arch", "");
  return result;
}

}  // namespace kforge
