#include "worker/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "eval/check_inputs.h"
#include "eval/check_tolerance.h"
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
  if (op == "calibrate") return calibrate(request);
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
    // Optional, parallel to seeds: which distributions each seed draws (check_inputs.h); and
    // per-output tolerances the orchestrator calibrated (check_tolerance.h).
    const json draws = request.value("draws", json::array());
    const json tolerances = request.value("tolerances", json::object());
    for (std::size_t s = 0; s < request.at("seeds").size(); ++s) {
      const std::uint64_t seed = request.at("seeds")[s].get<std::uint64_t>();
      const std::string draw = s < draws.size() ? draws[s].get<std::string>() : std::string(kManifestDraw);
      json result = check_one(t, size, seed, candidate, reference, kept.binding, draw, tolerances);
      const bool passed = result.value("passed", false);
      results.push_back(std::move(result));
      if (!passed) return {{"ok", true}, {"checks", results}};  // first failure is enough
    }
  }
  return {{"ok", true}, {"checks", results}};
}

std::vector<HostBuffer> WorkerSession::run_reference(const Task& t, const Bindings& bindings,
                                                     const LoadedVariant& reference,
                                                     const std::vector<HostBuffer>& inputs) {
  ArgBinding binding = bind_args(*device_, t, bindings, inputs);
  device_->launch(reference.kernel, binding.args, launch_dims(t, bindings));
  device_->synchronize();
  std::vector<HostBuffer> expected = download_args(*device_, t, binding, inputs, false);
  scrub_outputs(*device_, t, binding, inputs);
  release_args(*device_, binding);
  return expected;
}

namespace {
bool outputs_finite(const Task& t, const std::vector<HostBuffer>& expected) {
  for (std::size_t i = 0; i < t.args.size(); ++i) {
    if (t.args[i].role == ArgRole::Input || t.args[i].role == ArgRole::Scalar || !is_floating(t.args[i].dtype)) continue;
    const HostBuffer& buffer = expected[i];
    if (buffer.dtype == DType::F32) {  // the common case, without a conversion per element
      const auto* values = reinterpret_cast<const float*>(buffer.bytes.data());
      for (std::int64_t j = 0; j < buffer.count; ++j)
        if (!std::isfinite(values[j])) return false;
      continue;
    }
    for (std::int64_t j = 0; j < buffer.count; ++j)
      if (!std::isfinite(buffer.get(j))) return false;
  }
  return true;
}
}  // namespace

json WorkerSession::check_one(const Task& t, const ProblemSize& size, std::uint64_t seed,
                              const LoadedVariant& candidate, const LoadedVariant& reference,
                              std::optional<ArgBinding>& kept, const std::string& draw, const json& tolerances) {
  json result = {{"size", size.name}, {"seed", seed}, {"passed", false}, {"draw", draw}};
  const Bindings ref_bindings = bindings_for(t, size, reference.params);
  const Bindings cand_bindings = bindings_for(t, size, candidate.params);
  std::optional<TraceScope> phase(std::in_place, "  inputs " + size.name + " " + draw);
  DrawPlan plan = plan_draw(t, draw);
  std::vector<HostBuffer> inputs = make_host_args(t, ref_bindings, seed, plan.distributions);
  phase.emplace("  reference run+download");

  // Reference first, on its own buffers: the candidate never sees the reference's output.
  std::vector<HostBuffer> expected = run_reference(t, ref_bindings, reference, inputs);
  // A draw on which the reference itself overflows (finite inputs, non-finite outputs) cannot
  // judge the task: keep only the arguments it handles on their own, the others at their init.
  std::string note;
  if (plan.any_drawn() && plan.finite_inputs() && !outputs_finite(t, expected)) {
    std::vector<bool> keep(t.args.size(), false);
    std::string skipped;
    for (std::size_t i = 0; i < t.args.size(); ++i) {
      if (!plan.drawn[i]) continue;
      std::vector<bool> alone(t.args.size(), false);
      alone[i] = true;
      const DrawPlan single = keep_only(t, plan, alone);
      if (outputs_finite(t, run_reference(t, ref_bindings, reference, make_host_args(t, ref_bindings, seed, single.distributions))))
        keep[i] = true;
      else
        skipped += (skipped.empty() ? "" : ", ") + t.args[i].name + " = " + plan.distributions[i];
    }
    DrawPlan kept_plan = keep_only(t, plan, keep);
    inputs = make_host_args(t, ref_bindings, seed, kept_plan.distributions);
    expected = run_reference(t, ref_bindings, reference, inputs);
    if (!outputs_finite(t, expected) && kept_plan.any_drawn()) {  // fine alone, not together
      kept_plan = keep_only(t, plan, std::vector<bool>(t.args.size(), false));
      inputs = make_host_args(t, ref_bindings, seed, kept_plan.distributions);
      expected = run_reference(t, ref_bindings, reference, inputs);
      skipped = "all drawn arguments together";
    }
    note = "draw '" + draw + "' skipped for " + skipped +
           ": the reference itself returns non-finite outputs on it, so it cannot judge the candidate";
    plan = kept_plan;
    result["note"] = note;
  }
  result["inputs"] = plan.describe(t.args);
  const bool manifest_draw = !plan.any_drawn();
  const double input_mean_abs = manifest_draw ? 0.0 : mean_abs_inputs(t, inputs);

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
  // The first mismatch of `outputs` against the reference, in words ("" when they all match).
  auto first_mismatch = [&](const std::vector<HostBuffer>& outputs, bool record) {
    std::string text;
    for (std::size_t i = 0; i < t.args.size(); ++i) {
      const ArgSpec& arg = t.args[i];
      if (arg.role == ArgRole::Scalar) continue;
      if (arg.role == ArgRole::Input) {
        if (checksum(outputs[i]) != checksum(cand_inputs[i]) && text.empty())
          text = "input '" + arg.name + "' was modified by the kernel";
        continue;
      }
      OutputTolerance base{tolerance_for(t, arg.dtype).atol, tolerance_for(t, arg.dtype).rtol, 0, 1};
      if (tolerances.contains(arg.name)) base = output_tolerance_from_json(tolerances.at(arg.name));
      else base.fan_in = fan_in(t, ref_bindings, i);
      const Comparison comparison =
          compare(outputs[i], expected[i], tolerance_for_draw(base, arg.dtype, manifest_draw, expected[i], input_mean_abs));
      if (record) {
        max_abs = std::max(max_abs, comparison.max_abs_err);
        max_rel = std::max(max_rel, comparison.max_rel_err);
        mismatches += comparison.mismatches;
      }
      if (!comparison.passed && text.empty()) text = first_mismatch_text(arg.name, comparison);
    }
    return text;
  };
  std::string message = first_mismatch(actual, true);
  if (!message.empty() && reused && !manifest_draw) {
    // Reused buffers and a new draw: which one did it? The same inputs on fresh buffers tell.
    ArgBinding fresh = bind_args(*device_, t, cand_bindings, cand_inputs);
    device_->launch(candidate.kernel, fresh.args, launch_dims(t, cand_bindings));
    device_->synchronize();
    const std::vector<HostBuffer> fresh_actual = download_args(*device_, t, fresh, cand_inputs, true);
    release_args(*device_, fresh);
    // Right on fresh buffers, or nothing written there either (a launch counter): reuse.
    bool wrote_nothing = true;
    for (std::size_t i = 0; i < t.args.size(); ++i)
      if ((t.args[i].role == ArgRole::Output || t.args[i].role == ArgRole::InOut) &&
          checksum(fresh_actual[i]) != checksum(cand_inputs[i]))
        wrote_nothing = false;
    if (wrote_nothing || first_mismatch(fresh_actual, false).empty())
      message += " (on a second call with new inputs and the first call's outputs left in place: "
                 "results reused across calls?)";
    else
      message += " (inputs drawn from " + plan.describe(t.args) + ")";
  } else if (!message.empty() && !manifest_draw) {
    message += " (inputs drawn from " + plan.describe(t.args) + ")";
  } else if (!message.empty() && reused) {
    message += " (on a second call with new inputs and the first call's outputs left in place: "
               "results reused across calls?)";
  }
  if (message.empty() && !note.empty()) message = note;  // a passing check says what it skipped
  result["max_abs_err"] = max_abs;
  result["max_rel_err"] = max_rel;
  result["mismatches"] = mismatches;
  result["passed"] = message.empty() || message == note;
  result["message"] = message;
  return result;
}

// WorkerSession::time is in time_op.cpp.

}  // namespace kforge
