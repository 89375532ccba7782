#include "eval/evaluator.h"

#include <sstream>

#include "backend/compile_cache.h"
#include "backend/include_policy.h"
#include "backend/python/python_env.h"
#include "util/files.h"
#include "util/hash.h"
#include "util/parallel.h"
#include "util/trace.h"

namespace kforge {
namespace {
using nlohmann::json;

json params_json(const ParamValues& params) {
  json object = json::object();
  for (const auto& [name, value] : params) object[name] = value;
  return object;
}

EvalStatus status_for(const WorkerReply& reply) {
  switch (reply.kind) {
    case WorkerReply::Kind::TimedOut: return EvalStatus::Timeout;
    case WorkerReply::Kind::Crashed:
    case WorkerReply::Kind::Error: return EvalStatus::RuntimeError;
    case WorkerReply::Kind::Ok: return EvalStatus::Correct;
  }
  return EvalStatus::RuntimeError;
}
}  // namespace

std::string first_error_line(const std::string& compile_log) {
  std::istringstream lines(compile_log);
  std::string line, first_nonempty;
  while (std::getline(lines, line)) {
    if (line.find("error") != std::string::npos) return line;
    if (first_nonempty.empty() && !line.empty()) first_nonempty = line;
  }
  return first_nonempty.empty() ? "compilation failed (no log)" : first_nonempty;
}

Evaluator::Evaluator(Task task, EvalOptions options)
    : task_(std::move(task)),
      options_(std::move(options)),
      backend_(make_backend(task_.kernel.language)),
      worker_(options_.worker_executable, task_.kernel.language, options_.device_index, options_.limits),
      compilers_(options_.worker_executable, task_.kernel.language, options_.device_index, options_.limits,
                 options_.compile_limits, options_.compile_threads),
      seeds_(std::random_device{}()) {}

Evaluator::~Evaluator() = default;

KernelVariant Evaluator::baseline_variant() const {
  KernelVariant variant;
  variant.source = read_file(task_.kernel.source);
  variant.params = task_.default_params();
  variant.kernel = task_.kernel.kernel;
  return variant;
}

KernelVariant Evaluator::reference_variant() const {
  if (!task_.reference) return baseline_variant();
  KernelVariant variant;
  variant.source = read_file(task_.reference->source);
  variant.params = task_.default_params();
  variant.kernel = task_.reference->kernel;
  return variant;
}

CompileTarget Evaluator::compile_target() {
  std::lock_guard lock(target_mutex_);
  if (!target_) target_ = backend_->compile_target(options_.device_index);
  return *target_;
}

CompileResult Evaluator::compile(const KernelVariant& variant) {
  TraceScope trace("compile");
  CompileRequest request;
  request.language = task_.kernel.language;
  request.source = variant.source;
  request.source_name = task_.kernel.source.filename().string();
  request.kernel = variant.kernel.empty() ? task_.kernel.kernel : variant.kernel;
  for (const auto& [name, value] : variant.params) request.defines.emplace_back(name, std::to_string(value));
  request.options = task_.compile_options;
  request.options.insert(request.options.end(), variant.options.begin(), variant.options.end());
  request.include_dirs.push_back(task_.root.string());
  request.device_index = options_.device_index;
  // Python tasks: the backend's check is already a py_compile subprocess.
  if (is_python_language(request.language)) return backend_->compile(request);

  const auto refused = [&](const std::string& why) {
    CompileResult result;
    result.kernel = request.kernel;
    result.log = why;
    return result;
  };
  for (const auto& option : variant.options)
    if (std::string error = include_option_error(option); !error.empty()) return refused(error);
  const IncludeScan includes = scan_includes(request.source, task_.root);
  if (!includes.error.empty()) return refused(includes.error);
  request.includes_digest = includes.digest;
  const CompileTarget target = compile_target();
  const std::string key = compile_cache_key(request, backend_->name(), target.device, target.compiler);
  return compile_with_cache(key, [&](bool& cacheable) { return compilers_.compile(request, target, cacheable); });
}

std::vector<CompileResult> Evaluator::compile_all(const std::vector<KernelVariant>& variants) {
  std::vector<CompileResult> results(variants.size());
  if (variants.empty()) return results;
  if (!is_python_language(task_.kernel.language)) {
    // Initialise once, before the threads: the platform query is not thread-safe on PoCL,
    // and an environment failure must surface once, as an EnvironmentError.
    compile_target();
    compilers_.start_one();
  }
  parallel_for(variants.size(), [&](std::size_t i) { results[i] = compile(variants[i]); },
               options_.compile_threads);
  return results;
}

const CompileResult& Evaluator::compiled_reference() {
  if (!reference_compiled_) {
    reference_compiled_ = compile(reference_variant());
    if (!reference_compiled_->ok)
      throw TaskError(task_.manifest_path.string() + ": the reference kernel does not compile: " +
                      first_error_line(reference_compiled_->log) + "; fix the reference source");
  }
  return *reference_compiled_;
}

const CompileResult& Evaluator::compiled_baseline() {
  if (!baseline_compiled_) {
    baseline_compiled_ = compile(baseline_variant());
    if (!baseline_compiled_->ok)
      throw TaskError(task_.manifest_path.string() + ": the original kernel does not compile: " +
                      first_error_line(baseline_compiled_->log) + "; fix " + task_.kernel.source.string());
  }
  return *baseline_compiled_;
}

std::string Evaluator::stage_binary(const CompileResult& compiled) {
  const std::string key = compiled.key.empty() ? content_hash(compiled.binary) : compiled.key;
  const auto path = cache_dir() / "binaries" / (key + ".bin");
  if (!std::filesystem::exists(path)) write_file(path, compiled.binary);
  return path.string();
}

json Evaluator::variant_json(const KernelVariant& variant, const CompileResult& compiled, const std::string& id) {
  const std::string kernel = variant.kernel.empty() ? task_.kernel.kernel : variant.kernel;
  return {{"id", id},
          {"binary_file", stage_binary(compiled)},
          {"format", compiled.binary_format},
          {"entry", compiled.lowered_name.empty() ? kernel : compiled.lowered_name},
          {"params", params_json(variant.params)}};
}

EvalResult Evaluator::check(const KernelVariant& variant, const CompileResult& compiled) {
  EvalResult result;
  result.compile = compiled;
  if (!compiled.ok) {
    result.status = EvalStatus::CompileError;
    result.message = first_error_line(compiled.log);
    return result;
  }
  const json reference = variant_json(reference_variant(), compiled_reference(), "reference");
  const json candidate = variant_json(variant, compiled, "candidate");
  std::lock_guard lock(worker_mutex_);
  // One request per size, so a crash or hang names the size that caused it.
  for (const auto& size : task_.sizes) {
    json seeds = json::array();
    for (int i = 0; i < options_.check_seeds; ++i) seeds.push_back(seeds_() >> 1);
    const json request = {{"op", "check"},         {"manifest", task_.manifest_path.string()},
                          {"variant", candidate},  {"reference", reference},
                          {"sizes", {size.name}},  {"seeds", seeds}};
    TraceScope trace("check " + size.name);
    const WorkerReply reply = worker_.request(request, options_.check_timeout_s);
    if (reply.kind != WorkerReply::Kind::Ok) {
      result.status = status_for(reply);
      result.message = "size '" + size.name + "': " + reply.message;
      return result;
    }
    for (const auto& check_json : reply.body.at("checks")) {
      SizeCheck size_check = size_check_from_json(check_json);
      result.max_abs_err = std::max(result.max_abs_err, size_check.max_abs_err);
      result.max_rel_err = std::max(result.max_rel_err, size_check.max_rel_err);
      result.checks.push_back(size_check);
      if (!size_check.passed) {
        const bool memory_fault = check_json.value("fault", "") == "out_of_bounds";
        result.status = memory_fault ? EvalStatus::RuntimeError : EvalStatus::Incorrect;
        result.message = "size '" + size.name + "': " + size_check.message;
        return result;
      }
    }
  }
  result.status = EvalStatus::Correct;
  result.message = "correct on " + std::to_string(task_.sizes.size()) + " sizes x " +
                   std::to_string(options_.check_seeds) + " seeds";
  return result;
}

std::vector<std::optional<TimingStats>> Evaluator::time_together(
    const std::vector<std::pair<const KernelVariant*, const CompileResult*>>& variants, std::string& error,
    const std::string& size_name) {
  std::vector<std::optional<TimingStats>> timings(variants.size());
  json list = json::array();
  for (std::size_t i = 0; i < variants.size(); ++i)
    list.push_back(variant_json(*variants[i].first, *variants[i].second, std::to_string(i)));
  const TimingConfig& t = options_.timing;
  const json request = {{"op", "time"},
                        {"manifest", task_.manifest_path.string()},
                        {"size", size_name.empty() ? task_.sizes.front().name : size_name},
                        {"variants", list},
                        {"seed", seeds_() >> 1},
                        {"warmup_ms", t.warmup_ms},
                        {"min_samples", t.min_samples},
                        {"max_samples", t.max_samples},
                        {"max_seconds", t.max_seconds},
                        {"target_rel_ci", t.target_rel_ci},
                        {"flush_cache", t.flush_cache}};
  std::lock_guard lock(worker_mutex_);
  TraceScope trace("time");
  const WorkerReply reply = worker_.request(request, options_.time_timeout_s);
  if (reply.kind != WorkerReply::Kind::Ok) {
    error = (reply.kind == WorkerReply::Kind::TimedOut ? "timing " : "timing failed: ") + reply.message;
    return timings;
  }
  for (const auto& entry : reply.body.at("results"))
    timings[std::stoul(entry.at("id").get<std::string>())] = timing_from_json(entry.at("stats"));
  return timings;
}

EvalResult Evaluator::evaluate(const KernelVariant& candidate) {
  return evaluate_compiled(candidate, compile(candidate));
}

EvalResult Evaluator::evaluate_compiled(const KernelVariant& candidate, const CompileResult& compiled) {
  EvalResult result = check(candidate, compiled);
  if (result.status != EvalStatus::Correct) return result;
  const KernelVariant baseline = baseline_variant();
  std::string error;
  const auto timings = time_together({{&baseline, &compiled_baseline()}, {&candidate, &compiled}}, error);
  if (!timings[1] || !timings[0]) {
    result.status = error.find("timed out") != std::string::npos ? EvalStatus::Timeout : EvalStatus::RuntimeError;
    result.message = error;
    return result;
  }
  result.baseline_timing = timings[0];
  result.timing = timings[1];
  result.speedup = timings[0]->median_ms / timings[1]->median_ms;
  fill_throughput(result, candidate.params);
  if (const auto mismatch = timing_mismatch(*timings[1], *timings[0])) {  // anti-cheat
    result.status = EvalStatus::Incorrect;
    result.message = *mismatch;
  }
  return result;
}

void Evaluator::fill_throughput(EvalResult& result, const ParamValues& params) const {
  if (!result.timing || result.timing->median_ms <= 0) return;
  const Bindings bindings = bindings_for(task_, task_.sizes.front(), params);
  const double seconds = result.timing->median_ms / 1000.0;
  result.gbps = bytes_moved(task_, bindings) / seconds / 1e9;
  if (const auto flop_count = flops(task_, bindings)) result.gflops = *flop_count / seconds / 1e9;
}

DeviceSummary Evaluator::device() {
  if (device_) return *device_;
  std::lock_guard lock(worker_mutex_);
  DeviceSummary summary;
  const WorkerReply info = worker_.request({{"op", "info"}}, options_.check_timeout_s);
  if (info.kind != WorkerReply::Kind::Ok) throw std::runtime_error("cannot query the device: " + info.message);
  summary.info = info.body.at("device");
  // Copy bandwidth is a property of the device: measure once, keep it in the cache.
  const auto cache_file = cache_dir() / "devices" /
                          (content_hash(summary.info.dump()) + ".json");
  if (std::filesystem::exists(cache_file)) {
    summary.copy_gbps = json::parse(read_file(cache_file)).value("copy_gbps", 0.0);
  } else {
    const WorkerReply bandwidth = worker_.request({{"op", "bandwidth"}}, options_.time_timeout_s);
    if (bandwidth.kind == WorkerReply::Kind::Ok) {
      summary.copy_gbps = bandwidth.body.value("copy_gbps", 0.0);
      write_file(cache_file, json{{"device", summary.info}, {"copy_gbps", summary.copy_gbps}}.dump(2));
    }
  }
  device_ = summary;
  return summary;
}

}  // namespace kforge
