// The worker protocol's one JSON mapping: every request and reply survives a round trip, the
// defaults are the structs', and plans carry numbers only (a worker never sees an expression).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "protocol/check_inputs.h"
#include "protocol/plan_resolve.h"
#include "protocol/worker_protocol.h"

namespace kforge {
namespace {
using nlohmann::json;
const std::filesystem::path kSource = KFORGE_SOURCE_DIR;

Task tunable_vadd() { return load_task(kSource / "tests/kernels/tunable_vadd/kforge.toml"); }

TEST(Plans, EveryExpressionIsEvaluatedInTheOrchestrator) {
  const Task task = tunable_vadd();
  ParamValues params = task.default_params();
  const LaunchPlan launch = plan_launch(task, task.sizes.front(), params);
  const json wire = to_json(launch);
  // Only numbers cross: no string in shapes, scalars or geometry.
  for (const auto& shape : wire.at("shapes"))
    for (const auto& extent : shape) EXPECT_TRUE(extent.is_number_integer());
  for (const auto& scalar : wire.at("scalars")) EXPECT_TRUE(scalar.is_number());
  for (const auto& g : wire.at("grid")) EXPECT_GT(g.get<std::int64_t>(), 0);
  const LaunchPlan back = launch_plan_from_json(wire);
  EXPECT_EQ(back.shapes, launch.shapes);
  EXPECT_EQ(back.dims.grid, launch.dims.grid);
  EXPECT_EQ(back.dims.block, launch.dims.block);
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    if (task.args[i].role == ArgRole::Scalar) continue;
    EXPECT_EQ(back.count(i), element_count(task.args[i], bindings_for(task, task.sizes.front(), params)));
  }
}

TEST(Plans, ParametersThatBreakTheLaunchAreATaskErrorNamingTheManifest) {
  const Task task = tunable_vadd();
  ParamValues params = task.default_params();
  for (auto& [name, value] : params) value = 0;  // a zero block size or items-per-thread
  try {
    plan_launch(task, task.sizes.front(), params);
    FAIL() << "a zero launch dimension must not reach a worker";
  } catch (const TaskError& e) {
    EXPECT_NE(std::string(e.what()).find("kforge.toml"), std::string::npos) << e.what();
  } catch (const std::exception& e) {  // a division by zero in an expression is also refused
    SUCCEED() << e.what();
  }
}

TEST(Plans, TaskPlanRoundTripsWithToleranceAndDraws) {
  const Task task = load_task(kSource / "examples/sum_reduction/opencl/kforge.toml");
  const TaskPlan plan = plan_task(task);
  const TaskPlan back = task_plan_from_json(json::parse(to_json(plan).dump()));
  ASSERT_EQ(back.args.size(), task.args.size());
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    EXPECT_EQ(back.args[i].name, task.args[i].name);
    EXPECT_EQ(back.args[i].init, task.args[i].init);
    EXPECT_EQ(back.args[i].tolerance.atol, tolerance_for(task, task.args[i].dtype).atol);
  }
  EXPECT_EQ(check_draws(back.args), check_draws(plan.args));
  EXPECT_EQ(back.tolerance(DType::F16).atol, tolerance_for(task, DType::F16).atol);
  EXPECT_EQ(back.python_kind, PythonTaskKind::None);
}

TEST(WorkerProtocol, RequestsRoundTripAndCarryNoManifest) {
  const Task task = tunable_vadd();
  const ProblemSize& size = task.sizes.front();
  const VariantSpec variant{"candidate", "/tmp/k.bin", "cubin", "vadd", task.default_params(),
                            plan_launch(task, size, task.default_params())};
  CheckRequest check{plan_task(task), size.name, variant, variant, {1, 2}, {"manifest", "wide"}, {}};
  check.tolerances["c"] = {1e-4, 1e-5, 2.0, 8.0};
  const json wire = to_json(check);
  EXPECT_EQ(wire.at("op"), worker_ops::kCheck);
  EXPECT_FALSE(wire.contains("manifest"));
  EXPECT_EQ(wire.dump().find(".toml"), std::string::npos) << "a worker reads no project file";
  const CheckRequest back = check_request_from_json(json::parse(wire.dump()));
  EXPECT_EQ(back.seeds, check.seeds);
  EXPECT_EQ(back.draws, check.draws);
  EXPECT_EQ(back.variant.entry, "vadd");
  EXPECT_EQ(back.tolerances.at("c").fan_in, 8.0);

  TimeRequest time{plan_task(task), size.name, {variant}, std::nullopt, 7, {}};
  const TimeRequest time_back = time_request_from_json(to_json(time));
  EXPECT_FALSE(time_back.reference.has_value());
  EXPECT_EQ(time_back.seed, 7u);
  const TimingConfig defaults;
  EXPECT_EQ(time_back.timing.max_samples, defaults.max_samples);
  // A request that leaves the timing out gets the one set of defaults.
  json bare = to_json(time);
  bare.erase("max_samples");
  EXPECT_EQ(time_request_from_json(bare).timing.max_samples, defaults.max_samples);
}

TEST(WorkerProtocol, RepliesRoundTripIncludingFaultsAndVerification) {
  CheckReply check;
  check.checks.push_back({"small", 3, false, 0.5, 0.1, 12, "output 'c': 12 elements differ", "wide", "'wide'", true});
  const CheckReply check_back = check_reply_from_json(to_json(check));
  ASSERT_EQ(check_back.checks.size(), 1u);
  EXPECT_TRUE(check_back.checks[0].out_of_bounds);
  EXPECT_EQ(check_back.checks[0].mismatches, 12);
  EXPECT_EQ(to_json(check).at("ok"), true);

  TimeReply time;
  TimedResult result;
  result.id = "1";
  result.stats.median_ms = 2;
  result.samples_ms = {2, 2.1};
  result.verification = {true, false, false, 4, 40, 9, "buffer set 2 of 4, launch 17: wrong"};
  time.results.push_back(result);
  time.sets = 4;
  const TimeReply time_back = time_reply_from_json(to_json(time));
  EXPECT_EQ(time_back.sets, 4);
  EXPECT_FALSE(time_back.results[0].verification.passed);
  EXPECT_EQ(time_back.results[0].verification.message, result.verification.message);
  EXPECT_EQ(time_back.results[0].samples_ms, result.samples_ms);

  OutputCalibration calibration;
  calibration.name = "out";
  calibration.pass_factor = INFINITY;
  const OutputCalibration calibration_back = output_calibration_from_json(to_json(calibration));
  EXPECT_TRUE(std::isinf(calibration_back.pass_factor)) << "never passes survives as null";
  EXPECT_EQ(error_reply("boom", true).at("context_lost"), true);
}

}  // namespace
}  // namespace kforge
