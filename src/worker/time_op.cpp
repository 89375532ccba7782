// The worker's `time` op: variants timed in interleaved rounds (random order within a round,
// a cache flush before each launch, device events around it), rotating over buffer sets
// whose outputs are re-poisoned outside the timed region. When the request names a
// reference, each set's expected outputs are computed with it once, a random eighth of the
// timed launches (at most 8 per variant) and the last launch on every set are verified, and
// a variant whose timed outputs are wrong gets a failed verification in the reply.
#include <algorithm>
#include <chrono>
#include <random>

#include "util/trace.h"
#include "worker/host_buffer.h"
#include "worker/kernel_args.h"
#include "worker/session.h"
#include "worker/timed_sets.h"

namespace kforge {
namespace {
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kWallEvery = 4;        // rounds between host wall-time launches
constexpr int kMinWallSamples = 5;   // taken at the end when the loop stopped early
constexpr unsigned kSpotCheckOdds = 8;  // a timed launch is verified with probability 1/8...
constexpr int kMaxSpotChecks = 8;       // ...at most this many times per variant
constexpr double kMinSamplesGrace = 4;  // max_seconds may stretch this much to reach min_samples

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::uint64_t set_seed(std::uint64_t seed, int set) {  // splitmix64: unrelated streams per set
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(set + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) >> 1;
}

std::int64_t buffer_bytes(const std::vector<HostBuffer>& args) {
  std::int64_t total = 0;
  for (const auto& buffer : args) total += static_cast<std::int64_t>(buffer.size_bytes());
  return total;
}

bool same_shapes(const TaskPlan& task, const LaunchPlan& launch, const std::vector<HostBuffer>& host) {
  for (std::size_t i = 0; i < task.args.size(); ++i)
    if (task.args[i].role != ArgRole::Scalar && launch.count(i) != host[i].count) return false;
  return true;
}

// Outputs of the reference on `set` (downloaded, then scrubbed on the device before release).
std::vector<HostBuffer> reference_outputs(Device& device, const TaskPlan& task, KernelId reference,
                                          const LaunchPlan& launch, const HostSet& set) {
  ArgBinding binding = bind_args(device, task, launch, set.args);
  device.launch(reference, binding.args, launch.dims);
  device.synchronize();
  std::vector<HostBuffer> expected(set.args.size());
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    const ArgRole role = task.args[i].role;
    if (role == ArgRole::Scalar || role == ArgRole::Input || set.args[i].size_bytes() == 0) continue;
    expected[i] = make_buffer(set.args[i].dtype, set.args[i].count);
    device.download(binding.buffers[i], expected[i].bytes.data(), expected[i].size_bytes());
    device.fill(binding.buffers[i], 0xFF);  // a later allocation must not find these answers
  }
  device.synchronize();
  release_args(device, binding);
  return expected;
}

struct Timed {
  std::string id;
  KernelId kernel = -1;
  LaunchDims dims;
  const std::vector<HostSet>* sets = nullptr;
  std::vector<ArgBinding> bindings;  // one per set
  std::vector<double> samples;       // event-timed, in round order
  std::vector<double> wall;
  int launches = 0;
  int spot_checks = 0;
  int verified_launches = 0;
  std::vector<int> launched_on;      // launches per set
  bool verify = false;
  SetVerdict verdict;
  int failed_at_launch = 0;
  int failed_set = -1;
};

// Releases every binding of every variant when the op ends, thrown or not.
struct TimedBindings {
  Device& device;
  std::vector<Timed>& timed;
  ~TimedBindings() {
    for (auto& entry : timed)
      for (auto& binding : entry.bindings) try {
          release_args(device, binding);
        } catch (const std::exception&) {  // a lost context frees everything anyway
        }
  }
};

TimedVerification verification_of(const Timed& entry, int sets) {
  TimedVerification out;
  if (!entry.verify) return out;
  out.checked = true;
  out.passed = entry.verdict.passed;
  out.sets = sets;
  out.launches = entry.launches;
  out.verified_launches = entry.verified_launches;
  if (!entry.verdict.passed) {
    out.message = "buffer set " + std::to_string(entry.failed_set + 1) + " of " + std::to_string(sets) +
                  ", launch " + std::to_string(entry.failed_at_launch) + ": " + entry.verdict.message;
    out.out_of_bounds = entry.verdict.out_of_bounds;
  }
  return out;
}
}  // namespace

TimeReply WorkerSession::time(const TimeRequest& request) {
  const TaskPlan& t = request.task;
  const TimingConfig& config = request.timing;
  const std::uint64_t seed = request.seed;
  json overhead = {{"prepare_ms", 0.0}, {"reset_ms", 0.0}, {"verify_ms", 0.0}};
  auto prepare_start = Clock::now();

  // The sets are shaped by the reference (as in the check) or, unverified, by the first variant.
  std::optional<LoadedVariant> reference;
  if (request.reference) reference = load_variant(*request.reference);
  std::vector<Timed> timed;
  std::vector<const LaunchPlan*> variant_launches;
  for (const VariantSpec& v : request.variants) {
    Timed entry;
    entry.id = v.id;
    const LoadedVariant loaded = load_variant(v);
    entry.kernel = loaded.kernel;
    variant_launches.push_back(loaded.launch);
    entry.dims = loaded.launch->dims;
    timed.push_back(std::move(entry));
  }
  TimedBindings release{*device_, timed};
  if (timed.empty()) return {};
  const LaunchPlan& shape_launch = reference ? *reference->launch : *variant_launches.front();

  std::vector<HostSet> sets;
  sets.push_back({make_host_args(t, shape_launch, set_seed(seed, 0)), {}, {}});
  const int set_count = timed_set_count(buffer_bytes(sets.front().args), static_cast<int>(timed.size()),
                                        device_->info().global_mem_bytes);
  for (int k = 1; k < set_count; ++k) sets.push_back({make_host_args(t, shape_launch, set_seed(seed, k)), {}, {}});
  for (auto& set : sets) {
    set.checksums.assign(t.args.size(), 0);
    for (std::size_t i = 0; i < t.args.size(); ++i)
      if (t.args[i].role == ArgRole::Input) set.checksums[i] = checksum(set.args[i]);
    if (reference) set.expected = reference_outputs(*device_, t, reference->kernel, shape_launch, set);
  }
  // A variant whose argument sizes differ from the reference's was refused by the check; its
  // timing (unverified) gets its own sets.
  std::vector<std::vector<HostSet>> own_sets(timed.size());
  for (std::size_t v = 0; v < timed.size(); ++v) {
    Timed& entry = timed[v];
    entry.verify = reference.has_value();
    entry.sets = &sets;
    if (!same_shapes(t, *variant_launches[v], sets.front().args)) {
      for (int k = 0; k < set_count; ++k)
        own_sets[v].push_back({make_host_args(t, *variant_launches[v], set_seed(seed, k)), {}, {}});
      entry.sets = &own_sets[v];
      if (entry.verify)
        entry.verdict = {false, false, "argument sizes differ from the reference's under this variant's parameters"};
    }
    for (const HostSet& set : *entry.sets) entry.bindings.push_back(bind_args(*device_, t, *variant_launches[v], set.args));
    entry.launched_on.assign(entry.bindings.size(), 0);
  }
  device_->synchronize();
  overhead["prepare_ms"] = ms_since(prepare_start);

  std::mt19937_64 rng(seed);
  double reset_ms = 0, verify_ms = 0;
  // One launch of `entry` on a random set, restored first (outside any timed region).
  auto next_set = [&](Timed& entry) {
    const auto k = static_cast<std::size_t>(rng() % entry.bindings.size());
    const auto start = Clock::now();
    reset_set(*device_, t, entry.bindings[k], (*entry.sets)[k]);
    reset_ms += ms_since(start);
    ++entry.launched_on[k];
    ++entry.launches;
    return k;
  };
  auto verify_launch = [&](Timed& entry, std::size_t k) {
    if (!entry.verify || !entry.verdict.passed) return;
    const auto start = Clock::now();
    device_->synchronize();
    ++entry.verified_launches;
    const SetVerdict verdict = verify_set(*device_, t, entry.bindings[k], (*entry.sets)[k]);
    if (!verdict.passed) {
      entry.verdict = verdict;
      entry.failed_at_launch = entry.launches;
      entry.failed_set = static_cast<int>(k);
    }
    verify_ms += ms_since(start);
  };
  auto wall_launch = [&](Timed& entry) {
    const std::size_t k = next_set(entry);
    device_->synchronize();
    const auto wall_start = Clock::now();
    device_->launch(entry.kernel, entry.bindings[k].args, entry.dims);
    device_->synchronize();
    entry.wall.push_back(ms_since(wall_start));
  };

  // Warm-up: module load, first-touch and clock ramp-up stay out of the numbers.
  for (auto& entry : timed) {
    const auto start = Clock::now();
    for (int i = 0; i < 3 || ms_since(start) < config.warmup_ms / static_cast<double>(timed.size()); ++i) {
      const std::size_t k = next_set(entry);
      device_->launch(entry.kernel, entry.bindings[k].args, entry.dims);
      device_->synchronize();
      if (i > 1000) break;
    }
  }

  // Interleaved rounds in random order, so drift (clocks, temperature) hits all variants alike.
  std::vector<std::size_t> order(timed.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto start = Clock::now();
  for (int round = 0; round < config.max_samples; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t index : order) {
      Timed& entry = timed[index];
      const std::size_t k = next_set(entry);
      if (config.flush_cache) device_->flush_cache();
      entry.samples.push_back(device_->launch_timed(entry.kernel, entry.bindings[k].args, entry.dims));
      if (entry.spot_checks < kMaxSpotChecks && rng() % kSpotCheckOdds == 0) {
        ++entry.spot_checks;
        verify_launch(entry, k);
      }
      // Host wall time with a full device sync: exposes work hidden on other streams.
      if (round % kWallEvery == 0) wall_launch(entry);
    }
    const bool all_precise = std::all_of(timed.begin(), timed.end(), [&](const Timed& e) {
      return precise_enough(summarize(e.samples), config);
    });
    // Past max_seconds only to reach min_samples rounds (a median's 95% CI needs at least 6),
    // and never past kMinSamplesGrace times max_seconds.
    const double elapsed = ms_since(start);
    const bool enough = static_cast<int>(timed.front().samples.size()) >= config.min_samples;
    if (all_precise || (elapsed > config.max_seconds * 1000.0 && enough) ||
        elapsed > kMinSamplesGrace * config.max_seconds * 1000.0)
      break;
  }
  for (auto& entry : timed)
    while (static_cast<int>(entry.wall.size()) < kMinWallSamples) wall_launch(entry);

  // The outputs of the last launch on every set; guards of every buffer.
  TimeReply reply;
  reply.sets = set_count;
  for (std::size_t v = 0; v < timed.size(); ++v) {
    Timed& entry = timed[v];
    for (std::size_t k = 0; k < entry.bindings.size(); ++k)
      if (entry.launched_on[k] > 0) verify_launch(entry, k);
    if (entry.verify && entry.verdict.passed) {
      for (std::size_t k = 0; k < entry.bindings.size() && entry.verdict.passed; ++k)
        for (std::size_t i = 0; i < t.args.size(); ++i)
          if (entry.bindings[k].buffers[i] >= 0 && !device_->guards_intact(entry.bindings[k].buffers[i])) {
            entry.verdict = {false, true,
                             "out-of-bounds write: memory just outside buffer '" + t.args[i].name + "' was overwritten"};
            entry.failed_at_launch = entry.launches;
            entry.failed_set = static_cast<int>(k);
            break;
          }
    }
    TimingStats stats = summarize(entry.samples);
    stats.wall_ms = summarize(entry.wall).min_ms;  // the fastest: one preempted launch is not hidden work
    reply.results.push_back({entry.id, stats, entry.samples, entry.launches, verification_of(entry, set_count)});
  }
  overhead["reset_ms"] = reset_ms;
  overhead["verify_ms"] = verify_ms;
  reply.overhead = overhead;
  return reply;
}

}  // namespace kforge
