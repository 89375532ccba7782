// The sandboxed worker process: opens one device and answers JSON-line requests from the
// orchestrator on stdin/stdout (check a variant against the reference, time variants).
// Generated code only ever runs here, so a crash or hang costs a worker, never the run.
#pragma once

namespace kforge {
int run_worker(int argc, char** argv);
}
