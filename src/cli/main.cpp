#include "cli/app.h"

int main(int argc, char** argv) { return kforge::run_cli(argc, argv); }
