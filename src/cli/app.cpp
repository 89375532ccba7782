#include "cli/app.h"

#include <map>

#include "cli/commands.h"
#include "util/log.h"

namespace kforge {

int run_cli(int argc, char** argv) {
  CLI::App app{"kforge: autonomous GPU-kernel optimizer"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kforge 0.1.0");
  bool quiet = false, verbose = false;
  app.add_flag("-q,--quiet", quiet, "Only warnings, errors and the final result");
  app.add_flag("-v,--verbose", verbose, "More detail");

  std::map<CLI::App*, cli::Action> actions;
  auto add = [&](cli::Action (*registrar)(CLI::App&)) {
    const std::size_t before = app.get_subcommands({}).size();
    cli::Action action = registrar(app);
    actions[app.get_subcommands({}).at(before)] = std::move(action);
  };
  add(cli::add_doctor);
  add(cli::add_detect);
  add(cli::add_init);
  add(cli::add_bench);
  add(cli::add_profile);
  add(cli::add_optimize);
  add(cli::add_runs);
  add(cli::add_show);
  add(cli::add_report);
  add(cli::add_sweep);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  log::set_level(quiet ? log::Level::Quiet : verbose ? log::Level::Verbose : log::Level::Normal);
  for (auto* sub : app.get_subcommands()) {
    try {
      return actions.at(sub)();
    } catch (const std::exception& e) {
      log::error("{}", e.what());
      return 1;
    }
  }
  return 1;
}

}  // namespace kforge
