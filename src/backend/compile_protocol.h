// The `compile` request and reply of the JSON-lines worker protocol, spoken between the
// orchestrator (eval/compiler_pool) and a compile-only kforge-worker:
//
//   -> {"op":"compile", "request":{...CompileRequest, "source_b64"...}, "target":{device, compiler, arch}}
//   <- {"ok":true, "result":{...CompileResult, "binary_b64"...}}
//   <- {"ok":false, "error":"...", "out_of_memory":true}   (the worker then exits)
//
// Source and binary are base64 inside the JSON line: byte-exact (a CUBIN is binary, a
// comment may hold any byte) and never an invalid-UTF-8 dump. Everything else is plain JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "backend/backend.h"

namespace kforge {

nlohmann::json compile_request_json(const CompileRequest& request, const CompileTarget& target);
CompileRequest compile_request_from_json(const nlohmann::json& message);
CompileTarget compile_target_from_json(const nlohmann::json& message);

nlohmann::json compile_result_json(const CompileResult& result);
CompileResult compile_result_from_json(const nlohmann::json& result);

}  // namespace kforge
