#include "worker/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "protocol/check_inputs.h"
#include "util/files.h"
#include "worker/check_tolerance.h"
#include "worker/host_buffer.h"
#include "worker/kernel_args.h"
#include "util/trace.h"
#include "worker/sandbox_report.h"

namespace kforge {
namespace {
using nlohmann::json;

// Downloads the buffer arguments into fresh host buffers shaped like `shapes`: outputs to
// compare and inputs to checksum.
std::vector<HostBuffer> download_args(Device& device, const TaskPlan& task, const ArgBinding& binding,
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
void scrub_outputs(Device& device, const TaskPlan& task, const ArgBinding& binding, const std::vector<HostBuffer>& shapes) {
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

WorkerSession::LoadedVariant WorkerSession::load_variant(const VariantSpec& variant) {
  const std::string key = variant.binary_file + "#" + variant.entry;
  auto it = kernels_.find(key);
  if (it == kernels_.end()) {
    CompileResult compiled;
    compiled.ok = true;
    compiled.binary = read_file(variant.binary_file);
    compiled.binary_format = variant.format;
    it = kernels_.emplace(key, device_->load(compiled, variant.entry)).first;
  }
  return {it->second, &variant.launch};
}

json WorkerSession::handle(const json& request) {
  const std::string op = request.at("op");
  TraceScope trace("worker " + op);
  if (op == worker_ops::kInfo) return to_json(info());
  if (op == worker_ops::kCheck) return to_json(check(check_request_from_json(request)));
  if (op == worker_ops::kTime) return to_json(time(time_request_from_json(request)));
  if (op == worker_ops::kCalibrate) return to_json(calibrate(calibrate_request_from_json(request)));
  if (op == worker_ops::kBandwidth) return to_json(BandwidthReply{device_->measure_copy_bandwidth()});
  if (op == worker_ops::kSandbox) return sandbox_report(request);  // tests look at the sandbox from inside
  return error_reply("unknown request '" + op + "'");
}

InfoReply WorkerSession::info() { return {device_->info()}; }

CheckReply WorkerSession::check(const CheckRequest& request) {
  const LoadedVariant candidate = load_variant(request.variant);
  const LoadedVariant reference = load_variant(request.reference);
  CheckReply reply;
  // After the first seed the candidate runs again on its own buffers, with new inputs
  // uploaded and its previous outputs left in place: a kernel that computes once and then
  // returns early (a static flag, "output already written") keeps stale answers and fails.
  KeptBinding kept{*device_, std::nullopt};
  for (std::size_t s = 0; s < request.seeds.size(); ++s) {
    // Which distributions each seed draws (protocol/check_inputs.h); the manifest's by default.
    const std::string draw = s < request.draws.size() ? request.draws[s] : std::string(kManifestDraw);
    reply.checks.push_back(check_one(request, request.seeds[s], candidate, reference, kept.binding, draw));
    if (!reply.checks.back().passed) break;  // the first failure is enough
  }
  return reply;
}

std::vector<HostBuffer> WorkerSession::run_reference(const TaskPlan& t, const LoadedVariant& reference,
                                                     const std::vector<HostBuffer>& inputs) {
  ArgBinding binding = bind_args(*device_, t, *reference.launch, inputs);
  device_->launch(reference.kernel, binding.args, reference.launch->dims);
  device_->synchronize();
  std::vector<HostBuffer> expected = download_args(*device_, t, binding, inputs, false);
  scrub_outputs(*device_, t, binding, inputs);
  release_args(*device_, binding);
  return expected;
}

namespace {
bool outputs_finite(const TaskPlan& t, const std::vector<HostBuffer>& expected) {
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

SizeCheck WorkerSession::check_one(const CheckRequest& request, std::uint64_t seed, const LoadedVariant& candidate,
                                   const LoadedVariant& reference, std::optional<ArgBinding>& kept,
                                   const std::string& draw) {
  const TaskPlan& t = request.task;
  SizeCheck result;
  result.size = request.size;
  result.seed = seed;
  result.draw = draw;
  const LaunchPlan& ref_launch = *reference.launch;
  const LaunchPlan& cand_launch = *candidate.launch;
  std::optional<TraceScope> phase(std::in_place, "  inputs " + request.size + " " + draw);
  DrawPlan plan = plan_draw(t.args, draw);
  std::vector<HostBuffer> inputs = make_host_args(t, ref_launch, seed, plan.distributions);
  phase.emplace("  reference run+download");

  // Reference first, on its own buffers: the candidate never sees the reference's output.
  std::vector<HostBuffer> expected = run_reference(t, reference, inputs);
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
      const DrawPlan single = keep_only(t.args, plan, alone);
      if (outputs_finite(t, run_reference(t, reference, make_host_args(t, ref_launch, seed, single.distributions))))
        keep[i] = true;
      else
        skipped += (skipped.empty() ? "" : ", ") + t.args[i].name + " = " + plan.distributions[i];
    }
    DrawPlan kept_plan = keep_only(t.args, plan, keep);
    inputs = make_host_args(t, ref_launch, seed, kept_plan.distributions);
    expected = run_reference(t, reference, inputs);
    if (!outputs_finite(t, expected) && kept_plan.any_drawn()) {  // fine alone, not together
      kept_plan = keep_only(t.args, plan, std::vector<bool>(t.args.size(), false));
      inputs = make_host_args(t, ref_launch, seed, kept_plan.distributions);
      expected = run_reference(t, reference, inputs);
      skipped = "all drawn arguments together";
    }
    note = "draw '" + draw + "' skipped for " + skipped +
           ": the reference itself returns non-finite outputs on it, so it cannot judge the candidate";
    plan = kept_plan;
  }
  result.inputs = plan.describe(t.args);
  const bool manifest_draw = !plan.any_drawn();
  const double input_mean_abs = manifest_draw ? 0.0 : mean_abs_inputs(t.args, inputs);

  phase.emplace("  candidate run+download");
  // The candidate gets the very same inputs (and freshly poisoned outputs, as in `inputs`).
  for (std::size_t i = 0; i < t.args.size(); ++i) {
    if (t.args[i].role != ArgRole::Scalar && cand_launch.count(i) != inputs[i].count) {
      result.message = "argument '" + t.args[i].name + "' has a different size under this variant's parameters";
      return result;
    }
  }
  const std::vector<HostBuffer>& cand_inputs = inputs;
  const bool reused = kept.has_value();
  if (!reused) {
    kept = bind_args(*device_, t, cand_launch, cand_inputs);
  } else {
    for (std::size_t i = 0; i < t.args.size(); ++i)  // new inputs; outputs keep the last run's values
      if (kept->buffers[i] >= 0 && t.args[i].role != ArgRole::Output && cand_inputs[i].size_bytes() > 0)
        device_->upload(kept->buffers[i], cand_inputs[i].bytes.data(), cand_inputs[i].size_bytes());
  }
  const ArgBinding& binding = *kept;
  device_->launch(candidate.kernel, binding.args, cand_launch.dims);
  // A full device synchronisation, so work a kernel left on another stream counts too.
  device_->synchronize();
  const std::vector<HostBuffer> actual = download_args(*device_, t, binding, cand_inputs, true);
  std::string guard_violation;
  for (std::size_t i = 0; i < t.args.size(); ++i)
    if (binding.buffers[i] >= 0 && !device_->guards_intact(binding.buffers[i]) && guard_violation.empty())
      guard_violation = t.args[i].name;

  phase.emplace("  compare");
  if (!guard_violation.empty()) {
    result.out_of_bounds = true;
    result.message = "out-of-bounds write: memory just outside buffer '" + guard_violation + "' was overwritten";
    return result;
  }
  double max_abs = 0, max_rel = 0;
  std::int64_t mismatches = 0;
  // The first mismatch of `outputs` against the reference, in words ("" when they all match).
  auto first_mismatch = [&](const std::vector<HostBuffer>& outputs, bool record) {
    std::string text;
    for (std::size_t i = 0; i < t.args.size(); ++i) {
      const ArgPlan& arg = t.args[i];
      if (arg.role == ArgRole::Scalar) continue;
      if (arg.role == ArgRole::Input) {
        if (checksum(outputs[i]) != checksum(cand_inputs[i]) && text.empty())
          text = "input '" + arg.name + "' was modified by the kernel";
        continue;
      }
      const auto calibrated = request.tolerances.find(arg.name);
      const OutputTolerance base = calibrated != request.tolerances.end()
                                       ? calibrated->second
                                       : OutputTolerance{arg.tolerance.atol, arg.tolerance.rtol, 0, ref_launch.fan_in[i]};
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
    ArgBinding fresh = bind_args(*device_, t, cand_launch, cand_inputs);
    device_->launch(candidate.kernel, fresh.args, cand_launch.dims);
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
  result.max_abs_err = max_abs;
  result.max_rel_err = max_rel;
  result.mismatches = mismatches;
  result.passed = message.empty() || message == note;
  result.message = message;
  return result;
}

// WorkerSession::time is in time_op.cpp.

}  // namespace kforge
