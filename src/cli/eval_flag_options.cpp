#include "cli/eval_flag_options.h"

namespace kforge::cli {

void add_eval_flags(CLI::App& sub, EvalFlags& flags) {
  sub.add_option("--timeout", flags.timeout_s, "Seconds a kernel may run per check before it counts as hung")
      ->capture_default_str();
  sub.add_option("--max-seconds", flags.max_seconds, "Time cap of one timing measurement")->capture_default_str();
  sub.add_option("--seeds", flags.seeds, "Fresh random inputs per problem size")->capture_default_str();
  sub.add_flag("--no-flush", flags.no_flush, "Do not evict the cache between timed launches");
  sub.add_option("--device", flags.device, "Device index")->capture_default_str();
}

}  // namespace kforge::cli
