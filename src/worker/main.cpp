#include "worker/worker.h"

int main(int argc, char** argv) { return kforge::run_worker(argc, argv); }
