// JSON mapping of the worker protocol (worker_protocol.h): the only place requests and replies
// are written or read. Readers take defaults from the structs, so a field a worker leaves out
// (the Python worker reports fewer timing figures) reads as the struct's default.
#include "protocol/worker_protocol.h"

#include <cmath>
#include <limits>


namespace kforge {
namespace {
using nlohmann::json;

json params_json(const ParamValues& params) {
  json out = json::object();
  for (const auto& [name, value] : params) out[name] = value;
  return out;
}

json seeds_json(const std::vector<std::uint64_t>& seeds) {
  json out = json::array();
  for (auto seed : seeds) out.push_back(seed);
  return out;
}

}  // namespace

json ok_reply(json body) {
  body["ok"] = true;
  return body;
}

json ready_reply() { return {{"ok", true}, {"ready", true}}; }

json error_reply(const std::string& message, bool context_lost) {
  json out = {{"ok", false}, {"error", message}};
  if (context_lost) out["context_lost"] = true;
  return out;
}

json to_json(const VariantSpec& spec) {
  return {{"id", spec.id},       {"binary_file", spec.binary_file}, {"format", spec.format},
          {"entry", spec.entry}, {"params", params_json(spec.params)}, {"launch", to_json(spec.launch)}};
}

VariantSpec variant_spec_from_json(const json& j) {
  VariantSpec spec;
  spec.id = j.value("id", "");
  spec.binary_file = j.at("binary_file");
  spec.format = j.value("format", "");
  spec.entry = j.at("entry");
  spec.params = j.value("params", json::object()).get<ParamValues>();
  spec.launch = launch_plan_from_json(j.at("launch"));
  return spec;
}

json to_json(const OutputTolerance& t) {
  return {{"atol", t.atol}, {"rtol", t.rtol}, {"scale", t.scale}, {"fan_in", t.fan_in}};
}

OutputTolerance output_tolerance_from_json(const json& j) {
  return {j.value("atol", 0.0), j.value("rtol", 0.0), j.value("scale", 0.0), j.value("fan_in", 1.0)};
}

json to_json(const OutputCalibration& c) {
  auto finite_or_null = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  return {{"name", c.name},
          {"tolerance", to_json(c.tolerance)},
          {"manifest_atol", c.manifest.atol},
          {"manifest_rtol", c.manifest.rtol},
          {"factor", c.factor},
          {"pass_factor", finite_or_null(c.pass_factor)},
          {"floor_factor", c.floor_factor},
          {"input_independent", c.input_independent},
          {"note", c.note},
          {"warning", c.warning}};
}

OutputCalibration output_calibration_from_json(const json& j) {
  OutputCalibration c;
  c.name = j.at("name");
  c.tolerance = output_tolerance_from_json(j.at("tolerance"));
  c.manifest = {j.value("manifest_atol", 0.0), j.value("manifest_rtol", 0.0)};
  c.factor = j.value("factor", 1.0);
  const json pass = j.value("pass_factor", json(nullptr));
  c.pass_factor = pass.is_number() ? pass.get<double>() : std::numeric_limits<double>::infinity();
  c.floor_factor = j.value("floor_factor", 0.0);
  c.input_independent = j.value("input_independent", false);
  c.note = j.value("note", "");
  c.warning = j.value("warning", "");
  return c;
}

json to_json(const DeviceInfo& d) {
  return {{"backend", d.backend},       {"name", d.name},
          {"arch", d.arch},             {"platform", d.platform},
          {"compute_units", d.compute_units}, {"global_mem_bytes", d.global_mem_bytes},
          {"l2_bytes", d.l2_bytes},     {"shared_mem_per_block", d.shared_mem_per_block},
          {"max_threads_per_block", d.max_threads_per_block}, {"clock_mhz", d.clock_mhz},
          {"is_gpu", d.is_gpu}};
}

DeviceInfo device_info_from_json(const json& j) {
  DeviceInfo d;
  if (!j.is_object()) return d;
  d.backend = j.value("backend", "");
  d.name = j.value("name", "");
  d.arch = j.value("arch", "");
  d.platform = j.value("platform", "");
  d.compute_units = j.value("compute_units", 0);
  d.global_mem_bytes = j.value("global_mem_bytes", std::int64_t{0});
  d.l2_bytes = j.value("l2_bytes", std::int64_t{0});
  d.shared_mem_per_block = j.value("shared_mem_per_block", std::int64_t{0});
  d.max_threads_per_block = j.value("max_threads_per_block", 0);
  d.clock_mhz = j.value("clock_mhz", 0);
  d.is_gpu = j.value("is_gpu", false);
  return d;
}

json to_json(const CheckRequest& r) {
  json out = {{"op", worker_ops::kCheck},     {"task", to_json(r.task)},
              {"size", r.size},               {"variant", to_json(r.variant)},
              {"reference", to_json(r.reference)}, {"seeds", seeds_json(r.seeds)}};
  if (!r.draws.empty()) out["draws"] = r.draws;
  if (!r.tolerances.empty()) {
    json tolerances = json::object();
    for (const auto& [name, t] : r.tolerances) tolerances[name] = to_json(t);
    out["tolerances"] = tolerances;
  }
  return out;
}

CheckRequest check_request_from_json(const json& j) {
  CheckRequest r;
  r.task = task_plan_from_json(j.at("task"));
  r.size = j.at("size");
  r.variant = variant_spec_from_json(j.at("variant"));
  r.reference = variant_spec_from_json(j.at("reference"));
  r.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
  r.draws = j.value("draws", std::vector<std::string>{});
  const json tolerances = j.value("tolerances", json::object());  // items() needs a live object
  for (const auto& [name, t] : tolerances.items()) r.tolerances[name] = output_tolerance_from_json(t);
  return r;
}

json to_json(const CheckReply& reply) {
  json checks = json::array();
  for (const auto& check : reply.checks) checks.push_back(to_json(check));
  return ok_reply({{"checks", checks}});
}

CheckReply check_reply_from_json(const json& j) {
  CheckReply reply;
  for (const auto& check : j.at("checks")) reply.checks.push_back(size_check_from_json(check));
  return reply;
}

json to_json(const CalibrateRequest& r) {
  return {{"op", worker_ops::kCalibrate}, {"task", to_json(r.task)},        {"size", r.size},
          {"reference", to_json(r.reference)}, {"seeds", seeds_json(r.seeds)}};
}

CalibrateRequest calibrate_request_from_json(const json& j) {
  return {task_plan_from_json(j.at("task")), j.at("size"), variant_spec_from_json(j.at("reference")),
          j.at("seeds").get<std::vector<std::uint64_t>>()};
}

json to_json(const CalibrateReply& reply) {
  json outputs = json::array();
  for (const auto& output : reply.outputs) outputs.push_back(to_json(output));
  return ok_reply({{"size", reply.size}, {"outputs", outputs}});
}

CalibrateReply calibrate_reply_from_json(const json& j) {
  CalibrateReply reply;
  reply.size = j.value("size", "");
  for (const auto& output : j.at("outputs")) reply.outputs.push_back(output_calibration_from_json(output));
  return reply;
}

json to_json(const TimeRequest& r) {
  json variants = json::array();
  for (const auto& v : r.variants) variants.push_back(to_json(v));
  const TimingConfig& t = r.timing;
  json out = {{"op", worker_ops::kTime},     {"task", to_json(r.task)},
              {"size", r.size},              {"variants", variants},
              {"seed", r.seed},              {"warmup_ms", t.warmup_ms},
              {"min_samples", t.min_samples}, {"max_samples", t.max_samples},
              {"max_seconds", t.max_seconds}, {"target_rel_ci", t.target_rel_ci},
              {"flush_cache", t.flush_cache}};
  if (r.reference) out["reference"] = to_json(*r.reference);
  return out;
}

TimeRequest time_request_from_json(const json& j) {
  TimeRequest r;
  r.task = task_plan_from_json(j.at("task"));
  r.size = j.at("size");
  for (const auto& v : j.at("variants")) r.variants.push_back(variant_spec_from_json(v));
  if (j.contains("reference")) r.reference = variant_spec_from_json(j.at("reference"));
  r.seed = j.value("seed", r.seed);
  TimingConfig& t = r.timing;
  t.warmup_ms = j.value("warmup_ms", t.warmup_ms);
  t.min_samples = j.value("min_samples", t.min_samples);
  t.max_samples = j.value("max_samples", t.max_samples);
  t.max_seconds = j.value("max_seconds", t.max_seconds);
  t.target_rel_ci = j.value("target_rel_ci", t.target_rel_ci);
  t.flush_cache = j.value("flush_cache", t.flush_cache);
  return r;
}

json to_json(const TimeReply& reply) {
  json results = json::array();
  for (const auto& r : reply.results) {
    const TimedVerification& v = r.verification;
    json verification = {{"checked", v.checked}};
    if (v.checked) {
      verification.update({{"passed", v.passed}, {"sets", v.sets}, {"launches", v.launches},
                           {"verified_launches", v.verified_launches}});
      if (!v.passed) verification["message"] = v.message;
      if (v.out_of_bounds) verification["fault"] = "out_of_bounds";
    }
    results.push_back({{"id", r.id}, {"stats", to_json(r.stats)}, {"samples_ms", r.samples_ms},
                       {"launches", r.launches}, {"verification", verification}});
  }
  return ok_reply({{"results", results}, {"sets", reply.sets}, {"overhead", reply.overhead}});
}

TimeReply time_reply_from_json(const json& j) {
  TimeReply reply;
  reply.sets = j.value("sets", 0);
  reply.overhead = j.value("overhead", json::object());
  for (const auto& entry : j.at("results")) {
    TimedResult r;
    r.id = entry.at("id");
    r.stats = timing_from_json(entry.at("stats"));
    r.samples_ms = entry.value("samples_ms", std::vector<double>{});
    r.launches = entry.value("launches", 0);
    const json v = entry.value("verification", json::object());
    r.verification.checked = v.value("checked", false);
    r.verification.passed = v.value("passed", true);
    r.verification.out_of_bounds = v.value("fault", "") == "out_of_bounds";
    r.verification.sets = v.value("sets", 0);
    r.verification.launches = v.value("launches", 0);
    r.verification.verified_launches = v.value("verified_launches", 0);
    r.verification.message = v.value("message", "");
    reply.results.push_back(std::move(r));
  }
  return reply;
}

json to_json(const InfoReply& reply) { return ok_reply({{"device", to_json(reply.device)}}); }
InfoReply info_reply_from_json(const json& j) { return {device_info_from_json(j.at("device"))}; }
json to_json(const BandwidthReply& reply) { return ok_reply({{"copy_gbps", reply.copy_gbps}}); }
BandwidthReply bandwidth_reply_from_json(const json& j) { return {j.value("copy_gbps", 0.0)}; }

}  // namespace kforge
