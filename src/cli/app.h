#pragma once

namespace kforge {
int run_cli(int argc, char** argv);
}
