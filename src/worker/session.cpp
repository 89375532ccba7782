#include "worker/session.h"

#include <algorithm>
#include <optional>

#include "eval/host_buffer.h"
#include "eval/kernel_args.h"
#include "util/files.h"
#include "util/trace.h"
#include "worker/sandbox_report.h"

namespace kforge {
namespace {
using nlohmann::json;

ParamValues params_from_json(const json& object) {
  ParamValues params;
  for (const auto& [name, value] : object.items()) params[name] = value.get<std::int64_t>();
  return params;
}

const ProblemSize& find_size(const Task& task, const std::string& name) {
  for (const auto& size : task.sizes)
    if (size.name == name) return size;
  throw TaskError(task.manifest_path.string() + ": no problem size named '" + name + "'");
}

// Downloads the buffer arguments into fresh host buffers shaped like `shapes`: outputs to
// compare and inputs to checksum.
std::vector<HostBuffer> download_args(Device& device, const Task& task, const ArgBinding& binding,
                                      const std::vector<HostBuffer>& shapes, bool include_inputs) {
  std::vector<HostBuffer> result(shapes.size());
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    if (binding.buffers[i] < 0 || shapes[i].size_bytes() == 0) continue;
    if (task.args[i].role == ArgRole::Input && !include_inputs) continue;
    result[i] = make_buffer(shapes[i].dtype, shapes[i].count);
    device.download(binding.buffers[i], result[i].bytes.data(), result[i].size_bytes());
  }
  return result;
}

// Overwrites the outputs of a finished run with poison (0xFF bytes: NaN in every float type)
// before the buffers are freed, so a later kernel that finds the freed memory again (the
// allocator reuses it) reads poison, not the reference's answers.
void scrub_outputs(Device& device, const Task& task, const ArgBinding& binding, const std::vector<HostBuffer>& shapes) {
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    if (binding.buffers[i] < 0 || shapes[i].size_bytes() == 0 || task.args[i].role == ArgRole::Input) continue;
    const std::vector<std::byte> poison_bytes(shapes[i].size_bytes(), std::byte{0xFF});
    device.upload(binding.buffers[i], poison_bytes.data(), poison_bytes.size());
  }
}

// The candidate's buffers of one problem size, kept from one seed to the next.
struct KeptBinding {
  Device& device;
  std::optional<ArgBinding> binding;
  ~KeptBinding() {
    try {
      if (binding) release_args(device, *binding);
    } catch (const std::exception&) {  // a lost context frees everything anyway
    }
  }
};

std::string first_mismatch_text(const std::string& arg, const Comparison& comparison) {
  return "output '" + arg + "': " + std::to_string(comparison.mismatches) + " elements differ; first at [" +
         std::to_string(comparison.first_mismatch) + "]: got " + std::to_string(comparison.first_actual) +
         ", expected " + std::to_string(comparison.first_expected);
}
}  // namespace

WorkerSession::WorkerSession(Language language, int device_index)
    : backend_(make_backend(language)), device_(backend_->open_device(device_index)) {}

const Task& WorkerSession::task(const std::string& manifest) {
  auto it = tasks_.find(manifest);
  if (it == tasks_.end()) it = tasks_.emplace(manifest, load_task(manifest)).first;
  return it->second;
}

WorkerSession::LoadedVariant WorkerSession::load_variant(const json& variant) {
  LoadedVariant loaded;
  loaded.params = params_from_json(variant.at("params"));
  const std::string file = variant.at("binary_file");
  const std::string entry = variant.at("entry");
  const std::string key = file + "#" + entry;
  auto it = kernels_.find(key);
  if (it == kernels_.end()) {
    CompileResult compiled;
    compiled.ok = true;
    compiled.binary = read_file(file);
    compiled.binary_format = variant.at("format");
    it = kernels_.emplace(key, device_->load(compiled, entry)).first;
  }
  loaded.kernel = it->second;
  return loaded;
}

json WorkerSession::handle(const json& request) {
  const std::string op = request.at("op");
  TraceScope trace("worker " + op);
  if (op == "info") return info();
  if (op == "check") return check(request);
  if (op == "time") return time(request);
  if (op == "bandwidth") return {{"ok", true}, {"copy_gbps", device_->measure_copy_bandwidth()}};
  if (op == "sandbox") return sandbox_report(request);  // tests look at the sandbox from inside
  return {{"ok", false}, {"error", "unknown request '" + op + "'"}};
}

json WorkerSession::info() {
  const DeviceInfo& d = device_->info();
  return {{"ok", true},
          {"device",
           {{"backend", d.backend}, {"name", d.name}, {"arch", d.arch}, {"platform", d.platform},
            {"compute_units", d.compute_units}, {"global_mem_bytes", d.global_mem_bytes},
            {"l2_bytes", d.l2_bytes}, {"clock_mhz", d.clock_mhz}, {"is_gpu", d.is_gpu}}}};
}

json WorkerSession::check(const json& request) {
  const Task& t = task(request.at("manifest"));
  const LoadedVariant candidate = load_variant(request.at("variant"));
  const LoadedVariant reference = load_variant(request.at("reference"));
  json results = json::array();
  for (const auto& size_name : request.at("sizes")) {
    const ProblemSize& size = find_size(t, size_name);
    // After the first seed the candidate runs again on its own buffers, with new inputs
    // uploaded and its previous outputs left in place: a kernel that computes once and then
    // returns early (a static flag, "output already written") keeps stale answers and fails.
    KeptBinding kept{*device_, std::nullopt};
    for (const auto& seed : request.at("seeds")) {
      json result = check_one(t, size, seed.get<std::uint64_t>(), candidate, reference, kept.binding);
      const bool passed = result.value("passed", false);
      results.push_back(std::move(result));
      if (!passed) return {{"ok", true}, {"checks", results}};  // first failure is enough
    }
  }
  return {{"ok", true}, {"checks", results}};
}

json WorkerSession::check_one(const Task& t, const ProblemSize& size, std::uint64_t seed,
                              const LoadedVariant& candidate, const LoadedVariant& reference,
                              std::optional<ArgBinding>& kept) {
  json result = {{"size", size.name}, {"seed", seed}, {"passed", false}};
  const Bindings ref_bindings = bindings_for(t, size, reference.params);
  const Bindings cand_bindings = bindings_for(t, size, candidate.params);
  std::optional<TraceScope> phase(std::in_place, "  inputs " + size.name);
  const std::vector<HostBuffer> inputs = make_host_args(t, ref_bindings, seed);
  phase.emplace("  reference run+download");

  // Reference first, on its own buffers: the candidate never sees the reference's output.
  ArgBinding ref_binding = bind_args(*device_, t, ref_bindings, inputs);
  device_->launch(reference.kernel, ref_binding.args, launch_dims(t, ref_bindings));
  device_->synchronize();
  const std::vector<HostBuffer> expected = download_args(*device_, t, ref_binding, inputs, false);
  scrub_outputs(*device_, t, ref_binding, inputs);
  release_args(*device_, ref_binding);

  phase.emplace("  candidate run+download");
  // The candidate gets the very same inputs (and freshly poisoned outputs, as in `inputs`).
  for (std::size_t i = 0; i < t.args.size(); ++i) {
    if (t.args[i].role != ArgRole::Scalar && element_count(t.args[i], cand_bindings) != inputs[i].count) {
      result["message"] = "argument '" + t.args[i].name + "' has a different size under this variant's parameters";
      return result;
    }
  }
  const std::vector<HostBuffer>& cand_inputs = inputs;
  const bool reused = kept.has_value();
  if (!reused) {
    kept = bind_args(*device_, t, cand_bindings, cand_inputs);
  } else {
    for (std::size_t i = 0; i < t.args.size(); ++i)  // new inputs; outputs keep the last run's values
      if (kept->buffers[i] >= 0 && t.args[i].role != ArgRole::Output && cand_inputs[i].size_bytes() > 0)
        device_->upload(kept->buffers[i], cand_inputs[i].bytes.data(), cand_inputs[i].size_bytes());
  }
  const ArgBinding& binding = *kept;
  device_->launch(candidate.kernel, binding.args, launch_dims(t, cand_bindings));
  // A full device synchronisation, so work a kernel left on another stream counts too.
  device_->synchronize();
  const std::vector<HostBuffer> actual = download_args(*device_, t, binding, cand_inputs, true);
  std::string guard_violation;
  for (std::size_t i = 0; i < t.args.size(); ++i)
    if (binding.buffers[i] >= 0 && !device_->guards_intact(binding.buffers[i]) && guard_violation.empty())
      guard_violation = t.args[i].name;

  phase.emplace("  compare");
  if (!guard_violation.empty()) {
    result["fault"] = "out_of_bounds";
    result["message"] = "out-of-bounds write: memory just outside buffer '" + guard_violation + "' was overwritten";
    return result;
  }
  double max_abs = 0, max_rel = 0;
  std::int64_t mismatches = 0;
  std::string message;
  for (std::size_t i = 0; i < t.args.size(); ++i) {
    const ArgSpec& arg = t.args[i];
    if (arg.role == ArgRole::Scalar) continue;
    if (arg.role == ArgRole::Input) {
      if (checksum(actual[i]) != checksum(cand_inputs[i]) && message.empty())
        message = "input '" + arg.name + "' was modified by the kernel";
      continue;
    }
    const Comparison comparison = compare(actual[i], expected[i], tolerance_for(t, arg.dtype));
    max_abs = std::max(max_abs, comparison.max_abs_err);
    max_rel = std::max(max_rel, comparison.max_rel_err);
    mismatches += comparison.mismatches;
    if (!comparison.passed && message.empty()) {
      message = first_mismatch_text(arg.name, comparison);
      if (reused)
        message += " (on a second call with new inputs and the first call's outputs left in place: "
                   "results reused across calls?)";
    }
  }
  result["max_abs_err"] = max_abs;
  result["max_rel_err"] = max_rel;
  result["mismatches"] = mismatches;
  result["passed"] = message.empty();
  result["message"] = message;
  return result;
}

// WorkerSession::time is in time_op.cpp.

}  // namespace kforge
