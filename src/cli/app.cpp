#include "cli/app.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "cli/commands.h"
#include "cli/suggest.h"
#include "util/log.h"
#include "util/version.h"

namespace kforge {
namespace {

std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options())
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  return names;
}

// "did you mean ...?" for the first mistyped subcommand or long option on the command line;
// empty when nothing typed is close to a known name.
std::string suggestion(CLI::App& app, int argc, char** argv) {
  CLI::App* sub = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string token = argv[i];
    if (token.rfind("-", 0) == 0) {
      if (token.rfind("--", 0) != 0) continue;
      const std::string name = token.substr(0, token.find('='));
      std::vector<std::string> known = long_options(app);
      if (sub) {
        const auto own = long_options(*sub);
        known.insert(known.end(), own.begin(), own.end());
      }
      if (std::find(known.begin(), known.end(), name) != known.end()) continue;
      if (const auto close = cli::closest_name(name, known)) return fmt::format("unknown option '{}'; did you mean '{}'?", name, *close);
      continue;
    }
    if (sub) continue;  // a positional argument of the subcommand
    std::vector<std::string> commands;
    for (CLI::App* command : app.get_subcommands({})) {
      if (command->check_name(token)) sub = command;
      commands.push_back(command->get_name());
    }
    if (sub) continue;
    if (const auto close = cli::closest_name(token, commands))
      return fmt::format("unknown command '{}'; did you mean '{}'?", token, *close);
    return "";
  }
  return "";
}
}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"kforge: autonomous GPU-kernel optimizer"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("kforge {} (commit {}; backends compiled in: {})", kVersion, kCommit,
                                                kBuiltBackends));
  bool quiet = false, verbose = false;
  app.add_flag("-q,--quiet", quiet, "Only warnings, errors and the final result");
  app.add_flag("-v,--verbose", verbose, "More detail");

  std::map<CLI::App*, cli::Action> actions;
  for (const cli::Command& command : cli::command_table()) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    actions[sub] = command.setup(*sub);
    sub->fallthrough();  // -q / -v after the subcommand too
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    app.exit(e);
    if (const std::string hint = suggestion(app, argc, argv); !hint.empty()) std::fprintf(stderr, "%s\n", hint.c_str());
    return 2;  // a usage error, whatever CLI11's own code for it
  }
  log::set_level(quiet ? log::Level::Quiet : verbose ? log::Level::Verbose : log::Level::Normal);
  for (auto* sub : app.get_subcommands()) {
    try {
      return actions.at(sub)();
    } catch (const CLI::ParseError& e) {  // a flag's value checked by the command itself
      log::error("{}", e.what());
      return 2;
    } catch (const std::exception& e) {
      log::error("{}", e.what());
      return 1;
    }
  }
  return 1;
}

}  // namespace kforge
