#include "cli/app.h"

#include <map>

#include "cli/commands.h"
#include "util/log.h"
#include "util/version.h"

namespace kforge {

int run_cli(int argc, char** argv) {
  CLI::App app{"kforge: autonomous GPU-kernel optimizer"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kforge ") + kVersion);
  bool quiet = false, verbose = false;
  app.add_flag("-q,--quiet", quiet, "Only warnings, errors and the final result");
  app.add_flag("-v,--verbose", verbose, "More detail");

  std::map<CLI::App*, cli::Action> actions;
  for (const cli::Command& command : cli::command_table()) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    actions[sub] = command.setup(*sub);
  }

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
