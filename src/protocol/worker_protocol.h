// The worker protocol, typed: every request the orchestrator sends to a worker process
// (kforge-worker or python/kforge_worker.py) and every reply, with their JSON mapping and
// defaults in one place (worker_protocol.cpp). One JSON object per line on the worker's stdin
// and stdout; docs/WORKER_PROTOCOL.md is the page the Python worker follows.
//
// Requests carry resolved plans (plan.h), never a manifest path: a worker reads no project
// files, only the kernel binaries the orchestrator staged for it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/candidate_metrics.h"  // TimingStats, SizeCheck and their JSON
#include "protocol/plan.h"

namespace kforge {

namespace worker_ops {
inline constexpr const char* kInfo = "info";            // -> InfoReply
inline constexpr const char* kBandwidth = "bandwidth";  // -> BandwidthReply
inline constexpr const char* kCheck = "check";          // CheckRequest -> CheckReply
inline constexpr const char* kCalibrate = "calibrate";  // CalibrateRequest -> CalibrateReply
inline constexpr const char* kTime = "time";            // TimeRequest -> TimeReply
inline constexpr const char* kSandbox = "sandbox";      // tests: the sandbox seen from inside
inline constexpr const char* kExit = "exit";
}  // namespace worker_ops

// A compiled variant the worker loads: a binary file staged by the orchestrator, its entry
// point and parameters, and its launch at the request's size.
struct VariantSpec {
  std::string id;
  std::string binary_file;
  std::string format;  // "cubin", "opencl-source", "python", ...
  std::string entry;
  ParamValues params;
  LaunchPlan launch;   // this variant's parameters at the request's size
};

// Timing policy of one `time` request; the defaults here are the only ones.
struct TimingConfig {
  double warmup_ms = 20;        // run the kernel for at least this long before measuring
  int min_samples = 10;
  int max_samples = 2000;
  double max_seconds = 2.0;     // cap per timing request (all variants together)
  double target_rel_ci = 0.01;  // stop when the median's ~95% CI half-width is under 1%
  bool flush_cache = true;      // evict L2 before every timed launch
};

// Per-output tolerance of a check (check_tolerance.h adapts it to each draw).
struct OutputTolerance {
  double atol = 0;
  double rtol = 0;
  double scale = 0;   // mean |reference output| on the manifest's inputs; 0: unknown
  double fan_in = 1;  // input elements per output element: the length of the sums it may hold
};

struct CheckRequest {
  TaskPlan task;
  std::string size;
  VariantSpec variant;
  VariantSpec reference;
  std::vector<std::uint64_t> seeds;
  std::vector<std::string> draws;                     // per seed; empty: the manifest's init
  std::map<std::string, OutputTolerance> tolerances;  // calibrated, per output; empty: the plan's
};

struct CheckReply {
  std::vector<SizeCheck> checks;  // in order; the first failure ends the list
};

struct CalibrateRequest {
  TaskPlan task;
  std::string size;
  VariantSpec reference;
  std::vector<std::uint64_t> seeds;
};

struct OutputCalibration {
  std::string name;           // the output argument
  OutputTolerance tolerance;  // what checks use
  Tolerance manifest;         // what the manifest (or the dtype default) says
  double factor = 1;          // tolerance / manifest (<= 1)
  double pass_factor = 0;     // at manifest x pass_factor an input-free answer passes (inf: never)
  double floor_factor = 0;    // below manifest x floor_factor honest rounding would fail
  bool input_independent = false;  // the reference writes the same bits for every input
  std::string note;           // what was done, one line
  std::string warning;        // non-empty when the tolerance cannot tell an input-free answer
};

struct CalibrateReply {
  std::string size;
  std::vector<OutputCalibration> outputs;
};

struct TimeRequest {
  TaskPlan task;
  std::string size;
  std::vector<VariantSpec> variants;
  std::optional<VariantSpec> reference;  // set: every buffer set's outputs are verified
  std::uint64_t seed = 1;
  TimingConfig timing;
};

// Whether a variant's timed outputs were verified, and what was found.
struct TimedVerification {
  bool checked = false;
  bool passed = true;
  bool out_of_bounds = false;
  int sets = 0;
  int launches = 0;
  int verified_launches = 0;
  std::string message;
};

struct TimedResult {
  std::string id;
  TimingStats stats;
  std::vector<double> samples_ms;  // event-timed, one per round, in round order
  int launches = 0;
  TimedVerification verification;
};

struct TimeReply {
  std::vector<TimedResult> results;
  int sets = 0;                                    // buffer sets rotated
  nlohmann::json overhead = nlohmann::json::object();  // host-side phases in ms (diagnostics)
};


struct InfoReply {
  DeviceInfo device;
};

struct BandwidthReply {
  double copy_gbps = 0;
};

// Every reply is {"ok": true, ...} or {"ok": false, "error": "..."}; these build the envelope.
// A worker says {"ok": true, "ready": true} once its device is open; "context_lost" marks an
// error after which the worker's device is unusable (the orchestrator replaces the worker).
nlohmann::json ok_reply(nlohmann::json body);
nlohmann::json ready_reply();
nlohmann::json error_reply(const std::string& message, bool context_lost = false);

nlohmann::json to_json(const VariantSpec& spec);
VariantSpec variant_spec_from_json(const nlohmann::json& json);
nlohmann::json to_json(const OutputTolerance& tolerance);
OutputTolerance output_tolerance_from_json(const nlohmann::json& json);
nlohmann::json to_json(const OutputCalibration& calibration);
OutputCalibration output_calibration_from_json(const nlohmann::json& json);
nlohmann::json to_json(const DeviceInfo& info);
DeviceInfo device_info_from_json(const nlohmann::json& json);

nlohmann::json to_json(const CheckRequest& request);
CheckRequest check_request_from_json(const nlohmann::json& json);
nlohmann::json to_json(const CheckReply& reply);
CheckReply check_reply_from_json(const nlohmann::json& json);
nlohmann::json to_json(const CalibrateRequest& request);
CalibrateRequest calibrate_request_from_json(const nlohmann::json& json);
nlohmann::json to_json(const CalibrateReply& reply);
CalibrateReply calibrate_reply_from_json(const nlohmann::json& json);
nlohmann::json to_json(const TimeRequest& request);
TimeRequest time_request_from_json(const nlohmann::json& json);
nlohmann::json to_json(const TimeReply& reply);
TimeReply time_reply_from_json(const nlohmann::json& json);
nlohmann::json to_json(const InfoReply& reply);
InfoReply info_reply_from_json(const nlohmann::json& json);
nlohmann::json to_json(const BandwidthReply& reply);
BandwidthReply bandwidth_reply_from_json(const nlohmann::json& json);

}  // namespace kforge
